// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/machines/fused_dot.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// How an instruction adds its products to c (docs/behaviour.md, "Machines").
enum class InstructionAlgorithm {
    // NVIDIA: c and the products aligned together, cut, added exactly, rounded into the
    // output (fusedDotAdd).
    Fused,
    // AMD CDNA3: the products fused on their own (cut toward zero F bits below their largest
    // exponent); that sum and c then rounded down, 31 and 24 fraction bits below the larger of
    // the two exponents, added, and rounded to nearest even into FP32 (cdnaFusedDotAdd).
    FusedThenAccumulator,
    // AMD CDNA1 and CDNA2: each product an FP32 multiply, the group's products added in a
    // pairwise tree of FP32 additions, the group's sum added to c in FP32 (pairwiseDotAdd).
    PairwiseFp32,
};

// What one machine does with one kind of element: how many products an instruction fuses and
// how it aligns, cuts and rounds them (fused_dot.h).
struct MachineInstruction {
    // Element ids: formats ("fp16", "bf16", "fp8_e4m3", …) or, for a block-scaled instruction,
    // the block format its operands are quantized into ("mxfp4", "nvfp4", …).
    std::vector<std::string> elements;
    int products = 4; // fused per instruction
    FusedStepModel model;
    // The operands are FP32 values the instruction truncates into the element (TF32: the low
    // 13 fraction bits cleared), rather than values already rounded into it.
    bool truncatesFp32Operands = false;
    InstructionAlgorithm algorithm = InstructionAlgorithm::Fused;
    // CDNA2: subnormal operands and c read as zero, and every FP32 partial sum below FP32's
    // smallest normal flushed to a zero of its sign.
    bool flushesSubnormals = false;
    // CDNA3 FP8: the even-indexed and the odd-indexed products fused apart, each sum rounded
    // down at F bits below the larger of their exponents, then added (a two-stage adder).
    bool twoStage = false;
    // Block-scaled (Blackwell MXF8F6F4, MXF4, NVF4): each product also carries its blocks'
    // scales. With `subBlock` > 0 the products of each run of that many elements are added
    // exactly first and that sum, times the two scales, is one term aligned by the scales'
    // exponents alone; with 0 each product times its scales is a term.
    bool blockScaled = false;
    int subBlock = 0;
};

// "fused", "fused-then-accumulator", "pairwise-fp32": the words machine files use.
std::string_view algorithmId(InstructionAlgorithm algorithm);
// One line on what an instruction does, as `fpx machines` and the Machines page say it:
// "32 products fused at F = 13, cut toward zero; output e8m13 toward-zero".
std::string instructionSummary(const MachineInstruction& instruction);

// A matrix engine as data (docs/behaviour.md, "Machines"): its instructions and where the
// facts come from.
struct MachineModel {
    std::string name;        // "nvidia-hopper"
    std::string description; // one line: the instruction and its accumulator
    std::string source;      // the publications the model follows
    std::vector<MachineInstruction> instructions;

    // The instruction for `element`, or null when the machine has none for it.
    const MachineInstruction* instructionFor(std::string_view elementId) const;
};

const std::vector<MachineModel>& builtInMachines();

// A machine by name: one of `own` (read from machine files), a built-in, or the generic model
// `fused:F[:G]`: F fraction bits kept below the largest exponent, G products an instruction
// (default 4), FP32 output truncated, for any element format. nullopt with `error` naming
// what is wrong.
std::optional<MachineModel> findMachine(std::string_view name, std::string& error,
                                        std::span<const MachineModel> own = {});

} // namespace fpx
