// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_page.h"

#include "common/error_style.h"
#include "common/plot_legibility.h"
#include "pages/quantization/block_inspector.h"
#include "pages/quantization/quantization_plots.h"
#include "pages/quantization/quantization_source_form.h"

#include "fpx/quantization/block_format.h"

#include <qcustomplot.h>

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMimeData>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fpx::gui {

namespace {

// A run shorter than this shows no progress bar: a bar that flashes on and off at every quick
// run would only make the form jump.
constexpr qint64 kShowProgressAfterMs = 250;
// The rate is taken over the last seconds, so that it follows a stage that reads faster or
// slower than the one before.
constexpr qint64 kRateWindowMs = 2000;
// The form's widest, in average characters of the page's type, and as a share of the page.
constexpr int kFormChars = 46;
constexpr double kFormShare = 0.38;
// A run at least this long says how long it took.
constexpr double kShowTimeAfterSeconds = 2;
// The least width of a plot or the inspector beside another, in average characters of the
// page's type: below it a pair of them stands one over the other.
constexpr int kPairMemberChars = 38;
// The table shows up to this many rows before it scrolls.
constexpr int kTableRows = 12;

// 12 345, 123 k, 12.3 M, 1.23 G: three significant digits are plenty for a count going by.
QString countText(double count) {
    static const char* const kUnits[] = {"", " k", " M", " G", " T"};
    int unit = 0;
    if (count >= 1e5)
        while (count >= 1000 && unit < 4) {
            count /= 1000;
            ++unit;
        }
    const int decimals = unit == 0 ? 0 : count < 10 ? 2 : count < 100 ? 1 : 0;
    return QLocale().toString(count, 'f', decimals) + QLatin1String(kUnits[unit]);
}

QString durationText(double seconds) {
    if (seconds < 1)
        return QObject::tr("under a second");
    const auto s = qint64(std::ceil(seconds));
    if (s < 60)
        return QObject::tr("%1 s").arg(s);
    if (s < 3600)
        return QObject::tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
    return QObject::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
}

// One line of plain text, cut short with "…" where the room is narrower (the whole of it in
// the tool tip): a long file name or range neither widens the page nor takes the lines the
// values plot needs under it.
class ElidedLabel : public QLabel {
  public:
    using QLabel::QLabel;
    QSize minimumSizeHint() const override { return {0, QLabel::minimumSizeHint().height()}; }

  protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        const QRect room = contentsRect();
        style()->drawItemText(
            &painter, room, Qt::AlignLeft | Qt::AlignVCenter, palette(), isEnabled(),
            fontMetrics().elidedText(text(), Qt::ElideRight, room.width()), foregroundRole());
    }
};

QString stageText(QuantizationStage stage, std::size_t formats) {
    switch (stage) {
    case QuantizationStage::Reading:
        return QObject::tr("Reading the tensor…");
    case QuantizationStage::Quantizing:
        return QObject::tr("Quantizing in %n format(s)…", nullptr, int(formats));
    case QuantizationStage::Errors:
        return QObject::tr("Histogramming the errors…");
    case QuantizationStage::Sweeping:
        return QObject::tr("Sweeping the block sizes…");
    }
    return {};
}

} // namespace

