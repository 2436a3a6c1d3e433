// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plot_request.h"

class QCustomPlot;

namespace fpx::plots {

// The code maps of the formats of at most 8 bits, into a plot whose title and first axis rect
// buildPlot has laid out: one grid each, a cell per code (column = the low four bits, row =
// the bits above), coloured by what the code decodes to, so that where a format spends its
// codes (E4M3's one NaN pair, E5M2's infinities and NaNs, INT4's none) is seen at a glance.
void buildCodeMaps(QCustomPlot& plot, const PlotData& data);

} // namespace fpx::plots
