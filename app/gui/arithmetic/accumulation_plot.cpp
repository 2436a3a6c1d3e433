// SPDX-License-Identifier: GPL-3.0-or-later
#include "arithmetic/accumulation_plot.h"

#include "arithmetic/number_text.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace fpx::gui {

namespace {

// One colour per accumulator format, one line style per method: a curve reads as "FP16,
// pairwise" at a glance, in colour and in black and white.
QColor accumulatorColour(int i) {
    static const QColor colours[] = {
        QColor(0x3d, 0x7e, 0xe8), QColor(0xde, 0x4b, 0x42), QColor(0x2e, 0xa8, 0x5a),
        QColor(0xd9, 0x9a, 0x00), QColor(0x8e, 0x5c, 0xd9), QColor(0x16, 0x9d, 0xb3),
        QColor(0xe0, 0x6c, 0x9f), QColor(0x6b, 0x6b, 0x6b), QColor(0x9c, 0x6b, 0x30)};
    return colours[i % 9];
}

Qt::PenStyle methodStyle(SumMethod method) {
    switch (method) {
    case SumMethod::Sequential:
        return Qt::SolidLine;
    case SumMethod::Pairwise:
        return Qt::DashLine;
    case SumMethod::Kahan:
        return Qt::DotLine;
    case SumMethod::Blocked:
        return Qt::DashDotLine;
    }
    return Qt::SolidLine;
}

} // namespace

