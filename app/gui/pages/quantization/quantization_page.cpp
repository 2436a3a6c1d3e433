// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_page.h"

#include "common/error_style.h"
#include "pages/quantization/block_inspector.h"
#include "pages/quantization/quantization_plots.h"
#include "pages/quantization/quantization_source_form.h"

#include "fpx/quantization/block_format.h"

#include <qcustomplot.h>

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fpx::gui {

QuantizationPage::QuantizationPage(QWidget* parent)
    : Page(parent), runner_(this, [this](QuantizationResult r) { applyResult(std::move(r)); }) {
    connect(this, &QuantizationPage::finished, this, [this] { workEnded(); });
    setAcceptDrops(true);
    auto* layout = new QHBoxLayout(this);

    // The form, then running it and what the run says.
    auto* controls = new QWidget(this);
    controls->setMaximumWidth(330);
    auto* column = new QVBoxLayout(controls);
    column->setContentsMargins(0, 0, 0, 0);
    form_ = new QuantizationSourceForm(controls);
    column->addWidget(form_);
    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("&Quantize"), controls);
    run_->setObjectName("quantRun");
    run_->setToolTip(tr("Quantize in every checked format, in the background."));
    cancel_ = new QPushButton(tr("&Cancel"), controls);
    cancel_->setObjectName("quantCancel");
    cancel_->setEnabled(false);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    column->addLayout(buttons);
    progress_ = new QProgressBar(controls);
    progress_->setObjectName("quantProgress");
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(false);
    column->addWidget(progress_);
    status_ = new QLabel(controls);
    status_->setObjectName("quantStatus");
    status_->setWordWrap(true);
    column->addWidget(status_);
    error_ = new QLabel(controls);
    error_->setObjectName("quantError");
    error_->setWordWrap(true);
    styleErrorLabel(*error_, true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setVisible(false);
    column->addWidget(error_);
    column->addStretch(1);
    layout->addWidget(controls);

    // The results: table; values and inspector; errors and sweep.
    auto* results = new QWidget(this);
    auto* resultsColumn = new QVBoxLayout(results);
    resultsColumn->setContentsMargins(0, 0, 0, 0);
    source_ = new QLabel(results);
    source_->setObjectName("quantSource");
    source_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    resultsColumn->addWidget(source_);
    vertical_ = new QSplitter(Qt::Vertical, results);
    QSplitter* vertical = vertical_;
    table_ = new QTableWidget(0, ColumnCount, vertical);
    table_->setObjectName("quantTable");
    quantization_table::setUp(*table_);
    auto* middle = new QSplitter(Qt::Horizontal, vertical);
    values_ = new QCustomPlot(middle);
    values_->setObjectName("quantValuesPlot");
    values_->setMinimumHeight(200);
    values_->setToolTip(tr("Click a value to inspect the block that holds the nearest one."));
    inspector_ = new BlockInspector(middle);
    inspector_->setObjectName("quantInspectorPanel");
    middle->addWidget(values_);
    middle->addWidget(inspector_);
    middle->setStretchFactor(0, 3);
    middle->setStretchFactor(1, 2);
    auto* bottom = new QSplitter(Qt::Horizontal, vertical);
    errors_ = new QCustomPlot(bottom);
    errors_->setObjectName("quantErrorsPlot");
    errors_->setMinimumHeight(180);
    sweep_ = new QCustomPlot(bottom);
    sweep_->setObjectName("quantSweepPlot");
    sweep_->setMinimumHeight(180);
    bottom->addWidget(errors_);
    bottom->addWidget(sweep_);
    vertical->addWidget(table_);
    vertical->addWidget(middle);
    vertical->addWidget(bottom);
    vertical->setStretchFactor(0, 2);
    vertical->setStretchFactor(1, 4);
    vertical->setStretchFactor(2, 3);
    resultsColumn->addWidget(vertical, 1);
    layout->addWidget(results, 1);
    plots::drawMessage(*values_, tr("Values"),
                       tr("Quantize to see the values and a format's grid."));
    plots::drawMessage(*errors_, tr("|error| per element"), QString());
    plots::drawMessage(*sweep_, tr("SQNR against block size"), QString());

    progressTimer_.setInterval(50);
    connect(&progressTimer_, &QTimer::timeout, this, [this] {
        const auto [done, total] = runner_.progress();
        if (total > 0 && progress_->maximum() == 0)
            progress_->setRange(0, 1000); // the tensor is read: from busy to a fraction
        if (total > 0)
            progress_->setValue(
                static_cast<int>(1000.0 * static_cast<double>(done) / double(total)));
    });
    connect(run_, &QPushButton::clicked, this, &QuantizationPage::run);
    connect(cancel_, &QPushButton::clicked, this, &QuantizationPage::cancel);
    connect(form_, &QuantizationSourceForm::fileChosen, this, &QuantizationPage::run);
    connect(table_, &QTableWidget::itemSelectionChanged, this, &QuantizationPage::showSelection);
    connect(inspector_, &BlockInspector::blockChanged, this, &QuantizationPage::drawValues);
    connect(values_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        const int row = selectedFormat();
        if (row < 0 || !result_.input || !values_->axisRect())
            return;
        const auto& quantized = result_.outcomes[std::size_t(row)].quantized;
        if (!quantized)
            return;
        const double x =
            values_->axisRect()->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
        inspector_->setBlock(blockNearestValue(*result_.input, *quantized, x));
    });
}

