// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/training_plots.h"

#include "plot_frame.h"

#include "fpx/training/percent_shares.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fpx::gui {

namespace {

// Ticks every `step` binades (chosen so that about `wanted` fit), labelled 2^k.
QSharedPointer<QCPAxisTickerText> powerOfTwoTicker(double low, double high, int wanted = 14) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const double span = std::max(1.0, high - low);
    int step = 256;
    for (int s : {1, 2, 4, 8, 16, 32, 64, 128})
        if (span / s <= wanted) {
            step = s;
            break;
        }
    for (double k = std::ceil(low / step) * step; k <= high; k += step)
        ticker->addTick(k, QStringLiteral("2^%1").arg(qint64(k)));
    return ticker;
}

void stepsAxis(QCPAxis* x, std::size_t steps, bool labelled) {
    const double last = double(std::max<std::size_t>(2, steps)) - 1;
    x->setRange(-0.01 * last, 1.01 * last); // marks on the first and last steps stay whole
    x->setTickLabels(labelled);
    if (labelled)
        x->setLabel(QObject::tr("step"));
}

void fitLog2Axis(QCPAxis* y, double low, double high, const QString& label) {
    if (!(low <= high)) {
        low = -1;
        high = 1;
    }
    const double pad = std::max(0.5, 0.06 * (high - low));
    y->setRange(low - pad, high + pad);
    y->setTicker(powerOfTwoTicker(low - pad, high + pad, 5));
    y->setLabel(label);
}

// Lays out the range plot's bands at the fonts the zoom gave it: each row two lines and a bit of
// its labels' font tall, and each zone's label in its long form ("normal 99.99 %") where that
// fits inside the zone, its short form ("99.99 %") where only that fits, none where the zone is
// narrower still (the table has every share, and its exact count on hover). Pixels are known
// only after a layout, so on every one.
void layOutZoneLabels(QCustomPlot& plot) {
    QCPAxisRect* bands = nullptr;
    for (QCPAxisRect* rect : plot.axisRects())
        if (rect->property("fpxBandRows").isValid())
            bands = rect;
    if (!bands)
        return;
    const QFontMetricsF rowMetrics(bands->axis(QCPAxis::atLeft)->tickLabelFont());
    const int rows = bands->property("fpxBandRows").toInt();
    const int height = int(std::ceil(rows * 2.2 * rowMetrics.lineSpacing()));
    if (bands->minimumSize().height() != height) {
        bands->setMinimumSize(0, height);
        bands->setMaximumSize(QWIDGETSIZE_MAX, height);
        plot.plotLayout()->update(QCPLayoutElement::upPreparation);
        plot.plotLayout()->update(QCPLayoutElement::upMargins);
        plot.plotLayout()->update(QCPLayoutElement::upLayout);
    }
    for (int i = 0; i < plot.itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(plot.item(i));
        if (!text || !text->property("fpxZoneFrom").isValid() || !text->position->keyAxis())
            continue;
        const QCPAxis* axis = text->position->keyAxis();
        const double from = axis->coordToPixel(text->property("fpxZoneFrom").toDouble());
        const double to = axis->coordToPixel(text->property("fpxZoneTo").toDouble());
        const QFontMetricsF metrics(text->font());
        const double room = std::abs(to - from) - metrics.averageCharWidth();
        const QString longText = text->property("fpxLongText").toString();
        const QString shortText = text->property("fpxShortText").toString();
        if (metrics.horizontalAdvance(longText) <= room)
            text->setText(longText);
        else
            text->setText(shortText);
        text->setVisible(metrics.horizontalAdvance(text->text()) <= room);
    }
}

void fitZoneLabels(QCustomPlot& plot, QCPAxisRect* bands, int rows) {
    bands->setProperty("fpxBandRows", std::max(1, rows));
    if (plot.property("fpxZoneLabelsFit").toBool())
        return;
    plot.setProperty("fpxZoneLabelsFit", true);
    QObject::connect(&plot, &QCustomPlot::afterLayout, &plot,
                     [p = &plot] { layOutZoneLabels(*p); });
}

