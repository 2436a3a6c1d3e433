// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "shell/lesson_runner.h"

#include "fpx/lesson/lesson.h"

#include <QDockWidget>

#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QPushButton;
class QTextBrowser;

namespace fpx::gui {

class MainWindow;

// The Lessons panel: a dock beside the live explorer (on every page) with the lesson's title,
// its steps, the step's prose, the step's problems, Previous/Next, a menu of the built-in
// lessons and Close. Showing step K sets the window to step K's state (LessonRunner); the user
// may change anything afterwards, and Next or Previous set the window to that step's state.
class LessonPanel : public QDockWidget {
    Q_OBJECT

  public:
    explicit LessonPanel(MainWindow& window);

    // Each returns the problem ("FILE:LINE:COLUMN: …", "no built-in lesson …"), or an empty
    // string; on success the panel shows the lesson's first step.
    QString openFile(const QString& path);
    QString openBuiltIn(const QString& name);
    // --lesson's argument: an existing file, else a built-in lesson's name.
    QString openNameOrFile(const QString& argument);
    void setLesson(Lesson lesson);

    // Shows step `index` (0-based) and applies its state; false when out of range.
    bool showStep(std::size_t index);
    std::size_t currentStep() const { return step_; }
    std::size_t stepCount() const { return lesson_ ? lesson_->steps.size() : 0; }
    const std::optional<Lesson>& lesson() const { return lesson_; }
    QStringList problems() const { return problems_; } // of the step shown

    QTextBrowser* proseView() const { return prose_; }
    QPushButton* nextButton() const { return next_; }
    QPushButton* previousButton() const { return previous_; }
    QLabel* problemsLabel() const { return problemsLabel_; }
    // What the step's `show` names that is not on screen whole, checked once the page shown is
    // idle after the step (docs/lessons.md, "What must be visible").
    QStringList hiddenNotices() const { return hidden_; }
    QLabel* hiddenLabel() const { return hiddenLabel_; }
    QLabel* stepLabel() const { return stepLabel_; }
    QAction* nextAction() const { return nextAction_; }
    QAction* previousAction() const { return previousAction_; }
    // Alt+Home: the step shown, applied again (what the user changed since is undone).
    QAction* resetAction() const { return resetAction_; }
    // The width the dock opens at: a readable line of the prose's type, at most a share of the
    // window that leaves the explorer beside it.
    int openingWidth() const;
    // The built-in lessons and "Open lesson…", for the window's menu bar.
    QMenu* lessonsMenu() const { return menu_; }

  public slots:
    void next();
    void previous();
    void resetStep();
    void openFileDialog();

  signals:
    void stepShown(int index);

  private:
    void showProblems();
    // Reads again what the step's `show` names, as the window is laid out now.
    void checkShown();
    int readableWidth() const;

    MainWindow& window_;
    LessonRunner runner_;
    std::optional<Lesson> lesson_;
    std::size_t step_ = 0;
    QStringList problems_;
    QStringList hidden_;
    QLabel* title_;
    QLabel* summary_;
    QComboBox* steps_;
    QLabel* stepLabel_;
    QTextBrowser* prose_;
    QLabel* problemsLabel_;
    QLabel* hiddenLabel_;
    QPushButton* previous_;
    QPushButton* next_;
    QAction* nextAction_;
    QAction* previousAction_;
    QAction* resetAction_;
    QMenu* menu_;
};

// Creates the Lessons panel (hidden until a lesson is opened) and hooks it into the window's
// menus: File → Open lesson…, and a Lessons menu with the built-in lessons and the step keys.
LessonPanel* installLessons(MainWindow& window);

} // namespace fpx::gui