QuantizationPage::QuantizationPage(QWidget* parent)
    : Page(parent), runner_(this, [this](QuantizationResult r) { applyResult(std::move(r)); }) {
    connect(this, &QuantizationPage::finished, this, [this] { workEnded(); });
    setAcceptDrops(true);
    auto* layout = new QHBoxLayout(this);
    // The results' scroll bar is the page's right edge.
    layout->setContentsMargins(layout->contentsMargins().left(), layout->contentsMargins().top(), 0,
                               layout->contentsMargins().bottom());

    // The form, then running it and what the run says.
    controls_ = new QWidget(this);
    QWidget* controls = controls_;
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
    cancel_->setToolTip(tr("Stop the run (Esc); the results shown stay as they are."));
    cancel_->setEnabled(false);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    column->addLayout(buttons);
    status_ = new QLabel(controls);
    status_->setObjectName("quantStatus");
    status_->setWordWrap(true);
    column->addWidget(status_);
    // Under the status, so that showing it moves nothing above: the bar, then the counts.
    progressPanel_ = new QWidget(controls);
    progressPanel_->setObjectName("quantProgressPanel");
    auto* panel = new QVBoxLayout(progressPanel_);
    panel->setContentsMargins(0, 0, 0, 0);
    progress_ = new QProgressBar(progressPanel_);
    progress_->setObjectName("quantProgress");
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(false);
    panel->addWidget(progress_);
    progressText_ = new QLabel(progressPanel_);
    progressText_->setObjectName("quantProgressText");
    progressText_->setWordWrap(true);
    progressText_->setToolTip(
        tr("Elements read so far of all the run reads: each format's quantization, its errors "
           "and the block-size sweep each read the tensor."));
    panel->addWidget(progressText_);
    progressPanel_->setVisible(false);
    column->addWidget(progressPanel_);
    error_ = new QLabel(controls);
    error_->setObjectName("quantError");
    error_->setWordWrap(true);
    styleErrorLabel(*error_, true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setVisible(false);
    column->addWidget(error_);
    column->addStretch(1);
    layout->addWidget(controls);

    // The results, scrolling beside the form: the source and the table, then the values plot
    // and the inspector, then the errors and the sweep. Each plot keeps a legible height at
    // every zoom (common/plot_legibility.h); a short window scrolls rather than squash them.
    resultsArea_ = plotsScrollArea(this);
    resultsArea_->setObjectName("quantResults");
    resultsArea_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* results = new QWidget(resultsArea_);
    resultsArea_->setWidget(results);
    auto* resultsColumn = new QVBoxLayout(results);
    resultsColumn->setContentsMargins(0, 0, 0, 0);
    source_ = new ElidedLabel(results);
    source_->setObjectName("quantSource");
    resultsColumn->addWidget(source_);
    table_ = new QTableWidget(0, ColumnCount, results);
    table_->setObjectName("quantTable");
    quantization_table::setUp(*table_);
    // As tall as its rows (fitTableHeight): the page scrolls, not the table.
    table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    table_->installEventFilter(this);
    resultsColumn->addWidget(table_);
    values_ = new QCustomPlot(results);
    values_->setObjectName("quantValuesPlot");
    values_->setToolTip(tr("Click a value to inspect the block that holds the nearest one."));
    inspector_ = new BlockInspector(results);
    inspector_->setObjectName("quantInspectorPanel");
    upperPair_ = new QBoxLayout(QBoxLayout::LeftToRight);
    upperPair_->addWidget(values_, 3);
    upperPair_->addWidget(inspector_, 2);
    resultsColumn->addLayout(upperPair_, 1);
    errors_ = new QCustomPlot(results);
    errors_->setObjectName("quantErrorsPlot");
    sweep_ = new QCustomPlot(results);
    sweep_->setObjectName("quantSweepPlot");
    lowerPair_ = new QBoxLayout(QBoxLayout::LeftToRight);
    lowerPair_->addWidget(errors_, 4);
    lowerPair_->addWidget(sweep_, 3);
    resultsColumn->addLayout(lowerPair_, 1);
    for (QCustomPlot* plot : {values_, errors_, sweep_}) {
        plot->setMinimumHeight(plotMinimumHeight(plot->font(), 1));
        plot->installEventFilter(this);
    }
    resultsArea_->installEventFilter(this);
    layout->addWidget(resultsArea_, 1);
    arrangeResults();
    plots::drawMessage(*values_, tr("Values"),
                       tr("Quantize to see the values and a format's grid."));
    plots::drawMessage(*errors_, tr("|error| per element"), QString());
    plots::drawMessage(*sweep_, tr("SQNR against block size"), QString());

    progressTimer_.setInterval(100);
    connect(&progressTimer_, &QTimer::timeout, this, &QuantizationPage::showProgress);
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
        // A search of every element, on every hardware thread: some milliseconds for a tensor
        // of tens of millions, short enough to answer a click in place.
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

void QuantizationPage::selectAfterRun(const std::optional<QString>& format,
                                      std::optional<std::size_t> block) {
    pendingFormat_ = format;
    pendingBlock_ = block;
}

QString QuantizationPage::statusText() const {
    return status_->text();
}

QString QuantizationPage::progressText() const {
    return progressText_->text();
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

void QuantizationPage::keyPressEvent(QKeyEvent* event) {
    // Esc reaches the page when the widget with the focus has no use for it.
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier && isRunning()) {
        cancel();
        event->accept();
        return;
    }
    Page::keyPressEvent(event);
}

void QuantizationPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!ranOnce_)
        run();
}

void QuantizationPage::resizeEvent(QResizeEvent* event) {
    Page::resizeEvent(event);
    fitFormWidth();
}

void QuantizationPage::changeEvent(QEvent* event) {
    Page::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        fitFormWidth();
        arrangeResults();
        fitTableHeight();
    }
}

