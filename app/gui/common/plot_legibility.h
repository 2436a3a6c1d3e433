// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFont>
#include <QString>
#include <QVector>

class QCPAxis;
class QCustomPlot;
class QScrollArea;
class QVBoxLayout;
class QWidget;

namespace fpx::gui {

// What keeps every plot readable on a projector, whatever its page drew: at any window size and
// zoom, tick labels never run into each other, the legend is never cut, and the plot never
// shrinks below a height that holds its text (docs/presentation.md, "Legible plots"). The zoom
// installs it on every QCustomPlot of its window, so no page needs a hook of its own.

// The least height of a plot, in lines of its font: one axis rect, and each further axis rect
// stacked under it. Below this the tick labels of a short axis rect have no room at all.
inline constexpr int kPlotMinimumLines = 12;
inline constexpr int kStackedRectLines = 6;

// Installs the pass on `plot` once. After each layout it
// - gives every axis as many ticks as fit: a numeric axis asks its ticker for fewer, a labelled
//   axis (text ticker) keeps every k-th label, each time from what the page asked for, so a
//   wider plot gets its ticks back;
// - moves a legend that does not fit inside its axis rect into a row above it;
// - breaks titles and footnotes into lines at the plot's width, so that no text holds the plot
//   wider than its page;
// - draws the widest lines first, so a thin line is never hidden under a thick one;
// - where the plot sits in a scroll area (plotsScrollArea), sets its minimum height to the larger
//   of what the page asked for, plotMinimumHeight and what its titles and legend rows need,
//   and its minimum width to its legend's widest entry; elsewhere a larger plot would hold the
//   window larger than the screen, so the page must give it a scroll area first;
// - hides the tick labels of an axis squashed too short for two, until it has room again.
void keepLegible(QCustomPlot& plot);
bool keepsLegible(const QCustomPlot& plot);

// kPlotMinimumLines lines of `font`, and kStackedRectLines more for each of `rectRows` − 1.
int plotMinimumHeight(const QFont& font, int rectRows);

// Whether labels `labels` at axis coordinates `ticks` would touch on `axis` as it is laid out
// now, in its tick label font and rotation, with half an average character between neighbours.
bool tickLabelsCollide(const QCPAxis& axis, const QVector<double>& ticks,
                       const QVector<QString>& labels);

// A scroll area for what holds a page's plots: as wide as its room (never sideways), scrolling
// down where the plots' legible heights do not fit the window, so that a plot neither squashes
// nor holds the window taller than the screen. Give it the content with setWidget.
QScrollArea* plotsScrollArea(QWidget* parent);

// Lays `page` out as one plotsScrollArea filling it, and returns the layout of the content that
// scrolls inside: where a lab's controls and plots go.
QVBoxLayout* scrollingPlotsLayout(QWidget& page);

} // namespace fpx::gui
