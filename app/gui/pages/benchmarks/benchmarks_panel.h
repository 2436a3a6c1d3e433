// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/benchmarks/bench_controller.h"
#include "pages/benchmarks/benchmarks_page_state.h"

#include "common/page.h"
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace fpx::gui {

class BenchmarksChart;
class BenchResultsModel;

// The Benchmarks view: on the left what to measure (backends and devices, formats,
// directions, sizes, threads, time budget, input distribution, rounding, arithmetic, the CPU's
// sums and quantizers), Run and Cancel with a progress bar, exports and comparison with a saved
// run; on the right the live chart above the table of results. Benchmarks run on a worker
// thread: the window never blocks. The backends are looked for the first time the view is shown
// (or loadBackends()).
class BenchmarksPanel : public Page {
    Q_OBJECT

  public:
    // Where error messages go (a message box unless replaced, e.g. by tests).
    using MessageSink = std::function<void(const QString& title, const QString& text)>;

    explicit BenchmarksPanel(QWidget* parent = nullptr, BenchController::Loader loader = {});
    ~BenchmarksPanel() override;

    BenchController* controller() const { return controller_; }
    // Backends loading or a run in progress.
    bool busy() const override;

    // The page's options and typed state (common/page_options.h): apply() sets the fields
    // that are set and returns the first problem as "--key: what is wrong"; state() is the
    // form as it stands.
    using State = BenchmarksPageState;
    static std::span<const PageOption<State>> options();
    QString apply(const State& state);
    State state() const;
    BenchResultsModel* model() const { return model_; }
    BenchmarksChart* chart() const { return chart_; }
    QTableView* table() const { return table_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* classRunButton() const { return classRun_; }
    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    QLabel* statusLabel() const { return status_; }
    QTreeWidget* backendTree() const { return backendTree_; }
    void setMessageSink(MessageSink sink) { messageSink_ = std::move(sink); }

    void loadBackends();
    // The form, for tests and the command line.
    void setBackendsChecked(const QStringList& ids); // every device of these backends
    void setFormats(const QStringList& ids);
    QStringList checkedFormats() const;
    void setDirections(bool encode, bool decode);
    // In cache, beyond the last-level cache, custom ("4k, 1M": k = 1024).
    void setSizes(bool inCache, bool beyondCache, const QString& custom = {});
    void setThreads(bool one, bool all);
    void setBudget(double seconds);
    void setDistribution(bench::InputDistribution distribution);
    void setArithmetic(bool on);
    // The CPU's sums and quantizers after its run (BenchJob::sumsAndQuantizers).
    void setSumsAndQuantizers(bool on);

    // What the form asks for, one job per checked backend; nullopt and `error` when the form
    // cannot run (nothing checked, a bad custom size).
    std::optional<std::vector<BenchJob>> jobs(QString* error) const;

    bool exportJson(const QString& path);
    bool exportCsv(const QString& path);
    // Loads a run saved as JSON for comparison; a bad file is reported and changes nothing.
    bool loadComparison(const QString& path);
    void clearComparison();

    // "4k, 1M, 100000" → element counts (bench::parseSizes); nullopt and `error` when
    // malformed.
    static std::optional<std::vector<std::size_t>> parseSizes(const QString& text, QString* error);

  public slots:
    // The full run: what the form asks for.
    void run();
    // The class preset (fpx/bench/bench_preset.h) on the CPU, whatever the form says: a few
    // conversions, each shown at the end by its fastest bit-exact path with a readable name.
    void runClass();
    void cancel();

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    // The form; Run, Cancel, exports, comparison and progress go into `actions`.
    QWidget* buildForm(QWidget* actions);
    QGroupBox* buildBackendsGroup(QWidget* form);
    QGroupBox* buildFormatsGroup(QWidget* form);
    QGroupBox* buildMeasureGroup(QWidget* form);
    QGroupBox* buildTimingGroup(QWidget* form);
    void buildActions(QWidget* actions);
    void populateBackends();
    void updateButtons();
    void resizeColumns();
    void updateStatus();
    void onResultAdded(int index);
    void onFinished(bool cancelled);
    void chooseExport(bool json);
    void chooseComparison();
    void showMessage(const QString& title, const QString& text);

    BenchController* controller_;
    BenchResultsModel* model_;
    QSortFilterProxyModel* proxy_;
    MessageSink messageSink_;
    QString lastError_;
    bool runWhenLoaded_ = false;
    bool classWhenLoaded_ = false; // the run to start once loaded is the class one
    bool classRunning_ = false;    // the run in progress is the class one
    QTimer resizeTimer_;           // the table's columns follow the results, a few times a second

    QTreeWidget* backendTree_;
    QListWidget* formatList_;
    QCheckBox* encode_;
    QCheckBox* decode_;
    QCheckBox* arithmetic_;
    QCheckBox* sumsAndQuantizers_;
    QCheckBox* inCache_;
    QCheckBox* beyondCache_;
    QCheckBox* customSize_;
    QLineEdit* customSizes_;
    QCheckBox* oneThread_;
    QCheckBox* allThreads_;
    QDoubleSpinBox* budget_;
    QComboBox* distribution_;
    QComboBox* rounding_;
    QComboBox* overflow_;
    QPushButton* run_;
    QPushButton* classRun_;
    QPushButton* cancel_;
    QPushButton* exportJson_;
    QPushButton* exportCsv_;
    QPushButton* compare_;
    QPushButton* clearComparison_;
    QProgressBar* progress_;
    QLabel* current_;
    QLabel* status_;
    BenchmarksChart* chart_;
    QTableView* table_;
    QSplitter* splitter_;
};

} // namespace fpx::gui
