// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plot_palette.h"

#include <QIcon>
#include <QString>

#include <vector>

class QCPAxis;
class QCPAxisRect;
class QCPLegend;
class QCPTextElement;
class QCustomPlot;

namespace fpx::plots {

// The frame of every plot fpx draws, on every page and in `fpx plot`'s files: one title style,
// one legend style, the legend in the plot's layout so that it never covers data.

// The point sizes of a frame's title and legend: the pages' stacked plots use the defaults; a
// plot with room to spare (two panels side by side, the explorer's figures) larger ones.
struct FrameFonts {
    int title = 10;
    int legend = 8;
};

// A plot's (or a panel's) title: bold, sans.
QCPTextElement* makeTitle(QCustomPlot& plot, const QString& text,
                          int pointSize = FrameFonts{}.title);
// The legend style: no border, sans, entries filled row by row.
void styleLegend(QCPLegend& legend, int pointSize = FrameFonts{}.legend);

// A fresh plot: a bold title, the legend under it in rows of `legendColumns` entries (rewrapped
// to the plot's width as it is resized or zoomed, never over the data), the axis rect below,
// which it returns.
QCPAxisRect* resetPlot(QCustomPlot& plot, const QString& title, int legendColumns = 4);
// The same with `rects` axis rects stacked under the legend, their left and right edges aligned
// so that they share one x axis, with the tick and label fonts of stacked plots.
std::vector<QCPAxisRect*> resetStackedPlot(QCustomPlot& plot, const QString& title, int rects,
                                           int legendColumns);
// Panels side by side under one legend, each with its title over its axis rect (the
// accumulation lab's running sum and its error); the rects, left to right.
std::vector<QCPAxisRect*> resetPanelsPlot(QCustomPlot& plot, const QStringList& titles,
                                          int legendColumns, const FrameFonts& fonts = {});
// The tick and label fonts of a stacked plot's axes, for an axis added to one (a right axis).
// Made when called: a font made before the application exists does not measure the same.
void setStackedAxisFonts(QCPAxis& axis);
// As many legend entries a row as fit the plot's width, for entries as wide as `longestEntry`.
int legendColumns(const QCustomPlot& plot, const QString& longestEntry);

// Each format's series style is seriesStyle(its row): the same in every plot and in
// the table's swatches.
// A table's swatch of series `index`: a short line in its colour and dash.
QIcon seriesSwatch(int index);

// A plot with only a message in it (no result yet, or nothing to draw).
void drawMessage(QCustomPlot& plot, const QString& title, const QString& message,
                 Meaning meaning = Meaning::Neutral);

} // namespace fpx::plots
