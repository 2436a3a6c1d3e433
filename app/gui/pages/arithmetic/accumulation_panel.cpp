// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/accumulation_panel.h"

#include "common/folding_form.h"
#include "common/format_selection.h"
#include "common/number_text.h"
#include "common/plot_legibility.h"
#include "common/replot_after_resize.h"
#include "pages/arithmetic/accumulation_plot.h"
#include "plot_builder.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/format_catalogue.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace fpx::gui {

namespace {

constexpr const char* kHeaders[] = {
    "Accumulator",        "Method", "Sum", "Bits", "Exact sum", "Rel. error",
    "Stagnation at term", "Path"};
constexpr const char* kTips[] = {
    "The format every addition rounds into.",
    "sequential: s ← s + t, left to right. pairwise: a binary tree of partial sums. kahan: "
    "compensated summation, every operation rounded. blocked:K: K terms in the accumulator, "
    "each block's sum promoted into an FP32 total (as FP8 GEMMs do).",
    "The final sum in the accumulator, exactly (for blocked: the FP32 total).",
    "The final sum's code.",
    "The exact sum of the terms (each term first rounded into the element format).",
    "(sum − exact sum) / |exact sum|.",
    "Index (from 0) of the first non-zero term that left the accumulator unchanged: from there "
    "on, terms that small are lost. None for pairwise summation, which has no single "
    "accumulator.",
    ("How the sum was computed: a wider hardware type where that is provably the same as the "
     "exact core (round to nearest), the exact core otherwise.")};
static_assert(std::size(kHeaders) == AccumulationPanel::ColumnCount);
static_assert(std::size(kTips) == AccumulationPanel::ColumnCount);

QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setToolTip(tip.isEmpty() ? text : tip);
    return item;
}

// The accumulators' check boxes to a row.
constexpr int kAccumulatorColumns = 3;

const std::vector<SumMethodSpec> kDefaultMethods = {
    {SumMethod::Sequential, 0}, {SumMethod::Pairwise, 0}, {SumMethod::Kahan, 0}};

} // namespace

