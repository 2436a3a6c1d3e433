// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <optional>

namespace fpx {

struct Conversion;
struct DecodedCode;

// Posits (Posit Standard 2022): n bits, es exponent bits (2 in the standard), read as
//
//      s | r r r … r r̄ | e e | f f f …
//        regime: a run of identical bits, ended by the opposite bit (or by the code's end)
//
// The regime's run of k ones stands for r = k − 1, a run of k zeros for r = −k. Exponent bits
// that the regime leaves no room for read as 0; the fraction takes what is left. The standard
// reads the fields off the code's bits as they are, the sign included:
//
//      value = ((1 − 3s) + f) × 2^((1 − 2s) × (2^es × r + e + s))
//
// so a negative code is the negation of its two's complement, without negating first. 0…0 is
// zero and 10…0 is NaR ("not a real"), the only exception value.

// The fields of one code. None for zero and NaR, which have no fields.
struct PositFields {
    bool sign = false;
    int regimeRun = 0;   // length of the run of identical bits after the sign
    int regimeWidth = 0; // the run and its terminating bit (the run alone where it reaches the end)
    bool regimeOfOnes = false;
    int regime = 0;         // r
    int exponentWidth = 0;  // exponent bits the code holds (≤ es)
    Code exponentField = 0; // those bits
    int exponent = 0;       // e: the field with the missing low bits as zeros
    int fractionWidth = 0;  // fraction bits the code holds
    Code fractionField = 0; // those bits; f = fractionField / 2^fractionWidth
    std::int64_t scale = 0; // (1 − 2s) × (2^es × r + e + s)
};
std::optional<PositFields> positFields(const FormatSpec& spec, Code code);

// The code of NaR, 10…0.
Code positNaRCode(const FormatSpec& spec);
// log2 of maxpos = useed^(n − 2), useed = 2^(2^es); minpos is its reciprocal.
std::int64_t positMaxScale(const FormatSpec& spec);

DecodedCode decodePosit(const FormatSpec& spec, Code code);

// Where nearest rounding changes from `lower` to the next code up (lower + 1): the value of the
// code between them in posit<n + 1, es>, lower's bits with a 1 appended, which is halfway in
// the bit string. Zero where one of them is zero: no nonzero value rounds to zero.
ExactValue positTiePoint(const FormatSpec& spec, Code lower);

// The standard's rounding: the exact value's infinitely long posit bit string (regime,
// exponent, fraction) cut after n bits and rounded as a binary integer, so a tie lies halfway
// between two codes in the bit string, which where exponent bits are cut is the geometric mean
// of the two values, not their midpoint; ties go to the even code. The other modes take the
// neighbour they name; stochastic rounding picks between the neighbours with probability in
// proportion to the distance in value. No nonzero value rounds to zero and no real value to
// NaR: beyond maxpos a value saturates to ±maxpos, below minpos to ±minpos. ±∞ and NaN give NaR.
Conversion roundPosit(const ExactValue& x, const FormatSpec& spec, const RoundingOptions& options);

} // namespace fpx
