// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/presentation_mode.h"

#include "common/zoom.h"
#include "shell/window_keys.h"

#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

#include <algorithm>

namespace fpx::gui {

namespace {

// A hidden menu bar takes its menus' shortcuts with it; the window itself holds them, so that
// Ctrl+=, Ctrl+1 … 5 and F5 keep working with the bar hidden.
void holdShortcuts(QWidget& window, const QList<QAction*>& actions) {
    for (QAction* action : actions) {
        if (QMenu* menu = action->menu())
            holdShortcuts(window, menu->actions());
        else if (!action->isSeparator())
            window.addAction(action);
    }
}

} // namespace

PresentationMode::PresentationMode(QMainWindow* window, ZoomController* zoom)
    : QObject(window), window_(window), zoom_(zoom) {}

int PresentationMode::normalZoomPercent() const {
    return active_ || !zoom_ ? zoomBefore_ : zoom_->percent();
}

void PresentationMode::setActive(bool active) {
    if (active == active_)
        return;
    active_ = active;
    if (active) {
        zoomBefore_ = zoom_ ? zoom_->percent() : 100;
        statesBefore_ = window_->windowState();
        holdShortcuts(*window_, window_->menuBar()->actions());
        window_->menuBar()->hide();
        window_->statusBar()->hide();
        window_->setWindowState((statesBefore_ & ~Qt::WindowMinimized) | Qt::WindowFullScreen);
        if (zoom_)
            zoom_->setPercent(std::max(kPercent, zoomBefore_));
        qApp->installEventFilter(this);
    } else {
        qApp->removeEventFilter(this);
        window_->setWindowState(statesBefore_);
        window_->menuBar()->show();
        window_->statusBar()->show();
        if (zoom_)
            zoom_->setPercent(zoomBefore_);
    }
    emit activeChanged(active);
}

bool PresentationMode::eventFilter(QObject* watched, QEvent* event) {
    const QKeyEvent* key = windowKeyPress(watched, event, window_);
    if (!key || key->key() != Qt::Key_Escape ||
        (key->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier)
        return false;
    setActive(false);
    return true;
}

} // namespace fpx::gui
