// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>

class QMainWindow;

namespace fpx::gui {

class ZoomController;

// A lecture's view of the window: full screen, large type (at least kPercent zoom), and
// without what a lecture does not need — the menu bar and the status bar (with its timings).
// Every shortcut keeps working (the window holds the menus' actions); F5 or Esc leaves, and
// leaving restores the window's state, its bars and the zoom it had before. Esc leaves from any
// focus in the window, the table's included; in a dialog or an open popup (a menu, a
// completion) Esc stays theirs.
class PresentationMode : public QObject {
    Q_OBJECT

  public:
    static constexpr int kPercent = 150;

    PresentationMode(QMainWindow* window, ZoomController* zoom);

    bool isActive() const { return active_; }
    void setActive(bool active);
    void toggle() { setActive(!active_); }
    // The zoom to remember between runs: the one outside presentation mode.
    int normalZoomPercent() const;

    bool eventFilter(QObject* watched, QEvent* event) override;

  signals:
    void activeChanged(bool active);

  private:
    QMainWindow* window_;
    QPointer<ZoomController> zoom_;
    bool active_ = false;
    int zoomBefore_ = 100;
    Qt::WindowStates statesBefore_;
};

} // namespace fpx::gui
