// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/quantization/quantization_model.h"
#include "pages/quantization/quantization_page_state.h"
#include "pages/quantization/quantization_table.h"

#include "common/background_runner.h"
#include "common/page.h"
#include <QElapsedTimer>
#include <QTimer>

#include <atomic>
#include <deque>
#include <memory>
#include <utility>

class QBoxLayout;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QTableWidget;

namespace fpx::gui {

class BlockInspector;
class QuantizationSourceForm;

// The Quantization page: a tensor (a file, opened or dropped, or values drawn from a
// distribution) read and quantized in several block formats off the GUI thread, with progress
// (elements, rate, time left) and Cancel (or Esc); a table of their errors, the values'
// histogram under the selected format's grid, the errors' histograms, SQNR against block size,
// and a block inspector. A cancelled run leaves the previous results shown. The results scroll
// beside the form, each plot at a legible height (common/plot_legibility.h): the table and the
// values plot first, the rest in pairs side by side where the width holds two, else stacked.
class QuantizationPage : public Page {
    Q_OBJECT

  public:
    // The table's columns, as QuantizationPage::Sqnr and so on.
    using Column = quantization_table::Column;
    using enum quantization_table::Column;

    explicit QuantizationPage(QWidget* parent = nullptr);
    ~QuantizationPage() override;

    // The form, as a user sets it (QuantizationSourceForm says what each takes). Each returns
    // an error message, or an empty string.
    QString setInputFile(const QString& argument, const QString& dtype = {});
    QString setDistribution(const QString& spec, qulonglong count, qulonglong seed = 1,
                            const QString& outliers = {});
    QString setFormats(const QStringList& ids);
    QString setBlock(const QString& layout);
    QString setScaleRule(const QString& rule);

    // The page's options and typed state (common/page_options.h): apply() sets the fields
    // that are set and returns the first problem as "--key: what is wrong"; state() is the
    // form as it stands.
    using State = QuantizationPageState;
    static std::span<const PageOption<State>> options();
    QString apply(const State& state);
    State state() const;
    // The request the form describes; nullopt with `error` when the form is not valid.
    std::optional<QuantizationRequest> request(QString& error) const;

    // The scroll area the results lie in, and whether they stand in two columns.
    QScrollArea* resultsArea() const { return resultsArea_; }
    bool resultsSideBySide() const;

    // A run in flight, until its result is shown.
    bool isRunning() const { return runner_.busy(); }
    bool busy() const override { return isRunning(); }
    const QuantizationResult& result() const { return result_; }
    void selectFormat(int row);
    // When the next run ends: select the row of `format` (empty: the first format quantized;
    // nullopt: the row selected now, if it is still there) and inspect `block` (nullopt: the
    // block with the largest scale).
    void selectAfterRun(const std::optional<QString>& format, std::optional<std::size_t> block);
    int selectedFormat() const;

    QTableWidget* table() const { return table_; }
    BlockInspector* inspector() const { return inspector_; }
    QCustomPlot* valuesPlot() const { return values_; }
    QCustomPlot* errorsPlot() const { return errors_; }
    QCustomPlot* sweepPlot() const { return sweep_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    // The progress bar and its counts, shown while a run has taken long enough to watch.
    QWidget* progressPanel() const { return progressPanel_; }
    QString progressText() const;
    QString statusText() const;
    QString errorText() const; // empty when the last run had no input problem
    QString gridLabel() const { return gridLabel_; }

  public slots:
    void run();
    void cancel();
    void openFile(); // a file dialog

  signals:
    void finished(); // a run ended (completed, cancelled or refused)

  protected:
    void showEvent(QShowEvent* event) override; // the first showing runs the form
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override; // a zoom: the results are arranged anew
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override; // Esc cancels a run

  private:
    void applyResult(QuantizationResult result);
    void fillTable();
    void showSelection();
    void drawValues();
    void showError(const QString& message);
    void setRunning(bool running);
    void showProgress();
    void fitFormWidth();
    void arrangeResults();
    void fitTableHeight();

    QWidget* controls_; // the form, the buttons and what the run says
    QuantizationSourceForm* form_;
    QPushButton* run_;
    QPushButton* cancel_;
    QWidget* progressPanel_;
    QProgressBar* progress_;
    QLabel* progressText_;
    QLabel* status_;
    QLabel* error_;
    QLabel* source_;
    QTableWidget* table_;
    QScrollArea* resultsArea_;
    QBoxLayout* upperPair_; // values and inspector
    QBoxLayout* lowerPair_; // errors and sweep
    QCustomPlot* values_;
    QCustomPlot* errors_;
    QCustomPlot* sweep_;
    BlockInspector* inspector_;
    QString gridLabel_;
    QString errorMessage_;

    QTimer progressTimer_;
    QElapsedTimer runClock_;
    // (ms since the run started, elements done): the last seconds' samples, for the rate.
    std::deque<std::pair<qint64, std::size_t>> samples_;
    // What the running job is doing (a QuantizationStage), written by its thread.
    std::shared_ptr<std::atomic<int>> stage_;
    std::size_t runFormats_ = 0; // the formats the running job quantizes
    bool cancelling_ = false;
    std::optional<QString> pendingFormat_;
    std::optional<std::size_t> pendingBlock_;
    bool ranOnce_ = false;
    QuantizationResult result_;
    // Declared last, destroyed first: it waits for its job before the widgets go.
    BackgroundRunner<QuantizationResult> runner_;
};

} // namespace fpx::gui
