// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/machines/block_scaled_dot.h"
#include "fpx/machines/machine.h"

#include <cstddef>
#include <span>
#include <vector>

namespace fpx {

struct MachineDotOptions {
    ExactValue c; // the accumulator's first value, in the output's format
    // Promotion (DeepSeek-V3's fix for Hopper FP8, CUTLASS's 2xAcc): every `promoteEvery`
    // elements the instruction's accumulator restarts at 0 and its value is added into an FP32
    // total by an ordinary FP32 addition (round to nearest even); the total starts at c.
    // 0: no promotion. A multiple of the instruction's products.
    std::size_t promoteEvery = 0;
    bool explain = false; // keep every instruction's terms
};

struct MachineDotResult {
    ExactValue value;           // what the machine returns
    const FormatSpec* format;   // the format `value` is in (the output's, or FP32 when promoted)
    std::size_t steps = 0;      // instructions chained
    std::size_t promotions = 0; // FP32 additions of a promoted accumulator
    std::vector<FusedStep> explained;
};

// An operand as `instruction` takes it from `value`, a value of the element format or, for an
// instruction that truncates FP32 operands (TF32), an FP32 value it truncates into the element.
ExactValue machineOperand(const MachineInstruction& instruction, const FormatSpec& element,
                          const ExactValue& value);

// c + Σ a_i·b_i on `machine`, a_i and b_i values of `element`: one instruction per `products`
// elements of K, each instruction's output the next one's c (the last chunk may be shorter, as
// if padded with zeros). Throws std::invalid_argument when the machine has no instruction for
// the element (or only a block-scaled one), the vectors differ in length, or promoteEvery is
// not a multiple of the instruction's products.
MachineDotResult machineDot(const MachineModel& machine, const FormatSpec& element,
                            std::span<const ExactValue> a, std::span<const ExactValue> b,
                            const MachineDotOptions& options = {});

// The same with block-scaled operands (quantizeOperand) on the machine's instruction for
// `format` (mxfp8_e4m3, mxfp4, nvfp4, …). NVFP4's tensor scales are applied after the
// instructions, as a GEMM's epilogue does: the chain runs from 0, and the result is
// FP32(tA·tB)·acc + c rounded once into FP32.
MachineDotResult machineBlockDot(const MachineModel& machine, const BlockFormat& format,
                                 const BlockScaledOperand& a, const BlockScaledOperand& b,
                                 const MachineDotOptions& options = {});
// c + Σ a_i·b_i of block-scaled operands, exactly: what the dequantized values give.
ExactValue blockScaledExact(const BlockScaledOperand& a, const BlockScaledOperand& b,
                            const ExactValue& c);

} // namespace fpx