AccumulationPanel::AccumulationPanel(FormatSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection),
      runner_(this, [this](AccumulationLabResult r) { applyResult(std::move(r)); }) {
    // The form above the plot and the table, all in one scroll area: the plot keeps a legible
    // height at every zoom and the lab's whole width (common/plot_legibility.h), and where the
    // window is too short for the form and the plot together the form folds away
    // (common/folding_form.h).
    QVBoxLayout* layout = scrollingPlotsLayout(*this);
    auto* scroll = findChild<QScrollArea*>();
    scroll->setObjectName("accResults");
    fold_ = new FoldingForm(this);
    fold_->setObjectName("accFold");
    auto* controls = new QWidget(fold_);
    controls->setObjectName("accForm");
    auto* form = new QFormLayout(controls);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    terms_ = new QSpinBox(controls);
    terms_->setObjectName("accTerms");
    terms_->setRange(1, static_cast<int>(kMaxLabTerms));
    terms_->setValue(4096);
    terms_->setGroupSeparatorShown(true);
    terms_->setToolTip(tr("How many terms to add (up to 100 million; long runs show progress "
                          "and can be cancelled)."));
    form->addRow(tr("&Terms N"), terms_);
    distribution_ = new QComboBox(controls);
    distribution_->setObjectName("accDistribution");
    distribution_->setEditable(true);
    distribution_->addItems({"ones", "const:0.1", "uniform:0:1", "normal:0:1"});
    distribution_->setToolTip(tr("The terms: ones, const:V, a distribution (uniform:A:B, "
                                 "normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU), "
                                 "or file:PATH (one value per line, a .npy array or a "
                                 ".safetensors file; file:PATH:TENSOR picks a tensor by name). "
                                 "Random terms are drawn from the seed."));
    form->addRow(tr("&Values"), distribution_);
    element_ = new QComboBox(controls);
    element_->setObjectName("accElement");
    element_->setToolTip(tr("The format each term is first rounded into (the data's format), "
                            "before it is added."));
    form->addRow(tr("&Element"), element_);
    // The accumulators side by side, a few to a row: a column of them would make the form
    // taller than the plot it sits above, and rows that do not depend on the width keep the
    // form's height, which decides whether it folds, the same however the page was laid out.
    accumulators_ = new QWidget(controls);
    accumulators_->setObjectName("accAccumulators");
    accumulators_->setToolTip(tr("The formats the running sum is kept in: one curve each per "
                                 "method."));
    auto* accumulatorGrid = new QGridLayout(accumulators_);
    accumulatorGrid->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("&Accumulators"), accumulators_);
    auto* methods = new QWidget(controls);
    auto* methodsLayout = new QGridLayout(methods);
    methodsLayout->setContentsMargins(0, 0, 0, 0);
    sequential_ = new QCheckBox(tr("sequential"), methods);
    pairwise_ = new QCheckBox(tr("pairwise"), methods);
    kahan_ = new QCheckBox(tr("Kahan"), methods);
    blocked_ = new QCheckBox(tr("blocked, K ="), methods);
    blockSize_ = new QSpinBox(methods);
    blockSize_->setRange(1, 1 << 20);
    blockSize_->setValue(32);
    sequential_->setToolTip(tr("s ← s + t, one term after the other (solid lines)."));
    pairwise_->setToolTip(tr("A binary tree of partial sums: the error grows with log N "
                             "(dashed lines)."));
    kahan_->setToolTip(tr("Compensated summation: a second variable carries what each "
                          "addition lost (dotted lines)."));
    blocked_->setToolTip(tr("K terms in the accumulator, each block's sum promoted into an FP32 "
                            "total: how FP8 tensor-core GEMMs keep precision (dash-dot lines)."));
    for (QCheckBox* box : {sequential_, pairwise_, kahan_})
        box->setChecked(true);
    methodsLayout->addWidget(sequential_, 0, 0);
    methodsLayout->addWidget(pairwise_, 0, 1);
    methodsLayout->addWidget(kahan_, 1, 0);
    auto* blockedRow = new QHBoxLayout;
    blockedRow->addWidget(blocked_);
    blockedRow->addWidget(blockSize_);
    blockedRow->addStretch();
    methodsLayout->addLayout(blockedRow, 1, 1);
    methodsLayout->setColumnStretch(2, 1);
    form->addRow(tr("Methods"), methods);
    seed_ = new QSpinBox(controls);
    seed_->setObjectName("accSeed");
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    seed_->setToolTip(tr("Seed of random terms and of stochastic rounding."));
    form->addRow(tr("&Seed"), seed_);

    run_ = new QPushButton(tr("&Run"), fold_);
    run_->setObjectName("accRun");
    run_->setToolTip(tr("Sum the terms in every accumulator with every method, in the "
                        "background."));
    cancel_ = new QPushButton(tr("&Cancel"), fold_);
    cancel_->setObjectName("accCancel");
    cancel_->setToolTip(tr("Stop the run; the sums finished so far stay."));
    cancel_->setEnabled(false);
    export_ = new QToolButton(fold_);
    export_->setText(tr("Export"));
    export_->setPopupMode(QToolButton::InstantPopup);
    export_->setToolTip(tr("Save the plots as PNG, PDF or SVG, or the running sums as CSV."));
    auto* exportMenu = new QMenu(export_);
    for (const plots::PlotWriter& writer : plots::plotWriters()) {
        exportMenu->addAction(
            writer.description + " (*." + writer.suffix + ")", this, [this, writer] {
                const QString path = QFileDialog::getSaveFileName(
                    this, tr("Export accumulation"), "fpx-accumulation." + writer.suffix,
                    writer.description + " (*." + writer.suffix + ")");
                if (!path.isEmpty())
                    exportTo(path);
            });
    }
    export_->setMenu(exportMenu);
    progress_ = new QProgressBar(fold_);
    progress_->setObjectName("accProgress");
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(false);
    fold_->header()->addWidget(run_);
    fold_->header()->addWidget(cancel_);
    fold_->header()->addWidget(export_);
    fold_->header()->addWidget(progress_, 1);
    fold_->setForm(controls);
    layout->addWidget(fold_);
    status_ = new QLabel(this);
    status_->setObjectName("accStatus");
    status_->setWordWrap(true);
    layout->addWidget(status_);

    plot_ = new QCustomPlot(this);
    plot_->setObjectName("accPlot");
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    replotAfterResize(*plot_);
    layout->addWidget(plot_, 1);
    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName("accTable");
    for (int c = 0; c < ColumnCount; ++c) {
        auto* header = new QTableWidgetItem(tr(kHeaders[c]));
        header->setToolTip(tr(kTips[c]));
        table_->setHorizontalHeaderItem(c, header);
    }
    table_->verticalHeader()->setVisible(false);
    table_->setAlternatingRowColors(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setWordWrap(false);
    table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(table_);
    fold_->setRoom(scroll, [this, layout] {
        // The status, then the plot at its least height.
        const int spacing = std::max(0, layout->spacing());
        return spacing + leastHeight(*plot_) + spacing +
               (status_->width() > 0 ? status_->heightForWidth(status_->width())
                                     : status_->sizeHint().height());
    });
    table_->installEventFilter(this);

    progressTimer_.setInterval(50);
    connect(&progressTimer_, &QTimer::timeout, this, [this] {
        const auto [done, total] = runner_.progress();
        if (total > 0)
            progress_->setValue(
                static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)));
    });
    connect(run_, &QPushButton::clicked, this, &AccumulationPanel::run);
    connect(cancel_, &QPushButton::clicked, this, &AccumulationPanel::cancel);
    connect(selection_, &FormatSelection::formatsChanged, this, &AccumulationPanel::refillFormats);
    refillFormats();
    setAccumulators({"fp16", "bf16", "fp32"});
}

