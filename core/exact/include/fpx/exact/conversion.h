// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <string_view>

namespace fpx {

// The result of rounding an exact value into a format: the code and what happened.
struct Conversion {
    Code code = 0;
    ConversionFlags flags;
};

// The single rounding step of fpx: exact input → code. Never goes through double.
Conversion roundToFormat(const ExactValue& input, const FormatSpec& spec,
                         const RoundingOptions& options = {});

// The double nearest to `input` (by `options.mode`, ties to even by default): one rounding into
// FP64, whose code is the double's bits; ±∞ beyond its range, NaN for NaN. The one way from an
// exact value to a double that is not known to be one (doubleFromExact takes those).
double nearestDouble(const ExactValue& input, const RoundingOptions& options = {});

// A stand-in for a very long or far-out input (ParsedValue::exact == false) rounds exactly
// like the text it stands for into binary floats, whose rounding boundaries are short dyadic
// numbers. Scaled formats (integers, NF4) have boundaries such as (k + ½) / 127 that no
// truncation respects; there a stand-in is exact only when x / scale lies far beyond the
// levels (it clamps) or far below the smallest one (it rounds like any tiny value).
bool acceptsStandInInput(const FormatSpec& spec, const ExactValue& standIn);

enum class ValueClass { Zero, Subnormal, Normal, Infinity, NaN };
std::string_view valueClassName(ValueClass c); // "zero", "subnormal", "normal", "inf", "nan"

// A code taken apart: its fields and the exact value it stands for.
struct DecodedCode {
    Code code = 0;
    ValueClass valueClass = ValueClass::Zero;
    ExactValue value;          // NaN for NaN codes, ±∞ for infinities
    bool sign = false;         // sign bit (floats) / negative (integers)
    Code exponentField = 0;    // biased exponent field (floats)
    Code significandField = 0; // stored fraction (with the explicit bit for fp80)
    int unbiasedExponent = 0;  // exponent the field stands for (normal and subnormal floats)
    bool canonical = true;     // false for x87 pseudo-denormals, unnormals, pseudo-NaN/∞
    std::int64_t level = 0;    // Integer: the signed integer; Lookup: the table index
};

// Precondition: code fits in spec.totalBits().
DecodedCode decodeCode(const FormatSpec& spec, Code code);

// The value `input` becomes in `spec`: roundToFormat, then the code's exact value (NaN for a
// NaN code). Where a computation carries a rounded value on rather than its code.
ExactValue roundedInto(const ExactValue& input, const FormatSpec& spec,
                       const RoundingOptions& options = {});

} // namespace fpx
