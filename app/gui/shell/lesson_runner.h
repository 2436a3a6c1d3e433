// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

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
    explicit LessonRunner(MainWindow& window) : window_(window) {}

    // Applies step `index` (0-based). Returns the problems, each "FILE:LINE:COLUMN: what is
    // wrong" at the action that caused it; the step's other actions still apply.
    QStringList applyStep(const Lesson& lesson, std::size_t index);

  private:
    void resetToDefaults();
    // The step's state applied to the window (applyStep groups it into one undo step).
    QStringList applyState(const Lesson& lesson, std::size_t index);

    MainWindow& window_;
};

} // namespace fpx::gui
