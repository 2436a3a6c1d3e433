// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/zoom.h"

#include "common/plot_legibility.h"
#include "plot_palette.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFontDatabase>
#include <QVariantList>
#include <QWheelEvent>
#include <QWidget>

#include <algorithm>
#include <array>
#include <cmath>

namespace fpx::gui {

namespace {

constexpr std::array<int, 15> kSteps{50,  67,  75,  80,  90,  100, 110, 125,
                                     150, 175, 200, 225, 250, 275, 300};

// Code that builds a widget or a plot sets fonts of its own (a larger value field, an 8 pt
// legend). The zoom must scale those from what the code asked for, not from what the zoom set
// last time, and must notice when the code sets a new one. So each scaled font is remembered on
// its owner as the pair (font the code set, font the zoom made of it): if the owner still has
// the zoom's font, the code's font is the base; otherwise the code replaced it, and the current
// font is the new base.
QFont zoomedFont(QObject* owner, const char* key, const QFont& current, double factor) {
    QFont base = current;
    const QVariantList stored = owner->property(key).toList();
    if (stored.size() == 2 && stored[1].value<QFont>() == current)
        base = stored[0].value<QFont>();
    QFont scaled = base;
    if (base.pointSizeF() > 0)
        scaled.setPointSizeF(base.pointSizeF() * factor);
    else if (base.pixelSize() > 0)
        scaled.setPixelSize(std::max(1, static_cast<int>(std::lround(base.pixelSize() * factor))));
    owner->setProperty(key, QVariantList{base, scaled});
    return scaled;
}

QPen zoomedPen(QObject* owner, const char* key, const QPen& current, double factor) {
    // Cosmetic hairlines (width 0) stay one device pixel at every zoom.
    if (current.widthF() <= 0)
        return current;
    double base = current.widthF();
    const QVariantList stored = owner->property(key).toList();
    if (stored.size() == 2 && stored[1].toDouble() == current.widthF())
        base = stored[0].toDouble();
    QPen scaled = current;
    scaled.setWidthF(base * factor);
    owner->setProperty(key, QVariantList{base, scaled.widthF()});
    return scaled;
}

void scaleLayoutElement(QCPLayoutElement* element, double factor) {
    if (auto* legend = qobject_cast<QCPLegend*>(element)) {
        legend->setFont(zoomedFont(legend, "fpxZoomFont", legend->font(), factor));
        legend->setSelectedFont(
            zoomedFont(legend, "fpxZoomSelectedFont", legend->selectedFont(), factor));
    } else if (auto* item = qobject_cast<QCPAbstractLegendItem*>(element)) {
        item->setFont(zoomedFont(item, "fpxZoomFont", item->font(), factor));
        item->setSelectedFont(
            zoomedFont(item, "fpxZoomSelectedFont", item->selectedFont(), factor));
    } else if (auto* text = qobject_cast<QCPTextElement*>(element)) {
        text->setFont(zoomedFont(text, "fpxZoomFont", text->font(), factor));
        text->setSelectedFont(
            zoomedFont(text, "fpxZoomSelectedFont", text->selectedFont(), factor));
    } else if (auto* rect = qobject_cast<QCPAxisRect*>(element)) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setLabelFont(zoomedFont(axis, "fpxZoomLabel", axis->labelFont(), factor));
            axis->setTickLabelFont(
                zoomedFont(axis, "fpxZoomTickLabel", axis->tickLabelFont(), factor));
            axis->setSelectedLabelFont(
                zoomedFont(axis, "fpxZoomSelectedLabel", axis->selectedLabelFont(), factor));
            axis->setSelectedTickLabelFont(zoomedFont(axis, "fpxZoomSelectedTickLabel",
                                                      axis->selectedTickLabelFont(), factor));
        }
    }
}

} // namespace

QFont fixedPitchFont() {
    // A default-constructed QFont has no property set; setting only the family (and the hint
    // that picks a fixed-width one where the family is missing) leaves the size to resolve.
    QFont font;
    font.setFamilies(QFontDatabase::systemFont(QFontDatabase::FixedFont).families());
    font.setStyleHint(QFont::TypeWriter);
    font.setFixedPitch(true);
    return font;
}

int nextZoomStep(int percent) {
    for (int step : kSteps)
        if (step > percent)
            return step;
    return ZoomController::kMaxPercent;
}

int previousZoomStep(int percent) {
    for (auto it = kSteps.rbegin(); it != kSteps.rend(); ++it)
        if (*it < percent)
            return *it;
    return ZoomController::kMinPercent;
}

ZoomController::ZoomController(QWidget* window)
    : QObject(window), window_(window), baseFont_(window->font()) {
    // Application-wide, so that the wheel over any child (a plot, the table, a text field)
    // reaches the zoom before the child scrolls or zooms its own axis with it.
    qApp->installEventFilter(this);
    adoptNewPlots();
}

