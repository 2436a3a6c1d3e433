// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/accumulation_plot.h"

#include "plot_frame.h"

#include "fpx/exact/conversion.h"

#include "common/number_text.h"
#include "plot_palette.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace fpx::gui {

namespace {

// One palette colour per accumulator format, one of the palette's dash rounds per method: a
// curve reads as "FP16, pairwise" at a glance, in colour and in black and white. The palette's
// index of (format f, method m) is f + 8 m, the colour of f in the dash of m.
int methodRound(SumMethod method) {
    switch (method) {
    case SumMethod::Sequential:
        return 0;
    case SumMethod::Pairwise:
        return 1;
    case SumMethod::Kahan:
        return 2;
    case SumMethod::Blocked:
        return 3;
    }
    return 0;
}

} // namespace

void drawAccumulation(QCustomPlot& plot, const AccumulationLabResult& result) {
    // The legend in rows above both panels, the width of the widget: beside them it would take
    // the width the panels need on a 1024-pixel screen, and it never covers data either way.
    const std::vector<QCPAxisRect*> panels = plots::resetPanelsPlot(
        plot, {QObject::tr("Running sum"), QObject::tr("|Relative error| of the running sum")}, 4,
        {.title = 11, .legend = 9});
    QCPAxisRect* sumRect = panels[0];
    QCPAxisRect* errorRect = panels[1];
    const plots::PlotTheme theme = plots::plotTheme(plot.palette());
    const QColor reference = plots::meaningColour(plots::Meaning::Reference, theme);

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
        // A short axis name, whole at a projector's type size in a panel half the plot's width:
        // the titles say what the panels show.
        x->setLabel(QObject::tr("N"));
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
    // Few decades named: however the panel was laid out before, they fit without thinning,
    // so the labels, and the margin they take, are the same each time.
    auto errorTicker = QSharedPointer<QCPAxisTickerLog>::create();
    errorTicker->setTickCount(3);
    errorY->setTicker(errorTicker);
    errorY->setNumberFormat("eb");
    errorY->setNumberPrecision(0);
    // No name of its own: the panel's title says what it is, and a name would break into lines
    // on a short panel.

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
            ys << nearestDouble(p.exactSum);
        }
        exact->setData(xs, ys, true);
        exact->setPen(QPen(reference, 1.5, Qt::DashLine));
        exact->setName(exactCurves.size() == 1 ? QObject::tr("exact sum")
                                               : QObject::tr("exact sum (terms %1)").arg(element));
    }
    auto* stagnationKey = plot.addGraph(sumRect->axis(QCPAxis::atBottom), sumY);
    stagnationKey->setLineStyle(QCPGraph::lsNone);
    stagnationKey->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(reference, 2), Qt::NoBrush, 11));
    // Short: the legend wraps into columns as wide as its longest entry.
    stagnationKey->setName(QObject::tr("stagnated (a term lost)"));
    // Beyond eight formats the preferred colour may be taken: the next free colour of the
    // method's own dash is used, so that the dash always says the method; only a ninth
    // accumulator of one method takes another dash.
    std::vector<int> usedStyles;
    const auto styleFor = [&](int colour, int round) {
        for (int k = 0; k < 8; ++k) {
            const int style = (colour + k) % 8 + 8 * round;
            if (std::find(usedStyles.begin(), usedStyles.end(), style) == usedStyles.end()) {
                usedStyles.push_back(style);
                return style;
            }
        }
        return plots::distinctSeriesIndex(colour % 8 + 8 * round, usedStyles);
    };
    for (const AccumulationLabRun& run : result.runs) {
        if (run.unsupported || run.result.trace.empty())
            continue;
        const int style = styleFor(colourOf[run.accumulator.id], methodRound(run.method.method));
        const QPen pen = plots::seriesPen(style, 2);
        const QColor colour = pen.color();
        auto* sum = plot.addGraph(sumRect->axis(QCPAxis::atBottom), sumY);
        auto* error = plot.addGraph(errorRect->axis(QCPAxis::atBottom), errorY);
        QVector<double> xs, sums, errors;
        for (const TracePoint& p : run.result.trace) {
            xs << static_cast<double>(p.terms);
            sums << nearestDouble(p.sum);
            double e = std::nan("");
            if (p.sum.isFinite() && p.exactSum.isFinite() && !p.exactSum.isZero()) {
                e = std::abs(nearestDouble((p.sum - p.exactSum) / p.exactSum));
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
            marker->setData({static_cast<double>(term + 1)}, {nearestDouble(before->sum)});
            marker->removeFromLegend();
        }
    }
    // Both plots over the same whole decades of N; y with a margin so that the first point
    // and the markers are not on the frame.
    // The decades from the runs' trace points themselves, not from the axis's rescale, which
    // leaves the range as it was when it finds nothing positive and so depends on the plot's past.
    QCPAxis* sumX = sumRect->axis(QCPAxis::atBottom);
    double first = HUGE_VAL, last = 0;
    for (const AccumulationLabRun& run : result.runs)
        for (const TracePoint& p : run.result.trace)
            if (p.terms > 0) {
                first = std::min(first, static_cast<double>(p.terms));
                last = std::max(last, static_cast<double>(p.terms));
            }
    if (last > 0)
        sumX->setRange(std::pow(10, std::floor(std::log10(first))),
                       std::pow(10, std::ceil(std::log10(last) + 1e-9)));
    errorRect->axis(QCPAxis::atBottom)->setRange(sumX->range());
    for (QCPAxis* axis : {sumY, errorY}) {
        axis->rescale(true);
        const QCPRange range = axis->range();
        if (axis->scaleType() == QCPAxis::stLogarithmic && range.lower > 0)
            axis->setRange(range.lower / 1.5, range.upper * 1.5);
        else
            axis->scaleRange(1.08, range.center());
    }
    plots::applyTheme(plot, theme);
    plot.replot();
}

} // namespace fpx::gui
