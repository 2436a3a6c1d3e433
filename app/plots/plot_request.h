// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/format_spec.h"
#include "fpx/plot_data.h"
#include "fpx/rounding.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace fpx::plots {

enum class PlotKind { Error, Ulp, Range, Values, Memory };

QString plotKindId(PlotKind kind); // "error", "ulp", …
std::optional<PlotKind> parsePlotKind(const QString& text);
QString plotKindTitle(PlotKind kind);

// What to plot: computed off the GUI thread into PlotData, then drawn.
struct PlotRequest {
    PlotKind kind = PlotKind::Error;
    std::vector<FormatSpec> formats;
    RoundingOptions options;
    double from = 0.0625; // error and values plots: the x range
    double to = 8;
    bool logarithmic = false;
    bool symmetricLog = false; // values plot
};

struct FormatSeries {
    QString id;
    ErrorCurve error;
    std::vector<PlotPoint> ulp;
    RangeBar range;
    std::vector<double> values;
    std::vector<int> codeClasses; // 8-bit formats
};

struct PlotData {
    PlotRequest request;
    std::vector<FormatSeries> series;
    std::vector<StorageCost> storage;
};

// The exact core's part: pure computation, safe to run on any thread.
PlotData computePlotData(const PlotRequest& request);

// The data of a plot as CSV (one row per point, a column naming the format and the series).
QString plotDataCsv(const PlotData& data);

} // namespace fpx::plots
