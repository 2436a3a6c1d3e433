// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <optional>

namespace fpx {

// Everything about a format's range and precision, derived from its FormatSpec.
struct FormatLimits {
    ExactValue max;                      // largest finite value
    ExactValue lowest;                   // most negative finite value (smallest for unsigned)
    ExactValue minPositive;              // smallest value > 0 (subnormal if there are any)
    std::optional<ExactValue> minNormal; // floats: 2^minExponent
    std::optional<ExactValue>
        minSubnormal;                  // floats with subnormals: 2^(minExponent − fractionBits)
    std::optional<ExactValue> epsilon; // gap between 1 and the next larger value
    Code maxCode = 0;                  // code of `max`
    Code lowestCode = 0;               // code of `lowest`
    std::optional<Code> nanCode;       // canonical (quiet, positive) NaN
    std::optional<Code> infinityCode;  // +∞
    int maxExponent = 0;               // floats: floor(log2(max))
    double decimalDigits = 0;          // precision in decimal digits: p·log10(2)
    BigInt codeCount = 0;
    BigInt finiteCount = 0;
    BigInt nanCount = 0;
    BigInt infinityCount = 0;
    BigInt zeroCount = 0;
};

FormatLimits deriveLimits(const FormatSpec& spec);

} // namespace fpx
