// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/arithmetic/accumulation_lab.h"

class QCustomPlot;

namespace fpx::gui {

// Draws the accumulation lab's runs into `plot` (clearing it): the running sums beside the
// exact sum, and their relative error, against N on log axes; one colour per accumulator, one
// line style per method; a circle where a term first left the sum unchanged.
void drawAccumulation(QCustomPlot& plot, const AccumulationLabResult& result);

} // namespace fpx::gui
