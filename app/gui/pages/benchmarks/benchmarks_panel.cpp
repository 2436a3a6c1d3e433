// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/benchmarks/benchmarks_panel.h"

#include "pages/benchmarks/bench_results_model.h"
#include "pages/benchmarks/benchmarks_chart.h"
#include "pages/benchmarks/saved_run.h"

#include "fpx/bench/bench_preset.h"
#include "fpx/bench/sizes.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/rounding.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <bit>
#include <thread>
#include <utility>

namespace fpx::gui {

namespace {

// The formats checked by default: those ML engineers choose between.
const QStringList kDefaultFormats = {"fp16",     "bf16",     "fp8_e4m3", "fp8_e5m2",
                                     "fp6_e3m2", "fp4_e2m1", "int8",     "nf4"};

constexpr int kSummaryRole = Qt::UserRole;    // backend item: index into summaries()
constexpr int kDeviceRole = Qt::UserRole + 1; // device item: device index

struct DistributionItem {
    bench::InputDistribution distribution;
    const char* label;
    const char* tip;
};

constexpr DistributionItem kDistributions[] = {
    {bench::InputDistribution::Normal, QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel", "Normal"),
     QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel",
                       "Random values across the format's normal range: the common case.")},
    {bench::InputDistribution::Subnormal,
     QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel", "Subnormals"),
     QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel",
                       "Many tiny values that round to subnormals: slow paths and flush-to-zero "
                       "show up here.")},
    {bench::InputDistribution::Overflowing,
     QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel", "Overflowing"),
     QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel",
                       "Many values beyond the format's largest finite value: overflow "
                       "handling (∞, NaN or saturation).")},
    {bench::InputDistribution::WithNaN, QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel", "With NaN"),
     QT_TRANSLATE_NOOP("fpx::gui::BenchmarksPanel", "Normal values mixed with NaNs and ±∞.")},
};

constexpr RoundingMode kModes[] = {RoundingMode::NearestEven,    RoundingMode::NearestAway,
                                   RoundingMode::TowardZero,     RoundingMode::TowardPositive,
                                   RoundingMode::TowardNegative, RoundingMode::Stochastic,
                                   RoundingMode::ToOdd};

QString bytesText(std::uint64_t bytes) {
    if (bytes == 0)
        return QStringLiteral("?");
    if (bytes >= (1ull << 30))
        return QStringLiteral("%1 GiB").arg(static_cast<double>(bytes) / (1ull << 30), 0, 'f', 1);
    if (bytes >= (1ull << 20))
        return QStringLiteral("%1 MiB").arg(static_cast<double>(bytes) / (1ull << 20), 0, 'f', 1);
    return QStringLiteral("%1 KiB").arg(static_cast<double>(bytes) / 1024, 0, 'f', 0);
}

QString deviceToolTip(const bench::DeviceInfo& d) {
    QStringList lines;
    lines << QString::fromStdString(d.name);
    if (!d.driver.empty())
        lines << QObject::tr("Driver: %1").arg(QString::fromStdString(d.driver));
    if (!d.details.empty())
        lines << QObject::tr("Features: %1").arg(QString::fromStdString(d.details));
    if (d.computeUnits > 0)
        lines << QObject::tr("Compute units: %1").arg(d.computeUnits);
    if (d.memoryBytes > 0)
        lines << QObject::tr("Memory: %1").arg(bytesText(d.memoryBytes));
    if (d.lastLevelCacheBytes > 0)
        lines << QObject::tr("Last-level cache: %1").arg(bytesText(d.lastLevelCacheBytes));
    if (d.datasheetBandwidth > 0)
        lines << QObject::tr("Datasheet bandwidth: %1 GB/s").arg(d.datasheetBandwidth / 1e9);
    return lines.join('\n');
}

int hardwareThreads() {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

} // namespace

