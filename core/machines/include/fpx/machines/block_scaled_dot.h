// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/machines/fused_dot.h"
#include "fpx/quantization/block_format.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fpx {

// Blackwell's block-scaled instructions (tcgen05.mma kind::mxf8f6f4, kind::mxf4 and
// kind::mxf4nvf4), as MMA-Sim's reference model describes them (docs/behaviour.md,
// "Machines"). scaleA[i] and scaleB[i] are the block scales of a[i] and b[i], values of
// `scale` (E8M0, or E4M3 for NVFP4).
//
// subBlock 0 (MXF8F6F4): each product a_i·b_i·sa_i·sb_i is a term aligned by the sum of the
// four exponents (operands at their formats' minimum when subnormal), fused as fuseTerms does.
// subBlock 16 (MXF4, NVF4): the 16 products of each run are added exactly first; that sum
// times the run's two scales is one term, aligned by the two scales' exponents alone (a
// E4M3 scale's significand rides with the sum), so a run whose products are far below its
// scales loses them all, and a run whose sum is zero still sets the alignment:
//
//     exponent   E = ea + eb                  E−F
//     run 1      (Σ a_i·b_i)·sa·sb  xxxxxx.xxxxxxxxxxxx|xxx
//     run 2      (Σ a_i·b_i)·sa'·sb'   0.000xxxxxxxxxxx|xxxxx
//
// A NaN scale or c gives NaN.
FusedStep blockScaledDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                            std::span<const ExactValue> scaleA, std::span<const ExactValue> scaleB,
                            const FormatSpec& element, const FormatSpec& scale, const ExactValue& c,
                            const FusedStepModel& model, int subBlock);

// An operand of a block-scaled instruction, as a quantizer leaves it.
struct BlockScaledOperand {
    std::vector<ExactValue> values; // element values, before scaling
    std::vector<ExactValue> scales; // each element's block scale
    ExactValue tensorScale;         // NVFP4's FP32 tensor scale; 1 for MX
};

// `values` quantized along K by `format` (its block size and scale rule), as fpx quantize
// does. nullopt with `error` when the quantizer refuses them.
std::optional<BlockScaledOperand>
quantizeOperand(const BlockFormat& format, std::span<const float> values, std::string& error);

} // namespace fpx
