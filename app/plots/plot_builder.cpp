// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_builder.h"

#include "code_map_plot.h"
#include "plot_frame.h"
#include "plot_palette.h"

#include <qcustomplot.h>

#include <QFile>
#include <QFileInfo>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <map>

namespace fpx::plots {

namespace {

constexpr int kWidth = 1100;
constexpr int kHeight = 650;

// Tick labels "2^k" on an axis whose coordinate is log2 of the value.
class PowerOfTwoTicker : public QCPAxisTicker {
  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return QStringLiteral("2^%1").arg(static_cast<long long>(std::llround(tick)));
    }
};

void styleAxisRect(QCPAxisRect* rect) {
    rect->axis(QCPAxis::atBottom)->grid()->setSubGridVisible(true);
    rect->axis(QCPAxis::atLeft)->grid()->setSubGridVisible(true);
}

// An envelope holds each interval's bound at both of its ends; a graph drawn as left-aligned
// steps needs it once, at the start, and one last point at the end of the range.
std::vector<PlotPoint> stepStarts(const std::vector<PlotPoint>& pts) {
    std::vector<PlotPoint> starts;
    for (std::size_t i = 0; i < pts.size(); i += 2)
        starts.push_back(pts[i]);
    if (!pts.empty())
        starts.push_back(pts.back());
    return starts;
}

QVector<double> xs(const std::vector<PlotPoint>& pts) {
    QVector<double> v;
    v.reserve(static_cast<qsizetype>(pts.size()));
    for (const PlotPoint& p : pts)
        v.push_back(p.x);
    return v;
}

// A point that cannot be drawn becomes a gap in the line: an unbounded or undefined bound
// (±∞, NaN: overflow, or a relative error without bound next to 0), and on a log axis zero.
QVector<double> ys(const std::vector<PlotPoint>& pts, bool dropNonPositive = false) {
    QVector<double> v;
    v.reserve(static_cast<qsizetype>(pts.size()));
    for (const PlotPoint& p : pts)
        v.push_back(!std::isfinite(p.y) || (dropNonPositive && p.y <= 0) ? std::nan("") : p.y);
    return v;
}

// Gives `graph` the points of one series: the sawtooth as a line through them, the envelope
// as steps.
void setSeries(QCPGraph* graph, const std::vector<PlotPoint>& pts, bool exact,
               bool dropNonPositive = false) {
    if (exact) {
        graph->setData(xs(pts), ys(pts, dropNonPositive), true);
        return;
    }
    const std::vector<PlotPoint> starts = stepStarts(pts);
    graph->setLineStyle(QCPGraph::lsStepLeft);
    graph->setData(xs(starts), ys(starts, dropNonPositive), true);
}

void shadeRegion(QCustomPlot& plot, QCPAxisRect* rect, double x0, double x1, const QColor& colour) {
    auto* region = new QCPItemRect(&plot);
    region->setClipAxisRect(rect);
    region->topLeft->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    region->bottomRight->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    region->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
    region->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
    region->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    region->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    region->topLeft->setCoords(x0, 0);
    region->bottomRight->setCoords(x1, 1);
    QColor fill = colour;
    fill.setAlpha(28);
    region->setBrush(fill);
    region->setPen(Qt::NoPen);
    region->setLayer("background");
}

// The ε/2 labels: one per distinct ε/2 (formats sharing it share the label), largest first as
// their dashed lines run from top to bottom, in a column beside the relative-error axes: they
// are laid out by the plot's layout, so they never overlap each other, the legend or the data.
void addEpsilonLabels(QCustomPlot& plot, const std::map<double, std::vector<int>>& owners,
                      const PlotData& data) {
    if (owners.empty())
        return;
    auto* column = new QCPLayoutGrid;
    column->setObjectName("epsilonLabels");
    plot.plotLayout()->addElement(2, 1, column);
    int row = 0;
    for (auto it = owners.rbegin(); it != owners.rend(); ++it) {
        QStringList ids;
        for (int i : it->second)
            ids << data.series[static_cast<std::size_t>(i)].id;
        auto* label = new QCPTextElement(
            &plot, QObject::tr("ε/2 = 2^%1  %2").arg(std::log2(it->first)).arg(ids.join(", ")));
        label->setObjectName("epsilonLabel");
        label->setTextColor(seriesColour(it->second.front()));
        label->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
        label->setLayer("legend");
        column->addElement(row, 0, label);
        column->setRowStretchFactor(row++, 0.001);
    }
    // The labels stay together at the top; an empty element takes the rest of the height
    // (not an empty grid, whose largest size is nothing).
    column->addElement(row, 0, new QCPLayoutElement(&plot));
    column->setRowStretchFactor(row, 1);
}

void buildError(QCustomPlot& plot, const PlotData& data) {
    const PlotRequest& r = data.request;
    QCPAxisRect* top = plot.axisRect();
    auto* bottom = new QCPAxisRect(&plot);
    plot.plotLayout()->addElement(plot.plotLayout()->rowCount(), 0, bottom);
    auto* group = new QCPMarginGroup(&plot);
    top->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    bottom->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    for (QCPAxisRect* rect : {top, bottom}) {
        styleAxisRect(rect);
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        x->setLabel(QObject::tr("x"));
        x->setRange(r.from, r.to);
        if (r.logarithmic && r.from > 0) {
            x->setScaleType(QCPAxis::stLogarithmic);
            x->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        }
    }
    top->axis(QCPAxis::atLeft)->setLabel(QObject::tr("error: stored − x"));
    QCPAxis* rel = bottom->axis(QCPAxis::atLeft);
    rel->setLabel(QObject::tr("relative error |stored − x| / |x|"));
    rel->setScaleType(QCPAxis::stLogarithmic);
    rel->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    double relMin = 1, relMax = 1e-300;
    std::map<double, std::vector<int>> epsilonOwners; // ε/2 → the formats that share it
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const FormatSeries& s = data.series[i];
        const QColor colour = seriesColour(static_cast<int>(i));
        QCPGraph* abs = plot.addGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
        abs->setName(s.id + (s.error.exact ? QString() : QObject::tr(" (envelope)")));
        abs->setPen(seriesPen(static_cast<int>(i), 1.5));
        setSeries(abs, s.error.absolute, s.error.exact);
        if (!s.error.absoluteLower.empty()) {
            QCPGraph* lower =
                plot.addGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
            lower->setPen(seriesPen(static_cast<int>(i), 1.5));
            setSeries(lower, s.error.absoluteLower, s.error.exact);
            lower->removeFromLegend();
            QColor fill = colour;
            fill.setAlpha(50);
            abs->setBrush(fill);
            abs->setChannelFillGraph(lower);
        }
        QCPGraph* relative = plot.addGraph(bottom->axis(QCPAxis::atBottom), rel);
        relative->setPen(seriesPen(static_cast<int>(i), 1.2));
        setSeries(relative, s.error.relative, s.error.exact, true);
        relative->removeFromLegend();
        for (const PlotPoint& p : s.error.relative)
            if (p.y > 0 && std::isfinite(p.y)) {
                relMin = std::min(relMin, p.y);
                relMax = std::max(relMax, p.y);
            }
        if (s.error.unitRoundoff > 0) {
            // ε/2: the bound on the relative error of round-to-nearest in the normal range.
            auto* line = new QCPItemStraightLine(&plot);
            line->setClipAxisRect(bottom);
            line->point1->setAxes(bottom->axis(QCPAxis::atBottom), rel);
            line->point2->setAxes(bottom->axis(QCPAxis::atBottom), rel);
            line->point1->setCoords(r.from, s.error.unitRoundoff);
            line->point2->setCoords(r.to, s.error.unitRoundoff);
            line->setPen(QPen(colour, 1, Qt::DashLine));
            epsilonOwners[s.error.unitRoundoff].push_back(static_cast<int>(i));
            relMin = std::min(relMin, s.error.unitRoundoff);
            relMax = std::max(relMax, s.error.unitRoundoff);
        }
        // Subnormal and overflow regions of this format, on both sides of 0.
        if (s.error.minNormal > 0 && r.from < s.error.minNormal && r.to > -s.error.minNormal) {
            for (QCPAxisRect* rect : {top, bottom})
                shadeRegion(plot, rect, std::max(r.from, -s.error.minNormal),
                            std::min(r.to, s.error.minNormal), colour);
        }
        if (s.error.max > 0 && r.to > s.error.max) {
            for (QCPAxisRect* rect : {top, bottom})
                shadeRegion(plot, rect, std::max(r.from, s.error.max), r.to, colour);
        }
        // Below the lowest value (below 0 for unsigned formats, which hold no negative value).
        if (const double lowest = std::min(s.error.lowest, 0.0); r.from < lowest) {
            for (QCPAxisRect* rect : {top, bottom})
                shadeRegion(plot, rect, r.from, std::min(r.to, lowest), colour);
        }
    }
    top->axis(QCPAxis::atLeft)->rescale();
    QCPRange yr = top->axis(QCPAxis::atLeft)->range();
    top->axis(QCPAxis::atLeft)->setRange(yr.lower - yr.size() * 0.05, yr.upper + yr.size() * 0.05);
    if (relMax > 0 && relMin < relMax)
        rel->setRange(std::max(relMin, relMax * 1e-12) / 2, relMax * 2);
    addEpsilonLabels(plot, epsilonOwners, data);
}