AccumulationPanel::~AccumulationPanel() = default;

bool AccumulationPanel::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize && watched == table_)
        fitTable(); // its horizontal scroll bar comes and goes with the width
    return QWidget::eventFilter(watched, event);
}

void AccumulationPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) // the zoom
        fitTable();
    QWidget::changeEvent(event);
}

void AccumulationPanel::fitTable() {
    // Every row in sight: the plots' scroll area scrolls, not the table.
    int height = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth() +
                 std::max(1, table_->rowCount()) * table_->verticalHeader()->defaultSectionSize();
    if (table_->horizontalHeader()->length() > table_->width() - 2 * table_->frameWidth())
        height += table_->horizontalScrollBar()->sizeHint().height();
    if (table_->minimumHeight() != height || table_->maximumHeight() != height)
        table_->setFixedHeight(height);
}

void AccumulationPanel::refillFormats() {
    const QString element = element_->currentData().toString();
    QStringList checked;
    for (const QCheckBox* box : accumulatorBoxes_)
        if (box->isChecked())
            checked << box->property("fpxFormat").toString();
    const QSignalBlocker blocker(element_);
    element_->clear();
    element_->addItem(tr("same as the accumulator"), QString());
    qDeleteAll(accumulatorBoxes_);
    accumulatorBoxes_.clear();
    auto* grid = static_cast<QGridLayout*>(accumulators_->layout());
    for (const FormatSpec& spec : selection_->formats()) {
        if (arithmeticUnsupported(spec))
            continue;
        const QString id = QString::fromStdString(spec.id);
        element_->addItem(id, id);
        auto* box = new QCheckBox(id, accumulators_);
        box->setProperty("fpxFormat", id);
        box->setChecked(checked.contains(id));
        box->setToolTip(QString::fromStdString(spec.displayName));
        const int index = int(accumulatorBoxes_.size());
        grid->addWidget(box, index / kAccumulatorColumns, index % kAccumulatorColumns);
        accumulatorBoxes_.push_back(box);
    }
    element_->setCurrentIndex(std::max(0, element_->findData(element)));
}

void AccumulationPanel::setTerms(int terms) {
    terms_->setValue(terms);
}

void AccumulationPanel::setDistribution(const QString& text) {
    distribution_->setEditText(text);
}

void AccumulationPanel::setElement(const QString& id) {
    element_->setCurrentIndex(std::max(0, element_->findData(id)));
}

void AccumulationPanel::setAccumulators(const QStringList& ids) {
    for (QCheckBox* box : accumulatorBoxes_)
        box->setChecked(ids.contains(box->property("fpxFormat").toString()));
}

void AccumulationPanel::setSeed(int seed) {
    seed_->setValue(seed);
}

void AccumulationPanel::setMethods(const QStringList& methods) {
    sequential_->setChecked(methods.contains("sequential"));
    pairwise_->setChecked(methods.contains("pairwise"));
    kahan_->setChecked(methods.contains("kahan"));
    blocked_->setChecked(false);
    for (const QString& m : methods) {
        const auto spec = parseSumMethod(m.toStdString());
        if (spec && spec->method == SumMethod::Blocked) {
            blocked_->setChecked(true);
            blockSize_->setValue(static_cast<int>(spec->blockSize));
        }
    }
}

AccumulationLabRequest AccumulationPanel::request() const {
    AccumulationLabRequest r;
    r.terms = static_cast<std::size_t>(terms_->value());
    r.distribution = distribution_->currentText().trimmed().toStdString();
    const QString element = element_->currentData().toString();
    const std::vector<FormatSpec> formats = selection_->formats();
    for (const FormatSpec& spec : formats) {
        const QString id = QString::fromStdString(spec.id);
        if (id == element)
            r.element = spec;
        for (const QCheckBox* box : accumulatorBoxes_)
            if (box->isChecked() && box->property("fpxFormat").toString() == id)
                r.accumulators.push_back(spec);
    }
    if (sequential_->isChecked())
        r.methods.push_back({SumMethod::Sequential, 0});
    if (pairwise_->isChecked())
        r.methods.push_back({SumMethod::Pairwise, 0});
    if (kahan_->isChecked())
        r.methods.push_back({SumMethod::Kahan, 0});
    if (blocked_->isChecked())
        r.methods.push_back({SumMethod::Blocked, static_cast<std::size_t>(blockSize_->value())});
    r.rounding = selection_->roundingOptions();
    r.seed = static_cast<std::uint64_t>(seed_->value());
    return r;
}

