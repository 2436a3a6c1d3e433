// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/machines/fused_dot.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// What one machine does with one kind of element: how many products an instruction fuses and
// how it aligns, cuts and rounds them (fused_dot.h).
struct MachineInstruction {
    std::vector<std::string> elements; // format ids: "fp16", "bf16", "fp8_e4m3", …
    int products = 4;                  // fused per instruction
    FusedStepModel model;
    // The operands are FP32 values the instruction truncates into the element (TF32: the low
    // 13 fraction bits cleared), rather than values already rounded into it.
    bool truncatesFp32Operands = false;
};

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

// A built-in machine by name, or the generic model `fused:F[:G]`: F fraction bits kept below
// the largest exponent, G products an instruction (default 4), FP32 output truncated, for
// any element format. nullopt with `error` naming what is wrong.
std::optional<MachineModel> findMachine(std::string_view name, std::string& error);

} // namespace fpx