void ZoomController::setPercent(int percent) {
    percent = std::clamp(percent, kMinPercent, kMaxPercent);
    if (percent == percent_)
        return;
    percent_ = percent;
    apply();
}

void ZoomController::zoomIn() {
    setPercent(nextZoomStep(percent_));
}

void ZoomController::zoomOut() {
    setPercent(previousZoomStep(percent_));
}

QFont ZoomController::scaled(const QFont& base) const {
    QFont font = base;
    if (base.pointSizeF() > 0)
        font.setPointSizeF(base.pointSizeF() * factor());
    else if (base.pixelSize() > 0)
        font.setPixelSize(std::max(1, static_cast<int>(std::lround(base.pixelSize() * factor()))));
    return font;
}

void ZoomController::apply() {
    if (!window_)
        return;
    // Widgets with a font of their own keep their size relative to the window's font: read
    // each one's ratio before the window's font changes, set it after.
    const double windowPoints = window_->font().pointSizeF();
    struct OwnFont {
        QWidget* widget;
        double ratio;
    };
    std::vector<OwnFont> own;
    for (QWidget* child : window_->findChildren<QWidget*>()) {
        if (!child->testAttribute(Qt::WA_SetFont) || qobject_cast<QCustomPlot*>(child) ||
            child->font().pointSizeF() <= 0 || windowPoints <= 0)
            continue;
        const QVariantList stored = child->property("fpxZoomRatio").toList();
        double ratio = child->font().pointSizeF() / windowPoints;
        if (stored.size() == 2 && stored[1].toDouble() == child->font().pointSizeF())
            ratio = stored[0].toDouble();
        own.push_back({child, ratio});
    }
    window_->setFont(scaled(baseFont_));
    const double points = window_->font().pointSizeF();
    for (const OwnFont& o : own) {
        QFont font = o.widget->font();
        font.setPointSizeF(o.ratio * points);
        o.widget->setFont(font);
        o.widget->setProperty("fpxZoomRatio", QVariantList{o.ratio, font.pointSizeF()});
    }
    adoptNewPlots();
    for (QCustomPlot* plot : window_->findChildren<QCustomPlot*>())
        plot->replot(QCustomPlot::rpQueuedReplot);
    emit zoomChanged(percent_);
}

void ZoomController::adoptNewPlots() {
    if (!window_)
        return;
    for (QCustomPlot* plot : window_->findChildren<QCustomPlot*>())
        if (!plot->property("fpxZoomAdopted").toBool())
            adopt(plot);
}

void ZoomController::adopt(QCustomPlot* plot) {
    plot->setProperty("fpxZoomAdopted", true);
    // Just before the layout of each replot, whatever the page's code drew with, so the zoom
    // needs no hook in the drawing code of any page.
    connect(plot, &QCustomPlot::beforeReplot, this, [this, plot] { scalePlot(plot); });
    keepLegible(*plot);
    // A plot drawn before it was adopted (a page built while the zoom was not 100 %) shows the
    // zoom's fonts now, not at its next run.
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void ZoomController::scalePlot(QCustomPlot* plot) const {
    const double f = factor();
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true))
        if (element)
            scaleLayoutElement(element, f);
    if (plot->legend)
        scaleLayoutElement(plot->legend, f);
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) {
            text->setFont(zoomedFont(text, "fpxZoomFont", text->font(), f));
            text->setSelectedFont(zoomedFont(text, "fpxZoomSelectedFont", text->selectedFont(), f));
        }
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* plottable = plot->plottable(i);
        plottable->setPen(zoomedPen(plottable, "fpxZoomPen", plottable->pen(), f));
    }
    // The legend's entries have their new size here: wrap them again to the plot's width.
    if (plots::fitsLegendToWidth(*plot))
        plots::wrapLegendToWidth(*plot);
}

bool ZoomController::eventFilter(QObject* watched, QEvent* event) {
    // A plot a page makes later (a lab opened, a view built on demand) is adopted as it first
    // shows, before it is drawn at a size the zoom has not seen.
    if (event->type() == QEvent::Show && window_)
        if (auto* plot = qobject_cast<QCustomPlot*>(watched);
            plot && plot->window() == window_ && !plot->property("fpxZoomAdopted").toBool())
            adopt(plot);
    if (event->type() != QEvent::Wheel || !window_)
        return false;
    auto* wheel = static_cast<QWheelEvent*>(event);
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!(wheel->modifiers() & Qt::ControlModifier) || !widget || widget->window() != window_)
        return false;
    // Touchpads send many small deltas; one step per notch of a wheel (120 eighths of a degree).
    wheelDelta_ += wheel->angleDelta().y();
    for (; wheelDelta_ >= 120; wheelDelta_ -= 120)
        zoomIn();
    for (; wheelDelta_ <= -120; wheelDelta_ += 120)
        zoomOut();
    return true;
}

} // namespace fpx::gui
