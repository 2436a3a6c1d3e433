// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/format_spec.h"
#include "fpx/rounding.h"

#include <string>
#include <vector>

namespace fpx {

// Data behind the plots, computed by the exact core and handed to a plotting front end as
// doubles (positions on screen need no more). Qt-free.

struct PlotPoint {
    double x = 0;
    double y = 0;
};

// Rounding error of x ↦ roundToFormat(x) − x over [from, to] (from < to, both finite).
struct ErrorCurve {
    // Small formats: the exact sawtooth, through every representable value and every jump
    // (each linear piece has slope −1, so its ends are enough). Wide formats: the envelope,
    // ± the largest possible error in each of `samples` buckets, so no peak is missed.
    std::vector<PlotPoint> absolute;
    std::vector<PlotPoint> relative;      // |error| / |x| (only where x ≠ 0)
    std::vector<PlotPoint> absoluteLower; // envelope only: the negative side
    bool exact = true;                    // true: sawtooth; false: envelope
    double unitRoundoff = 0;              // 2^−p: the bound on |relative error| under rne
    double minNormal = 0;                 // subnormal region is (−minNormal, minNormal)
    double max = 0;                       // overflow region is beyond ±max
};

ErrorCurve roundingErrorCurve(const FormatSpec& spec, const RoundingOptions& options, double from,
                              double to, bool logarithmic, int samples = 1500);

// The gap between neighbouring values against magnitude: a staircase from the smallest
// positive value to the largest finite one (points at each step's left and right end), in
// log2 units — x = log2 |value|, y = log2 gap — because FP80 and FP128 reach far past the
// range of double.
std::vector<PlotPoint> ulpStaircase(const FormatSpec& spec);

// What a range bar shows: log2 of the smallest subnormal, smallest normal and largest value.
struct RangeBar {
    std::string id;
    double log2MinSubnormal = 0; // equals log2MinNormal when there are no subnormals
    double log2MinNormal = 0;
    double log2Max = 0;
    double decimalDigits = 0;
};
RangeBar rangeBar(const FormatSpec& spec);

// Every finite value of a format of at most 16 bits, ascending, without duplicates (−0 = +0).
std::vector<double> finiteValues(const FormatSpec& spec);

// The class of every code of an 8-bit format, for a 16×16 map (index = code).
std::vector<int> codeClassMap(const FormatSpec& spec);

// Bits per element including block-scale overhead, for memory plots.
struct StorageCost {
    std::string label;
    double bitsPerElement = 0;
    std::string note;
};
std::vector<StorageCost> storageCosts(const std::vector<FormatSpec>& specs);

} // namespace fpx
