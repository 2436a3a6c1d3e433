// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/benchmarks/benchmarks_chart.h"

#include "pages/benchmarks/bench_results_model.h"
#include "plot_palette.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace fpx::gui {

namespace {

bool belongs(const bench::BenchResult& r, BenchmarksChart::Metric metric) {
    switch (r.operation) {
    case bench::Operation::Copy:
    case bench::Operation::Convert:
        return metric == BenchmarksChart::Metric::Bandwidth;
    case bench::Operation::Arithmetic:
        return metric == BenchmarksChart::Metric::Arithmetic;
    case bench::Operation::Accumulate:
    case bench::Operation::Quantize:
    case bench::Operation::QuantizeFile:
        return metric == BenchmarksChart::Metric::SumsAndQuantizers;
    }
    return false;
}

// One series of bars with its error bars.
struct Series {
    QCPBars* bars = nullptr;
    QVector<double> keys, values, minus, plus;

    // A bar at `key` of `value`, its error bar spanning the slowest and fastest sample of
    // `time` (a throughput is inversely proportional to the time).
    void add(double key, double value, const bench::Statistics& time, double& low, double& high) {
        double slowest = value, fastest = value;
        if (time.median > 0 && time.min > 0 && time.max > 0) {
            slowest = value * time.median / time.max;
            fastest = value * time.median / time.min;
        }
        keys << key;
        values << value;
        minus << std::max(0.0, value - slowest);
        plus << std::max(0.0, fastest - value);
        for (const double v : {value, slowest, fastest})
            if (v > 0 && std::isfinite(v)) {
                high = std::max(high, v);
                low = std::min(low, v);
            }
    }
};

// A series as bars with error bars in `brush` (the palette's solid or hatched fill); the saved
// run's (`light`) pale.
void addSeries(QCustomPlot* plot, Series& s, const QString& name, const QBrush& brush, bool light,
               double width) {
    if (s.keys.isEmpty())
        return;
    const QColor colour = brush.color();
    const plots::PlotTheme theme = plots::plotTheme(plot->palette());
    s.bars = new QCPBars(plot->yAxis, plot->xAxis);
    s.bars->setName(name);
    s.bars->setWidth(width);
    QBrush fill = brush;
    if (light) {
        QColor pale = colour;
        pale.setAlpha(70);
        fill.setColor(pale);
    }
    s.bars->setBrush(fill);
    s.bars->setPen(QPen(colour.darker(light ? 110 : 130)));
    s.bars->setData(s.keys, s.values, true);
    s.bars->setSelectable(QCP::stNone);
    auto* errors = new QCPErrorBars(plot->yAxis, plot->xAxis);
    errors->removeFromLegend();
    errors->setDataPlottable(s.bars);
    errors->setErrorType(QCPErrorBars::etValueError);
    errors->setData(s.minus, s.plus);
    errors->setPen(
        QPen(light ? colour : plots::meaningColour(plots::Meaning::Reference, theme), 1));
    errors->setWhiskerWidth(6);
    errors->setSelectable(QCP::stNone);
}

// A vertical dashed line at a device's datasheet bandwidth, labelled along it.
void addDatasheetLine(QCustomPlot* plot, const bench::DeviceInfo& device, double x) {
    auto* line = new QCPItemStraightLine(plot);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    const QColor colour =
        plots::meaningColour(plots::Meaning::Caution, plots::plotTheme(plot->palette()));
    line->setPen(QPen(colour, 1.5, Qt::DashLine));
    auto* label = new QCPItemText(plot);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(x, 0.0);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label->setRotation(-90);
    label->setPadding(QMargins(4, 2, 4, 2));
    label->setColor(colour);
    label->setText(QObject::tr("%1 datasheet %2 GB/s")
                       .arg(QString::fromStdString(device.name))
                       .arg(QString::number(x, 'g', 4)));
}

} // namespace

// What the chart shows, gathered from the model before anything is drawn.
struct BenchmarksChart::ChartData {
    std::map<std::string, Series> byFormat; // one series per format …
    std::vector<std::string> formatOrder;   // … in order of appearance
    Series copies;
    Series saved;                                 // the saved run's matching results
    std::vector<std::pair<int, double>> ceilings; // bar position, ceiling
    QSharedPointer<QCPAxisTickerText> ticker = QSharedPointer<QCPAxisTickerText>::create();
    double high = 0;
    double low = std::numeric_limits<double>::infinity();

    void extend(double v) {
        if (v > 0 && std::isfinite(v)) {
            high = std::max(high, v);
            low = std::min(low, v);
        }
    }
};