BenchmarksPanel::BenchmarksPanel(QWidget* parent, BenchController::Loader loader)
    : Page(parent), controller_(new BenchController(this, std::move(loader))),
      model_(new BenchResultsModel(this)), proxy_(new QSortFilterProxyModel(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    splitter_ = new QSplitter(Qt::Horizontal, this);
    // Left: the form (scrolls when the window is short) above the actions, always in view.
    auto* left = new QWidget(splitter_);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* formScroll = new QScrollArea(left);
    formScroll->setWidgetResizable(true);
    formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    formScroll->setFrameShape(QFrame::NoFrame);
    auto* actions = new QWidget(left);
    formScroll->setWidget(buildForm(actions));
    formScroll->setMinimumWidth(formScroll->widget()->sizeHint().width() +
                                style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4);
    leftLayout->addWidget(formScroll, 1);
    leftLayout->addWidget(actions);

    auto* right = new QSplitter(Qt::Vertical, splitter_);
    chart_ = new BenchmarksChart(model_, right);
    chart_->setObjectName("benchChartPanel");
    table_ = new QTableView(right);
    table_->setObjectName("benchTable");
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    table_->setModel(proxy_);
    table_->horizontalHeader()->setSortIndicatorClearable(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    table_->setSortingEnabled(true); // arrival order until a header is clicked
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setColumnHidden(BenchResultsModel::VsSaved, true);
    table_->setColumnHidden(BenchResultsModel::Workload, true);
    table_->setColumnHidden(BenchResultsModel::Ratio, true);
    table_->setToolTip(tr("One row per result; click a header to sort, hover a cell for details."));
    right->addWidget(chart_);
    right->addWidget(table_);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setSizes({600, 400});
    splitter_->addWidget(left);
    splitter_->addWidget(right);
    splitter_->setStretchFactor(0, 0);
    splitter_->setStretchFactor(1, 1);
    layout->addWidget(splitter_);

    resizeTimer_.setSingleShot(true);
    resizeTimer_.setInterval(500);
    connect(&resizeTimer_, &QTimer::timeout, this, &BenchmarksPanel::resizeColumns);
    connect(controller_, &BenchController::backendsReady, this, [this] {
        populateBackends();
        if (runWhenLoaded_) {
            runWhenLoaded_ = false;
            if (std::exchange(classWhenLoaded_, false))
                runClass();
            else
                run();
        }
    });
    connect(controller_, &BenchController::started, this, [this] {
        lastError_.clear();
        updateButtons();
        updateStatus();
    });
    connect(controller_, &BenchController::resultsCleared, model_, &BenchResultsModel::clear);
    connect(controller_, &BenchController::resultAdded, this, &BenchmarksPanel::onResultAdded);
    connect(controller_, &BenchController::progress, this,
            [this](double fraction, const QString& text) {
                progress_->setValue(static_cast<int>(fraction * 1000));
                current_->setText(text);
                current_->setToolTip(text);
            });
    connect(controller_, &BenchController::errorOccurred, this, [this](const QString& message) {
        lastError_ = message;
        updateStatus();
    });
    connect(controller_, &BenchController::finished, this, &BenchmarksPanel::onFinished);
    connect(controller_, &BenchController::backendsReady, this, [this] { workEnded(); });
    connect(controller_, &BenchController::finished, this, [this] { workEnded(); });
    connect(chart_, &BenchmarksChart::resultClicked, this, [this](int row) {
        const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
        table_->selectRow(index.row());
        table_->scrollTo(index);
    });
    updateButtons();
}

bool BenchmarksPanel::busy() const {
    return controller_->isLoading() || controller_->isRunning();
}

BenchmarksPanel::~BenchmarksPanel() {
    // Stop a run while this panel can still take the controller's last signals.
    controller_->cancelAndWait();
}

QWidget* BenchmarksPanel::buildForm(QWidget* actions) {
    auto* form = new QWidget;
    form->setObjectName("benchForm");
    auto* layout = new QVBoxLayout(form);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(buildBackendsGroup(form));
    layout->addWidget(buildFormatsGroup(form));
    layout->addWidget(buildMeasureGroup(form));
    layout->addWidget(buildTimingGroup(form));
    layout->addStretch();
    buildActions(actions);
    return form;
}

// Where to run: the backends and their devices, filled in by populateBackends().
QGroupBox* BenchmarksPanel::buildBackendsGroup(QWidget* form) {
    auto* where = new QGroupBox(tr("Backends and devices"), form);
    where->setToolTip(tr("Where to run. Backends that cannot run here are greyed out; hover one "
                         "for the reason."));
    auto* whereLayout = new QVBoxLayout(where);
    backendTree_ = new QTreeWidget(where);
    backendTree_->setObjectName("benchBackends");
    backendTree_->setHeaderHidden(true);
    backendTree_->setRootIsDecorated(true);
    backendTree_->setFixedHeight(4 * (fontMetrics().height() + 6));
    backendTree_->setToolTip(tr("Check the backends and devices to measure. The CPU backend is "
                                "built in; CUDA and OpenCL are plugins loaded at run time."));
    auto* looking = new QTreeWidgetItem(backendTree_, {tr("Looking for backends…")});
    looking->setFlags(Qt::NoItemFlags);
    whereLayout->addWidget(backendTree_);
    return where;
}

// The formats, as a grid of check boxes, with Defaults and None.
QGroupBox* BenchmarksPanel::buildFormatsGroup(QWidget* form) {
    auto* what = new QGroupBox(tr("Formats"), form);
    what->setToolTip(tr("The number formats to convert to and from FP32."));
    auto* whatLayout = new QVBoxLayout(what);
    formatList_ = new QListWidget(what);
    formatList_->setObjectName("benchFormats");
    formatList_->setToolTip(tr("Check the formats to measure; hover one for what it is and how "
                               "each device handles it."));
    for (const FormatSpec& spec : builtinFormats()) {
        auto* item = new QListWidgetItem(QString::fromStdString(spec.id), formatList_);
        item->setData(Qt::UserRole, QString::fromStdString(spec.id));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
        item->setCheckState(kDefaultFormats.contains(QString::fromStdString(spec.id))
                                ? Qt::Checked
                                : Qt::Unchecked);
        item->setToolTip(QStringLiteral("%1\n%2").arg(QString::fromStdString(spec.displayName),
                                                      QString::fromStdString(spec.description)));
    }
    // A grid of check boxes, as many columns as fit.
    int widest = 0;
    for (int r = 0; r < formatList_->count(); ++r)
        widest = std::max(widest, fontMetrics().horizontalAdvance(formatList_->item(r)->text()));
    const int cellHeight = fontMetrics().height() + 6;
    formatList_->setFlow(QListView::LeftToRight);
    formatList_->setWrapping(true);
    formatList_->setResizeMode(QListView::Adjust);
    formatList_->setGridSize(QSize(widest + 30, cellHeight));
    formatList_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    formatList_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    constexpr int kColumns = 3;
    formatList_->setFixedWidth(kColumns * (widest + 30) + 2 * formatList_->frameWidth() + 6);
    formatList_->setFixedHeight(cellHeight * ((formatList_->count() + kColumns - 1) / kColumns) +
                                2 * formatList_->frameWidth() + 6);
    whatLayout->addWidget(formatList_);
    auto* formatButtons = new QHBoxLayout;
    auto* defaults = new QPushButton(tr("Defaults"), what);
    defaults->setToolTip(tr("FP16, BF16, FP8 E4M3 and E5M2, FP6 E3M2, FP4 E2M1, INT8 and NF4."));
    auto* none = new QPushButton(tr("None"), what);
    none->setToolTip(tr("Uncheck every format."));
    formatButtons->addWidget(defaults);
    formatButtons->addWidget(none);
    formatButtons->addStretch();
    whatLayout->addLayout(formatButtons);
    connect(defaults, &QPushButton::clicked, this, [this] { setFormats(kDefaultFormats); });
    connect(none, &QPushButton::clicked, this, [this] { setFormats({}); });
    return what;
}

// Which operations, sizes (bench/sizes.h) and thread counts.
QGroupBox* BenchmarksPanel::buildMeasureGroup(QWidget* form) {
    auto* measure = new QGroupBox(tr("Measure"), form);
    measure->setToolTip(tr("Which operations, sizes and thread counts to time."));
    auto* grid = new QGridLayout(measure);
    grid->setVerticalSpacing(2);
    encode_ = new QCheckBox(tr("Encode FP32 → format"), measure);
    encode_->setObjectName("benchEncode");
    encode_->setChecked(true);
    encode_->setToolTip(tr("Bulk conversion: round FP32 inputs into the format (quantize), with "
                           "the copy bandwidth of the same arrays as the ceiling."));
    decode_ = new QCheckBox(tr("Decode format → FP32"), measure);
    decode_->setObjectName("benchDecode");
    decode_->setChecked(true);
    decode_->setToolTip(tr("Bulk conversion: widen codes of the format back to FP32 "
                           "(dequantize, exact), with the copy bandwidth as the ceiling."));
    arithmetic_ = new QCheckBox(tr("Arithmetic (FMA, matrix multiply)"), measure);
    arithmetic_->setObjectName("benchArithmetic");
    arithmetic_->setToolTip(tr("Operations per second in the formats, against the device's "
                               "datasheet dense peak. Slow on CPUs without matrix units."));
    sumsAndQuantizers_ = new QCheckBox(tr("Sums and quantizers (CPU)"), measure);
    sumsAndQuantizers_->setObjectName("benchSumsAndQuantizers");
    sumsAndQuantizers_->setToolTip(
        tr("After the CPU's run, as fpx bench: sums in FP16, BF16 and FP8 E4M3 against a plain "
           "float loop and the exact sum against memcpy (one thread), the block quantizers "
           "against memcpy (every thread) and loading + quantizing a .safetensors file against "
           "reading it, on the largest size; each as a ratio with its goal."));
    inCache_ = new QCheckBox(
        tr("In cache (%1 elements)").arg(BenchResultsModel::elementsText(bench::kInCacheElements)),
        measure);
    inCache_->setObjectName("benchInCache");
    inCache_->setChecked(true);
    inCache_->setToolTip(tr("Arrays that fit in the L2 cache: the speed of the conversion code "
                            "itself."));
    beyondCache_ = new QCheckBox(tr("Beyond the last-level cache"), measure);
    beyondCache_->setObjectName("benchBeyondCache");
    beyondCache_->setChecked(true);
    beyondCache_->setToolTip(tr("Arrays of at least twice the last-level cache (at least 16 Mi "
                                "elements): memory-bound, compared with the copy bandwidth."));
    customSize_ = new QCheckBox(tr("Custom:"), measure);
    customSize_->setObjectName("benchCustomSize");
    customSize_->setToolTip(tr("Element counts of your own."));
    customSizes_ = new QLineEdit(measure);
    customSizes_->setObjectName("benchCustomSizes");
    customSizes_->setPlaceholderText(tr("4k, 1M, 100000"));
    customSizes_->setToolTip(tr("Element counts, comma-separated; k, M and G multiply by 1024, "
                                "1024² and 1024³."));
    oneThread_ = new QCheckBox(tr("1 thread"), measure);
    oneThread_->setObjectName("benchOneThread");
    oneThread_->setChecked(true);
    oneThread_->setToolTip(tr("One CPU thread: per-core speed (other backends ignore threads)."));
    allThreads_ = new QCheckBox(tr("All %1 threads").arg(hardwareThreads()), measure);
    allThreads_->setObjectName("benchAllThreads");
    allThreads_->setChecked(hardwareThreads() > 1);
    allThreads_->setToolTip(tr("Every hardware thread of the CPU: the whole machine's throughput "
                               "and memory bandwidth."));
    int row = 0;
    grid->addWidget(encode_, row++, 0, 1, 2);
    grid->addWidget(decode_, row++, 0, 1, 2);
    grid->addWidget(arithmetic_, row++, 0, 1, 2);
    grid->addWidget(sumsAndQuantizers_, row++, 0, 1, 2);
    auto* sizesLabel = new QLabel(tr("<b>Sizes</b>"), measure);
    sizesLabel->setToolTip(tr("Array sizes, in elements."));
    grid->addWidget(sizesLabel, row++, 0, 1, 2);
    grid->addWidget(inCache_, row++, 0, 1, 2);
    grid->addWidget(beyondCache_, row++, 0, 1, 2);
    grid->addWidget(customSize_, row, 0);
    grid->addWidget(customSizes_, row++, 1);
    auto* threadsLabel = new QLabel(tr("<b>Threads</b>"), measure);
    threadsLabel->setToolTip(tr("CPU thread counts."));
    auto* threads = new QHBoxLayout;
    threads->addWidget(oneThread_);
    threads->addWidget(allThreads_);
    threads->addStretch();
    grid->addWidget(threadsLabel, row, 0);
    grid->addLayout(threads, row++, 1);
    connect(customSizes_, &QLineEdit::textEdited, this,
            [this](const QString& text) { customSize_->setChecked(!text.trimmed().isEmpty()); });
    return measure;
}

// The budget, the input distribution, the rounding mode and the overflow policy.
QGroupBox* BenchmarksPanel::buildTimingGroup(QWidget* form) {
    auto* how = new QGroupBox(tr("Timing and inputs"), form);
    how->setToolTip(tr("How long each measurement runs and what it converts."));
    auto* howLayout = new QFormLayout(how);
    budget_ = new QDoubleSpinBox(how);
    budget_->setObjectName("benchBudget");
    budget_->setRange(0.01, 60);
    budget_->setDecimals(2);
    budget_->setSingleStep(0.1);
    budget_->setValue(0.2);
    budget_->setSuffix(tr(" s"));
    budget_->setToolTip(tr("Seconds per measurement, split into samples after a warm-up. Longer "
                           "budgets give tighter spreads."));
    distribution_ = new QComboBox(how);
    distribution_->setObjectName("benchDistribution");
    for (const DistributionItem& item : kDistributions) {
        distribution_->addItem(tr(item.label), static_cast<int>(item.distribution));
        distribution_->setItemData(distribution_->count() - 1, tr(item.tip), Qt::ToolTipRole);
    }
    distribution_->setToolTip(tr("The random FP32 inputs, regenerated for every size so that "
                                 "caches and branch predictors cannot flatter a result."));
    rounding_ = new QComboBox(how);
    rounding_->setObjectName("benchRounding");
    for (RoundingMode mode : kModes)
        rounding_->addItem(QStringLiteral("%1 (%2)").arg(
                               QString::fromLatin1(roundingModeName(mode).data(),
                                                   qsizetype(roundingModeName(mode).size())),
                               QString::fromLatin1(roundingModeId(mode).data(),
                                                   qsizetype(roundingModeId(mode).size()))),
                           static_cast<int>(mode));
    rounding_->setToolTip(tr("Rounding mode of the encodes. Hardware paths often support only "
                             "nearest-even; others fall back to emulation."));
    overflow_ = new QComboBox(how);
    overflow_->setObjectName("benchOverflow");
    overflow_->addItem(tr("IEEE (∞ or NaN)"), static_cast<int>(OverflowPolicy::Ieee));
    overflow_->addItem(tr("Saturate"), static_cast<int>(OverflowPolicy::Saturate));
    overflow_->setToolTip(tr("What encodes do with values beyond the largest finite one: IEEE "
                             "gives ±∞ (NaN without ∞), saturate gives ±max (\"satfinite\")."));
    howLayout->addRow(tr("Budget"), budget_);
    howLayout->addRow(tr("Inputs"), distribution_);
    howLayout->addRow(tr("Rounding"), rounding_);
    howLayout->addRow(tr("Overflow"), overflow_);
    return how;
}

// Run, Cancel, export and comparison buttons, the progress bar and the status lines.
void BenchmarksPanel::buildActions(QWidget* actions) {
    auto* actionLayout = new QVBoxLayout(actions);
    actionLayout->setContentsMargins(4, 0, 4, 4);
    auto* buttons = new QGridLayout;
    run_ = new QPushButton(tr("Full run"), actions);
    run_->setObjectName("benchRun");
    run_->setDefault(true);
    run_->setToolTip(tr("Measure what is checked (Ctrl+R): every path of every format, minutes. "
                        "The window stays usable; results appear as they are measured."));
    classRun_ = new QPushButton(tr("Class run"), actions);
    classRun_->setObjectName("benchClassRun");
    classRun_->setToolTip(
        tr("A run a class can watch, seconds long: FP32 → BF16, FP16, FP8 E4M3 and FP4 E2M1 "
           "(MXFP4's elements), in cache on one thread, each shown by its fastest bit-exact "
           "instruction set beside memcpy (fpx bench --preset class). The form is left as it "
           "is."));
    cancel_ = new QPushButton(tr("Cancel"), actions);
    cancel_->setObjectName("benchCancel");
    cancel_->setToolTip(tr("Stop after the current measurement; the results so far stay."));
    exportJson_ = new QPushButton(tr("Export JSON…"), actions);
    exportJson_->setObjectName("benchExportJson");
    exportJson_->setToolTip(tr("Save the results with the device, driver and build metadata as "
                               "JSON (it can be compared with later)."));
    exportCsv_ = new QPushButton(tr("Export CSV…"), actions);
    exportCsv_->setObjectName("benchExportCsv");
    exportCsv_->setToolTip(tr("Save the results as a CSV table, one row per result."));
    compare_ = new QPushButton(tr("Compare with saved run…"), actions);
    compare_->setObjectName("benchCompare");
    compare_->setToolTip(tr("Load a run exported as JSON: its results appear as lighter bars "
                            "beside matching ones, and the table gets a \"vs saved\" ratio."));
    clearComparison_ = new QPushButton(tr("Clear comparison"), actions);
    clearComparison_->setObjectName("benchClearComparison");
    clearComparison_->setToolTip(tr("Stop comparing with the saved run."));
    buttons->addWidget(classRun_, 0, 0);
    buttons->addWidget(run_, 0, 1);
    buttons->addWidget(cancel_, 1, 0, 1, 2);
    buttons->addWidget(exportJson_, 2, 0);
    buttons->addWidget(exportCsv_, 2, 1);
    buttons->addWidget(compare_, 3, 0);
    buttons->addWidget(clearComparison_, 3, 1);
    actionLayout->addLayout(buttons);

    progress_ = new QProgressBar(actions);
    progress_->setObjectName("benchProgress");
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(true);
    progress_->setFormat(QStringLiteral("%p%"));
    progress_->setToolTip(tr("Progress of the whole run."));
    current_ = new QLabel(actions);
    current_->setObjectName("benchCurrent");
    current_->setWordWrap(true);
    current_->setToolTip(tr("What is being measured now."));
    status_ = new QLabel(actions);
    status_->setObjectName("benchStatus");
    status_->setWordWrap(true);
    status_->setTextFormat(Qt::PlainText);
    status_->setToolTip(tr("Backends that could not load, errors and the comparison in use."));
    actionLayout->addWidget(progress_);
    actionLayout->addWidget(current_);
    actionLayout->addWidget(status_);

    connect(run_, &QPushButton::clicked, this, &BenchmarksPanel::run);
    connect(classRun_, &QPushButton::clicked, this, &BenchmarksPanel::runClass);
    connect(cancel_, &QPushButton::clicked, this, &BenchmarksPanel::cancel);
    connect(exportJson_, &QPushButton::clicked, this, [this] { chooseExport(true); });
    connect(exportCsv_, &QPushButton::clicked, this, [this] { chooseExport(false); });
    connect(compare_, &QPushButton::clicked, this, &BenchmarksPanel::chooseComparison);
    connect(clearComparison_, &QPushButton::clicked, this, &BenchmarksPanel::clearComparison);
}

void BenchmarksPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    loadBackends();
}

void BenchmarksPanel::loadBackends() {
    controller_->loadBackends();
}

void BenchmarksPanel::populateBackends() {
    backendTree_->clear();
    const auto& summaries = controller_->summaries();
    std::vector<bench::DeviceInfo> devices;
    std::size_t beyond = 0;
    QStringList beyondParts;
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        const BackendSummary& s = summaries[i];
        auto* item = new QTreeWidgetItem(backendTree_);
        item->setData(0, kSummaryRole, static_cast<int>(i));
        if (!s.available()) {
            item->setText(0, tr("%1 — unavailable").arg(s.displayName));
            item->setFlags(Qt::ItemIsUserCheckable); // shown, disabled
            item->setCheckState(0, Qt::Unchecked);
            item->setToolTip(0, s.unavailableReason);
            continue;
        }
        item->setText(0, s.displayName);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsAutoTristate);
        item->setToolTip(0, s.devices.size() == 1
                                ? tr("%1: 1 device").arg(s.displayName)
                                : tr("%1: %2 devices").arg(s.displayName).arg(s.devices.size()));
        for (const bench::DeviceInfo& device : s.devices) {
            auto* child = new QTreeWidgetItem(item);
            child->setText(
                0,
                QStringLiteral("%1 %2").arg(device.index).arg(QString::fromStdString(device.name)));
            child->setData(0, kDeviceRole, device.index);
            child->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            child->setCheckState(0, i == 0 ? Qt::Checked : Qt::Unchecked);
            child->setToolTip(0, deviceToolTip(device));
            devices.push_back(device);
        }
        if (s.devices.empty())
            item->setCheckState(0, Qt::Unchecked);
        item->setExpanded(true);
        const std::size_t b = bench::beyondCacheElements(s.devices);
        beyond = std::max(beyond, b);
        beyondParts
            << QStringLiteral("%1 on %2").arg(BenchResultsModel::elementsText(b), s.displayName);
    }
    chart_->setDevices(devices);
    // Tall enough for every backend and device, within reason.
    int lines = 0;
    for (int t = 0; t < backendTree_->topLevelItemCount(); ++t)
        lines += 1 + backendTree_->topLevelItem(t)->childCount();
    backendTree_->setFixedHeight(std::clamp(lines, 2, 8) * backendTree_->sizeHintForRow(0) +
                                 2 * backendTree_->frameWidth() + 2);
    if (!beyondParts.isEmpty())
        beyondCache_->setText(tr("Beyond the last-level cache (%1)").arg(beyondParts.join(", ")));

    // How each format is handled, in its tooltip.
    for (int r = 0; r < formatList_->count(); ++r) {
        QListWidgetItem* item = formatList_->item(r);
        const std::string id = item->data(Qt::UserRole).toString().toStdString();
        const FormatLookup spec = findFormat(id);
        QStringList lines;
        if (spec)
            lines << QString::fromStdString(spec.spec->displayName)
                  << QString::fromStdString(spec.spec->description);
        for (const BackendSummary& s : summaries) {
            if (!s.available())
                continue;
            for (const bench::DeviceInfo& device : s.devices) {
                auto name = [&](bench::Direction d) {
                    return QString::fromLatin1(bench::supportId(s.supportFor(device.index, id, d)));
                };
                lines << tr("%1 %2: encode %3, decode %4")
                             .arg(s.displayName, QString::fromStdString(device.name),
                                  name(bench::Direction::Encode), name(bench::Direction::Decode));
            }
        }
        item->setToolTip(lines.join('\n'));
    }
    updateButtons();
    updateStatus();
}

