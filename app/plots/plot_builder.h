// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plot_request.h"

#include <QString>

#include <functional>
#include <vector>

class QCustomPlot;

namespace fpx::plots {

// Draws computed plot data into a QCustomPlot (clearing what was there). The same code draws
// the explorer's plot tabs and `fpx plot`'s files.
void buildPlot(QCustomPlot& plot, const PlotData& data);

// Moves (or hides, for NaN) the marker at the explorer's current value.
void setValueMarker(QCustomPlot& plot, double value);

// One writer per file type; export picks it by suffix.
struct PlotWriter {
    QString suffix;      // "png"
    QString description; // "PNG image"
    std::function<bool(QCustomPlot&, const PlotData&, const QString& path)> write;
};
const std::vector<PlotWriter>& plotWriters();
// Writes `path` with the writer of its suffix; false (and `error`) when unknown or failing.
bool exportPlot(QCustomPlot& plot, const PlotData& data, const QString& path,
                QString* error = nullptr);

} // namespace fpx::plots
