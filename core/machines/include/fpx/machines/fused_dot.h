// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace fpx {

// One instruction of a matrix engine (a tensor core's mma), as the published models describe it
// (docs/behaviour.md, "Machines"): the products a_i·b_i are exact; they and the accumulator c
// are aligned to the largest exponent E among them; each is cut to a multiple of 2^(E−F), F
// fraction bits below E; the cut terms are added exactly; the sum is rounded into the output.
//
//     exponent    E                      E−F
//     c           1.xxxxxxxxxxxxxxxxxxxxxx|            kept whole
//     a_1·b_1     0.001xxxxxxxxxxxxxxxxxxx|xxx         its last 3 bits cut
//     a_2·b_2     0.00000000000000000000001|xxxxx      only its leading bit kept
//     a_3·b_3     0.000000000000000000000000|0xxxxx    nothing left: it vanishes
//
// A product's exponent is the sum of its operands' exponents (its significand, a product of two
// in [1, 2), may reach 4, and keeps its integer bits); an operand that is subnormal in its
// format counts at that format's minimum exponent, as c does in the accumulator's format, which
// can make the alignment coarser than the value's own binade.

// How a term loses its bits below 2^(E−F).
enum class TermCut {
    TowardZero,     // NVIDIA: truncated
    TowardNegative, // AMD CDNA3: rounded down
};

// How the exact sum of the cut terms becomes the instruction's output.
enum class FusedOutput {
    Fp32TowardZero,  // FP32, truncated (NVIDIA's FP32 accumulators)
    E8M13TowardZero, // FP32's range with 13 fraction bits, truncated (FP8 on Ada and Hopper)
    Fp16NearestEven, // FP16, round to nearest even (NVIDIA's FP16 accumulators)
    Fp32NearestEven, // FP32, round to nearest even
};

// The format of an output: fp32, e8m13 (FP32's exponent, 13 fraction bits) or fp16.
const FormatSpec& outputFormat(FusedOutput output);
// How an output is rounded: "toward-zero" or "nearest-even".
std::string_view outputRoundingId(FusedOutput output);
// "toward-zero" or "toward-negative".
std::string_view termCutId(TermCut cut);

struct FusedStepModel {
    int fractionBits = 24; // F
    TermCut cut = TermCut::TowardZero;
    FusedOutput output = FusedOutput::Fp32TowardZero;
};

// One term of an instruction, as it was aligned and cut.
struct FusedTerm {
    ExactValue value;          // the exact product, or c
    std::int64_t exponent = 0; // its alignment exponent (subnormals at their format's minimum)
    ExactValue kept;           // a multiple of 2^(E−F)
    bool cut = false;          // bits were dropped
    bool aligns = false;       // its exponent counts for E (a zero's does not)
};

struct FusedStep {
    std::vector<FusedTerm> terms; // c first, then the products in order
    std::int64_t alignment = 0;   // E; meaningful when some term is finite and not zero
    ExactValue sum;               // of the kept terms, exact
    ExactValue output;            // the sum rounded into the output format
};

// The exponent a nonzero finite value of `format` is aligned by: its binade, or the format's
// minimum exponent for a subnormal.
std::int64_t alignmentExponent(const ExactValue& x, const FormatSpec& format);
// x cut to a multiple of 2^q by `cut`; `dropped`, when given, says whether bits were lost.
// NaN, infinities and zeros come back as they are.
ExactValue cutToQuantum(const ExactValue& x, std::int64_t q, TermCut cut, bool* dropped = nullptr);
// x as a term of an instruction, aligned by its own exponent in `format` (zeros do not align).
FusedTerm fusedTerm(const ExactValue& x, const FormatSpec& format);
// The IEEE result of a sum holding NaN or infinities, if it does.
std::optional<ExactValue> specialSum(const std::vector<FusedTerm>& terms);
// Terms with their alignment exponents, fused: aligned to the largest exponent among those
// that align, each cut F bits below it, added exactly, rounded into the output.
FusedStep fuseTerms(std::vector<FusedTerm> terms, const FusedStepModel& model);

// One instruction: c + Σ a_i·b_i with a_i, b_i values of `element` and c a value of the
// output's format (NaN and infinities as IEEE arithmetic: a NaN or ∞ − ∞ gives NaN).
FusedStep fusedDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                      const FormatSpec& element, const ExactValue& c, const FusedStepModel& model);

} // namespace fpx
