// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/pages_scroller.h"

#include <QEvent>

namespace fpx::gui {

namespace {

// The least the pages are given before they scroll: a column a few controls wide.
constexpr QSize kLeast{240, 160};

} // namespace

PagesScroller::PagesScroller(QWidget* pages, QWidget* parent) : QScrollArea(parent) {
    setObjectName("pagesScroller");
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setWidget(pages);
    pages->installEventFilter(this);
}

void PagesScroller::setScrollsVertically(bool on) {
    vertical_ = on;
    setVerticalScrollBarPolicy(on ? Qt::ScrollBarAsNeeded : Qt::ScrollBarAlwaysOff);
    updateGeometry();
}

QSize PagesScroller::minimumSizeHint() const {
    const QWidget* pages = widget();
    if (!pages || vertical_)
        return kLeast;
    return {kLeast.width(), pages->minimumSizeHint().height() + 2 * frameWidth()};
}

QSize PagesScroller::sizeHint() const {
    return widget() ? widget()->sizeHint() : QScrollArea::sizeHint();
}

bool PagesScroller::eventFilter(QObject* watched, QEvent* event) {
    // The pages' minimum changed (the zoom, a page's new controls): so did this one's.
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        updateGeometry();
    return QScrollArea::eventFilter(watched, event);
}

} // namespace fpx::gui
