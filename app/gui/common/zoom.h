// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFont>
#include <QObject>
#include <QPointer>

class QCustomPlot;
class QWidget;

namespace fpx::gui {

// The zoom of one window, for a projector: fonts, bit cells and plots grow and shrink
// together. It sets the window's font (children that keep their own font are scaled by the
// same factor, relative to the window's), scales the fonts and pens of every QCustomPlot in
// the window just before each replot, and tells the rest (the bit cells' layout, the table's
// columns) through zoomChanged. Ctrl + mouse wheel over the window steps the zoom.
class ZoomController : public QObject {
    Q_OBJECT

  public:
    static constexpr int kMinPercent = 50;
    static constexpr int kMaxPercent = 300;

    // Reads the window's font now as the 100 % size.
    explicit ZoomController(QWidget* window);

    int percent() const { return percent_; }
    double factor() const { return percent_ / 100.0; }
    // Any percentage; clamped to kMinPercent … kMaxPercent.
    void setPercent(int percent);
    // The next step up or down of the ladder 50, 67, 75, 80, 90, 100, 110, 125, 150, … 300.
    void zoomIn();
    void zoomOut();
    void reset() { setPercent(100); }

    // `base` (a font of the 100 % size) at the current zoom.
    QFont scaled(const QFont& base) const;
    // Scales the plots that appeared since the last change (pages built later).
    void adoptNewPlots();

    bool eventFilter(QObject* watched, QEvent* event) override;

  signals:
    void zoomChanged(int percent);

  private:
    void apply();
    void adopt(QCustomPlot* plot);
    void scalePlot(QCustomPlot* plot) const;

    QPointer<QWidget> window_;
    QFont baseFont_;
    int percent_ = 100;
    int wheelDelta_ = 0;
};

// The system's fixed-width family and nothing else: no size of its own. Given to a widget
// (setFont) or returned as a model's Qt::FontRole, its size resolves to the widget's or the
// view's font, which the zoom sets, so fixed-width text follows the zoom like all other text.
// (QFontDatabase::systemFont(FixedFont) carries a size of its own that no zoom reaches.)
QFont fixedPitchFont();

// The steps of the zoom ladder, for tests and the View menu.
int nextZoomStep(int percent);
int previousZoomStep(int percent);

} // namespace fpx::gui
