// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <cstdint>

namespace fpx {

// The derived layout of a binary float format: the few numbers and codes every conversion
// needs, computed from the FormatSpec in a handful of integer operations.
struct FloatGeometry {
    explicit FloatGeometry(const FormatSpec& s);

    const FormatSpec& spec;
    std::int64_t minExponent; // exponent of the smallest normal binade
    std::int64_t maxExponent; // exponent of the binade that holds the largest finite value
    Code maxExponentField;    // largest exponent field of a finite value
    Code hiddenBit;           // 2^F: the leading significand bit
    Code maxSignificand;      // significand (with leading bit) of the largest finite value
    BigInt carrySignificand;  // 2^p: a rounding carry out of the significand
    Code maxCode;             // the largest finite value, positive
    Code lowestCode;          // the most negative finite value (smallest for unsigned formats)

    Code signBitIf(bool negative) const { return negative ? spec.signBit() : Code(0); }
    Code signedMaxCode(bool negative) const { return signBitIf(negative) | maxCode; }
    Code zeroCode(bool negative) const;
    Code infinityCode(bool negative) const;
    Code nanCode(bool negative) const;
    // What an overflow to "infinity" becomes: ∞, else NaN, else ±max.
    Code infinityOrNaNOrMax(bool negative) const;
};

} // namespace fpx
