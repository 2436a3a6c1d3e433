// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_builder.h"

#include <qcustomplot.h>

#include <QFile>
#include <QFileInfo>
#include <QSvgGenerator>

#include <cmath>

namespace fpx::plots {

namespace {

constexpr int kWidth = 1100;
constexpr int kHeight = 650;

QColor seriesColour(int i) {
    static const QColor colours[] = {
        QColor(0x3d, 0x7e, 0xe8), QColor(0xde, 0x4b, 0x42), QColor(0x2e, 0xa8, 0x5a),
        QColor(0xd9, 0x9a, 0x00), QColor(0x8e, 0x5c, 0xd9), QColor(0x16, 0x9d, 0xb3),
        QColor(0xe0, 0x6c, 0x9f), QColor(0x6b, 0x6b, 0x6b), QColor(0x9c, 0x6b, 0x30)};
    return colours[i % 9];
}

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
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const FormatSeries& s = data.series[i];
        const QColor colour = seriesColour(static_cast<int>(i));
        QCPGraph* abs = plot.addGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
        abs->setName(s.id + (s.error.exact ? QString() : QObject::tr(" (envelope)")));
        abs->setPen(QPen(colour, 1.5));
        setSeries(abs, s.error.absolute, s.error.exact);
        if (!s.error.absoluteLower.empty()) {
            QCPGraph* lower =
                plot.addGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
            lower->setPen(QPen(colour, 1.5));
            setSeries(lower, s.error.absoluteLower, s.error.exact);
            lower->removeFromLegend();
            QColor fill = colour;
            fill.setAlpha(50);
            abs->setBrush(fill);
            abs->setChannelFillGraph(lower);
        }
        QCPGraph* relative = plot.addGraph(bottom->axis(QCPAxis::atBottom), rel);
        relative->setPen(QPen(colour, 1.2));
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
            auto* label = new QCPItemText(&plot);
            label->setClipAxisRect(bottom);
            label->position->setAxes(bottom->axis(QCPAxis::atBottom), rel);
            // Labels staggered along the line so that neighbouring formats do not overlap.
            const double t = 0.02 + 0.19 * static_cast<double>(i % 5);
            label->position->setCoords(
                r.logarithmic && r.from > 0
                    ? std::exp2(std::log2(r.from) * (1 - t) + std::log2(r.to) * t)
                    : r.from * (1 - t) + r.to * t,
                s.error.unitRoundoff);
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
            label->setText(
                QObject::tr("ε/2 = 2^%1 (%2)").arg(std::log2(s.error.unitRoundoff)).arg(s.id));
            label->setColor(colour);
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
}

void buildUlp(QCustomPlot& plot, const PlotData& data) {
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    x->setLabel(QObject::tr("|x| (log scale)"));
    y->setLabel(QObject::tr("gap to the next value: ULP (log scale)"));
    x->setTicker(QSharedPointer<QCPAxisTicker>(new PowerOfTwoTicker));
    y->setTicker(QSharedPointer<QCPAxisTicker>(new PowerOfTwoTicker));
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const FormatSeries& s = data.series[i];
        QCPGraph* g = plot.addGraph();
        g->setName(s.id);
        g->setPen(QPen(seriesColour(static_cast<int>(i)), 2));
        g->setData(xs(s.ulp), ys(s.ulp), true);
    }
    plot.rescaleAxes();
}

void buildRange(QCustomPlot& plot, const PlotData& data) {
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    x->setLabel(QObject::tr("magnitude (log2 scale): subnormals light, normals solid"));
    x->setTicker(QSharedPointer<QCPAxisTicker>(new PowerOfTwoTicker));
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
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
        auto* text = new QCPItemText(&plot);
        text->position->setCoords(s.range.log2Max, row);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->setPadding(QMargins(6, 0, 0, 0));
        text->setText(QObject::tr("  %1 digits").arg(s.range.decimalDigits, 0, 'f', 2));
        lo = std::min(lo, s.range.log2MinSubnormal);
        hi = std::max(hi, s.range.log2Max);
    }
    y->setTicker(names);
    y->setRange(-0.7, n - 0.3);
    const double span = hi - lo;
    x->setRange(lo - span * 0.03, hi + span * 0.15);
}

double symlog(double v) {
    return std::copysign(std::log10(1 + std::abs(v) / 0.01), v);
}

