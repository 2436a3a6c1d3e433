// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code_details.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <optional>

namespace fpx {

// One end of the stretch of the real line that a number line of rounding draws: a
// representable value with its code, or the value one step past the finite range, which the
// format lacks (virtualBeyond).
struct NumberLineEnd {
    ExactValue value;         // finite
    std::optional<Code> code; // none past the finite range
};

// Everything a number line of one rounding shows, exact: the input between the representable
// values around it, the half-way point between them, the code the input rounds to and the
// interval of inputs that round to that code.
struct RoundingNeighbourhood {
    ExactValue input;
    Neighbour result; // what the input rounds to under the options
    // The largest representable value ≤ input and the smallest ≥ input; past the finite range
    // ±∞ where the format has it, none where it has not.
    std::optional<Neighbour> below;
    std::optional<Neighbour> above;
    // The stretch drawn, low < high: `below` and `above`; around an input the format holds, that
    // value's own neighbours; past the finite range, the extreme finite value and one step
    // beyond it (where overflow rounds from). An input past `high` (±∞, 10^100 into FP8) lies
    // off the drawn stretch.
    NumberLineEnd low;
    NumberLineEnd high;
    // The tie point of the nearest modes: (low + high) / 2, but between two posits the middle
    // of their bit strings (nearestBoundary).
    ExactValue midpoint;
    // What the midpoint rounds to under the options (the tie rule; NaN where it overflows in a
    // format without ∞); none under stochastic rounding, where it goes either way.
    std::optional<Neighbour> midpointResult;
    RoundingInterval interval; // inputs that round to result.code under the options
    // Stochastic rounding between two finite neighbours: the exact probability of `above`,
    // (input − below) / (above − below) with all 64 random bits, less with N (sr:N).
    std::optional<ExactValue> probabilityUp;
};

// None for a NaN input or a NaN result (nothing to place on the line), or a format whose
// finite values leave no stretch to draw.
std::optional<RoundingNeighbourhood> roundingNeighbourhood(const ExactValue& input,
                                                           const FormatSpec& spec,
                                                           const RoundingOptions& options);

// Where `v` lies on the drawn stretch: (v − low) / (high − low), exact: 0 at low, 1 at high,
// outside [0, 1] off the stretch, ±∞ for ±∞. Drawing may round it to a double; nothing shown
// as a number is taken from it.
ExactValue numberLinePosition(const RoundingNeighbourhood& n, const ExactValue& v);

} // namespace fpx