// How one FP8 recipe is drawn in every panel of the recipes plot: recipe `index` of a run of
// `steps` steps.
struct RecipeStyle {
    QPen pen;
    QCPScatterStyle marker;
    int scatterSkip = 0; // about a dozen markers a line, not one a step
};
RecipeStyle recipeStyle(std::size_t index, std::size_t steps) {
    // Blue, orange and reddish purple first: the three default recipes, apart in hue and in
    // lightness, for the common colour-vision deficiencies too.
    static constexpr int kColours[] = {0, 3, 4, 2, 1, 5, 7, 6};
    static constexpr QCPScatterStyle::ScatterShape kShapes[] = {
        QCPScatterStyle::ssCircle,  QCPScatterStyle::ssSquare,          QCPScatterStyle::ssTriangle,
        QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross,           QCPScatterStyle::ssPlus,
        QCPScatterStyle::ssStar,    QCPScatterStyle::ssTriangleInverted};
    const std::size_t i = index % std::size(kColours);
    RecipeStyle style;
    const double width = std::max(1.2, 3.5 - double(index));
    style.pen = QPen(plots::seriesColour(kColours[i]), width);
    style.pen.setCapStyle(Qt::FlatCap);
    style.marker = QCPScatterStyle(kShapes[i], QPen(style.pen.color(), 1.5), Qt::NoBrush, 9);
    style.scatterSkip = int(std::max<std::size_t>(1, steps / 12)) - 1;
    return style;
}

} // namespace

QColor rangeZoneColour(RangeZone zone, const plots::PlotTheme& theme) {
    switch (zone) {
    case RangeZone::Zero:
        return plots::meaningColour(plots::Meaning::Faint, theme);
    case RangeZone::Flushed:
        return theme.muted;
    case RangeZone::Subnormal:
        return plots::meaningColour(plots::Meaning::Caution, theme);
    case RangeZone::Normal:
        return plots::meaningColour(plots::Meaning::Good, theme);
    case RangeZone::Overflow:
        return plots::meaningColour(plots::Meaning::Bad, theme);
    }
    return theme.foreground;
}

