// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/replot_after_resize.h"

#include <qcustomplot.h>

#include <QEvent>

namespace fpx::gui {
namespace {

class ReplotAfterResize : public QObject {
  public:
    explicit ReplotAfterResize(QCustomPlot& plot) : QObject(&plot), plot_(&plot) {
        plot.installEventFilter(this);
        connect(&plot, &QCustomPlot::beforeReplot, this, [this] { drawing_ = true; });
        connect(&plot, &QCustomPlot::afterReplot, this, [this] { drawing_ = false; });
        connect(&plot, &QCustomPlot::afterLayout, this,
                [this] { laidOut_ = plot_->viewport().size(); });
    }

    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched != plot_)
            return false;
        if (event->type() == QEvent::Resize) {
            plot_->replot(QCustomPlot::rpQueuedReplot); // once, whatever many resizes come
        } else if (event->type() == QEvent::Paint && laidOut_ != plot_->size()) {
            // Painted at a size it was not laid out for: laid out again first, or, while it is
            // drawing (a paint within its own replot), on the next turn of the event loop.
            if (drawing_) {
                plot_->replot(QCustomPlot::rpQueuedReplot);
            } else {
                plot_->setViewport(plot_->rect());
                plot_->replot(QCustomPlot::rpQueuedRefresh);
            }
        }
        return false;
    }

  private:
    QCustomPlot* plot_;
    QSize laidOut_;
    bool drawing_ = false;
};

} // namespace

void replotAfterResize(QCustomPlot& plot) {
    if (plot.property("fpxReplotAfterResize").toBool())
        return;
    plot.setProperty("fpxReplotAfterResize", true);
    new ReplotAfterResize(plot);
}

} // namespace fpx::gui