std::optional<std::vector<std::size_t>> BenchmarksPanel::parseSizes(const QString& text,
                                                                    QString* error) {
    bench::SizeList parsed = bench::parseSizes(text.toStdString());
    if (!parsed.error.empty()) {
        if (error)
            *error = tr("Custom sizes: %1.").arg(QString::fromStdString(parsed.error));
        return std::nullopt;
    }
    return std::move(parsed.sizes);
}

std::optional<std::vector<BenchJob>> BenchmarksPanel::jobs(QString* error) const {
    auto fail = [error](const QString& message) -> std::optional<std::vector<BenchJob>> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    if (!controller_->backendsLoaded())
        return fail(tr("The backends are still loading."));

    bench::BenchRequest base;
    for (const QString& id : checkedFormats())
        if (const FormatLookup lookup = findFormat(id.toStdString()))
            base.formats.push_back(*lookup.spec);
    if (base.formats.empty())
        return fail(tr("Check at least one format."));
    base.directions.clear();
    if (encode_->isChecked())
        base.directions.push_back(bench::Direction::Encode);
    if (decode_->isChecked())
        base.directions.push_back(bench::Direction::Decode);
    base.conversions = !base.directions.empty();
    base.arithmetic = arithmetic_->isChecked();
    if (!base.conversions && !base.arithmetic && !sumsAndQuantizers_->isChecked())
        return fail(tr("Check encode, decode, arithmetic or sums and quantizers."));
    std::vector<std::size_t> custom;
    if (customSize_->isChecked()) {
        QString why;
        const auto parsed = parseSizes(customSizes_->text(), &why);
        if (!parsed)
            return fail(why);
        custom = *parsed;
    }
    if (!inCache_->isChecked() && !beyondCache_->isChecked() && custom.empty())
        return fail(tr("Check at least one size."));
    if (oneThread_->isChecked())
        base.threads.push_back(1);
    if (allThreads_->isChecked() && hardwareThreads() > 1)
        base.threads.push_back(hardwareThreads());
    if (allThreads_->isChecked() && base.threads.empty())
        base.threads.push_back(1);
    if (base.threads.empty())
        return fail(tr("Check 1 thread, all threads or both."));
    base.plan.budget = std::chrono::duration<double>(budget_->value());
    base.distribution = static_cast<bench::InputDistribution>(distribution_->currentData().toInt());
    base.rounding.mode = static_cast<RoundingMode>(rounding_->currentData().toInt());
    base.rounding.overflow = static_cast<OverflowPolicy>(overflow_->currentData().toInt());

    std::vector<BenchJob> result;
    const auto& summaries = controller_->summaries();
    for (int t = 0; t < backendTree_->topLevelItemCount(); ++t) {
        const QTreeWidgetItem* item = backendTree_->topLevelItem(t);
        const int index = item->data(0, kSummaryRole).toInt();
        if (index < 0 || index >= static_cast<int>(summaries.size()) ||
            !summaries[std::size_t(index)].available())
            continue;
        BenchJob job;
        job.backend = index;
        job.request = base;
        job.sumsAndQuantizers =
            sumsAndQuantizers_->isChecked() && summaries[std::size_t(index)].id == "cpu";
        for (int c = 0; c < item->childCount(); ++c)
            if (item->child(c)->checkState(0) == Qt::Checked)
                job.request.devices.push_back(item->child(c)->data(0, kDeviceRole).toInt());
        if (job.request.devices.empty())
            continue;
        if (inCache_->isChecked())
            job.request.sizes.push_back(bench::kInCacheElements);
        if (beyondCache_->isChecked())
            job.request.sizes.push_back(
                bench::beyondCacheElements(summaries[std::size_t(index)].devices));
        for (std::size_t size : custom)
            if (std::find(job.request.sizes.begin(), job.request.sizes.end(), size) ==
                job.request.sizes.end())
                job.request.sizes.push_back(size);
        std::sort(job.request.sizes.begin(), job.request.sizes.end());
        result.push_back(std::move(job));
    }
    if (result.empty())
        return fail(tr("Check at least one backend device."));
    return result;
}

