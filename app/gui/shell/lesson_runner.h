// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/arithmetic/arithmetic_page_state.h"
#include "pages/machines/machines_page_state.h"
#include "pages/quantization/quantization_page_state.h"
#include "pages/training/training_page_state.h"

#include "fpx/lesson/lesson.h"

#include <QString>
#include <QStringList>

namespace fpx::gui {

class MainWindow;

// Sets the window to a lesson step's state: the explorer's defaults, then the merged actions of
// steps 1 … K, each set in the typed state of its page through the page's option table and
// applied as the command line's options are (PageStates). A lesson therefore means exactly
// what the same options mean on the command line; there is no second table to drift.
class LessonRunner {
  public:
    // Takes the pages' state as it is now as their defaults: make it before anything changes
    // them (installLessons does, on a new window).
    explicit LessonRunner(MainWindow& window);

    // Applies step `index` (0-based). Returns the problems, each "FILE:LINE:COLUMN: what is
    // wrong" at the action that caused it; the step's other actions still apply.
    QStringList applyStep(const Lesson& lesson, std::size_t index);

    // What the step's `show` action names that the window, as laid out now, does not show
    // whole ("the column Error is hidden …"), each with the action's FILE:LINE:COLUMN.
    QStringList hiddenTargets(const Lesson& lesson, std::size_t index) const;
    // Scrolls what step `index`'s `show` names into view again, once the pages have laid out
    // their results (a taller Details tab can push a named row out of the table's view).
    void bringIntoViewAgain(const Lesson& lesson, std::size_t index);

  private:
    // Every page as a new window shows it, so that a step looks the same however it was
    // reached: after another lesson, by Next, by Previous or by --step.
    void resetToDefaults();
    // The step's state applied to the window (applyStep groups it into one undo step).
    QStringList applyState(const Lesson& lesson, std::size_t index);

    MainWindow& window_;
    ArithmeticPageState arithmeticDefaults_;
    QuantizationPageState quantizationDefaults_;
    TrainingPageState trainingDefaults_;
    MachinesPageState machinesDefaults_;
};

} // namespace fpx::gui