BenchmarksChart::BenchmarksChart(BenchResultsModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    metricBox_ = new QComboBox(this);
    metricBox_->setObjectName("chartMetric");
    metricBox_->addItem(tr("Conversions and copies, GB/s"), static_cast<int>(Metric::Bandwidth));
    metricBox_->addItem(tr("Arithmetic, TFLOP/s"), static_cast<int>(Metric::Arithmetic));
    metricBox_->addItem(tr("Sums and quantizers, GB/s"),
                        static_cast<int>(Metric::SumsAndQuantizers));
    metricBox_->setToolTip(
        tr("Conversions are memory-bound: bytes read + written per second, against the copy "
           "bandwidth of the same size and threads. Arithmetic: operations per second against "
           "the datasheet's dense peak. Sums and quantizers: their bytes per second against "
           "the reference timed alongside (a float loop, memcpy, reading the file)."));
    // It may show its choice cut short rather than hold the window wider than a 1024-pixel
    // screen beside the form (and the Lessons dock); the list shows it whole.
    metricBox_->setMinimumWidth(metricBox_->fontMetrics().averageCharWidth() * 14);
    logBox_ = new QCheckBox(tr("log scale"), this);
    logBox_->setObjectName("chartLog");
    logBox_->setToolTip(tr("A logarithmic throughput axis: emulated paths a hundred times "
                           "slower than the copy stay visible."));
    auto* hint = new QLabel(tr("Hover a bar for details; click it to find its row."), this);
    hint->setEnabled(false);
    hint->setWordWrap(true); // a line of its own on a 1024-pixel screen, not a wider window
    bar->addWidget(metricBox_);
    bar->addWidget(logBox_);
    bar->addStretch();
    bar->addWidget(hint);
    layout->addLayout(bar);

    scroll_ = new QScrollArea(this);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    plot_ = new QCustomPlot;
    plot_->setObjectName("benchChart");
    plot_->setToolTip({});
    plot_->setMinimumHeight(200);
    scroll_->setWidget(plot_);
    layout->addWidget(scroll_, 1);

    // The legend goes above the bars, in columns (the chart may scroll: the top stays in
    // view), while it has entries: see placeLegend().
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->axisRect()->insetLayout()->simplify();
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setWrap(5);
    plots::fitLegendToWidth(*plot_);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setMargins(QMargins(4, 2, 4, 2));
    plot_->yAxis->setRangeReversed(true); // the first result on top
    plot_->yAxis->grid()->setVisible(false);
    plot_->xAxis->grid()->setSubGridVisible(true);
    plot_->xAxis2->setVisible(true); // the scale on top too: the chart may scroll
    plot_->xAxis2->setTickLabels(true);
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), plot_->xAxis2,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    rebuildTimer_.setSingleShot(true);
    rebuildTimer_.setInterval(40);
    connect(&rebuildTimer_, &QTimer::timeout, this, &BenchmarksChart::rebuild);
    connect(model_, &QAbstractItemModel::rowsInserted, this, &BenchmarksChart::scheduleRebuild);
    connect(model_, &QAbstractItemModel::modelReset, this, &BenchmarksChart::scheduleRebuild);
    connect(model_, &QAbstractItemModel::dataChanged, this, &BenchmarksChart::scheduleRebuild);
    connect(model_, &QAbstractItemModel::headerDataChanged, this,
            &BenchmarksChart::scheduleRebuild);
    connect(metricBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setMetric(static_cast<Metric>(metricBox_->itemData(i).toInt())); });
    connect(logBox_, &QCheckBox::toggled, this, &BenchmarksChart::setLogarithmic);
    connect(plot_, &QCustomPlot::mouseMove, this, &BenchmarksChart::onMouseMove);
    connect(plot_, &QCustomPlot::mousePress, this, &BenchmarksChart::onMousePress);
    rebuild();
}

BenchmarksChart::~BenchmarksChart() {
    placeLegend(true); // the plot deletes its layout's elements, the legend among them
}

void BenchmarksChart::placeLegend(bool show) {
    // An empty legend in the layout would cap the width of the bars' column (QCustomPlot
    // derives a grid's maximum size from its elements): it is only placed with entries.
    QCPLayoutGrid* layout = plot_->plotLayout();
    const bool placed = layout->rowCount() > 1 && layout->element(0, 0) == plot_->legend;
    if (show && !placed) {
        layout->insertRow(0);
        layout->addElement(0, 0, plot_->legend);
        layout->setRowStretchFactor(0, 0.001);
        layout->setRowSpacing(0);
    } else if (!show && placed) {
        layout->take(plot_->legend);
        layout->simplify();
    }
    plot_->legend->setVisible(show);
}

void BenchmarksChart::setMetric(Metric metric) {
    const int index = metricBox_->findData(static_cast<int>(metric));
    if (metricBox_->currentIndex() != index)
        metricBox_->setCurrentIndex(index); // comes back here through the signal
    metric_ = metric;
    rebuild();
}

void BenchmarksChart::setLogarithmic(bool on) {
    if (logBox_->isChecked() != on)
        logBox_->setChecked(on);
    logarithmic_ = on;
    rebuild();
}