bool QuantizationPage::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize) {
        // A plot resized while it replots (the legibility pass raising its least height) keeps
        // the layout of its old size, for QCustomPlot skips a replot inside a replot: one more
        // once the resize is done lays it out at the size it has.
        if (auto* plot = qobject_cast<QCustomPlot*>(watched))
            plot->replot(QCustomPlot::rpQueuedReplot);
        else if (watched == resultsArea_)
            arrangeResults();
        else if (watched == table_)
            fitTableHeight(); // its horizontal scroll bar comes and goes with the width
    }
    return Page::eventFilter(watched, event);
}

void QuantizationPage::fitFormWidth() {
    // The form as wide as it asks, up to kFormChars, but never more than kFormShare of the
    // page: the results need the room more than the form's labels and lists do.
    const int chars = fontMetrics().averageCharWidth() * kFormChars;
    const int share = int(width() * kFormShare);
    const int widest = std::max(controls_->minimumSizeHint().width(), std::min(chars, share));
    if (controls_->maximumWidth() != widest)
        controls_->setMaximumWidth(widest);
}

bool QuantizationPage::resultsSideBySide() const {
    return upperPair_->direction() == QBoxLayout::LeftToRight;
}

void QuantizationPage::arrangeResults() {
    // The room the results have whether or not their scroll bar shows, so that the bar
    // coming or going never rearranges them.
    const int room = resultsArea_->width() - 2 * resultsArea_->frameWidth() -
                     resultsArea_->verticalScrollBar()->sizeHint().width();
    // By the room and the type alone, not by what the plots show: the same window shows every
    // result in the same arrangement, whatever it showed before.
    const int least = fontMetrics().averageCharWidth() * kPairMemberChars;
    const bool side = room >= 2 * least + std::max(0, upperPair_->spacing());
    const auto direction = side ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    for (QBoxLayout* pair : {upperPair_, lowerPair_})
        if (pair->direction() != direction)
            pair->setDirection(direction);
    // Stacked, the inspector shows a dozen of its rows; beside the values plot it is as tall.
    inspector_->setMinimumHeight(side ? 0 : fontMetrics().lineSpacing() * kTableRows);
}

void QuantizationPage::fitTableHeight() {
    // Every format's row in sight (up to a dozen), and the horizontal scroll bar where the
    // columns are wider than the table.
    const int rows = std::min(table_->rowCount(), kTableRows);
    int height = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth() +
                 std::max(1, rows) * table_->verticalHeader()->defaultSectionSize();
    if (table_->horizontalHeader()->length() > table_->width() - 2 * table_->frameWidth())
        height += table_->horizontalScrollBar()->sizeHint().height();
    if (table_->height() != height || table_->minimumHeight() != height)
        table_->setFixedHeight(height);
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
    // The error shown stays until this run's result replaces it: a cancelled run leaves the
    // page as it was.
    stage_ = std::make_shared<std::atomic<int>>(int(QuantizationStage::Reading));
    runFormats_ = request->formats.size();
    status_->setText(stageText(QuantizationStage::Reading, runFormats_));
    status_->setToolTip(QString());
    setRunning(true);
    // A run already in flight stops; its result is dropped and this one runs.
    runner_.start([request = *request, stage = stage_](JobControl& control) {
        return runQuantization(
            request, [&control, stage](QuantizationStage now, std::size_t done, std::size_t all) {
                stage->store(int(now));
                return control.progress(done, all);
            });
    });
}

void QuantizationPage::cancel() {
    if (!isRunning())
        return;
    cancelling_ = true;
    cancel_->setEnabled(false);
    status_->setText(tr("Cancelling…"));
    runner_.cancel();
}

void QuantizationPage::setRunning(bool running) {
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    cancelling_ = false;
    // Busy while the tensor is read or drawn (no count is known yet), then the fraction.
    progress_->setRange(0, running ? 0 : 1000);
    progress_->setValue(0);
    samples_.clear();
    if (running) {
        progressText_->setText(tr("Counting starts once the tensor is read."));
        runClock_.start();
        progressTimer_.start();
    } else {
        progressTimer_.stop();
        progressPanel_->setVisible(false);
    }
}