void drawRangePlot(QCustomPlot& plot, const RangeResult& result, std::int64_t shownExponent) {
    const std::vector<QCPAxisRect*> rects = plots::resetStackedPlot(
        plot, QObject::tr("|values| × 2^%1 against each format's range").arg(shownExponent), 2, 5);
    QCPAxisRect* top = rects[0];
    QCPAxisRect* bands = rects[1];
    const plots::PlotTheme theme = plots::plotTheme(plot.palette());
    const Histogram& h = result.magnitudes;
    const double k = double(shownExponent);
    // The axis stays put while the slider moves: wide enough for the values at every scale.
    const double low = std::floor(h.low) - kScaleReach - 2;
    const double high = std::ceil(h.high) + kScaleReach + 2;

    QCPAxis* x = top->axis(QCPAxis::atBottom);
    QCPAxis* y = top->axis(QCPAxis::atLeft);
    auto* bars = new QCPBars(x, y);
    QVector<double> keys, counts;
    double largest = 1;
    for (std::size_t i = 0; i < h.binCount(); ++i) {
        keys << h.binCentre(i) + k;
        counts << double(h.counts[i]);
        largest = std::max(largest, double(h.counts[i]));
    }
    bars->setData(keys, counts, true);
    bars->setWidth(h.binCount() ? h.binLow(1) - h.binLow(0) : 1);
    bars->setPen(Qt::NoPen);
    QColor fill = plots::seriesColour(0);
    fill.setAlpha(190);
    bars->setBrush(fill);
    QString name = QObject::tr("|x| × 2^%1").arg(shownExponent);
    if (h.zeros)
        name += QObject::tr(" (%L1 zeros not drawn)").arg(qulonglong(h.zeros));
    bars->setName(name);
    x->setRange(low, high);
    x->setTicker(powerOfTwoTicker(low, high));
    x->setTickLabels(false);
    y->setRange(0, largest * 1.08);
    y->setLabel(QObject::tr("values per bin"));

    // The bands: one row per format, zone by zone on the same axis.
    QCPAxis* bx = bands->axis(QCPAxis::atBottom);
    QCPAxis* by = bands->axis(QCPAxis::atLeft);
    bx->setRange(low, high);
    bx->setTicker(powerOfTwoTicker(low, high));
    bx->setLabel(QObject::tr("|x · S| (log2 axis)"));
    by->grid()->setVisible(false);
    bx->grid()->setVisible(false);
    auto names = QSharedPointer<QCPAxisTickerText>::create();
    const int rows = int(result.fits.size());
    by->setRange(-0.5, std::max(1, rows) - 0.5);
    by->setRangeReversed(true); // the first format on top
    by->setTicker(names);
    const double far = 1e6; // beyond any axis: a zone with no edge on that side
    for (int r = 0; r < rows; ++r) {
        const RangeFormatFit& f = result.fits[std::size_t(r)];
        names->addTick(r, QString::fromStdString(f.id));
        if (!f.spec)
            continue;
        const double flushTo = f.flushLog2.value_or(f.normalLog2.value_or(-far));
        const double normalFrom = f.normalLog2.value_or(flushTo);
        const double overflowFrom = f.overflowLog2.value_or(far);
        const struct {
            RangeZone zone;
            double from, to;
        } zones[] = {{RangeZone::Flushed, -far, flushTo},
                     {RangeZone::Subnormal, flushTo, normalFrom},
                     {RangeZone::Normal, normalFrom, overflowFrom},
                     {RangeZone::Overflow, overflowFrom, far}};
        for (const auto& zone : zones) {
            if (!(zone.from < zone.to))
                continue;
            auto* band = new QCPItemRect(&plot);
            band->setClipAxisRect(bands);
            for (QCPItemPosition* p : {band->topLeft, band->bottomRight}) {
                p->setAxisRect(bands);
                p->setAxes(bx, by);
            }
            band->topLeft->setCoords(std::max(zone.from, low - 1), r - 0.38);
            band->bottomRight->setCoords(std::min(zone.to, high + 1), r + 0.38);
            band->setPen(Qt::NoPen);
            band->setBrush(rangeZoneColour(zone.zone, theme));
        }
        // The fractions where the eye is: each inside its own zone, as a share of all the
        // values that adds up to 100 % with the others (the zeros and non-finite ones are in
        // the table).
        if (f.fit && result.scaleExponent == shownExponent) {
            const RangeFit& fit = *f.fit;
            const std::vector<PercentShare> shares =
                percentShares({fit.count(RangeZone::Flushed), fit.count(RangeZone::Subnormal),
                               fit.count(RangeZone::Normal), fit.count(RangeZone::Overflow),
                               fit.count(RangeZone::Zero), fit.nonFinite},
                              2);
            for (std::size_t z = 0; z < 4; ++z) {
                const auto& zone = zones[z];
                if (!(zone.from < zone.to) || fit.count(zone.zone) == 0)
                    continue;
                const double from = std::max(zone.from, low), to = std::min(zone.to, high);
                if (!(from < to))
                    continue;
                const QString share = QString::fromStdString(percentShareText(shares[z], 2));
                auto* text = new QCPItemText(&plot);
                text->setClipAxisRect(bands);
                text->position->setAxisRect(bands);
                text->position->setAxes(bx, by);
                text->position->setCoords((from + to) / 2, r);
                text->setPositionAlignment(Qt::AlignCenter);
                text->setFont(QFont("sans", 8, QFont::Bold));
                text->setColor(Qt::white);
                const QString id = QString::fromLatin1(rangeZoneId(zone.zone).data(),
                                                       qsizetype(rangeZoneId(zone.zone).size()));
                text->setText(QObject::tr("%1 %2 %").arg(id, share));
                text->setProperty("fpxZoneFrom", from);
                text->setProperty("fpxZoneTo", to);
                text->setProperty("fpxLongText", text->text());
                text->setProperty("fpxShortText", share + QStringLiteral(" %"));
            }
        }
    }
    fitZoneLabels(plot, bands, rows);
    // The zones' legend: a hidden bar per zone carries the colour into the legend.
    for (RangeZone zone :
         {RangeZone::Flushed, RangeZone::Subnormal, RangeZone::Normal, RangeZone::Overflow}) {
        auto* swatch = new QCPBars(bx, by);
        swatch->setBrush(rangeZoneColour(zone, theme));
        swatch->setPen(Qt::NoPen);
        swatch->setName(
            QString::fromLatin1(rangeZoneId(zone).data(), qsizetype(rangeZoneId(zone).size())));
    }
    plots::applyTheme(plot, theme);
    plot.replot();
}

