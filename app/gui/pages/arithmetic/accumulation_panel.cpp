// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/accumulation_panel.h"

#include "common/format_selection.h"
#include "common/number_text.h"
#include "common/plot_legibility.h"
#include "pages/arithmetic/accumulation_plot.h"
#include "plot_builder.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/format_catalogue.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
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

const std::vector<SumMethodSpec> kDefaultMethods = {
    {SumMethod::Sequential, 0}, {SumMethod::Pairwise, 0}, {SumMethod::Kahan, 0}};

} // namespace

AccumulationPanel::AccumulationPanel(FormatSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection),
      runner_(this, [this](AccumulationLabResult r) { applyResult(std::move(r)); }) {
    auto* layout = new QHBoxLayout(this);
    auto* controls = new QWidget(this);
    controls->setMaximumWidth(340);
    auto* column = new QVBoxLayout(controls);
    column->setContentsMargins(0, 0, 0, 0);
    auto* form = new QFormLayout;
    column->addLayout(form);
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
    accumulators_ = new QListWidget(controls);
    accumulators_->setObjectName("accAccumulators");
    accumulators_->setToolTip(tr("The formats the running sum is kept in: one curve each per "
                                 "method."));
    accumulators_->setMaximumHeight(150);
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
    methodsLayout->addLayout(blockedRow, 2, 0, 1, 2);
    form->addRow(tr("Methods"), methods);
    seed_ = new QSpinBox(controls);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    seed_->setToolTip(tr("Seed of random terms and of stochastic rounding."));
    form->addRow(tr("&Seed"), seed_);
    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("&Run"), controls);
    run_->setObjectName("accRun");
    run_->setToolTip(tr("Sum the terms in every accumulator with every method, in the "
                        "background."));
    cancel_ = new QPushButton(tr("&Cancel"), controls);
    cancel_->setObjectName("accCancel");
    cancel_->setToolTip(tr("Stop the run; the sums finished so far stay."));
    cancel_->setEnabled(false);
    export_ = new QToolButton(controls);
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
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    buttons->addWidget(export_);
    form->addRow(buttons);
    progress_ = new QProgressBar(controls);
    progress_->setObjectName("accProgress");
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(false);
    form->addRow(progress_);
    status_ = new QLabel(controls);
    status_->setObjectName("accStatus");
    status_->setWordWrap(true);
    form->addRow(status_);
    column->addStretch(1);
    layout->addWidget(controls);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    plot_ = new QCustomPlot(splitter);
    plot_->setObjectName("accPlot");
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    table_ = new QTableWidget(0, ColumnCount, splitter);
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
    splitter->addWidget(plot_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({600, 260});
    // The plot keeps a legible height at every zoom (common/plot_legibility.h): on a short
    // window the plot and table scroll rather than squash.
    QScrollArea* scroll = plotsScrollArea(this);
    scroll->setObjectName("accResults");
    scroll->setWidget(splitter);
    layout->addWidget(scroll, 1);

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

void AccumulationPanel::refillFormats() {
    const QString element = element_->currentData().toString();
    QStringList checked;
    for (int i = 0; i < accumulators_->count(); ++i)
        if (accumulators_->item(i)->checkState() == Qt::Checked)
            checked << accumulators_->item(i)->data(Qt::UserRole).toString();
    const QSignalBlocker blocker(element_);
    element_->clear();
    element_->addItem(tr("same as the accumulator"), QString());
    accumulators_->clear();
    for (const FormatSpec& spec : selection_->formats()) {
        if (arithmeticUnsupported(spec))
            continue;
        const QString id = QString::fromStdString(spec.id);
        element_->addItem(id, id);
        auto* item = new QListWidgetItem(id, accumulators_);
        item->setData(Qt::UserRole, id);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        item->setCheckState(checked.contains(id) ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(QString::fromStdString(spec.displayName));
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
    for (int i = 0; i < accumulators_->count(); ++i) {
        QListWidgetItem* item = accumulators_->item(i);
        item->setCheckState(ids.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked
                                                                              : Qt::Unchecked);
    }
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
        for (int i = 0; i < accumulators_->count(); ++i)
            if (accumulators_->item(i)->checkState() == Qt::Checked &&
                accumulators_->item(i)->data(Qt::UserRole).toString() == id)
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
