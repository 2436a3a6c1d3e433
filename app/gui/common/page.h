// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <chrono>

namespace fpx::gui {

// One page of the explorer's window, as the shell hosts it (docs/architecture.md, "The
// pages"): a widget that says whether work for what it shows is still in flight (rows, a plot,
// a run, backends loading) and signals when that work is done. Screenshots, presentation
// mode, lessons and tests wait for idle() before they read or draw a page, whatever the work.
class Page : public QWidget {
    Q_OBJECT

  public:
    using QWidget::QWidget;

    // Whether work for what the page shows is in flight: what it shows may still change.
    virtual bool busy() const = 0;

    // Turns the event loop until busy() is false, at most `timeout`; whether the page is idle
    // then. Returns at once when it is idle already.
    bool waitUntilIdle(std::chrono::milliseconds timeout);

  signals:
    // busy() turned false: what the page shows is final until the next change.
    void idle();

  protected:
    // A piece of the page's work ended (a worker's result shown, a run finished): emits idle()
    // when nothing else is in flight. Pages connect their workers' "finished" signals here.
    void workEnded();
};

} // namespace fpx::gui