QuantizationPage::~QuantizationPage() = default;

QString QuantizationPage::setInputFile(const QString& argument, const QString& dtype) {
    return form_->setInputFile(argument, dtype);
}

QString QuantizationPage::setDistribution(const QString& spec, qulonglong count, qulonglong seed,
                                          const QString& outliers) {
    return form_->setDistribution(spec, count, seed, outliers);
}

QString QuantizationPage::setFormats(const QStringList& ids) {
    return form_->setFormats(ids);
}

QString QuantizationPage::setBlock(const QString& layout) {
    return form_->setBlock(layout);
}

QString QuantizationPage::setScaleRule(const QString& rule) {
    return form_->setScaleRule(rule);
}

std::optional<QuantizationRequest> QuantizationPage::request(QString& error) const {
    return form_->request(error);
}

int QuantizationPage::selectedFormat() const {
    const QList<QTableWidgetItem*> selected = table_->selectedItems();
    if (selected.isEmpty())
        return -1;
    const int row = selected.front()->row();
    return row < int(result_.outcomes.size()) ? row : -1;
}

void QuantizationPage::selectFormat(int row) {
    if (row >= 0 && row < table_->rowCount())
        table_->selectRow(row);
}

void QuantizationPage::selectAfterRun(const QString& format, std::optional<std::size_t> block) {
    pendingFormat_ = format;
    pendingBlock_ = block;
}

QString QuantizationPage::statusText() const {
    return status_->text();
}

QString QuantizationPage::errorText() const {
    return errorMessage_;
}

void QuantizationPage::showError(const QString& message) {
    errorMessage_ = message;
    error_->setText(message.isEmpty() ? QString() : QStringLiteral("⚠ ") + message);
    error_->setVisible(!message.isEmpty());
}

void QuantizationPage::openFile() {
    form_->openFile();
}

void QuantizationPage::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void QuantizationPage::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile())
        return;
    setInputFile(urls.front().toLocalFile());
    event->acceptProposedAction();
    run();
}

void QuantizationPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!ranOnce_)
        run();
}

void QuantizationPage::run() {
    ranOnce_ = true;
    QString error;
    const std::optional<QuantizationRequest> request = this->request(error);
    if (!request) {
        // A run in flight stops and is not shown: the form says what it lacks instead.
        runner_.discard([this, error] {
            setRunning(false);
            showError(error);
            emit finished();
        });
        return;
    }
    showError({});
    status_->setText(tr("Quantizing…"));
    setRunning(true);
    // A run already in flight stops; its result is dropped and this one runs.
    runner_.start([request = *request](JobControl& control) {
        return runQuantization(request, [&control](std::size_t done, std::size_t all) {
            return control.progress(done, all);
        });
    });
}

void QuantizationPage::cancel() {
    runner_.cancel();
}

void QuantizationPage::setRunning(bool running) {
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    // Busy while the tensor is read or drawn (no fraction is known yet), then the fraction.
    progress_->setRange(0, running ? 0 : 1000);
    progress_->setValue(0);
    if (running)
        progressTimer_.start();
    else
        progressTimer_.stop();
}

