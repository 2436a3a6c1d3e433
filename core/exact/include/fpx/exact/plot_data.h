// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

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
    // The exact sawtooth (small formats): every linear piece of the error (slope −1) by its
    // two ends, from `from` to `to`; at a jump both one-sided limits share one x, and where
    // rounding gives ±∞ or NaN a NaN point breaks the line. `relative` holds |error| / |x| at
    // the same points where the error is not 0: the peaks next to each jump (the zeros in
    // between would be −∞ on a log axis).
    //
    // The envelope (wide formats, stochastic rounding): [from, to] is cut into `samples`
    // intervals of equal width on the chosen axis, and each series holds, for each interval
    // [x0, x1], its bound over the whole closed interval twice, at x0 and at x1 (a staircase):
    //   absolute       the largest error, rounded up to a double;
    //   absoluteLower  the smallest (most negative) error, rounded down;
    //   relative       the largest |error| / |x| (x ≠ 0), rounded up.
    // These are the suprema and infima, attained or approached within the interval, so the
    // staircase touches the true error in every interval and never lies inside it. A bound is
    // ±∞ where rounding gives ±∞ somewhere in the interval (or the relative error grows
    // without bound next to 0), and NaN where it gives NaN there: no finite number would be
    // true. Stochastic rounding counts both neighbours it may store.
    std::vector<PlotPoint> absolute;
    std::vector<PlotPoint> relative;
    std::vector<PlotPoint> absoluteLower; // envelope only
    bool exact = true;                    // true: sawtooth; false: envelope
    double unitRoundoff = 0;              // 2^−p: the bound on |relative error| under rne
    double minNormal = 0; // floats: the subnormal region is (−minNormal, minNormal); else 0
    double max = 0;       // overflow region is beyond max …
    double lowest = 0;    // … and below the lowest finite value
};

enum class ErrorCurveShape {
    Automatic, // the sawtooth where it is affordable, the envelope elsewhere
    Envelope,  // always the envelope
};

ErrorCurve roundingErrorCurve(const FormatSpec& spec, const RoundingOptions& options, double from,
                              double to, bool logarithmic, int samples = 1500,
                              ErrorCurveShape shape = ErrorCurveShape::Automatic);

// The gap between neighbouring values against magnitude: a staircase from the smallest
// positive value to the largest finite one (points at each step's left and right end), in
// log2 units — x = log2 |value|, y = log2 gap — because FP80 and FP128 reach far past the
// range of double.
std::vector<PlotPoint> ulpStaircase(const FormatSpec& spec);

// Precision against magnitude: in each binade [2^b, 2^(b+1)) the significant bits
// floor(log2 v) − log2(gap) + 1, v the value that starts the gap there (2^b but where a gap
// spans binades): FP16's normals 11, posit16's 12 next to 1 and fewer toward its ends (the
// tapering), a step per binade, x = b as in ulpStaircase. Below 1 where the gap spans more
// than a binade (a posit whose regime cut exponent bits, an integer's smallest levels).
std::vector<PlotPoint> precisionStaircase(const FormatSpec& spec);

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

// Memory plots: fpx/memory_footprint.h (exact bytes per parameter count).

} // namespace fpx