// The ULP and precision plots' first view: the staircases of the narrow formats, those whose values
// span at most 64 binades (FP16, FP8, FP6, FP4, the integers; or, when there is none, the narrowest
// of the others), with a binade to spare. Every format is a staircase of one step per binade,
// but scaled to FP64's 2^-1074 … 2^1024 the steps would be a pixel each: the wide formats run
// on past the view (drag or zoom out to follow them), and the axis label says which. An x
// range set by hand wins.
constexpr double kNarrowBinades = 64;

bool isNarrow(const std::vector<PlotPoint>& points, double narrowestSpan, double narrowBinades) {
    if (points.empty())
        return false;
    const double span = points.back().x - points.front().x;
    return span <= std::max(narrowBinades, narrowestSpan);
}

QStringList setUlpView(QCPAxis* x, QCPAxis* y, const PlotData& data,
                       std::vector<PlotPoint> FormatSeries::*points, double narrowBinades) {
    const PlotRequest& r = data.request;
    double narrowestSpan = 1e300;
    for (const FormatSeries& s : data.series)
        if (!(s.*points).empty())
            narrowestSpan = std::min(narrowestSpan, (s.*points).back().x - (s.*points).front().x);
    double x0 = 1e300, x1 = -1e300;
    for (const FormatSeries& s : data.series)
        if (isNarrow(s.*points, narrowestSpan, narrowBinades)) {
            x0 = std::min(x0, (s.*points).front().x);
            x1 = std::max(x1, (s.*points).back().x);
        }
    if (r.rangeSet) {
        const double hi = std::max(std::abs(r.from), std::abs(r.to));
        const double lo = r.from > 0 ? r.from : r.to < 0 ? -r.to : 0;
        if (hi > 0) {
            x1 = std::log2(hi);
            x0 = lo > 0 ? std::log2(lo) : std::min(x0, x1 - 1);
        }
    } else {
        x0 -= 1;
        x1 += 1;
    }
    if (!(x0 < x1))
        return {};
    // y: the gaps the narrow formats (every format, under a range set by hand) take there.
    double y0 = 1e300, y1 = -1e300;
    for (const FormatSeries& s : data.series) {
        if (!r.rangeSet && !isNarrow(s.*points, narrowestSpan, narrowBinades))
            continue;
        for (const PlotPoint& p : (s.*points))
            if (p.x >= x0 && p.x <= x1) {
                y0 = std::min(y0, p.y);
                y1 = std::max(y1, p.y);
            }
    }
    x->setRange(x0, x1);
    if (y0 <= y1)
        y->setRange(y0 - 1, y1 + 1);
    // The formats with no point in the view.
    QStringList outside;
    for (const FormatSeries& s : data.series) {
        bool seen = false;
        for (const PlotPoint& p : (s.*points))
            seen = seen ||
                   (p.x >= x0 && p.x <= x1 && p.y >= y->range().lower && p.y <= y->range().upper);
        if (!seen)
            outside << s.id;
    }
    return outside;
}

