// SPDX-License-Identifier: GPL-3.0-or-later
#include "dot_machine.h"

#include "presentation.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"
#include "term_options.h"

#include <stdexcept>

namespace fpx::cli {
namespace {

std::string elementsOf(const MachineModel& machine) {
    std::string text;
    for (const MachineInstruction& instruction : machine.instructions)
        for (const std::string& id : instruction.elements)
            text += (text.empty() ? "" : ", ") + id;
    return text;
}

ExactValue relativeTo(const ExactValue& error, const ExactValue& exact) {
    if (!exact.isFinite() || exact.isZero() || !error.isFinite())
        return ExactValue::nan();
    return error / exact;
}

std::string exponentText(std::int64_t e) {
    return "2^" + std::to_string(e);
}

// Each explained instruction: the alignment, every term as it came and as it was kept, the
// exact sum and the output.
void renderExplainedSteps(const MachineDotReport& report, std::ostream& out) {
    const MachineDotResult& r = report.result;
    const int fractionBits = report.request.instruction.model.fractionBits;
    for (std::size_t k = 0; k < r.explained.size(); ++k) {
        const FusedStep& step = r.explained[k];
        out << "instruction " << k + 1 << ": largest exponent " << step.alignment
            << ", terms cut to multiples of " << exponentText(step.alignment - fractionBits)
            << " (F = " << fractionBits << ")\n";
        for (std::size_t t = 0; t < step.terms.size(); ++t) {
            const FusedTerm& term = step.terms[t];
            // "·" is two bytes in UTF-8 and one column on the terminal.
            const std::string name =
                t == 0 ? "c" : "a" + std::to_string(t) + "·b" + std::to_string(t);
            const std::size_t columns = t == 0 ? name.size() : name.size() - 1;
            const std::string padding(columns < 10 ? 10 - columns : 1, ' ');
            out << "  " << name << padding << toDecimal(term.value).text;
            if (term.cut)
                out << "  → " << toDecimal(term.kept).text << "  (bits cut)";
            out << "\n";
        }
        out << "  sum       " << toDecimal(step.sum).text << "\n";
        out << "  output    " << toDecimal(step.output).text << "  ("
            << outputFormat(report.request.instruction.model.output).id << ", "
            << outputRoundingId(report.request.instruction.model.output) << ")\n";
    }
    if (r.steps > r.explained.size() && !r.explained.empty())
        out << "(the first " << r.explained.size() << " of " << r.steps
            << " instructions are written out)\n";
}

Json explainedStepsJson(const MachineDotReport& report) {
    Json steps = Json::array();
    const int fractionBits = report.request.instruction.model.fractionBits;
    for (const FusedStep& step : report.result.explained) {
        Json terms = Json::array();
        for (const FusedTerm& term : step.terms)
            terms.push_back({{"value", decimalOrNull(term.value)},
                             {"kept", decimalOrNull(term.kept)},
                             {"cut", term.cut}});
        steps.push_back({{"alignment_exponent", step.alignment},
                         {"quantum_exponent", step.alignment - fractionBits},
                         {"terms", std::move(terms)},
                         {"sum", decimalOrNull(step.sum)},
                         {"output", decimalOrNull(step.output)}});
    }
    return steps;
}

} // namespace

std::string defaultMachineElement(const MachineModel& machine) {
    if (machine.instructions.empty() || machine.instructions.front().elements.empty())
        return "fp32"; // the generic model takes any element
    return machine.instructions.front().elements.front();
}

Outcome<std::vector<MachineModel>> readOwnMachines(const Arguments& args) {
    const std::optional<std::string> path = args.value("machines");
    if (!path)
        return std::vector<MachineModel>();
    MachineFileParse parse = readMachineFile(*path);
    if (!parse)
        return dataError("--machines: " + parse.error);
    return std::move(parse.machines);
}

Outcome<MachineDotRequest> readMachineDotOptions(const Arguments& args) {
    for (const char* own : {"product", "accumulator", "block"})
        if (args.has(own))
            return CommandError{std::string("--") + own +
                                ": the machine fixes how products are added (drop --machine "
                                "to choose them)"};
    MachineDotRequest request;
    const Outcome<std::vector<MachineModel>> own = readOwnMachines(args);
    if (!own)
        return own.error();
    std::string error;
    std::optional<MachineModel> machine = findMachine(*args.value("machine"), error, *own);
    if (!machine)
        return CommandError{"--machine: " + error};
    request.machine = std::move(*machine);
    const std::string elementId =
        args.value("element").value_or(defaultMachineElement(request.machine));
    std::optional<MachineElement> element = findMachineElement(elementId, error);
    if (!element)
        return CommandError{"--element: " + error};
    request.element = std::move(*element);
    const std::string& id = request.element.id;
    const MachineInstruction* instruction = request.machine.instructionFor(id);
    if (!instruction)
        return CommandError{"--machine " + request.machine.name + " has no instruction for " + id +
                            " elements (its elements: " + elementsOf(request.machine) + ")"};
    request.instruction = *instruction;
    request.explain = args.has("explain");
    if (auto text = args.value("c")) {
        const ParsedValue parsed = parseValue(*text);
        if (!parsed)
            return CommandError{"--c '" + *text + "': " + parsed.error.message};
        // c is an accumulator value: the output format's nearest, as a register holds it.
        request.c = roundedInto(*parsed.value, outputFormat(instruction->model.output));
    }
    if (auto text = args.value("promote")) {
        const auto every = parseTermCount(*text);
        if (!every || *every % std::size_t(instruction->products) != 0)
            return CommandError{"--promote: expected a multiple of the " +
                                std::to_string(instruction->products) + " products of " +
                                request.machine.name + "'s " + id + " instruction, got '" + *text +
                                "'"};
        request.promoteEvery = *every;
    }
    return request;
}

const FormatSpec& operandReadFormat(const MachineDotRequest& request) {
    return request.instruction.truncatesFp32Operands || request.element.block
               ? fp32Spec()
               : request.element.format;
}

namespace {

std::vector<float> floatsOf(const TermSequence& terms) {
    std::vector<float> values(terms.size());
    for (std::size_t i = 0; i < terms.size(); ++i)
        values[i] = static_cast<float>(nearestDouble(terms.at(i))); // FP32 values: exact
    return values;
}

MachineDotResult runOnMachine(const MachineDotRequest& request, const TermSequence& a,
                              const TermSequence& b, const MachineDotOptions& options,
                              MachineDotReport& report) {
    const MachineElement& element = request.element;
    if (element.block) {
        std::string error;
        const std::optional<BlockScaledOperand> x =
            quantizeOperand(*element.block, floatsOf(a), error);
        const std::optional<BlockScaledOperand> y =
            x ? quantizeOperand(*element.block, floatsOf(b), error) : std::nullopt;
        if (!x || !y)
            throw std::invalid_argument(element.id + ": " + error);
        report.dequantizedExact = blockScaledExact(*x, *y, request.c);
        return machineBlockDot(request.machine, *element.block, *x, *y, options);
    }
    std::vector<ExactValue> x(a.size()), y(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        x[i] = machineOperand(request.instruction, element.format, a.at(i));
        y[i] = machineOperand(request.instruction, element.format, b.at(i));
    }
    return machineDot(request.machine, element.format, x, y, options);
}

} // namespace

MachineDotReport computeMachineDot(const MachineDotRequest& request, const TermSequence& a,
                                   const TermSequence& b) {
    MachineDotReport report;
    report.request = request;
    report.element = request.element.id;
    report.terms = a.size();
    MachineDotOptions options;
    options.c = request.c;
    options.promoteEvery = request.promoteEvery;
    options.explain = request.explain;
    report.result = runOnMachine(request, a, b, options, report);
    if (report.result.explained.size() > kMaxExplainedSteps)
        report.result.explained.resize(kMaxExplainedSteps);
    report.bits = roundToFormat(report.result.value, *report.result.format).code;
    // The exact value and the FMAs are of the operands as read: for TF32 and block formats,
    // the FP32 values, so that the error includes the instruction's truncation of them or
    // their quantization.
    ExactValue exact = request.c;
    ExactValue fma = request.c;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const ExactValue product = a.at(i) * b.at(i);
        exact = exact + product;
        fma = roundedInto(fma + product, fp32Spec());
    }
    report.exact = exact;
    report.fma = fma;
    report.error = report.result.value - exact;
    report.relativeError = relativeTo(report.error, exact);
    return report;
}