void BenchmarksPanel::run() {
    if (controller_->isRunning())
        return;
    if (!controller_->backendsLoaded()) {
        runWhenLoaded_ = true;
        controller_->loadBackends();
        current_->setText(tr("Looking for backends…"));
        return;
    }
    QString error;
    const auto planned = jobs(&error);
    model_->setReadableLabels(false);
    classRunning_ = false;
    if (!planned || !controller_->start(*planned, &error)) {
        lastError_ = error;
        updateStatus();
        current_->setText(error);
        return;
    }
}

void BenchmarksPanel::runClass() {
    if (controller_->isRunning())
        return;
    if (!controller_->backendsLoaded()) {
        runWhenLoaded_ = true;
        classWhenLoaded_ = true;
        controller_->loadBackends();
        current_->setText(tr("Looking for backends…"));
        return;
    }
    const auto& summaries = controller_->summaries();
    const auto cpu = std::find_if(summaries.begin(), summaries.end(), [](const BackendSummary& b) {
        return b.id == "cpu" && b.available();
    });
    QString error = tr("The CPU backend cannot run.");
    BenchJob job;
    job.backend = static_cast<int>(cpu - summaries.begin());
    job.request = bench::classBenchRequest();
    model_->setReadableLabels(true);
    classRunning_ = true;
    if (cpu == summaries.end() || !controller_->start({job}, &error)) {
        classRunning_ = false;
        lastError_ = error;
        updateStatus();
        current_->setText(error);
    }
}

