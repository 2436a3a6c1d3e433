// SPDX-License-Identifier: GPL-3.0-or-later
// fpx machines: the matrix engines fpx models, each instruction with its products, its
// fraction bits and its output, and where the facts come from. The options, the catalogue as
// listed, and its text and JSON renderers.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"

#include "fpx/machines/machine.h"

#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx machines [--json]\n"
    "  The matrix engines fpx models (fpx dot --machine M): for each instruction the\n"
    "  elements it takes, the products it fuses, the fraction bits F its terms keep below\n"
    "  the largest exponent, its output and its rounding, and the publications the model\n"
    "  follows. fused:F[:G] is the generic model: G products (default 4), F bits, FP32\n"
    "  output truncated, any element.\n";

struct MachinesOptions {
    bool json = false;
};

struct MachinesReport {
    std::vector<MachineModel> machines; // the built-ins, in catalogue order
};

// The options choose only the form, so the catalogue is the same for every command line.
MachinesReport computeMachines() {
    return {builtInMachines()};
}

std::string elementsText(const MachineInstruction& instruction) {
    std::string text;
    for (const std::string& id : instruction.elements)
        text += (text.empty() ? "" : ", ") + id;
    return text.empty() ? "any" : text;
}

void renderMachinesText(const MachinesReport& report, std::ostream& out) {
    for (const MachineModel& machine : report.machines) {
        out << machine.name << "  " << machine.description << "\n";
        for (const MachineInstruction& instruction : machine.instructions) {
            std::string elements = elementsText(instruction);
            elements.resize(std::max<std::size_t>(elements.size(), 20), ' ');
            out << "  " << elements << "  " << instructionSummary(instruction) << "\n";
        }
        out << "  source: " << machine.source << "\n";
    }
    out << "fused:F[:G]  the generic model: G products (default 4), F fraction bits, FP32 "
           "output truncated, any element\n";
}

void renderMachinesJson(const MachinesReport& report, std::ostream& out) {
    Json machines = Json::array();
    for (const MachineModel& machine : report.machines) {
        Json instructions = Json::array();
        for (const MachineInstruction& instruction : machine.instructions)
            instructions.push_back({{"elements", instruction.elements},
                                    {"products", instruction.products},
                                    {"fraction_bits", instruction.model.fractionBits},
                                    {"cut", termCutId(instruction.model.cut)},
                                    {"output", outputFormat(instruction.model.output).id},
                                    {"output_rounding", outputRoundingId(instruction.model.output)},
                                    {"algorithm", algorithmId(instruction.algorithm)},
                                    {"two_stage", instruction.twoStage},
                                    {"flushes_subnormals", instruction.flushesSubnormals},
                                    {"truncates_fp32_operands", instruction.truncatesFp32Operands},
                                    {"block_scaled", instruction.blockScaled},
                                    {"sub_block", instruction.subBlock},
                                    {"summary", instructionSummary(instruction)}});
        machines.push_back({{"name", machine.name},
                            {"description", machine.description},
                            {"source", machine.source},
                            {"instructions", std::move(instructions)}});
    }
    Json json;
    json["machines"] = std::move(machines);
    printJson(out, json);
}

} // namespace

int runMachines(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {}, {"json"});
    if (const auto stop = checkOptionsOnly(args, io, "machines", kUsage))
        return *stop;
    const MachinesOptions options{args.has("json")};
    const MachinesReport report = computeMachines();
    if (options.json)
        renderMachinesJson(report, io.out);
    else
        renderMachinesText(report, io.out);
    return kExitOk;
}

} // namespace fpx::cli