void QuantizationPage::showProgress() {
    const qint64 now = runClock_.elapsed();
    if (now >= kShowProgressAfterMs)
        progressPanel_->setVisible(true);
    const auto stage = QuantizationStage(stage_ ? stage_->load() : 0);
    if (!cancelling_)
        status_->setText(stageText(stage, runFormats_));
    const auto [done, total] = runner_.progress();
    if (total == 0)
        return; // still reading: the bar stays busy
    if (progress_->maximum() == 0)
        progress_->setRange(0, 1000);
    progress_->setValue(int(1000.0 * double(done) / double(total)));
    samples_.emplace_back(now, done);
    while (samples_.size() > 2 && now - samples_.front().first > kRateWindowMs)
        samples_.pop_front();
    QString text = tr("%1 of %2 elements").arg(countText(double(done)), countText(double(total)));
    const qint64 span = samples_.back().first - samples_.front().first;
    if (span >= 300 && samples_.back().second > samples_.front().second) {
        const double rate =
            double(samples_.back().second - samples_.front().second) * 1000.0 / double(span);
        text += '\n' + tr("%1 elements/s · %2 left")
                           .arg(countText(rate),
                                durationText(double(total - std::min(done, total)) / rate));
    } else {
        text += '\n' + tr("Measuring the rate…");
    }
    progressText_->setText(text);
}

void QuantizationPage::applyResult(QuantizationResult result) {
    const double seconds = double(runClock_.elapsed()) / 1000.0;
    setRunning(false);
    if (result.cancelled) {
        // The results, plots and messages of the run before stay as they were.
        status_->setText(tr("Cancelled"));
        emit finished();
        return;
    }
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
    showError({});
    result_ = std::move(result);
    const TensorInput& input = *result_.input;
    source_->setText(tr("%1 · %L2 values · finite range [%3, %4]")
                         .arg(QString::fromStdString(input.description))
                         .arg(qulonglong(input.view.size()))
                         .arg(QString::number(input.min, 'g', 6))
                         .arg(QString::number(input.max, 'g', 6)));
    source_->setToolTip(source_->text());
    std::size_t quantized = 0;
    for (const FormatOutcome& o : result_.outcomes)
        quantized += o.quantized ? 1 : 0;
    const QString timed = tr("%n format(s) quantized in %1 s.", nullptr, int(quantized))
                              .arg(QLocale().toString(seconds, 'f', seconds < 10 ? 1 : 0));
    // A quick run's time changes from one run to the next and says nothing: the same results
    // read the same, and the time waits in the tool tip. A long one's time is worth reading.
    status_->setText(seconds >= kShowTimeAfterSeconds
                         ? timed
                         : tr("%n format(s) quantized.", nullptr, int(quantized)));
    status_->setToolTip(timed);
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
    if (pendingFormat_ && pendingFormat_->isEmpty())
        row = first;
    for (int r = 0; r < int(result_.outcomes.size()); ++r)
        if (pendingFormat_ && !pendingFormat_->isEmpty() &&
            QString::fromStdString(result_.outcomes[std::size_t(r)].id) == *pendingFormat_)
            row = r;
    pendingFormat_.reset();
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
    // A new table shows its first rows and columns, whatever was scrolled to before.
    table_->scrollToTop();
    table_->horizontalScrollBar()->setValue(0);
    fitTableHeight();
}

void QuantizationPage::showSelection() {
    const int row = selectedFormat();
    const FormatOutcome* outcome = row >= 0 ? &result_.outcomes[std::size_t(row)] : nullptr;
    {
        const QSignalBlocker blocker(inspector_);
        inspector_->setQuantized(result_.input, outcome ? outcome->quantized : nullptr,
                                 outcome ? outcome->largestScaleBlock : 0);
        if (outcome && outcome->quantized)
            inspector_->setBlock(outcome->largestScaleBlock);
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
        grid = scaledGrid(outcome->elementValues, scale, result_.values.low, result_.values.high);
        const QString id = QString::fromStdString(outcome->id);
        if (direct)
            gridLabel_ = tr("%1 values").arg(id);
        else
            // Two short lines: the legend's widest line sets the plot's least width.
            gridLabel_ =
                tr("%1 grid × %2\nblock %L3's scale%4")
                    .arg(id)
                    .arg(QString::number(scale, 'g', 6))
                    .arg(qulonglong(block))
                    .arg(block == outcome->largestScaleBlock ? tr(", the largest") : QString());
        if (grid.empty()) {
            gridLabel_ += tr(" — too fine to draw");
        } else if (grid.size() < 3) {
            // A grid coarser than the data (a block with an outlier) draws a line or two at
            // most: say where the rest of it lies.
            double next = std::numeric_limits<double>::infinity();
            for (double e : outcome->elementValues)
                if (const double q = e * scale;
                    q != 0 && (q < result_.values.low || q > result_.values.high))
                    next = std::min(next, std::abs(q));
            if (std::isfinite(next))
                gridLabel_ +=
                    '\n' + tr("others from ±%1, off the axis").arg(QString::number(next, 'g', 3));
        }
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