void QuantizationPage::applyResult(QuantizationResult result) {
    setRunning(false);
    if (!result.error.empty()) {
        // Nothing was quantized: the tables and plots keep the last run, the message says why.
        showError(QString::fromStdString(result.error));
        status_->setText(tr("Nothing quantized."));
        if (!result_.input) // nothing shown yet: the plot says it too, where the eye is
            plots::drawMessage(*values_, tr("Values"),
                               QStringLiteral("⚠ ") + QString::fromStdString(result.error),
                               plots::Meaning::Bad);
        emit finished();
        return;
    }
    result_ = std::move(result);
    progress_->setValue(result_.cancelled ? 0 : 1000);
    const TensorInput& input = *result_.input;
    source_->setText(tr("<b>%1</b> · %L2 values · finite range [%3, %4]")
                         .arg(QString::fromStdString(input.description).toHtmlEscaped())
                         .arg(qulonglong(input.view.size()))
                         .arg(QString::number(input.min, 'g', 6))
                         .arg(QString::number(input.max, 'g', 6)));
    std::size_t quantized = 0;
    for (const FormatOutcome& o : result_.outcomes)
        quantized += o.quantized ? 1 : 0;
    status_->setText(result_.cancelled
                         ? tr("Cancelled: %n format(s) finished.", nullptr, int(quantized))
                         : tr("%n format(s) quantized.", nullptr, int(quantized)));
    const int previous = selectedFormat();
    fillTable();
    drawErrorHistograms(*errors_, result_);
    drawBlockSizeSweep(*sweep_, result_);
    int first = -1;
    for (int r = 0; r < int(result_.outcomes.size()) && first < 0; ++r)
        if (result_.outcomes[std::size_t(r)].quantized)
            first = r;
    int row = previous >= 0 && previous < int(result_.outcomes.size()) &&
                      result_.outcomes[std::size_t(previous)].quantized
                  ? previous
                  : first;
    for (int r = 0; r < int(result_.outcomes.size()); ++r)
        if (!pendingFormat_.isEmpty() &&
            QString::fromStdString(result_.outcomes[std::size_t(r)].id) == pendingFormat_)
            row = r;
    pendingFormat_.clear();
    {
        const QSignalBlocker blocker(table_);
        table_->clearSelection();
    }
    if (row >= 0)
        selectFormat(row);
    else
        showSelection();
    if (pendingBlock_)
        inspector_->setBlock(*pendingBlock_);
    pendingBlock_.reset();
    emit finished();
}

void QuantizationPage::fillTable() {
    {
        const QSignalBlocker blocker(table_);
        quantization_table::fill(*table_, result_);
    }
    // Every format's row in sight (up to a dozen), the plots sharing the rest.
    QList<int> sizes = vertical_->sizes();
    const int total = sizes.value(0) + sizes.value(1) + sizes.value(2);
    if (total > 0) {
        const int rows = std::min(table_->rowCount(), 12);
        const int wanted = table_->horizontalHeader()->height() + 2 * table_->frameWidth() + 2 +
                           rows * table_->verticalHeader()->defaultSectionSize();
        const int table = std::min(wanted, total / 3);
        vertical_->setSizes({table, (total - table) * 5 / 9, (total - table) * 4 / 9});
    }
}

void QuantizationPage::showSelection() {
    const int row = selectedFormat();
    const FormatOutcome* outcome = row >= 0 ? &result_.outcomes[std::size_t(row)] : nullptr;
    {
        const QSignalBlocker blocker(inspector_);
        inspector_->setQuantized(result_.input, outcome ? outcome->quantized : nullptr);
        if (outcome && outcome->quantized)
            inspector_->setBlock(blockWithLargestScale(*outcome->quantized));
    }
    drawValues();
}

void QuantizationPage::drawValues() {
    if (!result_.input) {
        plots::drawMessage(*values_, tr("Values"),
                           tr("Quantize to see the values and a format's grid."));
        return;
    }
    const int row = selectedFormat();
    const FormatOutcome* outcome = row >= 0 ? &result_.outcomes[std::size_t(row)] : nullptr;
    std::vector<double> grid;
    gridLabel_.clear();
    if (outcome && outcome->quantized) {
        const QuantizedTensor& q = *outcome->quantized;
        const std::size_t block = inspector_->block();
        const bool direct = q.format.scheme == BlockScheme::Direct;
        const double scale = direct ? 1.0 : q.blockScale(block);
        grid = representableGrid(q.format, scale, result_.values.low, result_.values.high);
        const QString id = QString::fromStdString(outcome->id);
        if (direct)
            gridLabel_ = tr("%1 values").arg(id);
        else
            gridLabel_ = tr("%1 grid × block %L2's scale %3%4")
                             .arg(id)
                             .arg(qulonglong(block))
                             .arg(QString::number(scale, 'g', 6))
                             .arg(block == blockWithLargestScale(q) ? tr(" (largest)") : QString());
        if (grid.empty())
            gridLabel_ += tr(" — too fine to draw");
    }
    drawValueHistogram(*values_, result_, grid, gridLabel_, plots::seriesColour(std::max(0, row)));
    if (grid.empty() && !gridLabel_.isEmpty()) {
        // The legend only lists drawn plottables: say why there is no grid.
        auto* note = new QCPItemText(values_);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setAxisRect(values_->axisRect());
        note->position->setCoords(0.02, 0.04);
        note->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        note->setText(gridLabel_);
        note->setFont(QFont("sans", 8));
        values_->replot();
    }
}

} // namespace fpx::gui