void BenchmarksPanel::cancel() {
    if (!controller_->isRunning())
        return;
    controller_->cancel();
    current_->setText(tr("Cancelling after the current measurement…"));
    cancel_->setEnabled(false);
}

void BenchmarksPanel::onResultAdded(int index) {
    model_->append(controller_->results()[std::size_t(index)]);
    if (!resizeTimer_.isActive())
        resizeTimer_.start();
    if (model_->hasComparison())
        updateStatus();
    updateButtons();
}

void BenchmarksPanel::resizeColumns() {
    resizeTimer_.stop();
    // One device: its name is on every row (and in the tooltips); give the room to the numbers.
    QSet<QString> devices;
    for (const bench::BenchResult& r : model_->results())
        devices.insert(QString::fromStdString(r.backend + '\x1f' + r.device));
    table_->setColumnHidden(BenchResultsModel::Backend, devices.size() == 1);
    table_->setColumnHidden(BenchResultsModel::Device, devices.size() == 1);
    // The sums' and quantizers' columns, where there are such rows.
    const auto& results = model_->results();
    table_->setColumnHidden(
        BenchResultsModel::Workload,
        std::none_of(results.begin(), results.end(),
                     [](const bench::BenchResult& r) { return !r.workload.empty(); }));
    table_->setColumnHidden(BenchResultsModel::Ratio,
                            std::none_of(results.begin(), results.end(),
                                         [](const bench::BenchResult& r) { return r.ratio > 0; }));
    table_->resizeColumnsToContents();
    // The device's name is long and the same on every row of a one-device run.
    const int cap = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 24;
    for (int column : {int(BenchResultsModel::Device), int(BenchResultsModel::Path)})
        table_->setColumnWidth(column, std::min(table_->columnWidth(column), cap));
}

