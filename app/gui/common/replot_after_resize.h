// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCustomPlot;

namespace fpx::gui {

// Draws `plot` again, on the next turn of the event loop, after each resize of it, and lays it
// out again before it paints at a size it was not last laid out for. QCustomPlot draws a resize at
// once unless it is drawing already, and then not at all, and a resize while its page is hidden
// may never reach it: a plot that grows while it draws (the legibility pass raising its least
// height from within the plot's layout, common/plot_legibility.h) or while hidden would show
// its earlier picture in the larger frame, blank below it, and differ from the same plot that
// had that size from the start.
void replotAfterResize(QCustomPlot& plot);

} // namespace fpx::gui
