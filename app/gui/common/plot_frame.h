// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plot_palette.h"

#include <QIcon>
#include <QString>

#include <vector>

class QCPAxis;
class QCPAxisRect;
class QCustomPlot;

namespace fpx::gui {

// A fresh plot: a bold title, the legend under it in rows of `legendColumns` entries (rewrapped
// to the plot's width as it is resized or zoomed, never over the data), the axis rect below,
// which it returns.
QCPAxisRect* resetPlot(QCustomPlot& plot, const QString& title, int legendColumns = 4);
// The same with `rects` axis rects stacked under the legend, their left and right edges aligned
// so that they share one x axis, with the tick and label fonts of stacked plots.
std::vector<QCPAxisRect*> resetStackedPlot(QCustomPlot& plot, const QString& title, int rects,
                                           int legendColumns);
// The tick and label fonts of a stacked plot's axes, for an axis added to one (a right axis).
// Made when called: a font made before the application exists does not measure the same.
void setStackedAxisFonts(QCPAxis& axis);
// As many legend entries a row as fit the plot's width, for entries as wide as `longestEntry`.
int legendColumns(const QCustomPlot& plot, const QString& longestEntry);

// Each format's series style is plots::seriesStyle(its row): the same in every plot and in
// the table's swatches.
// A table's swatch of series `index`: a short line in its colour and dash.
QIcon seriesSwatch(int index);

// A plot with only a message in it (no result yet, or nothing to draw).
void drawMessage(QCustomPlot& plot, const QString& title, const QString& message,
                 plots::Meaning meaning = plots::Meaning::Neutral);

} // namespace fpx::gui