void BenchmarksChart::setDevices(std::vector<bench::DeviceInfo> devices) {
    devices_ = std::move(devices);
    scheduleRebuild();
}

void BenchmarksChart::scheduleRebuild() {
    if (!rebuildTimer_.isActive())
        rebuildTimer_.start();
}

void BenchmarksChart::rebuild() {
    rebuildTimer_.stop();
    plot_->clearPlottables();
    plot_->clearItems();
    rows_.clear();
    barCount_ = savedBarCount_ = ceilingCount_ = 0;

    const double scale = metric_ == Metric::Arithmetic ? 1e12 : 1e9;
    const std::vector<std::string> devices = collectRows();
    ChartData data = gather(devices.size() > 1, scale);
    drawBars(data);
    drawCeilings(data);
    if (metric_ == Metric::Bandwidth)
        drawDatasheetBandwidths(devices, scale, data);
    if (rows_.empty())
        drawEmptyMessage();
    setAxes(data);
}

// The model rows of the chart's metric, in rows_; returns the devices they come from
// ("backend\x1fname").
std::vector<std::string> BenchmarksChart::collectRows() {
    std::vector<std::string> devices;
    for (int row = 0; row < model_->rowCount(); ++row) {
        const bench::BenchResult& r = model_->result(row);
        if (!belongs(r, metric_))
            continue;
        rows_.push_back(row);
        const std::string device = r.backend + '\x1f' + r.device;
        if (std::find(devices.begin(), devices.end(), device) == devices.end())
            devices.push_back(device);
    }
    return devices;
}

// Series: one per format (in order of appearance), copies, the saved run; each bar's ceiling.
BenchmarksChart::ChartData BenchmarksChart::gather(bool withDevice, double scale) const {
    ChartData data;
    const double offset = model_->hasComparison() ? 0.21 : 0.0;
    for (int p = 0; p < static_cast<int>(rows_.size()); ++p) {
        const int row = rows_[std::size_t(p)];
        const bench::BenchResult& r = model_->result(row);
        data.ticker->addTick(p, model_->label(row, withDevice));
        const bool copy = r.operation == bench::Operation::Copy;
        if (!copy && !data.byFormat.count(r.format))
            data.formatOrder.push_back(r.format);
        Series& s = copy ? data.copies : data.byFormat[r.format];
        s.add(p - offset, r.throughput() / scale, r.time, data.low, data.high);
        if (const bench::BenchResult* old = model_->savedFor(row))
            data.saved.add(p + offset, old->throughput() / scale, old->time, data.low, data.high);
        // (A copy measured against itself has no tick.)
        if (const double c = model_->ceiling(row);
            c > 0 && std::abs(c - r.throughput()) > 1e-9 * c) {
            data.ceilings.emplace_back(p, c / scale);
            data.extend(c / scale);
        }
    }
    return data;
}

void BenchmarksChart::drawBars(ChartData& data) {
    const bool comparing = model_->hasComparison();
    const double width = comparing ? 0.4 : 0.72;
    for (std::size_t i = 0; i < data.formatOrder.size(); ++i) {
        Series& s = data.byFormat[data.formatOrder[i]];
        addSeries(plot_, s, QString::fromStdString(data.formatOrder[i]),
                  plots::seriesBrush(static_cast<int>(i)), false, width);
        barCount_ += static_cast<int>(s.keys.size());
    }
    const plots::PlotTheme theme = plots::plotTheme(plot_->palette());
    addSeries(plot_, data.copies, tr("copy (memcpy)"),
              plots::meaningColour(plots::Meaning::Neutral, theme), false, width);
    barCount_ += static_cast<int>(data.copies.keys.size());
    if (comparing) {
        addSeries(plot_, data.saved,
                  tr("saved run: %1").arg(QFileInfo(model_->comparisonPath()).fileName()),
                  plots::meaningColour(plots::Meaning::Neutral, theme), true, width);
        savedBarCount_ = static_cast<int>(data.saved.keys.size());
    }
}

// Each bar's ceiling: a red tick across its slot, over the bars.
void BenchmarksChart::drawCeilings(const ChartData& data) {
    const QColor ceiling =
        plots::meaningColour(plots::Meaning::Bad, plots::plotTheme(plot_->palette()));
    for (const auto& [p, c] : data.ceilings) {
        auto* tick = new QCPItemLine(plot_);
        tick->start->setCoords(c, p - 0.46);
        tick->end->setCoords(c, p + 0.46);
        tick->setPen(QPen(ceiling, 2));
        tick->setSelectable(false);
        ++ceilingCount_;
    }
    if (ceilingCount_ > 0) {
        // A legend entry for the ticks (items have none).
        auto* legendOnly = plot_->addGraph(plot_->yAxis, plot_->xAxis);
        legendOnly->setPen(QPen(ceiling, 2));
        switch (metric_) {
        case Metric::Bandwidth:
            legendOnly->setName(tr("ceiling: copy bandwidth, same size and threads"));
            break;
        case Metric::Arithmetic:
            legendOnly->setName(tr("ceiling: datasheet dense peak"));
            break;
        case Metric::SumsAndQuantizers:
            legendOnly->setName(tr("reference: float loop, memcpy or reading the file"));
            break;
        }
    }
}