void renderMachineDotText(const MachineDotReport& report, std::ostream& out) {
    const MachineDotResult& r = report.result;
    out << "dot product of " << report.terms << " terms on " << report.request.machine.name
        << ": elements " << report.element << ", " << r.steps << " instruction"
        << (r.steps == 1 ? "" : "s");
    if (report.request.promoteEvery > 0)
        out << ", promoted into fp32 every " << report.request.promoteEvery << " elements";
    out << "\n";
    auto line = [&](const char* label, const std::string& text) {
        std::string padded(label);
        padded.resize(16, ' ');
        out << "  " << padded << text << '\n';
    };
    line("value", toDecimal(r.value).text + "  (" + codeToHex(report.bits, r.format->totalBits()) +
                      " in " + r.format->id + ")");
    line("exact", toDecimal(report.exact).text);
    if (report.dequantizedExact)
        line("dequantized", toDecimal(*report.dequantizedExact).text +
                                "  (exact, of the quantized operands the instructions take)");
    line("error", toDecimal(report.error).text);
    line("relative error",
         report.relativeError.isNaN() ? "-" : toSignificantDigits(report.relativeError, 6));
    line("fp32 fma", toDecimal(report.fma).text + "  (FP32 fused multiply-adds in order)");
    renderExplainedSteps(report, out);
}

void renderMachineDotJson(const MachineDotReport& report, std::ostream& out) {
    const MachineDotResult& r = report.result;
    Json json;
    json["terms"] = report.terms;
    json["element"] = report.element;
    json["machine"] = report.request.machine.name;
    json["steps"] = r.steps;
    json["promote"] =
        report.request.promoteEvery > 0 ? Json(report.request.promoteEvery) : Json(nullptr);
    json["c"] = decimalOrNull(report.request.c);
    json["value"] = decimalOrNull(r.value);
    json["bits"] = codeToHex(report.bits, r.format->totalBits());
    json["result_format"] = r.format->id;
    json["exact"] = decimalOrNull(report.exact);
    json["dequantized_exact"] =
        report.dequantizedExact ? decimalOrNull(*report.dequantizedExact) : Json(nullptr);
    json["error"] = decimalOrNull(report.error);
    json["rel_error"] = decimalOrNull(report.relativeError);
    json["fp32_fma"] = decimalOrNull(report.fma);
    if (report.request.explain)
        json["explain"] = explainedStepsJson(report);
    printJson(out, json);
}

} // namespace fpx::cli