// One staircase per format against log2 |x| (the ULP and precision plots), in the first view
// setUlpView picks; the x axis's label names the formats left outside it.
void drawStaircases(QCustomPlot& plot, const PlotData& data,
                    std::vector<PlotPoint> FormatSeries::*points, double narrowBinades) {
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const FormatSeries& s = data.series[i];
        QCPGraph* g = plot.addGraph();
        g->setName(s.id);
        g->setPen(seriesPen(static_cast<int>(i), 2));
        g->setData(xs(s.*points), ys(s.*points), true);
    }
    plot.rescaleAxes();
    const QStringList outside = setUlpView(plot.xAxis, plot.yAxis, data, points, narrowBinades);
    if (!outside.isEmpty())
        plot.xAxis->setLabel(QObject::tr("|x| (log scale) — %1 beyond this view: drag or zoom out")
                                 .arg(outside.join(", ")));
}

void buildUlp(QCustomPlot& plot, const PlotData& data) {
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    x->setLabel(QObject::tr("|x| (log scale)"));
    y->setLabel(QObject::tr("gap to the next value: ULP (log scale)"));
    x->setTicker(QSharedPointer<QCPAxisTicker>(new PowerOfTwoTicker));
    y->setTicker(QSharedPointer<QCPAxisTicker>(new PowerOfTwoTicker));
    drawStaircases(plot, data, &FormatSeries::ulp, kNarrowBinades);
}