void drawLossScalePlot(QCustomPlot& plot, const LossScaleResult& result) {
    const std::vector<QCPAxisRect*> rects =
        plots::resetStackedPlot(plot, QObject::tr("Dynamic loss scaling"), 2, 4);
    const LossScaleRun& run = *result.run;
    const std::size_t n = run.steps.size();
    QCPAxisRect* top = rects[0];
    QCPAxisRect* bottom = rects[1];
    top->setRangeZoom(Qt::Horizontal);
    const plots::PlotTheme theme = plots::plotTheme(plot.palette());

    // The gradients' amax (log2): spikes are what overflow.
    auto* amax = new QCPGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
    QVector<double> steps, amaxes, scales, skippedSteps, skippedScales, flushed;
    double amaxLow = std::numeric_limits<double>::infinity(), amaxHigh = -amaxLow;
    double scaleLow = amaxLow, scaleHigh = -amaxLow;
    bool haveFlushed = false;
    for (const LossScaleStep& s : run.steps) {
        steps << double(s.step);
        const double a = s.amax > 0 && std::isfinite(s.amax) ? std::log2(s.amax) : qQNaN();
        amaxes << a;
        if (std::isfinite(a)) {
            amaxLow = std::min(amaxLow, a);
            amaxHigh = std::max(amaxHigh, a);
        }
        const double l = std::log2(double(s.scale));
        scales << l;
        scaleLow = std::min(scaleLow, l);
        scaleHigh = std::max(scaleHigh, l);
        if (s.overflow) {
            skippedSteps << double(s.step);
            skippedScales << l;
        }
        flushed << (s.flushedFraction ? 100 * *s.flushedFraction : qQNaN());
        haveFlushed = haveFlushed || s.flushedFraction.has_value();
    }
    amax->setData(steps, amaxes, true);
    amax->setPen(QPen(plots::meaningColour(plots::Meaning::Neutral, theme), 1));
    amax->setName(QObject::tr("gradient amax"));
    stepsAxis(top->axis(QCPAxis::atBottom), n, false);
    fitLog2Axis(top->axis(QCPAxis::atLeft), amaxLow, amaxHigh, QObject::tr("amax"));

    QCPAxis* x = bottom->axis(QCPAxis::atBottom);
    QCPAxis* y = bottom->axis(QCPAxis::atLeft);
    // The flushed fraction: noisy (each step draws its own), so thin and translucent, drawn over
    // the thicker scale line without hiding it.
    if (haveFlushed) {
        QCPAxis* right = bottom->axis(QCPAxis::atRight);
        right->setVisible(true);
        plots::setStackedAxisFonts(*right);
        auto* under = new QCPGraph(x, right);
        under->setData(steps, flushed, true);
        QPen pen = plots::seriesPen(4, 1);
        QColor colour = pen.color();
        colour.setAlpha(150);
        pen.setColor(colour);
        under->setPen(pen);
        under->setName(QObject::tr("gradients flushed to 0 (%, right axis)"));
        double most = 0;
        for (double f : flushed)
            if (std::isfinite(f))
                most = std::max(most, f);
        right->setRange(0, std::max(1.0, most * 1.1));
        right->setLabel(QObject::tr("flushed (%)"));
    }
    auto* scale = new QCPGraph(x, y);
    scale->setData(steps, scales, true);
    scale->setLineStyle(QCPGraph::lsStepLeft);
    scale->setPen(plots::seriesPen(0, 2));
    scale->setName(run.options.staticScale ? QObject::tr("static scale")
                                           : QObject::tr("loss scale"));
    auto* skipped = new QCPGraph(x, y);
    skipped->setData(skippedSteps, skippedScales, true);
    skipped->setLineStyle(QCPGraph::lsNone);
    skipped->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross,
                                             QPen(rangeZoneColour(RangeZone::Overflow, theme), 2),
                                             Qt::NoBrush, 8));
    skipped->setName(run.options.staticScale
                         ? QObject::tr("overflowed steps (%L1, update lost)")
                               .arg(qulonglong(skippedSteps.size()))
                         : QObject::tr("skipped steps (%L1)").arg(qulonglong(run.skipped.size())));
    stepsAxis(x, n, true);
    fitLog2Axis(y, scaleLow, scaleHigh, QObject::tr("scale"));
    plots::applyTheme(plot, theme);
    plot.replot();
}

