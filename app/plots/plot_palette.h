// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>
#include <QPen>

class QCustomPlot;

namespace fpx::plots {

// How series are told apart: a colour and a dash pattern. The first eight are solid, in
// colours people with the common colour-vision deficiencies still tell apart (Okabe and Ito's
// set, with grey and brown in place of black and the yellow, which vanish on a dark or a
// light background); the next eight repeat the colours dashed, then dotted, then dash-dotted:
// 32 distinct (colour, dash) pairs before anything repeats.
struct SeriesStyle {
    QColor colour;
    Qt::PenStyle dash = Qt::SolidLine;
};
constexpr int kDistinctSeriesStyles = 32;
SeriesStyle seriesStyle(int index);
QColor seriesColour(int index);
QPen seriesPen(int index, double width);

// The colours of everything that is not a series: background, axes, grid, text, legend box.
struct PlotTheme {
    bool dark = false;
    QColor background;
    QColor foreground; // axes, tick labels, titles, legend text
    QColor grid;
    QColor subGrid;
    QColor legendBackground;
    QColor muted; // hidden legend entries, secondary lines
};
// Light or dark after the palette: dark when its window colour is dark.
PlotTheme plotTheme(const QPalette& palette);
// Gives every axis, grid, legend and text element of `plot` the theme's colours.
void applyTheme(QCustomPlot& plot, const PlotTheme& theme);

} // namespace fpx::plots