void drawAccumulation(QCustomPlot& plot, const AccumulationLabResult& result) {
    plot.clearPlottables();
    plot.clearItems();
    plot.plotLayout()->clear();
    auto* titleSum =
        new QCPTextElement(&plot, QObject::tr("Running sum"), QFont("sans", 11, QFont::Bold));
    auto* titleError = new QCPTextElement(&plot, QObject::tr("|Relative error| of the running sum"),
                                          QFont("sans", 11, QFont::Bold));
    auto* sumRect = new QCPAxisRect(&plot);
    auto* errorRect = new QCPAxisRect(&plot);
    auto* legend = new QCPLegend;
    plot.plotLayout()->addElement(0, 0, titleSum);
    plot.plotLayout()->addElement(0, 1, titleError);
    plot.plotLayout()->addElement(1, 0, sumRect);
    plot.plotLayout()->addElement(1, 1, errorRect);
    // The legend at the top of its column, not spread over the plots' height.
    auto* legendColumn = new QCPLayoutGrid;
    plot.plotLayout()->addElement(1, 2, legendColumn);
    legendColumn->addElement(0, 0, legend);
    legendColumn->addElement(1, 0, new QCPLayoutElement(&plot));
    legendColumn->setRowStretchFactor(0, 0.001);
    plot.plotLayout()->setRowStretchFactor(0, 0.01);
    plot.plotLayout()->setColumnStretchFactor(2, 0.01);
    plot.legend = legend;
    legend->setLayer("legend");
    legend->setBorderPen(Qt::NoPen);
    legend->setFont(QFont("sans", 9));

    bool sumPositive = true;
    for (const AccumulationLabRun& run : result.runs)
        for (const TracePoint& p : run.result.trace)
            if (!p.sum.isFinite() || p.sum.isZero() || p.sum.isNegative() ||
                p.exactSum.isNegative() || p.exactSum.isZero())
                sumPositive = false;
    for (QCPAxisRect* rect : {sumRect, errorRect}) {
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        x->setScaleType(QCPAxis::stLogarithmic);
        x->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        x->setNumberFormat("eb");
        x->setNumberPrecision(0);
        x->setLabel(QObject::tr("terms added, N"));
        x->grid()->setSubGridVisible(true);
        rect->axis(QCPAxis::atLeft)->grid()->setSubGridVisible(true);
    }
    QCPAxis* sumY = sumRect->axis(QCPAxis::atLeft);
    if (sumPositive) {
        sumY->setScaleType(QCPAxis::stLogarithmic);
        sumY->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        sumY->setNumberFormat("gb");
    }
    sumY->setLabel(QObject::tr("sum"));
    QCPAxis* errorY = errorRect->axis(QCPAxis::atLeft);
    errorY->setScaleType(QCPAxis::stLogarithmic);
    errorY->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    errorY->setNumberFormat("eb");
    errorY->setNumberPrecision(0);
    errorY->setLabel(QObject::tr("|sum − exact| / |exact|"));

    // The exact sum once per element format whose terms differ (ones are ones in any format).
    std::vector<const AccumulationLabRun*> exactCurves;
    std::map<std::string, int> colourOf;
    auto sameExactSums = [](const AccumulationLabRun& a, const AccumulationLabRun& b) {
        const std::vector<TracePoint>& x = a.result.trace;
        const std::vector<TracePoint>& y = b.result.trace;
        return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(),
                                                  [](const TracePoint& p, const TracePoint& q) {
                                                      return p.terms == q.terms &&
                                                             p.exactSum.isIdenticalTo(q.exactSum);
                                                  });
    };
    for (const AccumulationLabRun& run : result.runs) {
        if (run.unsupported || run.result.trace.empty())
            continue;
        colourOf.emplace(run.accumulator.id, static_cast<int>(colourOf.size()));
        if (std::none_of(exactCurves.begin(), exactCurves.end(),
                         [&](const AccumulationLabRun* seen) { return sameExactSums(*seen, run); }))
            exactCurves.push_back(&run);
    }
    for (const AccumulationLabRun* run : exactCurves) {
        const QString element = QString::fromStdString(run->element.id);
        auto* exact = plot.addGraph(sumRect->axis(QCPAxis::atBottom), sumY);
        QVector<double> xs, ys;
        for (const TracePoint& p : run->result.trace) {
            xs << static_cast<double>(p.terms);
            ys << plotCoordinate(p.exactSum);
        }
        exact->setData(xs, ys, true);
        exact->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
        exact->setName(exactCurves.size() == 1 ? QObject::tr("exact sum")
                                               : QObject::tr("exact sum (terms %1)").arg(element));
    }
    auto* stagnationKey = plot.addGraph(sumRect->axis(QCPAxis::atBottom), sumY);
    stagnationKey->setLineStyle(QCPGraph::lsNone);
    stagnationKey->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), Qt::NoBrush, 11));
    stagnationKey->setName(QObject::tr("stagnation: a term left the sum unchanged"));
    for (const AccumulationLabRun& run : result.runs) {
        if (run.unsupported || run.result.trace.empty())
            continue;
        const QColor colour = accumulatorColour(colourOf[run.accumulator.id]);
        QPen pen(colour, 2, methodStyle(run.method.method));
        auto* sum = plot.addGraph(sumRect->axis(QCPAxis::atBottom), sumY);
        auto* error = plot.addGraph(errorRect->axis(QCPAxis::atBottom), errorY);
        QVector<double> xs, sums, errors;
        for (const TracePoint& p : run.result.trace) {
            xs << static_cast<double>(p.terms);
            sums << plotCoordinate(p.sum);
            double e = std::nan("");
            if (p.sum.isFinite() && p.exactSum.isFinite() && !p.exactSum.isZero()) {
                e = std::abs(plotCoordinate((p.sum - p.exactSum) / p.exactSum));
                if (!(e > 0))
                    e = std::nan(""); // zero error: no point on a log axis
            }
            errors << e;
        }
        sum->setData(xs, sums, true);
        error->setData(xs, errors, true);
        sum->setPen(pen);
        error->setPen(pen);
        sum->setName(QString::fromStdString(run.label()));
        error->removeFromLegend();
        // The marker sits on the curve as drawn: at the last trace point before the term (the
        // curve is straight from there). A term before the first trace point has no curve to
        // sit on and is left to the table.
        const TracePoint* before = nullptr;
        if (run.result.stagnationTerm)
            for (const TracePoint& p : run.result.trace)
                if (p.terms <= *run.result.stagnationTerm)
                    before = &p;
        if (before) {
            const std::size_t term = *run.result.stagnationTerm;
            auto* marker = plot.addGraph(sumRect->axis(QCPAxis::atBottom), sumY);
            marker->setLineStyle(QCPGraph::lsNone);
            marker->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colour, 2), Qt::NoBrush, 11));
            marker->setData({static_cast<double>(term + 1)}, {plotCoordinate(before->sum)});
            marker->removeFromLegend();
        }
    }
    // Both plots over the same whole decades of N; y with a margin so that the first point
    // and the markers are not on the frame.
    QCPAxis* sumX = sumRect->axis(QCPAxis::atBottom);
    sumX->rescale(true);
    if (sumX->range().lower > 0) {
        const double low = std::pow(10, std::floor(std::log10(sumX->range().lower)));
        const double high = std::pow(10, std::ceil(std::log10(sumX->range().upper) + 1e-9));
        sumX->setRange(low, high);
    }
    errorRect->axis(QCPAxis::atBottom)->setRange(sumX->range());
    for (QCPAxis* axis : {sumY, errorY}) {
        axis->rescale(true);
        const QCPRange range = axis->range();
        if (axis->scaleType() == QCPAxis::stLogarithmic && range.lower > 0)
            axis->setRange(range.lower / 1.5, range.upper * 1.5);
        else
            axis->scaleRange(1.08, range.center());
    }
    plot.replot();
}

} // namespace fpx::gui
