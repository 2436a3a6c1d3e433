// SPDX-License-Identifier: GPL-3.0-or-later
// fpx machines: the matrix engines fpx models, each instruction with its products, its
// fraction bits and its output, and where the facts come from. The options, the catalogue as
// listed, and its text and JSON renderers.
#include "arguments.h"
#include "commands.h"
#include "dot_machine.h"
#include "presentation.h"

#include "fpx/machines/machine.h"
#include "fpx/machines/machine_file.h"

#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx machines [--machines FILE] [--json|--file]\n"
    "  The matrix engines fpx models (fpx dot --machine M): for each instruction the\n"
    "  elements it takes, the products it fuses, the fraction bits F its terms keep below\n"
    "  the largest exponent, its output and its rounding, and the publications the model\n"
    "  follows. fused:F[:G] is the generic model: G products (default 4), F bits, FP32\n"
    "  output truncated, any element. --machines FILE lists a machine file's machines first\n"
    "  (docs/behaviour.md, \"Machine files\"), and checks it. --file: the catalogue as a\n"
    "  machine file, a start for one's own.\n";

struct MachinesOptions {
    bool json = false;
    bool file = false; // as a machine file
};

struct MachinesReport {
    std::vector<MachineModel> machines; // the built-ins, in catalogue order
};

// A machine file's machines first, then the built-ins.
MachinesReport computeMachines(std::vector<MachineModel> own) {
    MachinesReport report{std::move(own)};
    report.machines.insert(report.machines.end(), builtInMachines().begin(),
                           builtInMachines().end());
    return report;
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

void renderMachinesFile(const MachinesReport& report, std::ostream& out) {
    out << "# fpx machines --file: every machine as a machine file\n"
           "# (docs/behaviour.md, \"Machine files\"). Rename one and change it to describe your "
           "own.\n";
    for (const MachineModel& machine : report.machines)
        out << "\n" << machineFileText(machine);
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
    const Arguments args(rawArgs, {"machines"}, {"json", "file"});
    if (const auto stop = checkOptionsOnly(args, io, "machines", kUsage))
        return *stop;
    Outcome<std::vector<MachineModel>> own = readOwnMachines(args);
    if (!own)
        return reportError(io, "machines", own.error());
    const MachinesOptions options{args.has("json"), args.has("file")};
    if (options.json && options.file)
        return reportError(io, "machines", CommandError{"choose one of --json and --file"});
    const MachinesReport report = computeMachines(std::move(*own));
    if (options.file)
        renderMachinesFile(report, io.out);
    else if (options.json)
        renderMachinesJson(report, io.out);
    else
        renderMachinesText(report, io.out);
    return kExitOk;
}

} // namespace fpx::cli
