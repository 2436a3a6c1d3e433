// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "arguments.h"
#include "commands.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/machines/machine_dot.h"
#include "fpx/machines/machine_element.h"
#include "fpx/machines/machine_file.h"

#include <ostream>

namespace fpx::cli {

// fpx dot --machine M: the dot product as a matrix engine computes it (docs/behaviour.md,
// "Machines"), beside the exact one and FP32 fused multiply-adds in order.
struct MachineDotRequest {
    MachineModel machine;
    MachineElement element;         // --element: a format, or a block format
    MachineInstruction instruction; // the machine's, for the element
    ExactValue c;                   // the accumulator's first value, in the output's format
    std::size_t promoteEvery = 0;   // 0: no promotion
    bool explain = false;           // --explain: every instruction's terms, cut and sum
};

// The instructions --explain writes out at most: the first ones show how the chain starts,
// and a long K would bury the answer.
inline constexpr std::size_t kMaxExplainedSteps = 16;

// --machines FILE: the machines of a machine file (docs/behaviour.md, "Machine files"), to be
// found by name beside the built-ins; none without the option.
Outcome<std::vector<MachineModel>> readOwnMachines(const Arguments& args);

// --machine, --element (default: what the machine's first instruction takes), --c and
// --promote; --product, --accumulator and --block are the machine's own and are refused
// beside it. The machine rounds as its model says: --round has no say in it.
Outcome<MachineDotRequest> readMachineDotOptions(const Arguments& args);
// The format --a and --b are read into before the machine takes them: the element, or FP32
// for an instruction that truncates FP32 operands (TF32) or quantizes them (block formats).
const FormatSpec& operandReadFormat(const MachineDotRequest& request);
// The element a machine's first instruction takes ("fp16"), the default of --element with it
// (fp32 for the generic model, which takes any).
std::string defaultMachineElement(const MachineModel& machine);

struct MachineDotReport {
    MachineDotRequest request;
    std::string element;
    std::size_t terms = 0;
    MachineDotResult result;
    Code bits = 0;    // of result.value in its format
    ExactValue exact; // c + Σ a_i·b_i of the operands as read (TF32's: FP32 values)
    // Block formats: c + Σ of the dequantized operands, what the instructions are given.
    std::optional<ExactValue> dequantizedExact;
    ExactValue error;         // result − exact
    ExactValue relativeError; // NaN when exact is 0
    ExactValue fma;           // FP32 fused multiply-adds in order, from c
};

// Throws std::invalid_argument when a block format's quantizer refuses the operands.
MachineDotReport computeMachineDot(const MachineDotRequest& request, const TermSequence& a,
                                   const TermSequence& b);
void renderMachineDotText(const MachineDotReport& report, std::ostream& out);
void renderMachineDotJson(const MachineDotReport& report, std::ostream& out);

} // namespace fpx::cli
