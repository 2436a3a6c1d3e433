// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/machines/machines_model.h"

#include <span>

class QCustomPlot;
class QTableWidget;

namespace fpx::gui {

// What the Machines page draws from its results: error against K, one curve per machine and
// one per promoted machine (the machine's colour, dashed), on log axes; and the table of one
// dot product on every machine, results that disagree marked.

enum class ErrorStatistic { Max, Mean };

// Each machine's colour is by its place among the built-in machines, then `own` (a machine
// file's), so that a machine keeps its colour whichever others are plotted.
void drawErrorAgainstK(QCustomPlot& plot, const ErrorSweepResult& result, ErrorStatistic statistic,
                       std::span<const MachineModel> own = {});

namespace machine_table {

enum Column {
    Machine,
    FractionBits,
    Products,
    Output,
    Result,
    Bits,
    Instructions,
    RelativeError,
    FromNearest,
    ColumnCount
};

void setUp(QTableWidget& table);
void fill(QTableWidget& table, const MachineComparison& comparison);

} // namespace machine_table

} // namespace fpx::gui