// Significant bits against magnitude: flat for a float's normals, falling through its
// subnormals, a tent for a posit, whose precision tapers away from 1 (plot_data.h).
void buildPrecision(QCustomPlot& plot, const PlotData& data) {
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    x->setLabel(QObject::tr("|x| (log scale)"));
    y->setLabel(QObject::tr("significant bits: log2(binade ÷ gap) + 1"));
    x->setTicker(QSharedPointer<QCPAxisTicker>(new PowerOfTwoTicker));
    QSharedPointer<QCPAxisTickerFixed> whole(new QCPAxisTickerFixed); // bits are whole numbers
    whole->setTickStep(1);
    whole->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    y->setTicker(whole);
    // The first view takes in formats of up to 128 binades: posit16's whole tent (2^±56).
    drawStaircases(plot, data, &FormatSeries::precision, 128);
}

void buildRange(QCustomPlot& plot, const PlotData& data) {
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    x->setLabel(QObject::tr("magnitude (log2 scale): subnormals light, normals solid"));
    x->setTicker(QSharedPointer<QCPAxisTicker>(new PowerOfTwoTicker));
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    // Each row's decimal digits on the right-hand axis, level with its name: there the margin
    // is made as wide as the longest, where a text beside the bar's end ran past the frame of
    // a narrow plot.
    QSharedPointer<QCPAxisTickerText> digits(new QCPAxisTickerText);
    double lo = 0, hi = 0;
    const int n = static_cast<int>(data.series.size());
    for (int i = 0; i < n; ++i) {
        const FormatSeries& s = data.series[static_cast<std::size_t>(i)];
        const double row = n - 1 - i;
        names->addTick(row, s.id);
        const QColor colour = seriesColour(i);
        auto bar = [&](double from, double to, int alpha) {
            auto* rect = new QCPItemRect(&plot);
            rect->topLeft->setCoords(from, row + 0.32);
            rect->bottomRight->setCoords(to, row - 0.32);
            QColor fill = colour;
            fill.setAlpha(alpha);
            rect->setBrush(fill);
            rect->setPen(QPen(colour));
        };
        if (s.range.log2MinSubnormal < s.range.log2MinNormal)
            bar(s.range.log2MinSubnormal, s.range.log2MinNormal, 70);
        bar(s.range.log2MinNormal, s.range.log2Max, 220);
        digits->addTick(row, QObject::tr("%1 digits").arg(s.range.decimalDigits, 0, 'f', 2));
        lo = std::min(lo, s.range.log2MinSubnormal);
        hi = std::max(hi, s.range.log2Max);
    }
    y->setTicker(names);
    y->setRange(-0.7, n - 0.3);
    QCPAxis* right = plot.yAxis2;
    right->setVisible(true);
    right->setTicker(digits);
    right->setBasePen(Qt::NoPen);
    right->setTickPen(Qt::NoPen);
    right->setSubTickPen(Qt::NoPen);
    right->grid()->setVisible(false);
    right->setRange(y->range());
    QObject::connect(y, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), right,
                     qOverload<const QCPRange&>(&QCPAxis::setRange));
    const double span = hi - lo;
    x->setRange(lo - span * 0.03, hi + span * 0.03);
    const PlotRequest& r = data.request;
    if (r.rangeSet && r.to > 0) {
        // A range set by hand: the magnitudes from |from| (or the smallest shown) to |to|.
        const double top = std::log2(std::max(std::abs(r.from), std::abs(r.to)));
        const double bottom = r.from > 0 ? std::log2(r.from) : lo;
        if (bottom < top)
            x->setRange(bottom, top);
    }
}

double symlog(double v) {
    return std::copysign(std::log10(1 + std::abs(v) / 0.01), v);
}