// Datasheet bandwidth of the devices in the chart.
void BenchmarksChart::drawDatasheetBandwidths(const std::vector<std::string>& devices, double scale,
                                              ChartData& data) {
    for (const bench::DeviceInfo& device : devices_) {
        if (device.datasheetBandwidth <= 0 ||
            std::find(devices.begin(), devices.end(), device.backend + '\x1f' + device.name) ==
                devices.end())
            continue;
        const double x = device.datasheetBandwidth / scale;
        addDatasheetLine(plot_, device, x);
        data.extend(x);
    }
}

void BenchmarksChart::drawEmptyMessage() {
    auto* empty = new QCPItemText(plot_);
    empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    empty->position->setCoords(0.5, 0.5);
    bool other = false;
    for (int row = 0; row < model_->rowCount(); ++row)
        other = other || !belongs(model_->result(row), metric_);
    empty->setText(other ? tr("No results of this kind: choose another chart above.")
                         : tr("Run a benchmark: its results appear here as they are "
                              "measured."));
    empty->setColor(palette().color(QPalette::PlaceholderText));
}

// Labels, ranges and scales of both axes, the legend, and a height that fits every row.
void BenchmarksChart::setAxes(const ChartData& data) {
    const int n = static_cast<int>(rows_.size());
    plot_->yAxis->setTicker(data.ticker);
    plot_->yAxis->setRange(-0.6, std::max(n, 1) - 0.4);
    plot_->yAxis->setSubTicks(false);
    plot_->yAxis->setTickLength(0, 3);
    switch (metric_) {
    case Metric::Bandwidth:
        plot_->xAxis->setLabel(tr("GB/s (bytes read + written per second)"));
        break;
    case Metric::Arithmetic:
        plot_->xAxis->setLabel(tr("TFLOP/s (dense; TOP/s for integers)"));
        break;
    case Metric::SumsAndQuantizers:
        plot_->xAxis->setLabel(tr("GB/s (the FP32 inputs read; a quantizer's codes written too)"));
        break;
    }
    plot_->xAxis2->setLabel(plot_->xAxis->label());
    if (logarithmic_ && data.high > 0) {
        plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        plot_->xAxis2->setScaleType(QCPAxis::stLogarithmic);
        plot_->xAxis2->setTicker(plot_->xAxis->ticker());
        plot_->xAxis->setRange(data.low / 2, data.high * 1.6);
    } else {
        plot_->xAxis->setScaleType(QCPAxis::stLinear);
        plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        plot_->xAxis2->setScaleType(QCPAxis::stLinear);
        plot_->xAxis2->setTicker(plot_->xAxis->ticker());
        plot_->xAxis->setRange(0, data.high > 0 ? data.high * 1.08 : 1);
    }
    placeLegend(plot_->legend->itemCount() > 0);
    plots::applyTheme(*plot_);

    // Rows tall enough for their labels; the scroll area scrolls beyond that.
    const int rowHeight = fontMetrics().height() + (model_->hasComparison() ? 14 : 8);
    plots::wrapLegendToWidth(*plot_);
    const int legendRows = plot_->legend->rowCount();
    plot_->setMinimumHeight(std::max(200, std::max(n, 3) * rowHeight + 90 + legendRows * 22));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void BenchmarksChart::refresh() {
    rebuild();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

int BenchmarksChart::rowAt(const QPointF& position) const {
    if (rows_.empty() || !plot_->axisRect()->rect().contains(position.toPoint()))
        return -1;
    const long p = std::lround(plot_->yAxis->pixelToCoord(position.y()));
    if (p < 0 || p >= static_cast<long>(rows_.size()))
        return -1;
    return rows_[std::size_t(p)];
}

void BenchmarksChart::onMouseMove(QMouseEvent* event) {
    const int row = rowAt(event->position());
    if (row < 0) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), model_->description(row), plot_);
}

void BenchmarksChart::onMousePress(QMouseEvent* event) {
    const int row = rowAt(event->position());
    if (row >= 0)
        emit resultClicked(row);
}

bool BenchmarksChart::saveImage(const QString& path) {
    rebuild();
    if (path.endsWith(".pdf", Qt::CaseInsensitive))
        return plot_->savePdf(path);
    return plot_->savePng(path, plot_->width(), plot_->height());
}

} // namespace fpx::gui
