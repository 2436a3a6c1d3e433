// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_plots.h"

#include "plot_frame.h"

#include <qcustomplot.h>

#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fpx::gui {

namespace {

// The longest kind of legend entry of these plots.
constexpr const char* kLongestEntry = "mxfp8_e4m3 (1,024 exact)";

// Draws `plot` now and once more when the events are next handled. Each drawing makes new axes,
// whose ticks the legibility pass (common/plot_legibility.h) thins to their length after the
// first layout; a count it thins to is not always laid out by that same replot, and the next
// one shows the same ticks whatever the plot showed before.
void replotFitted(QCustomPlot& plot) {
    plot.replot();
    plot.replot(QCustomPlot::rpQueuedReplot);
}

} // namespace

void drawValueHistogram(QCustomPlot& plot, const QuantizationResult& result,
                        const std::vector<double>& grid, const QString& gridLabel,
                        const QColor& gridColour) {
    // One legend entry a row: the grid's label is long, and a wide legend would widen the plot.
    QCPAxisRect* rect = plots::resetPlot(plot, QObject::tr("Values"), 1);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    const Histogram& h = result.values;
    const double top = double(std::max<std::size_t>(1, largestCount(h))) * 1.08;
    auto* bars = new QCPBars(x, y);
    QVector<double> keys, counts;
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
        keys << h.binCentre(i);
        counts << double(h.counts[i]);
    }
    bars->setData(keys, counts, true);
    bars->setWidth(h.binCount() ? h.binLow(1) - h.binLow(0) : 1);
    bars->setPen(Qt::NoPen);
    QColor fill = plots::meaningColour(plots::Meaning::Neutral, plots::plotTheme(plot.palette()));
    fill.setAlpha(160);
    bars->setBrush(fill);
    const std::size_t outside = h.below + h.above;
    bars->setName(
        outside == 0
            ? QObject::tr("input values")
            // Two lines: one would widen a narrow plot's legend past the plot.
            : QObject::tr("input values\n%L1 outliers beyond the axis").arg(qulonglong(outside)));
    if (!grid.empty()) {
        // Each representable value as a line the plot's full height, over the bars: where the
        // grid is sparse the histogram's values collapse onto few codes.
        auto* lines = new QCPGraph(x, y);
        QVector<double> lineKeys, tops;
        for (double g : grid) {
            lineKeys << g;
            tops << top;
        }
        lines->setData(lineKeys, tops, true);
        lines->setLineStyle(QCPGraph::lsImpulse);
        QColor c = gridColour;
        c.setAlpha(170);
        lines->setPen(QPen(c, 1));
        lines->setName(gridLabel);
    }
    x->setLabel(QObject::tr("value"));
    y->setLabel(QObject::tr("count"));
    x->setRange(h.low, h.high);
    y->setRange(0, top);
    plots::applyTheme(plot);
    replotFitted(plot);
}

void drawErrorHistograms(QCustomPlot& plot, const QuantizationResult& result) {
    QCPAxisRect* rect = plots::resetPlot(plot, QObject::tr("|error| per element"),
                                         plots::legendColumns(plot, kLongestEntry));
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    x->setScaleType(QCPAxis::stLogarithmic);
    x->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    x->setNumberFormat("eb");
    x->setNumberPrecision(0);
    double low = std::numeric_limits<double>::infinity(), high = -low, top = 1;
    for (std::size_t f = 0; f < result.outcomes.size(); ++f) {
        const FormatOutcome& o = result.outcomes[f];
        const Histogram& h = o.errors;
        if (!o.quantized || largestCount(h) == 0)
            continue;
        auto* graph = new QCPGraph(x, y);
        QVector<double> keys, counts;
        for (std::size_t i = 0; i < h.binCount(); ++i) {
            keys << std::exp2(h.binCentre(i));
            counts << double(h.counts[i]);
            top = std::max(top, double(h.counts[i]));
        }
        low = std::min(low, std::exp2(h.low));
        high = std::max(high, std::exp2(h.high));
        graph->setData(keys, counts, true);
        graph->setLineStyle(QCPGraph::lsStepCenter);
        graph->setPen(plots::seriesPen(int(f), 2));
        QString name = QString::fromStdString(o.id);
        if (h.zeros)
            name += QObject::tr(" (%L1 exact)").arg(qulonglong(h.zeros));
        graph->setName(name);
    }
    x->setLabel(QObject::tr("|x − q|"));
    y->setLabel(QObject::tr("elements"));
    if (low < high)
        x->setRange(low / 2, high * 2);
    y->setRange(0, top * 1.1);
    plots::applyTheme(plot);
    replotFitted(plot);
}

void drawBlockSizeSweep(QCustomPlot& plot, const QuantizationResult& result) {
    QCPAxisRect* rect = plots::resetPlot(plot, QObject::tr("SQNR against block size"),
                                         plots::legendColumns(plot, kLongestEntry));
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    x->setScaleType(QCPAxis::stLogarithmic);
    auto powers = QSharedPointer<QCPAxisTickerText>::create();
    for (std::size_t size : result.request.sweepSizes)
        powers->addTick(double(size), QString::number(qulonglong(size)));
    x->setTicker(powers);
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const SweepCurve& curve : result.sweep) {
        int colour = 0;
        for (std::size_t f = 0; f < result.outcomes.size(); ++f)
            if (result.outcomes[f].id == curve.format)
                colour = int(f);
        auto* graph = new QCPGraph(x, y);
        QVector<double> keys, values;
        for (std::size_t i = 0; i < curve.blockSizes.size(); ++i) {
            if (!std::isfinite(curve.sqnrDb[i]))
                continue;
            keys << double(curve.blockSizes[i]);
            values << curve.sqnrDb[i];
            low = std::min(low, curve.sqnrDb[i]);
            high = std::max(high, curve.sqnrDb[i]);
        }
        graph->setData(keys, values, true);
        graph->setPen(plots::seriesPen(colour, 2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
        graph->setName(QString::fromStdString(curve.format));
    }
    x->setLabel(QObject::tr("elements per block"));
    y->setLabel(QObject::tr("SQNR (dB)"));
    if (!result.request.sweepSizes.empty())
        x->setRange(double(result.request.sweepSizes.front()) / 1.3,
                    double(result.request.sweepSizes.back()) * 1.3);
    if (low <= high)
        y->setRange(low - 1 - 0.05 * (high - low), high + 1 + 0.05 * (high - low));
    if (result.sweep.empty())
        plot.legend->setVisible(false);
    plots::applyTheme(plot);
    replotFitted(plot);
}

} // namespace fpx::gui
