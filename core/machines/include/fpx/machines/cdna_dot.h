// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/machines/fused_dot.h"

namespace fpx {

// AMD's matrix cores, one group of products at a time, as MMA-Sim's reference model describes
// them (docs/behaviour.md, "Machines").

// CDNA3 (MI300), fp16/bf16 groups of 8 and fp8 groups of 16. The products are fused on their
// own: aligned to the largest of their exponents e, each truncated toward zero F bits below
// it, added exactly. That sum and c are then aligned to max(e, c's exponent) = E and rounded
// down (toward −∞), the sum to 31 fraction bits below E, c to 24, added, and the result
// rounded to nearest even into FP32:
//
//     exponent   E                        E−24     E−31
//     c          1.xxxxxxxxxxxxxxxxxxxxxxx|xxx             floored at 2^(E−24)
//     Σ p_i      0.0001xxxxxxxxxxxxxxxxxxxxxxxxxx|xxx      floored at 2^(E−31)
//
// With `twoStage` (fp8) the even-indexed and the odd-indexed products are fused apart (each
// at F bits below its own largest exponent), both sums floored F bits below the larger of
// their two exponents and added; c then takes part only when its exponent is at least E − 25
// (else it is dropped, as the hardware does). A product of 2^128 or more in magnitude is an
// infinity, as in FP32. `c` is an FP32 value.
FusedStep cdnaFusedDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                          const FormatSpec& element, const ExactValue& c, int fractionBits,
                          bool twoStage);

// CDNA1 and CDNA2 (MI100, MI200): each product rounded into FP32, the group's products added
// in a pairwise tree (halves first) of FP32 additions, and the group's sum added to c in FP32,
// all to nearest even. With `flushSubnormals` (CDNA2) subnormal operands and c are read as
// zero and every product and partial sum below FP32's smallest normal becomes a zero of its
// sign.
FusedStep pairwiseDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                         const FormatSpec& element, const ExactValue& c, bool flushSubnormals);

} // namespace fpx
