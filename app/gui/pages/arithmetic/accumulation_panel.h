// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/background_runner.h"
#include "pages/arithmetic/accumulation_lab.h"

#include <QTimer>
#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QToolButton;

namespace fpx::gui {

class FoldingForm;
class FormatSelection;

// The accumulation lab: N terms summed in several accumulator formats by several methods in a
// worker thread (progress, cancel), the running sums and their relative error against N on log
// axes with the stagnation points marked, a table of the final sums, and export. The form sits
// above the plot and folds away where the window is too short for both (common/folding_form.h).
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
    void setSeed(int seed);
    AccumulationLabRequest request() const;

    // A run in flight, until its result is shown.
    bool isRunning() const { return runner_.busy(); }
    const AccumulationLabResult& result() const { return result_; }
    QCustomPlot* plot() const { return plot_; }
    QTableWidget* table() const { return table_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    FoldingForm* fold() const { return fold_; }
    QString statusText() const;
    bool exportTo(const QString& path, QString* error = nullptr);

  public slots:
    void run();
    void cancel();

  signals:
    void finished(); // a run ended (completed, cancelled or refused)

  protected:
    void showEvent(QShowEvent* event) override; // the first showing runs the defaults
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void refillFormats();
    void applyResult(AccumulationLabResult result);
    void fillTable();
    void fillPlot();
    void setRunning(bool running);
    void fitTable();

    FormatSelection* selection_;
    FoldingForm* fold_;
    QSpinBox* terms_;
    QComboBox* distribution_;
    QComboBox* element_;
    QWidget* accumulators_;
    std::vector<QCheckBox*> accumulatorBoxes_;
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