void drawFp8Plot(QCustomPlot& plot, const Fp8Result& result, Fp8Panels panels) {
    const bool scales = panels != Fp8Panels::Losses;
    const bool losses = panels != Fp8Panels::Scales;
    const std::vector<QCPAxisRect*> rects = plots::resetStackedPlot(
        plot,
        scales ? QObject::tr("FP8 scaling recipes side by side")
               : QObject::tr("What each recipe's casts lost"),
        (scales ? 2 : 0) + (losses ? 2 : 0),
        plots::legendColumns(plot, "delayed:16:most_recent overflowed (solid)"));
    // The four panels in their order (amax used, scale, fractions, SQNR); null where not drawn.
    QCPAxisRect* panel[4] = {};
    {
        std::size_t next = 0;
        for (std::size_t p = 0; p < 4; ++p)
            if (p < 2 ? scales : losses)
                panel[p] = rects[next++];
    }
    auto axis = [&](int p, QCPAxis::AxisType type) {
        return panel[p] ? panel[p]->axis(type) : nullptr;
    };
    QCPAxis* ax = axis(0, QCPAxis::atBottom);
    QCPAxis* ay = axis(0, QCPAxis::atLeft);
    QCPAxis* sx = axis(1, QCPAxis::atBottom);
    QCPAxis* sy = axis(1, QCPAxis::atLeft);
    QCPAxis* fx = axis(2, QCPAxis::atBottom);
    QCPAxis* fy = axis(2, QCPAxis::atLeft);
    QCPAxis* qx = axis(3, QCPAxis::atBottom);
    QCPAxis* qy = axis(3, QCPAxis::atLeft);
    const std::size_t n = result.amax.size();
    const plots::PlotTheme theme = plots::plotTheme(plot.palette());
    QVector<double> steps;
    for (std::size_t t = 0; t < n; ++t)
        steps << double(t);

    // Amax: the tensors' own in grey, each recipe's used one over it.
    double low = std::numeric_limits<double>::infinity(), high = -low;
    auto log2Of = [](double v) { return v > 0 && std::isfinite(v) ? std::log2(v) : qQNaN(); };
    if (scales) {
        QVector<double> values;
        for (double a : result.amax) {
            values << log2Of(a);
            if (std::isfinite(values.back())) {
                low = std::min(low, values.back());
                high = std::max(high, values.back());
            }
        }
        auto* own = new QCPGraph(ax, ay);
        own->setData(steps, values, true);
        // Wide and translucent: under every recipe's line, which the current recipe's follows.
        QColor grey = plots::meaningColour(plots::Meaning::Neutral, theme);
        grey.setAlpha(110);
        own->setPen(QPen(grey, 6));
        own->setName(QObject::tr("tensor amax"));
    }
    double scaleLow = std::numeric_limits<double>::infinity(), scaleHigh = -scaleLow;
    double fractionHigh = 0;
    double sqnrLow = std::numeric_limits<double>::infinity(), sqnrHigh = -sqnrLow;
    for (std::size_t r = 0; r < result.runs.size(); ++r) {
        const Fp8ScalingRun& run = result.runs[r];
        // Each recipe is told apart three ways, so that no colour vision is needed: its colour,
        // its width (the first widest, each next one thinner and drawn over it, so two recipes
        // that overflow at the same steps both show) and its marker. The fractions' panel tells
        // overflowed from flushed by solid and dotted lines.
        const RecipeStyle style = recipeStyle(r, n);
        const QPen recipePen = style.pen;
        const QString recipe = QString::fromStdString(run.recipe.text);
        QVector<double> used, scale, overflow, flushedValues, sqnr;
        for (const Fp8ScalingStep& s : run.steps) {
            used << log2Of(s.amaxUsed);
            if (std::isfinite(used.back())) {
                low = std::min(low, used.back());
                high = std::max(high, used.back());
            }
            scale << log2Of(double(s.scale));
            if (std::isfinite(scale.back())) {
                scaleLow = std::min(scaleLow, scale.back());
                scaleHigh = std::max(scaleHigh, scale.back());
            }
            overflow << 100 * s.overflowFraction;
            flushedValues << 100 * s.flushedFraction;
            fractionHigh = std::max({fractionHigh, overflow.back(), flushedValues.back()});
            sqnr << (s.sqnrDb ? *s.sqnrDb : qQNaN());
            if (s.sqnrDb && std::isfinite(*s.sqnrDb)) {
                sqnrLow = std::min(sqnrLow, *s.sqnrDb);
                sqnrHigh = std::max(sqnrHigh, *s.sqnrDb);
            }
        }
        auto add = [&](QCPAxis* x, QCPAxis* y, const QVector<double>& values, Qt::PenStyle dash,
                       const QString& name) {
            if (!x)
                return; // a panel not drawn
            auto* graph = new QCPGraph(x, y);
            graph->setData(steps, values, true);
            QPen pen = recipePen;
            pen.setStyle(dash);
            graph->setPen(pen);
            graph->setScatterStyle(style.marker);
            graph->setScatterSkip(style.scatterSkip);
            graph->setName(name);
            if (name.isEmpty())
                graph->removeFromLegend();
        };
        // The legend names each recipe once, on the first panel drawn.
        add(ax, ay, used, Qt::SolidLine, recipe);
        add(sx, sy, scale, Qt::SolidLine, QString());
        add(fx, fy, overflow, Qt::SolidLine, scales ? QString() : recipe);
        add(fx, fy, flushedValues, Qt::DotLine, QString());
        add(qx, qy, sqnr, Qt::SolidLine, QString());
    }
    if (scales) {
        stepsAxis(ax, n, false);
        stepsAxis(sx, n, !losses); // the steps named under the last panel drawn
        fitLog2Axis(ay, low, high, QObject::tr("amax used"));
        fitLog2Axis(sy, scaleLow, scaleHigh, QObject::tr("scale"));
    }
    if (losses) {
        // The line styles of the fractions' panel, explained once.
        for (const auto& [style, name] :
             {std::pair{Qt::SolidLine, QObject::tr("overflowed (solid)")},
              std::pair{Qt::DotLine, QObject::tr("flushed to 0 (dotted)")}}) {
            auto* key = new QCPGraph(fx, fy);
            key->setPen(QPen(plots::meaningColour(plots::Meaning::Reference, theme), 1.5, style));
            key->setName(name);
        }
        stepsAxis(fx, n, false);
        stepsAxis(qx, n, true);
        fy->setRange(0, std::max(0.01, fractionHigh * 1.1));
        fy->setLabel(QObject::tr("% of values"));
        if (sqnrLow <= sqnrHigh)
            qy->setRange(sqnrLow - 1, sqnrHigh + 1);
        qy->setLabel(QObject::tr("SQNR (dB)"));
    }
    plots::applyTheme(plot, theme);
    plot.replot();
}