void BenchmarksPanel::onFinished(bool cancelled) {
    // A class run ends on its few rows: each conversion's fastest bit-exact path and memcpy.
    if (std::exchange(classRunning_, false)) {
        const std::vector<bench::BenchResult> kept =
            bench::fastestExactPaths(controller_->results());
        model_->clear();
        for (const bench::BenchResult& r : kept)
            model_->append(r);
    }
    const int count = model_->rowCount();
    current_->setText(cancelled ? tr("Cancelled: %1 results kept.").arg(count)
                                : tr("Done: %1 results.").arg(count));
    if (!cancelled)
        progress_->setValue(progress_->maximum());
    resizeColumns();
    chart_->rebuild();
    updateButtons();
    updateStatus();
}

void BenchmarksPanel::updateButtons() {
    const bool running = controller_->isRunning();
    const bool haveResults = model_->rowCount() > 0;
    run_->setEnabled(!running && !controller_->isLoading());
    classRun_->setEnabled(!running && !controller_->isLoading());
    cancel_->setEnabled(running);
    exportJson_->setEnabled(!running && haveResults);
    exportCsv_->setEnabled(!running && haveResults);
    clearComparison_->setEnabled(model_->hasComparison());
}

void BenchmarksPanel::updateStatus() {
    QStringList lines; // (backends that cannot run say why in the tree's tooltips)
    if (model_->hasComparison()) {
        QString line = tr("Comparing with %1").arg(QFileInfo(model_->comparisonPath()).fileName());
        if (!model_->comparisonDescription().isEmpty())
            line += QStringLiteral(" (%1)").arg(model_->comparisonDescription());
        line += tr(": %1 of %2 saved results match.")
                    .arg(model_->matchedCount())
                    .arg(model_->savedCount());
        if (model_->comparisonIgnoresDevice())
            line += tr(" Another device: matched without the device name.");
        lines << line;
    }
    if (!lastError_.isEmpty())
        lines << lastError_;
    status_->setText(lines.join('\n'));
}