QString AccumulationPanel::statusText() const {
    return status_->text();
}

void AccumulationPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!ranOnce_)
        run();
}

void AccumulationPanel::run() {
    ranOnce_ = true;
    const AccumulationLabRequest request = this->request();
    if (request.accumulators.empty() || request.methods.empty()) {
        // A run in flight stops and is not shown: the status says what the form lacks.
        runner_.discard([this] {
            setRunning(false);
            status_->setText(tr("Check at least one accumulator and one method."));
            emit finished();
        });
        return;
    }
    status_->setText(tr("Summing %n terms…", nullptr, static_cast<int>(request.terms)));
    setRunning(true);
    // A run already in flight stops; its result is dropped and this one runs.
    runner_.start([request](JobControl& control) {
        const std::size_t total =
            request.terms * request.accumulators.size() * request.methods.size();
        return runAccumulationLab(request, [&control, total](std::size_t done, std::size_t) {
            return control.progress(done, total);
        });
    });
}

void AccumulationPanel::cancel() {
    runner_.cancel();
}

void AccumulationPanel::setRunning(bool running) {
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    progress_->setValue(0);
    if (running)
        progressTimer_.start();
    else
        progressTimer_.stop();
}

void AccumulationPanel::applyResult(AccumulationLabResult result) {
    setRunning(false);
    if (!result.error.empty()) {
        // Nothing was summed: the plots and the table keep the last run.
        status_->setText(QStringLiteral("⚠ ") + QString::fromStdString(result.error));
        emit finished();
        return;
    }
    result_ = std::move(result);
    progress_->setValue(result_.cancelled ? 0 : 1000);
    if (result_.cancelled)
        status_->setText(tr("Cancelled: %n sum(s) finished.", nullptr,
                            static_cast<int>(result_.runs.size()) - 1));
    else
        status_->setText(
            tr("%n sum(s) of %1 terms.", nullptr, static_cast<int>(result_.runs.size()))
                .arg(QLocale().toString(static_cast<qulonglong>(result_.request.terms))));
    fillTable();
    fillPlot();
    emit finished();
}

void AccumulationPanel::fillTable() {
    std::vector<const AccumulationLabRun*> shown;
    for (const AccumulationLabRun& run : result_.runs)
        if (!run.result.cancelled || run.unsupported)
            shown.push_back(&run);
    table_->setRowCount(static_cast<int>(shown.size()));
    for (int r = 0; r < static_cast<int>(shown.size()); ++r) {
        const AccumulationLabRun& run = *shown[static_cast<std::size_t>(r)];
        QString accumulator = QString::fromStdString(run.accumulator.id);
        if (run.element.id != run.accumulator.id)
            accumulator += tr(" (terms %1)").arg(QString::fromStdString(run.element.id));
        table_->setItem(r, Accumulator, cell(accumulator));
        table_->setItem(r, Method, cell(QString::fromStdString(sumMethodId(run.method))));
        if (run.unsupported) {
            table_->setItem(r, Sum, cell(QString::fromStdString(*run.unsupported)));
            for (int c = Bits; c < ColumnCount; ++c)
                table_->setItem(r, c, cell(QString()));
            continue;
        }
        const AccumulationResult& a = run.result;
        table_->setItem(r, Sum, cell(shortDecimal(a.sum, 17), fullDecimal(a.sum)));
        table_->setItem(r, Bits, cell(codeHex(a.resultFormat, a.bits)));
        table_->setItem(r, ExactSum, cell(shortDecimal(a.exactSum, 17), fullDecimal(a.exactSum)));
        table_->setItem(r, RelativeError,
                        cell(a.relativeError.isNaN() ? QString() : shortDecimal(a.relativeError, 6),
                             fullDecimal(a.relativeError)));
        table_->setItem(r, Stagnation,
                        cell(!tracksStagnation(run.method.method) ? tr("n/a")
                             : a.stagnationTerm
                                 ? QLocale().toString(static_cast<qulonglong>(*a.stagnationTerm))
                                 : tr("none")));
        table_->setItem(r, Path, cell(QString::fromStdString(a.path)));
    }
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->setStretchLastSection(true);
    fitTable();
}

void AccumulationPanel::fillPlot() {
    drawAccumulation(*plot_, result_);
}

bool AccumulationPanel::exportTo(const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "csv") {
        QFile file(path);
        if (file.open(QIODevice::WriteOnly | QIODevice::Text) &&
            file.write(QByteArray::fromStdString(accumulationLabCsv(result_))) >= 0)
            return true;
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    // Images go through the project's plot writers (their CSV writer is for PlotData).
    return plots::exportPlot(*plot_, plots::PlotData{}, path, error);
}

} // namespace fpx::gui
