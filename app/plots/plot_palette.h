// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>
#include <QPen>

#include <vector>

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
// For series drawn as areas (bars): the colour solid for the first eight, then hatched in a
// pattern per round of eight, so bars stay apart where lines would change their dash.
QBrush seriesBrush(int index);
// Index of the first style not in `used` from `preferred` on (wrapping), added to `used`: a
// plot whose series follow an order of their own (a colour per format, a dash per method)
// still draws no two alike.
int distinctSeriesIndex(int preferred, std::vector<int>& used);

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
// applyTheme with the theme of the plot's own palette: every page calls it after drawing.
void applyTheme(QCustomPlot& plot);

// Colours that mean the same on every page, so that they are defined once and follow the
// theme: lines and text in them stay readable on a dark background too.
enum class Meaning {
    Reference, // the exact result a series is compared with (drawn dashed)
    Good,      // kept, representable, in range
    Bad,       // lost, clipped, overflowed, a ceiling
    Caution,   // subnormal, a datasheet figure
    Neutral,   // context: a tensor's own amax, memcpy, a saved run
    Faint,     // what is barely there: exact zeros
};
QColor meaningColour(Meaning meaning, const PlotTheme& theme);

// Moves the legend of a plot made with QCustomPlot's default layout out of the axis rect into
// a row above it (fitLegendToWidth): a legend never covers data.
void placeLegendAbove(QCustomPlot& plot);
// For a legend in a row of its own, the plot's width: before every replot (a resize, a zoom,
// new entries) its entries are wrapped into as many columns as fit the width. The legend then
// asks for no width of its own, so a plot never holds its window wider than the screen (one
// row of all its entries could).
void fitLegendToWidth(QCustomPlot& plot);
bool fitsLegendToWidth(const QCustomPlot& plot);
// The wrapping itself, at once: for whatever changes the entries' fonts just before a replot (the
// zoom), after fitLegendToWidth's own turn.
void wrapLegendToWidth(QCustomPlot& plot);

} // namespace fpx::plots
