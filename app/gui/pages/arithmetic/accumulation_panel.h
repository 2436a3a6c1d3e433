// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/background_runner.h"
#include "pages/arithmetic/accumulation_lab.h"

#include <QTimer>
#include <QWidget>

#include <atomic>
#include <memory>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QToolButton;

namespace fpx::gui {

class FormatSelection;

// The accumulation lab: N terms summed in several accumulator formats by several methods in a
// worker thread (progress, cancel), the running sums and their relative error against N on log
// axes with the stagnation points marked, a table of the final sums, and export.
class AccumulationPanel : public QWidget {
    Q_OBJECT

  public:
    enum Column {
        Accumulator,
        Method,
        Sum,
        Bits,
        ExactSum,
        RelativeError,
        Stagnation,
        Path,
        ColumnCount
    };

    explicit AccumulationPanel(FormatSelection* selection, QWidget* parent = nullptr);
    ~AccumulationPanel() override;

    // The form, as a user sets it (ids of shown formats; methods as parseSumMethod reads them).
    void setTerms(int terms);
    void setDistribution(const QString& text);
    void setElement(const QString& id); // empty: each accumulator's own format
    void setAccumulators(const QStringList& ids);
    void setMethods(const QStringList& methods);
    AccumulationLabRequest request() const;

    // A run in flight, until its result is shown.
    bool isRunning() const { return runner_.busy(); }
    const AccumulationLabResult& result() const { return result_; }
    QCustomPlot* plot() const { return plot_; }
    QTableWidget* table() const { return table_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    QString statusText() const;
    bool exportTo(const QString& path, QString* error = nullptr);

  public slots:
    void run();
    void cancel();

  signals:
    void finished(); // a run ended (completed, cancelled or refused)

  protected:
    void showEvent(QShowEvent* event) override; // the first showing runs the defaults

  private:
    void refillFormats();
    void applyResult(AccumulationLabResult result);
    void fillTable();
    void fillPlot();
    void setRunning(bool running);

    FormatSelection* selection_;
    QSpinBox* terms_;
    QComboBox* distribution_;
    QComboBox* element_;
    QListWidget* accumulators_;
    QCheckBox* sequential_;
    QCheckBox* pairwise_;
    QCheckBox* kahan_;
    QCheckBox* blocked_;
    QSpinBox* blockSize_;
    QSpinBox* seed_;
    QPushButton* run_;
    QPushButton* cancel_;
    QToolButton* export_;
    QProgressBar* progress_;
    QLabel* status_;
    QCustomPlot* plot_;
    QTableWidget* table_;

    QTimer progressTimer_;
    bool ranOnce_ = false;
    AccumulationLabResult result_;
    // Declared last, destroyed first: it waits for its job before the widgets go.
    BackgroundRunner<AccumulationLabResult> runner_;
};

} // namespace fpx::gui
