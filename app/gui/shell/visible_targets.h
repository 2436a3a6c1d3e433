// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace fpx::gui {

class MainWindow;

// What a lesson step's text refers to and so must be on screen, whole, when the step is shown
// (docs/lessons.md, "What must be visible"): the `show` action's list, such as
// `show column:error, row:fp4_e2m1, tab:plots, plot`.
struct VisibleTarget {
    enum class Kind {
        Column, // a column of the Explorer's table, by its header ("error", "ulp error")
        Row,    // the Explorer's row of a format, by id or alias
        Tab,    // the Explorer's lower tab: details or plots
        Plot,   // a plot of the page shown, at a legible height
    };
    Kind kind = Kind::Plot;
    QString name; // lower case; empty for Plot
};

// The targets of `text`, comma-separated; nullopt with `error` saying which item is wrong.
std::optional<std::vector<VisibleTarget>> parseVisibleTargets(const QString& text, QString& error);

// Scrolls a named row into the table's view and shows a named tab: what the window can do
// without changing what the step set.
void bringIntoView(MainWindow& window, const std::vector<VisibleTarget>& targets);

// What is not on screen, whole, each as "column Error is hidden" or the like; empty when all
// are. Reads the window as it is laid out now.
QStringList hiddenTargets(const MainWindow& window, const std::vector<VisibleTarget>& targets);

// The smallest height, in lines of its axis text, at which a plot counts as legible.
inline constexpr int kLegiblePlotLines = 8;
// ... of which each axis rect, the data, keeps at least this many.
inline constexpr int kLegibleDataLines = 4;

} // namespace fpx::gui
