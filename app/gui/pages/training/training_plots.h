// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/training/training_runs.h"
#include "plot_palette.h"

#include <QColor>

#include <cstdint>

class QCustomPlot;

namespace fpx::gui {

// The colour of a range zone, the same in the bands, their legend and the table: the meaning
// it has on every page (overflow is bad, normal is good), in the theme's shade.
QColor rangeZoneColour(RangeZone zone, const plots::PlotTheme& theme);

// The slider's reach: the loss scale runs over 2^−kScaleReach … 2^kScaleReach.
inline constexpr int kScaleReach = 24;

// |values| on a log2 axis, shifted by `shownExponent` (the slider's k, ahead of the fits while
// they are computed), over one band per format showing its zones on the same axis.
void drawRangePlot(QCustomPlot& plot, const RangeResult& result, std::int64_t shownExponent);

// The gradient amax over the steps; under it the scale used (log2), the skipped steps marked,
// and the flushed fraction on a second axis when gradients were simulated.
void drawLossScalePlot(QCustomPlot& plot, const LossScaleResult& result);

// Each recipe over the steps: amax used (the tensors' own amax in grey), scale, overflowed and
// flushed fractions, SQNR. On screen the first two panels and the last two are two plots, each
// short enough to be seen whole on a projector; an exported image has all four.
enum class Fp8Panels { All, Scales, Losses };
void drawFp8Plot(QCustomPlot& plot, const Fp8Result& result, Fp8Panels panels = Fp8Panels::All);

// Each variant's weight over the steps against the exact one.
void drawSgdPlot(QCustomPlot& plot, const SgdResult& result);

} // namespace fpx::gui
