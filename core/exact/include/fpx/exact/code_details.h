// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <optional>

namespace fpx {

struct Neighbour {
    Code code = 0;
    ExactValue value;
};

// The set of inputs that round to one code under one rounding mode and overflow policy.
// Ends may be ±∞ (everything beyond saturates to this code). Under stochastic rounding it is
// the set of inputs that *may* round to the code.
struct RoundingInterval {
    ExactValue low;
    ExactValue high;
    bool lowClosed = true;
    bool highClosed = true;
};

// What the explorer shows about one code besides its fields.
struct CodeDetails {
    DecodedCode decoded;
    std::optional<Neighbour> nextUp;   // next larger representable value
    std::optional<Neighbour> nextDown; // next smaller representable value
    std::optional<ExactValue> ulp;     // unit in the last place at this value
    std::optional<RoundingInterval> interval;
};

CodeDetails describeCode(const FormatSpec& spec, Code code, const RoundingOptions& options = {});

std::optional<Neighbour> nextUp(const FormatSpec& spec, Code code);
std::optional<Neighbour> nextDown(const FormatSpec& spec, Code code);
// Unit in the last place: floats 2^(max(e, emin) − F); integers the scale; lookup tables the
// gap to the neighbour away from zero. None for ∞ and NaN.
std::optional<ExactValue> unitInLastPlace(const FormatSpec& spec, Code code);

// Where the nearest modes' rounding changes from one value to its neighbour above: their
// midpoint, but for posits the midpoint of the bit strings (posit.h).
ExactValue nearestBoundary(const FormatSpec& spec, const Neighbour& lower, const Neighbour& upper);

// The value one step beyond `extreme` (the largest or the lowest finite value) were the format's
// range unbounded: where overflow rounds from (midpoint(extreme, it) under nearest rounding).
ExactValue virtualBeyond(const FormatSpec& spec, const ExactValue& extreme);

// A value rounded into a format, with everything `fpx show` prints about it.
struct ConversionReport {
    ExactValue input;
    Conversion conversion;
    CodeDetails details;
    ExactValue error;         // stored value − input (NaN where undefined)
    ExactValue relativeError; // error / input
    ExactValue ulpError;      // error / ulp
};

ConversionReport convertAndDescribe(const ExactValue& input, const FormatSpec& spec,
                                    const RoundingOptions& options = {});

} // namespace fpx
