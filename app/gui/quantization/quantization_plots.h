// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plot_palette.h"
#include "quantization/quantization_model.h"

#include <QColor>
#include <QIcon>
#include <QString>

class QCustomPlot;

namespace fpx::gui {

// Each format's series style is plots::seriesStyle(its row): the same in every plot and in
// the table's swatches.
// A table's swatch of series `index`: a short line in its colour and dash.
QIcon seriesSwatch(int index);

// The values' histogram; with `grid` the selected format's representable values (after the
// scale of one block, named in `gridLabel`) as thin vertical lines over it.
void drawValueHistogram(QCustomPlot& plot, const QuantizationResult& result,
                        const std::vector<double>& grid, const QString& gridLabel,
                        const QColor& gridColour);

// |x − q| per element on a logarithmic axis, one curve per format.
void drawErrorHistograms(QCustomPlot& plot, const QuantizationResult& result);

// SQNR (dB) against block size, one curve per scaled format.
void drawBlockSizeSweep(QCustomPlot& plot, const QuantizationResult& result);

// A plot with only a message in it (no result yet, or nothing to draw).
void drawMessage(QCustomPlot& plot, const QString& title, const QString& message,
                 plots::Meaning meaning = plots::Meaning::Neutral);

} // namespace fpx::gui
