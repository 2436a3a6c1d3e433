// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/machines/machine.h"

#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// Machines of one's own, in a text file (docs/behaviour.md, "Machine files"):
//
//     # comments and blank lines anywhere
//     machine my-fp8-engine
//     description FP8 summed at 16 fraction bits, FP32 output truncated
//     source measured on my card, 2026
//     instruction fp8_e4m3,fp8_e5m2 products=32 fraction-bits=16
//     instruction fp16,bf16 products=16 fraction-bits=25 output=fp32-toward-zero
//
// Each `instruction` names its elements, then KEY=VALUE options and flags: products (1 to
// 4096), fraction-bits (1 to 200), algorithm (fused, fused-then-accumulator, pairwise-fp32),
// cut (toward-zero, toward-negative), output (fp32-toward-zero, e8m13-toward-zero,
// fp16-nearest-even, fp32-nearest-even), sub-block=N, and the flags two-stage,
// flush-subnormals, truncates-fp32 and block-scaled, meaning what MachineInstruction's fields
// of those names mean.

// The most a machine file may hold.
inline constexpr std::size_t kMaxMachineFileBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxMachinesInFile = 256;

struct MachineFileParse {
    std::vector<MachineModel> machines;
    std::string error; // "FILE:LINE:COLUMN: message" when the file is refused, whole
    explicit operator bool() const { return error.empty(); }
};

// `text` read as a machine file named `source` (for messages). Every problem is refused with
// its line and column: an unknown key or element, a value out of range, a flag that does not
// fit the algorithm, a name taken by a built-in machine or used twice, a machine with no
// instruction.
MachineFileParse parseMachineFile(std::string_view text, std::string_view source);
// The file at `path`, read whole (at most kMaxMachineFileBytes) and parsed.
MachineFileParse readMachineFile(const std::string& path);

// `machine` written as a machine file reads it: a start for one's own (fpx machines --file).
std::string machineFileText(const MachineModel& machine);

// "fp32-toward-zero", … : the words machine files use for an output.
std::string outputId(FusedOutput output);

} // namespace fpx
