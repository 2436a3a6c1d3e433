// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/exact/plot_data.h"
#include "fpx/exact/rounding.h"
#include "fpx/quantization/memory_footprint.h"
#include "fpx/quantization/training_recipe.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace fpx::plots {

enum class PlotKind { Error, Ulp, Precision, Range, Values, Codes, Memory };

QString plotKindId(PlotKind kind); // "error", "ulp", …
std::optional<PlotKind> parsePlotKind(const QString& text);
QString plotKindTitle(PlotKind kind);

// What to plot: computed off the GUI thread into PlotData, then drawn.
struct PlotRequest {
    PlotKind kind = PlotKind::Error;
    std::vector<FormatSpec> formats;
    RoundingOptions options;
    // The x range: the error plot's always; the ULP, range and values plots' view only when
    // rangeSet (otherwise they choose their own first view).
    double from = 0.0625;
    double to = 8;
    bool rangeSet = false;
    bool logarithmic = false;
    bool symmetricLog = false; // values plot
    // Memory plot: the model's parameter count, GB or GiB, and what is stored: the weights by
    // format for inference (no recipes), or one bar per training recipe; QLoRA's adapters.
    std::uint64_t parameters = 70'000'000'000;
    std::vector<TrainingRecipe> recipes;
    AdapterSize adapters;
    bool gib = false;
    // Memory plot: what to show, formats or block quantizers (mxfp4, nvfp4, nf4 …); empty:
    // the formats above and the block quantizers built on them.
    std::vector<std::string> memoryIds;
};

// Whether the x range and log switches mean something for a kind of plot; when not, the GUI
// disables them with `why` as their tooltip and `fpx plot` rejects them.
struct PlotSwitches {
    bool range = false;
    bool log = false;
    QString rangeWhy; // empty where it applies
    QString logWhy;
    QString logMeaning; // what the log switch does on this kind
};
PlotSwitches plotSwitches(PlotKind kind);

struct FormatSeries {
    QString id;
    int bits = 0; // the format's width: the ULP plot's first view follows the narrow ones
    ErrorCurve error;
    std::vector<PlotPoint> ulp;
    std::vector<PlotPoint> precision; // significant bits against log2 |x|
    RangeBar range;
    std::vector<double> values;
    std::vector<int> codeClasses; // the code map: formats of at most 8 bits
};

struct PlotData {
    PlotRequest request;
    std::vector<FormatSeries> series;
    std::vector<MemoryFootprint> memory; // memory plot: one per stored form
};

// Bytes in the memory plot's unit: GB = 10^9 bytes, GiB = 2^30 bytes.
std::uint64_t memoryUnitBytes(bool gib);
QString memoryUnitName(bool gib);

// The exact core's part: pure computation, safe to run on any thread.
PlotData computePlotData(const PlotRequest& request);

// The data of a plot as CSV (one row per point, a column naming the format and the series).
QString plotDataCsv(const PlotData& data);

} // namespace fpx::plots