void buildValues(QCustomPlot& plot, const PlotData& data) {
    const bool sym = data.request.symmetricLog || data.request.logarithmic;
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    x->setLabel(sym ? QObject::tr("value (symmetric log scale)") : QObject::tr("value"));
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    const int n = static_cast<int>(data.series.size());
    double lo = 0, hi = 0;
    for (int i = 0; i < n; ++i) {
        const FormatSeries& s = data.series[static_cast<std::size_t>(i)];
        const double row = n - 1 - i;
        names->addTick(row, QStringLiteral("%1 (%2)").arg(s.id).arg(s.values.size()));
        QCPGraph* g = plot.addGraph();
        g->setName(s.id);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, seriesColour(i), seriesColour(i), 6));
        // A line through the row's points in the series' dash, so that the rows of more
        // formats than there are colours still differ.
        g->setLineStyle(QCPGraph::lsLine);
        QPen rowPen = seriesPen(i, 1);
        rowPen.setColor(
            QColor(seriesColour(i).red(), seriesColour(i).green(), seriesColour(i).blue(), 90));
        g->setPen(rowPen);
        QVector<double> px, py;
        for (double v : s.values) {
            if (!std::isfinite(v))
                continue;
            px.push_back(sym ? symlog(v) : v);
            py.push_back(row);
            lo = std::min(lo, px.back());
            hi = std::max(hi, px.back());
        }
        g->setData(px, py, true);
    }
    y->setTicker(names);
    y->setRange(-0.7, n - 0.3);
    if (sym) {
        QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
        for (double t : {-1e4, -100.0, -10.0, -1.0, -0.1, 0.0, 0.1, 1.0, 10.0, 100.0, 1e4})
            if (symlog(t) >= lo - 1 && symlog(t) <= hi + 1)
                ticks->addTick(symlog(t), QString::number(t));
        x->setTicker(ticks);
    }
    const double span = std::max(hi - lo, 1e-9);
    x->setRange(lo - span * 0.04, hi + span * 0.04);
    if (data.request.rangeSet) {
        const double a = sym ? symlog(data.request.from) : data.request.from;
        const double b = sym ? symlog(data.request.to) : data.request.to;
        if (a < b)
            x->setRange(a, b);
    }
}