void BenchmarksPanel::showMessage(const QString& title, const QString& text) {
    lastError_ = text;
    updateStatus();
    if (messageSink_)
        messageSink_(title, text);
    else
        QMessageBox::warning(this, title, text);
}

bool BenchmarksPanel::exportJson(const QString& path) {
    QString error;
    if (controller_->exportJson(path, &error))
        return true;
    showMessage(tr("Export JSON"), error);
    return false;
}

bool BenchmarksPanel::exportCsv(const QString& path) {
    QString error;
    if (controller_->exportCsv(path, &error))
        return true;
    showMessage(tr("Export CSV"), error);
    return false;
}

void BenchmarksPanel::chooseExport(bool json) {
    const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    const QString suffix = json ? QStringLiteral("json") : QStringLiteral("csv");
    const QString path = QFileDialog::getSaveFileName(
        this, json ? tr("Export results as JSON") : tr("Export results as CSV"),
        QStringLiteral("fpx-bench-%1.%2").arg(stamp, suffix),
        json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (json)
        exportJson(path);
    else
        exportCsv(path);
}

bool BenchmarksPanel::loadComparison(const QString& path) {
    QString error;
    const std::optional<SavedRun> run = loadSavedRun(path, &error);
    if (!run) {
        showMessage(tr("Compare with saved run"), error);
        return false;
    }
    lastError_.clear();
    model_->setComparison(&*run);
    table_->setColumnHidden(BenchResultsModel::VsSaved, false);
    table_->resizeColumnToContents(BenchResultsModel::VsSaved);
    updateButtons();
    updateStatus();
    return true;
}

void BenchmarksPanel::chooseComparison() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare with saved run"), {},
                                                      tr("Benchmark runs (*.json);;All files (*)"));
    if (!path.isEmpty())
        loadComparison(path);
}

