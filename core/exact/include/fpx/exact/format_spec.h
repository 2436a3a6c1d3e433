// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"

#include <string>
#include <vector>

namespace fpx {

enum class FormatKind {
    BinaryFloat, // sign / exponent / mantissa fields
    Integer,     // two's complement or unsigned integer times a scale (quantization)
    Lookup,      // a table of values indexed by the code (NF4), times an absmax
    Posit,       // Posit Standard (2022): sign, regime, exponent, fraction fields of varying widths
};

// What the codes at the edges of the exponent range mean. Rounding mode and overflow
// policy are *not* part of this: they are parameters of each conversion.
enum class SpecialEncoding {
    Ieee,              // all-ones exponent: zero mantissa is ±∞, anything else NaN
    NanAtAllOnes,      // "fn": no ∞; only the all-ones code (of each sign) is NaN (OCP E4M3)
    NanAtNegativeZero, // "fnuz": no ∞ and no −0; the code 100…0 is the only NaN
    None,              // every code is a finite number (OCP FP6, FP4)
};

// One number format, described as data. Limits are derived from it (format_limits.h),
// never typed in.
struct FormatSpec {
    std::string id;          // canonical id used by the CLI, the GUI and JSON
    std::string displayName; // e.g. "FP16 (IEEE binary16)"
    std::string description; // one sentence: where the format is used
    std::vector<std::string> aliases;
    FormatKind kind = FormatKind::BinaryFloat;
    bool isSigned = true;

    // BinaryFloat
    int exponentBits = 0;
    int fractionBits = 0;            // stored bits after the binary point
    bool explicitIntegerBit = false; // x87 fp80 stores the leading significand bit
    int bias = 0;
    SpecialEncoding specials = SpecialEncoding::Ieee;
    // IEEE P3109's extended formats: the code of each sign just below the NaN, the largest of
    // its sign, stands for ∞ (signed 011…1 = +∞ and 111…1 = −∞ beside NaN 100…0; unsigned
    // 11…10 = +∞ beside NaN 11…11). Only with NanAtNegativeZero or NanAtAllOnes.
    bool infinityAtTop = false;
    // With no fraction bits every significand is the digit 1: a tie between two powers of two
    // goes to the even code under P3109 (the even exponent field, or zero), and up elsewhere
    // (OCP E8M0, as PyTorch and ml_dtypes round it). Only for formats of precision 1.
    bool evenCodeTies = false;
    // False for E8M0: exponent field 0 is 2^−bias, a normal power of two, and there is no zero.
    bool exponentZeroIsSubnormal = true;

    // Integer
    int integerBits = 0;

    // Posit (docs/behaviour.md, "Posits"): n bits, es exponent bits (2 in the 2022 standard).
    // The width has a field of its own rather than integerBits: code that reads integerBits
    // takes a format for an integer level times a scale, which a posit is not.
    int positBits = 0;
    int positExponentBits = 0;

    // Lookup: value of each code before scaling (index = code), e.g. NF4's 16 levels.
    std::vector<ExactValue> table;

    // Integer and Lookup: a code's value is its level times `scale` (for NF4 the block absmax).
    ExactValue scale = ExactValue::integer(1);

    bool isCustom = false;

    int totalBits() const;
    // Bits of the stored significand field (fraction plus the explicit integer bit, if any).
    int storedSignificandBits() const { return fractionBits + (explicitIntegerBit ? 1 : 0); }
    // Significand precision p, counting the leading (hidden or explicit) bit.
    int precision() const { return fractionBits + 1; }
    // Exponent of the smallest normal binade: 2^minExponent is the smallest normal value.
    int minExponent() const { return (exponentZeroIsSubnormal ? 1 : 0) - bias; }
    bool hasInfinity() const {
        return kind == FormatKind::BinaryFloat &&
               (specials == SpecialEncoding::Ieee || infinityAtTop);
    }
    // A posit's NaR ("not a real", 100…0) is its NaN.
    bool hasNaN() const {
        return (kind == FormatKind::BinaryFloat && specials != SpecialEncoding::None) ||
               kind == FormatKind::Posit;
    }
    bool hasNegativeZero() const;
    bool hasZero() const { return kind != FormatKind::BinaryFloat || exponentZeroIsSubnormal; }
    Code codeMask() const { return lowBitsMask(totalBits()); }
    bool isScaled() const { return kind == FormatKind::Integer || kind == FormatKind::Lookup; }

    // Field layout (BinaryFloat): [sign][exponent][integer bit][fraction], most significant first.
    // A posit's sign is its top bit too; its other fields move from code to code (posit.h).
    Code signBit() const { return isSigned ? Code(1) << (totalBits() - 1) : Code(0); }
    Code fractionMask() const { return lowBitsMask(fractionBits); }
    Code exponentFieldMax() const { return lowBitsMask(exponentBits); }
};

} // namespace fpx
