// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QAction;
class QDockWidget;

namespace fpx::gui {

class LessonPanel;
class MainWindow;
class SlideCaption;

// A lesson as slides (F6 in and out): presentation mode (full screen, large type, no bars) with
// the Lessons panel put away and, above the page, one step per screen: its title, its prose as
// large as the space allows and, when the step is about one format (it selects a row of the
// explorer), that format's bits drawn large. The page below is live. Keys in slide mode, from
// any focus in the window: PgDown and PgUp (a presenter's clicker) go to the next and previous
// step, as do → and ← and Alt+PgDown and Alt+PgUp; Home and Alt+Home set the step's state again;
// F6 or Esc leaves, back to the window as it was (presentation mode stays if it was on).
// → ← and Home stay with a text field or the table while one has focus.
class SlideMode : public QObject {
    Q_OBJECT

  public:
    // The share of the window's height the slide takes above the page at each step (dragging
    // the border changes it until the next step).
    static constexpr double kCaptionShare = 0.5;
    // Where the step names a plot to show, the slide takes what its prose needs in the
    // window's type, between these shares: the plot keeps its legible height below it.
    static constexpr double kPlotCaptionLeast = 0.2;
    static constexpr double kPlotCaptionShare = 0.34;

    SlideMode(MainWindow& window, LessonPanel& lessons);

    bool isActive() const { return active_; }
    // Refused (with a message in the status bar and as a tool tip) while no lesson is open.
    void setActive(bool active);
    void toggle() { setActive(!active_); }

    QAction* action() const { return action_; } // F6, for the menus
    SlideCaption* caption() const { return caption_; }
    QDockWidget* dock() const { return dock_; }

    bool eventFilter(QObject* watched, QEvent* event) override;

  signals:
    void activeChanged(bool active);

  private:
    void showStep();
    void placeCaption();

    MainWindow& window_;
    LessonPanel& lessons_;
    QDockWidget* dock_;
    SlideCaption* caption_;
    QAction* action_;
    bool active_ = false;
    bool presentationBefore_ = false;
    bool lessonsShownBefore_ = false;
};

} // namespace fpx::gui