void BenchmarksPanel::clearComparison() {
    model_->setComparison(nullptr);
    table_->setColumnHidden(BenchResultsModel::VsSaved, true);
    updateButtons();
    updateStatus();
}

void BenchmarksPanel::setBackendsChecked(const QStringList& ids) {
    const auto& summaries = controller_->summaries();
    for (int t = 0; t < backendTree_->topLevelItemCount(); ++t) {
        QTreeWidgetItem* item = backendTree_->topLevelItem(t);
        const int index = item->data(0, kSummaryRole).toInt();
        if (index < 0 || index >= static_cast<int>(summaries.size()) ||
            !summaries[std::size_t(index)].available())
            continue;
        const bool on = ids.contains(summaries[std::size_t(index)].id);
        for (int c = 0; c < item->childCount(); ++c)
            item->child(c)->setCheckState(0, on ? Qt::Checked : Qt::Unchecked);
    }
}

void BenchmarksPanel::setFormats(const QStringList& ids) {
    for (int r = 0; r < formatList_->count(); ++r) {
        QListWidgetItem* item = formatList_->item(r);
        item->setCheckState(ids.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked
                                                                              : Qt::Unchecked);
    }
}

QStringList BenchmarksPanel::checkedFormats() const {
    QStringList ids;
    for (int r = 0; r < formatList_->count(); ++r)
        if (formatList_->item(r)->checkState() == Qt::Checked)
            ids << formatList_->item(r)->data(Qt::UserRole).toString();
    return ids;
}

void BenchmarksPanel::setDirections(bool encode, bool decode) {
    encode_->setChecked(encode);
    decode_->setChecked(decode);
}

void BenchmarksPanel::setSizes(bool inCache, bool beyondCache, const QString& custom) {
    inCache_->setChecked(inCache);
    beyondCache_->setChecked(beyondCache);
    customSizes_->setText(custom);
    customSize_->setChecked(!custom.trimmed().isEmpty());
}

void BenchmarksPanel::setThreads(bool one, bool all) {
    oneThread_->setChecked(one);
    allThreads_->setChecked(all);
}

void BenchmarksPanel::setBudget(double seconds) {
    budget_->setValue(seconds);
}

void BenchmarksPanel::setDistribution(bench::InputDistribution distribution) {
    distribution_->setCurrentIndex(distribution_->findData(static_cast<int>(distribution)));
}

void BenchmarksPanel::setArithmetic(bool on) {
    arithmetic_->setChecked(on);
}

void BenchmarksPanel::setSumsAndQuantizers(bool on) {
    sumsAndQuantizers_->setChecked(on);
}

} // namespace fpx::gui