void buildValues(QCustomPlot& plot, const PlotData& data) {
    const bool sym = data.request.symmetricLog;
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

    // The 16×16 code map of the first 8-bit format: row = high nibble, column = low nibble,
    // coloured by class.
    for (const FormatSeries& s : data.series) {
        if (s.codeClasses.size() != 256)
            continue;
        auto* rect = new QCPAxisRect(&plot);
        rect->setObjectName("codeMap");
        plot.plotLayout()->addElement(plot.plotLayout()->rowCount(), 0, rect);
        rect->setMinimumSize(0, 260);
        QCPAxis* cx = rect->axis(QCPAxis::atBottom);
        QCPAxis* cy = rect->axis(QCPAxis::atLeft);
        cx->setLabel(QObject::tr("codes of %1: low nibble (0–f)").arg(s.id));
        cy->setLabel(QObject::tr("high nibble"));
        cy->setRangeReversed(true);
        auto* map = new QCPColorMap(cx, cy);
        map->setName(s.id + QObject::tr(" codes"));
        map->data()->setSize(16, 16);
        map->data()->setRange(QCPRange(0, 15), QCPRange(0, 15));
        for (int code = 0; code < 256; ++code)
            map->data()->setCell(code & 15, code >> 4,
                                 s.codeClasses[static_cast<std::size_t>(code)]);
        // Classes: 0 zero, 1 subnormal, 2 normal, 3 inf, 4 NaN.
        QCPColorGradient gradient;
        gradient.setLevelCount(5);
        gradient.setColorStops({{0.0, QColor(0x9a, 0xa0, 0xa6)},
                                {0.25, QColor(0x9c, 0xc8, 0xf0)},
                                {0.5, QColor(0x3d, 0x7e, 0xe8)},
                                {0.75, QColor(0xe8, 0x9a, 0x2e)},
                                {1.0, QColor(0xde, 0x4b, 0x42)}});
        gradient.setColorInterpolation(QCPColorGradient::ciRGB);
        map->setGradient(gradient);
        map->setDataRange(QCPRange(0, 4));
        map->setInterpolate(false);
        map->removeFromLegend();
        QSharedPointer<QCPAxisTickerText> nibbles(new QCPAxisTickerText);
        for (int n = 0; n < 16; ++n)
            nibbles->addTick(n, QString::number(n, 16));
        cx->setTicker(nibbles);
        cy->setTicker(nibbles);
        cx->setRange(-0.5, 15.5);
        cy->setRange(-0.5, 15.5);
        auto* legend = new QCPTextElement(
            &plot,
            QObject::tr("grey zero · light blue subnormal · blue normal · orange inf · red NaN"));
        plot.plotLayout()->addElement(plot.plotLayout()->rowCount(), 0, legend);
        break;
    }
}

void buildMemory(QCustomPlot& plot, const PlotData& data) {
    QCPAxis* x = plot.xAxis;
    QCPAxis* y = plot.yAxis;
    x->setLabel(QObject::tr("parameters"));
    y->setLabel(QObject::tr("bytes"));
    for (QCPAxis* axis : {x, y}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        axis->setTicker(ticker);
        axis->setNumberFormat("eb");
        axis->setNumberPrecision(0);
    }
    const QVector<double> counts = {1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
    for (std::size_t i = 0; i < data.storage.size(); ++i) {
        const StorageCost& c = data.storage[i];
        QVector<double> bytes;
        for (double n : counts)
            bytes.push_back(n * c.bitsPerElement / 8);
        QCPGraph* g = plot.addGraph();
        g->setName(QStringLiteral("%1: %2 bits → %3 GB per 1B")
                       .arg(QString::fromStdString(c.label))
                       .arg(c.bitsPerElement)
                       .arg(c.bitsPerElement / 8, 0, 'g', 4));
        g->setPen(QPen(seriesColour(static_cast<int>(i)), 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
        g->setData(counts, bytes, true);
    }
    auto* line = new QCPItemStraightLine(&plot);
    line->point1->setCoords(1e9, 1);
    line->point2->setCoords(1e9, 2);
    line->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    plot.rescaleAxes();
}

} // namespace

void buildPlot(QCustomPlot& plot, const PlotData& data) {
    plot.clearItems();
    plot.clearGraphs();
    plot.clearPlottables();
    plot.plotLayout()->clear();
    plot.plotLayout()->addElement(0, 0, new QCPAxisRect(&plot));
    plot.xAxis = plot.axisRect()->axis(QCPAxis::atBottom);
    plot.yAxis = plot.axisRect()->axis(QCPAxis::atLeft);
    plot.xAxis2 = plot.axisRect()->axis(QCPAxis::atTop);
    plot.yAxis2 = plot.axisRect()->axis(QCPAxis::atRight);
    plot.legend = new QCPLegend;
    plot.axisRect()->insetLayout()->addElement(plot.legend, Qt::AlignTop | Qt::AlignRight);
    plot.legend->setLayer("legend");
    plot.legend->setVisible(true);
    plot.legend->setBrush(QColor(255, 255, 255, 210));
    styleAxisRect(plot.axisRect());
    auto* title =
        new QCPTextElement(&plot, plotKindTitle(data.request.kind), QFont("sans", 12, QFont::Bold));
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, title);
    switch (data.request.kind) {
    case PlotKind::Error:
        buildError(plot, data);
        break;
    case PlotKind::Ulp:
        buildUlp(plot, data);
        break;
    case PlotKind::Range:
        buildRange(plot, data);
        plot.legend->setVisible(false);
        break;
    case PlotKind::Values:
        buildValues(plot, data);
        plot.legend->setVisible(false);
        break;
    case PlotKind::Memory:
        buildMemory(plot, data);
        plot.legend->setVisible(true);
        plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
        break;
    }
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
