// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/quantization/quantization_model.h"
#include "plot_frame.h"

#include <QColor>
#include <QIcon>
#include <QString>

class QCustomPlot;

namespace fpx::gui {

// The values' histogram; with `grid` the selected format's representable values (after the
// scale of one block, named in `gridLabel`) as thin vertical lines over it.
void drawValueHistogram(QCustomPlot& plot, const QuantizationResult& result,
                        const std::vector<double>& grid, const QString& gridLabel,
                        const QColor& gridColour);

// |x − q| per element on a logarithmic axis, one curve per format.
void drawErrorHistograms(QCustomPlot& plot, const QuantizationResult& result);

// SQNR (dB) against block size, one curve per scaled format.
void drawBlockSizeSweep(QCustomPlot& plot, const QuantizationResult& result);

} // namespace fpx::gui