void drawSgdPlot(QCustomPlot& plot, const SgdResult& result) {
    const std::vector<QCPAxisRect*> rects = plots::resetStackedPlot(
        plot, QObject::tr("Weight over the steps, against exact arithmetic"), 1,
        plots::legendColumns(plot, "fp16 + fp32 master"));
    QCPAxis* x = rects[0]->axis(QCPAxis::atBottom);
    QCPAxis* y = rects[0]->axis(QCPAxis::atLeft);
    double low = std::numeric_limits<double>::infinity(), high = -low;
    double last = 1;
    const plots::PlotTheme theme = plots::plotTheme(plot.palette());
    for (std::size_t r = 0; r < result.runs.size(); ++r) {
        const SgdRun& run = result.runs[r];
        QVector<double> steps, weights, exact;
        for (const SgdRun::Point& p : run.trajectory) {
            steps << double(p.step);
            weights << p.weight;
            exact << p.exact;
            for (double v : {p.weight, p.exact})
                if (std::isfinite(v)) {
                    low = std::min(low, v);
                    high = std::max(high, v);
                }
            last = std::max(last, double(p.step));
        }
        auto* graph = new QCPGraph(x, y);
        graph->setData(steps, weights, true);
        graph->setPen(plots::seriesPen(int(r), 1.8));
        graph->setName(QString::fromStdString(result.labels[r]));
        if (r + 1 == result.runs.size()) { // over the formats' lines, which often hide it
            auto* reference = new QCPGraph(x, y);
            reference->setData(steps, exact, true);
            reference->setPen(
                QPen(plots::meaningColour(plots::Meaning::Reference, theme), 1.5, Qt::DashLine));
            reference->setName(QObject::tr("exact"));
        }
    }
    x->setRange(0, last);
    x->setLabel(QObject::tr("step"));
    if (low <= high) {
        const double pad = std::max(1e-30, 0.05 * (high - low));
        y->setRange(low - pad, high + pad);
    }
    y->setLabel(QObject::tr("weight"));
    plots::applyTheme(plot, theme);
    plot.replot();
}

} // namespace fpx::gui