// One bar per stored form of the weights, in GB (or GiB); for training, one bar per recipe,
// stacked by the arrays it stores, each named with its format (BF16 weights, FP8 weight copy,
// FP32 master weights, NF4 frozen weights …). The exact bytes are in the hover read-out, the
// CSV and `fpx memory`.
void buildMemory(QCustomPlot& plot, const PlotData& data) {
    const PlotRequest& r = data.request;
    const double unit = static_cast<double>(memoryUnitBytes(r.gib));
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    const bool training = !r.recipes.empty();
    const bool qlora =
        std::find(r.recipes.begin(), r.recipes.end(), TrainingRecipe::QLora) != r.recipes.end();
    // Short: every line of it is a line the bars do not get on a projector. The count is in the
    // title, each bar's arrays and their formats (Adam's m and v among them) in the legend.
    QString label = training ? QObject::tr("activations not counted")
                             : QObject::tr("activations and KV cache not counted");
    if (qlora)
        label = QObject::tr("QLoRA adapters: %1 (%2); activations not counted")
                    .arg(QString::fromStdString(parameterCountText(r.adapters.of(r.parameters))),
                         QString::fromStdString(adapterSizeText(r.adapters)));
    x->setLabel(label);
    // The unit alone: on a projector the axis is often shorter than "GB (10^9 bytes)", and the
    // GiB switch's tip says which is which.
    y->setLabel(memoryUnitName(r.gib));
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    const int n = static_cast<int>(data.memory.size());
    for (int i = 0; i < n; ++i)
        names->addTick(i + 1,
                       QString::fromStdString(data.memory[static_cast<std::size_t>(i)].label));
    x->setTicker(names);
    x->setTickLabelRotation(n > 6 ? -30 : 0);
    x->grid()->setVisible(false);
    // The arrays in the order they stack, each its own bar series: what the model holds first,
    // then what training adds.
    std::vector<std::string> partNames;
    for (const char* name :
         {"weights", "frozen weights", "FP8 weight copy", "adapters", "gradients",
          "adapter gradients", "master weights", "Adam m", "Adam v"})
        for (const MemoryFootprint& f : data.memory)
            if (std::any_of(f.parts.begin(), f.parts.end(),
                            [&](const FootprintPart& p) { return p.name == name; }) &&
                std::find(partNames.begin(), partNames.end(), name) == partNames.end())
                partNames.push_back(name);
    QCPBars* below = nullptr;
    for (std::size_t k = 0; k < partNames.size(); ++k) {
        auto* bars = new QCPBars(x, y);
        bars->setObjectName("memoryBars");
        // Training: the array and its format ("gradients (BF16)"), the same in every recipe
        // that stores it.
        QString name = QObject::tr("weights (elements + block scales)");
        if (training)
            for (const MemoryFootprint& f : data.memory)
                for (const FootprintPart& p : f.parts)
                    if (p.name == partNames[k])
                        name = QStringLiteral("%1 (%2)").arg(QString::fromStdString(p.name),
                                                             QString::fromStdString(p.format));
        bars->setName(name);
        const QColor colour = seriesColour(static_cast<int>(k));
        bars->setPen(QPen(colour.darker(130)));
        // Past the palette's colours the fill is hatched (seriesBrush), so that a ninth array
        // (Adam v beside all three recipes) is not drawn as the first one.
        QBrush fill = seriesBrush(static_cast<int>(k));
        if (fill.style() == Qt::SolidPattern) {
            QColor solid = colour;
            solid.setAlpha(210);
            fill.setColor(solid);
        }
        bars->setBrush(fill);
        bars->setWidth(0.6);
        if (below)
            bars->moveAbove(below);
        below = bars;
        QVector<double> keys, values;
        for (int i = 0; i < n; ++i) {
            for (const FootprintPart& p : data.memory[static_cast<std::size_t>(i)].parts)
                if (p.name == partNames[k]) {
                    keys.push_back(i + 1);
                    values.push_back(static_cast<double>(p.bytes) / unit);
                }
        }
        bars->setData(keys, values, true);
    }
    double top = 0;
    for (int i = 0; i < n; ++i) {
        const MemoryFootprint& f = data.memory[static_cast<std::size_t>(i)];
        const std::uint64_t bytes = f.totalBytes();
        top = std::max(top, static_cast<double>(bytes) / unit);
        auto* total = new QCPItemText(&plot);
        total->setObjectName("memoryTotal");
        total->position->setCoords(i + 1, static_cast<double>(bytes) / unit);
        total->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        total->setText(QString::fromStdString(bytesInUnit(bytes, memoryUnitBytes(r.gib), 1)));
        total->setClipToAxisRect(false);
    }
    x->setRange(0.4, n + 0.6);
    y->setRange(0, top * 1.12 + 1e-9);
}

// The legend in a row above the data, its entries wrapped into as many columns as the plot's
// width holds (plot_palette.h, placeLegendAbove). Beside the data it took half the width of a
// page beside the Lessons panel, and whether it fitted there depended on the size the plot
// was built at. Plots that name their rows on the axis keep it hidden, out of the layout.
void placeLegend(QCustomPlot& plot, QCPLayoutGrid* column, bool visible) {
    column->take(plot.legend);
    plot.plotLayout()->remove(column);
    plot.plotLayout()->simplify();
    if (!visible || plot.legend->itemCount() == 0) {
        plot.axisRect()->insetLayout()->addElement(plot.legend, Qt::AlignTop | Qt::AlignRight);
        plot.legend->setVisible(false);
        return;
    }
    placeLegendAbove(plot);
}

// The kind's title; the memory plot's names its parameter count, which its bars are for.
QString plotTitle(const PlotRequest& request) {
    if (request.kind == PlotKind::Memory)
        return QObject::tr("Memory of %1 parameters")
            .arg(QString::fromStdString(parameterCountText(request.parameters)));
    return plotKindTitle(request.kind);
}

} // namespace

void buildPlot(QCustomPlot& plot, const PlotData& data) {
    plot.clearItems();
    plot.clearGraphs();
    plot.clearPlottables();
    plot.plotLayout()->clear();
    // Set anew: clear() keeps the spacing, and a legend above the data (placeLegendAbove) sets
    // it to 0, so a plot built after one would otherwise sit a few pixels higher than fresh.
    plot.plotLayout()->setRowSpacing(0);
    plot.plotLayout()->addElement(0, 0, new QCPAxisRect(&plot));
    plot.xAxis = plot.axisRect()->axis(QCPAxis::atBottom);
    plot.yAxis = plot.axisRect()->axis(QCPAxis::atLeft);
    plot.xAxis2 = plot.axisRect()->axis(QCPAxis::atTop);
    plot.yAxis2 = plot.axisRect()->axis(QCPAxis::atRight);
    // The legend starts in a cell of its own beside the axis rect, where the builders fill it;
    // placeLegend then moves it above the data or hides it.
    auto* legendColumn = new QCPLayoutGrid;
    legendColumn->setObjectName("legendColumn");
    plot.plotLayout()->addElement(0, 1, legendColumn);
    plot.plotLayout()->setColumnStretchFactor(1, 0.001);
    plot.legend = new QCPLegend;
    legendColumn->addElement(0, 0, plot.legend);
    legendColumn->addElement(1, 0, new QCPLayoutElement(&plot));
    legendColumn->setRowStretchFactor(0, 0.001);
    legendColumn->setRowStretchFactor(1, 1);
    plot.legend->setLayer("legend");
    plot.legend->setVisible(true);
    styleAxisRect(plot.axisRect());
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, makeTitle(plot, plotTitle(data.request), 12));
    bool legend = true;
    switch (data.request.kind) {
    case PlotKind::Error:
        buildError(plot, data);
        break;
    case PlotKind::Ulp:
        buildUlp(plot, data);
        break;
    case PlotKind::Precision:
        buildPrecision(plot, data);
        break;
    case PlotKind::Range:
        buildRange(plot, data);
        legend = false; // the rows are named on the axis
        break;
    case PlotKind::Values:
        buildValues(plot, data);
        legend = false;
        break;
    case PlotKind::Codes:
        buildCodeMaps(plot, data);
        legend = false; // the classes are named in the key under the maps
        break;
    case PlotKind::Memory:
        buildMemory(plot, data);
        break;
    }
    placeLegend(plot, legendColumn, legend);
    applyTheme(plot, plotTheme(plot.palette()));
    plot.replot();
}

void setValueMarker(QCustomPlot& plot, double value) {
    QCPItemStraightLine* marker = nullptr;
    for (int i = 0; i < plot.itemCount(); ++i)
        if (plot.item(i)->objectName() == "valueMarker")
            marker = qobject_cast<QCPItemStraightLine*>(plot.item(i));
    if (!marker) {
        marker = new QCPItemStraightLine(&plot);
        marker->setObjectName("valueMarker");
        marker->setPen(QPen(QColor(0xd0, 0x40, 0x30), 1.5, Qt::DashDotLine));
    }
    marker->setVisible(std::isfinite(value));
    marker->point1->setCoords(value, 0);
    marker->point2->setCoords(value, 1);
    plot.replot(QCustomPlot::rpQueuedReplot);
}

const std::vector<PlotWriter>& plotWriters() {
    static const std::vector<PlotWriter> writers = {
        {"png", QObject::tr("PNG image"),
         [](QCustomPlot& plot, const PlotData&, const QString& path) {
             return plot.savePng(path, kWidth, kHeight, 2.0);
         }},
        {"pdf", QObject::tr("PDF document"),
         [](QCustomPlot& plot, const PlotData&, const QString& path) {
             return plot.savePdf(path, kWidth, kHeight);
         }},
        {"svg", QObject::tr("SVG image"),
         [](QCustomPlot& plot, const PlotData&, const QString& path) {
             QSvgGenerator generator;
             generator.setFileName(path);
             generator.setSize(QSize(kWidth, kHeight));
             generator.setViewBox(QRect(0, 0, kWidth, kHeight));
             QCPPainter painter;
             if (!painter.begin(&generator))
                 return false;
             plot.toPainter(&painter, kWidth, kHeight);
             return painter.end();
         }},
        {"csv", QObject::tr("CSV data"),
         [](QCustomPlot&, const PlotData& data, const QString& path) {
             QFile file(path);
             if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
                 return false;
             return file.write(plotDataCsv(data).toUtf8()) >= 0;
         }},
    };
    return writers;
}

bool exportPlot(QCustomPlot& plot, const PlotData& data, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    for (const PlotWriter& writer : plotWriters()) {
        if (writer.suffix != suffix)
            continue;
        if (writer.write(plot, data, path))
            return true;
        if (error)
            *error = QObject::tr("cannot write %1").arg(path);
        return false;
    }
    if (error)
        *error = QObject::tr("unknown file type '.%1' (use .png, .pdf, .svg or .csv)").arg(suffix);
    return false;
}

} // namespace fpx::plots
