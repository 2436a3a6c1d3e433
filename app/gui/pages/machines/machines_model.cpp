// SPDX-License-Identifier: GPL-3.0-or-later
// The Machines page's computations, Qt-free: everything here is the core's model of a matrix
// engine (docs/behaviour.md, "Machines") put in the shape the page shows.
#include "pages/machines/machines_model.h"

#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/machines/machine_dot.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace fpx::gui {
namespace {

std::string decimal(const ExactValue& value) {
    return toDecimal(value).text;
}

std::string shortNumber(const ExactValue& value) {
    return toSignificantDigits(value, 6);
}

// "2^-13" for a power of two, otherwise empty.
std::string powerOfTwo(const ExactValue& value) {
    if (!value.isFinite() || value.isZero() || value.numerator() != 1 || !value.isDyadic())
        return {};
    return std::string(value.isNegative() ? "-" : "") + "2^" + std::to_string(value.exponent2());
}

std::string elementsOf(const MachineModel& machine) {
    std::string text;
    for (const MachineInstruction& instruction : machine.instructions)
        for (const std::string& id : instruction.elements)
            text += (text.empty() ? "" : ", ") + id;
    return text.empty() ? "any" : text;
}

// The FP32 spacing at x: 2^(e−23) in x's binade, the subnormal spacing below FP32's range.
ExactValue fp32Spacing(const ExactValue& x) {
    const std::int64_t low = fp32Spec().minExponent();
    const std::int64_t e =
        x.isFinite() && !x.isZero() ? std::max<std::int64_t>(x.floorLog2(), low) : low;
    return ExactValue::dyadic(false, 1, e - fp32Spec().fractionBits);
}

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char ch : text)
        quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return quoted + "\"";
}

std::string doubleText(double x) {
    std::ostringstream out;
    out.precision(17);
    out << x;
    return out.str();
}

} // namespace

std::optional<std::vector<ExactValue>> parseValueList(std::string_view text, std::string& error) {
    std::vector<ExactValue> values;
    if (trim(text).empty())
        return values;
    std::size_t item = 0;
    for (std::string_view part : splitAt(text, ',')) {
        ++item;
        const std::string_view piece = trim(part);
        if (piece.empty()) {
            error = "item " + std::to_string(item) + " is empty";
            return std::nullopt;
        }
        const ParsedValue parsed = parseValue(piece);
        if (!parsed) {
            error = "item " + std::to_string(item) + " ('" + std::string(piece) +
                    "'): " + parsed.error.message;
            return std::nullopt;
        }
        values.push_back(*parsed.value);
    }
    return values;
}

const FormatSpec& operandReadFormat(const MachineInstruction& instruction,
                                    const FormatSpec& element) {
    return instruction.truncatesFp32Operands ? fp32Spec() : element;
}

ExactValue takeOperand(const MachineInstruction& instruction, const FormatSpec& element,
                       const ExactValue& typed) {
    return machineOperand(instruction, element,
                          roundedInto(typed, operandReadFormat(instruction, element)));
}

const FormatSpec& DrawnInstruction::outputFormat() const {
    return fpx::outputFormat(instruction.model.output);
}

std::size_t DrawnInstruction::termsLosingBits() const {
    return std::size_t(std::count_if(fates.begin(), fates.end(), [](TermFate f) {
        return f == TermFate::Cut || f == TermFate::Vanished;
    }));
}

std::size_t DrawnInstruction::termsVanished() const {
    return std::size_t(std::count(fates.begin(), fates.end(), TermFate::Vanished));
}

std::optional<DrawnInstruction> drawInstruction(const InstructionInput& input, std::string& error,
                                                InstructionField* field) {
    auto fault = [&](InstructionField where) {
        if (field)
            *field = where;
        return std::nullopt;
    };
    DrawnInstruction drawn;
    std::optional<MachineModel> machine = findMachine(input.machine, error, input.own);
    if (!machine)
        return fault(InstructionField::Machine);
    drawn.machine = std::move(*machine);
    const FormatLookup element = findFormat(input.element);
    if (!element) {
        error = element.error;
        return fault(InstructionField::Element);
    }
    drawn.element = *element.spec;
    if (drawn.element.kind != FormatKind::BinaryFloat) {
        error = drawn.element.id + " is not a floating-point format";
        return fault(InstructionField::Element);
    }
    const MachineInstruction* instruction = drawn.machine.instructionFor(drawn.element.id);
    if (!instruction) {
        error = drawn.machine.name + " has no instruction for " + drawn.element.id +
                " (its elements: " + elementsOf(drawn.machine) + ")";
        return fault(InstructionField::Machine);
    }
    drawn.instruction = *instruction;
    const std::size_t products = std::size_t(instruction->products);

    std::optional<std::vector<ExactValue>> a = parseValueList(input.a, error);
    if (!a) {
        error = "a: " + error;
        return fault(InstructionField::A);
    }
    std::optional<std::vector<ExactValue>> b = parseValueList(input.b, error);
    if (!b) {
        error = "b: " + error;
        return fault(InstructionField::B);
    }
    if (a->size() != b->size()) {
        error = "a has " + std::to_string(a->size()) + (a->size() == 1 ? " value" : " values") +
                " and b " + std::to_string(b->size()) + ": give as many of each";
        return fault(InstructionField::B);
    }
    if (a->size() > products) {
        error = drawn.machine.name + "'s " + drawn.element.id + " instruction takes " +
                std::to_string(products) + " products: a and b have " + std::to_string(a->size()) +
                " values";
        return fault(InstructionField::A);
    }
    drawn.typed = a->size();
    const std::string read = operandReadFormat(*instruction, drawn.element).id;
    auto take = [&](const std::vector<ExactValue>& typed, const char* name) {
        std::vector<ExactValue> taken(products);
        for (std::size_t i = 0; i < typed.size(); ++i) {
            taken[i] = takeOperand(*instruction, drawn.element, typed[i]);
            if (!taken[i].isIdenticalTo(typed[i]))
                drawn.notes.push_back(
                    std::string(name) + std::to_string(i + 1) + ": " + shortNumber(typed[i]) +
                    " is taken as " + decimal(taken[i]) +
                    (instruction->truncatesFp32Operands
                         ? " (through " + read + ", truncated into " + drawn.element.id + ")"
                         : " in " + drawn.element.id));
        }
        return taken;
    };
    drawn.a = take(*a, "a");
    drawn.b = take(*b, "b");
    ExactValue c;
    if (!trim(input.c).empty()) {
        const ParsedValue parsed = parseValue(trim(input.c));
        if (!parsed) {
            error = "c: " + parsed.error.message;
            return fault(InstructionField::C);
        }
        c = *parsed.value;
    }
    // c is an accumulator value: the output format's nearest, as a register holds it.
    drawn.c = roundedInto(c, drawn.outputFormat());
    if (!drawn.c.isIdenticalTo(c))
        drawn.notes.push_back("c: " + shortNumber(c) + " is " + decimal(drawn.c) + " in " +
                              drawn.outputFormat().id);

    // Through machineDot, one instruction explained: each machine's own way of adding its
    // products (the core dispatches on the instruction), never a model of the page's own.
    MachineDotOptions options;
    options.c = drawn.c;
    options.explain = true;
    MachineDotResult one = machineDot(drawn.machine, drawn.element, drawn.a, drawn.b, options);
    drawn.step = std::move(one.explained.front());
    drawn.exact = drawn.c;
    for (std::size_t i = 0; i < products; ++i)
        drawn.exact = drawn.exact + drawn.a[i] * drawn.b[i];
    drawn.error = drawn.step.output.isFinite() && drawn.exact.isFinite()
                      ? drawn.step.output - drawn.exact
                      : ExactValue::nan();
    for (const FusedTerm& term : drawn.step.terms) {
        if (!term.value.isFinite())
            drawn.fates.push_back(TermFate::Special);
        else if (term.value.isZero())
            drawn.fates.push_back(TermFate::Zero);
        else if (!term.cut)
            drawn.fates.push_back(TermFate::Whole);
        else if (term.kept.isZero())
            drawn.fates.push_back(TermFate::Vanished);
        else
            drawn.fates.push_back(TermFate::Cut);
    }
    return drawn;
}

std::string describeInstruction(const DrawnInstruction& drawn) {
    const std::size_t terms = 1 + drawn.typed; // c and the products typed
    std::string text;
    const std::size_t lost = drawn.termsLosingBits();
    const std::size_t vanished = drawn.termsVanished();
    if (lost == 0)
        text = "No term lost bits";
    else
        text = std::to_string(lost) + " of " + std::to_string(terms) + " terms lost bits" +
               (vanished > 0 ? " (" + std::to_string(vanished) + " vanished)" : "");
    if (drawn.error.isNaN()) {
        text += "; the output is " + decimal(drawn.step.output) + " (IEEE: a NaN or an ∞ term).";
        return text;
    }
    if (drawn.error.isZero()) {
        text += "; the output equals the exact sum.";
        return text;
    }
    const std::string power = powerOfTwo(drawn.error);
    text += "; the output differs from the exact sum by " + shortNumber(drawn.error) +
            (power.empty() ? "" : " (" + power + ")");
    if (!drawn.exact.isZero())
        text += ", relative " + toSignificantDigits((drawn.error / drawn.exact), 3);
    const ExactValue rounding = drawn.step.output - drawn.step.sum;
    if (!rounding.isZero() && rounding.isFinite())
        text +=
            "; rounding into " + drawn.outputFormat().id + " moved it by " + shortNumber(rounding);
    return text + ".";
}

std::size_t promotionFor(const MachineInstruction& instruction, std::size_t every) {
    const std::size_t products = std::size_t(std::max(1, instruction.products));
    return every == 0 ? 0 : (every + products - 1) / products * products;
}

std::vector<std::size_t> powersOfTwoUpTo(std::size_t kMax) {
    std::vector<std::size_t> ks;
    for (std::size_t k = 16; k <= kMax; k *= 2)
        ks.push_back(k);
    return ks;
}

ErrorSweepResult
runErrorSweep(const ErrorSweepRequest& request,
              const std::function<bool(std::size_t done, std::size_t total)>& progress,
              const std::function<const MachineErrorCurve*(const std::string& machine,
                                                           std::size_t promoteEvery)>& reuse) {
    ErrorSweepResult result;
    result.request = request;
    const std::size_t kMax = request.ks.empty() ? 0 : request.ks.back();
    // The curves to show, each found measured before or left to measure.
    struct Planned {
        const MachineModel* machine;
        const MachineInstruction* instruction;
        std::size_t promoteEvery;
        const MachineErrorCurve* done;
    };
    std::vector<Planned> plan;
    for (const MachineModel& machine : request.machines) {
        const MachineInstruction* instruction = machine.instructionFor(request.element.id);
        if (!instruction)
            continue;
        std::vector<std::size_t> intervals = {0};
        if (request.promoteEvery > 0)
            intervals.push_back(promotionFor(*instruction, request.promoteEvery));
        for (const std::size_t every : intervals) {
            const MachineErrorCurve* done = reuse ? reuse(machine.name, every) : nullptr;
            if (done && done->points.size() != request.ks.size())
                done = nullptr;
            plan.push_back({&machine, instruction, every, done});
        }
    }
    std::size_t total = 0;
    for (const Planned& p : plan)
        total += p.done ? 0 : request.ks.size();
    std::size_t measured = 0;
    if (progress && !progress(0, total)) {
        result.cancelled = true;
        return result;
    }
    // Operands drawn once per machine (an instruction that truncates FP32 operands takes them
    // differently), shared by its curves.
    std::map<std::string, GemmOperands> operands;
    for (const Planned& p : plan) {
        if (p.done) {
            result.curves.push_back(*p.done);
            continue;
        }
        auto found = operands.find(p.machine->name);
        if (found == operands.end())
            found = operands
                        .emplace(p.machine->name, drawGemmOperands(*p.instruction, request.element,
                                                                   request.distribution, request.m,
                                                                   request.n, kMax, request.seed))
                        .first;
        MachineErrorCurve curve{p.machine->name, p.promoteEvery, {}};
        for (const std::size_t k : request.ks) {
            curve.points.push_back(
                measureMachineError(*p.machine, request.element, found->second, k, p.promoteEvery));
            ++measured;
            if (progress && !progress(measured, total)) {
                result.cancelled = true;
                break;
            }
        }
        result.curves.push_back(std::move(curve));
        if (result.cancelled)
            break;
    }
    return result;
}

std::string errorSweepCsv(const ErrorSweepResult& result) {
    std::string csv = "machine,element,distribution,promote,k,results,compared,max_rel_error,"
                      "mean_rel_error,off_by_fp32_ulp,non_finite\n";
    for (const MachineErrorCurve& curve : result.curves)
        for (const MachineErrorPoint& p : curve.points)
            csv += csvField(curve.machine) + "," + csvField(result.request.element.id) + "," +
                   csvField(result.request.distribution.text) + "," +
                   std::to_string(curve.promoteEvery) + "," + std::to_string(p.k) + "," +
                   std::to_string(p.results) + "," + std::to_string(p.compared) + "," +
                   doubleText(p.maxRelativeError) + "," + doubleText(p.meanRelativeError) + "," +
                   std::to_string(p.offByUlp) + "," + std::to_string(p.nonFinite) + "\n";
    return csv;
}

MachineComparison compareMachines(const std::string& elementId, const std::vector<ExactValue>& a,
                                  const std::vector<ExactValue>& b, const ExactValue& c,
                                  std::size_t k, std::span<const MachineModel> own) {
    MachineComparison comparison;
    comparison.element = elementId;
    const FormatLookup lookup = findFormat(elementId);
    if (!lookup) {
        comparison.error = lookup.error;
        return comparison;
    }
    const FormatSpec& element = *lookup.spec;
    const std::size_t typed = std::max(a.size(), b.size());
    comparison.k = k == 0 ? typed : k;
    if (typed == 0) {
        comparison.error = "no values: type a and b";
        return comparison;
    }
    // The typed pairs, the shorter vector padded with zeros, repeated to K.
    auto repeated = [&](const std::vector<ExactValue>& v, std::size_t i) {
        const std::size_t j = i % typed;
        return j < v.size() ? v[j] : ExactValue();
    };
    for (const MachineModel* machine : machinesTaking(element.id, own)) {
        const MachineInstruction& instruction = *machine->instructionFor(element.id);
        const FormatSpec& read = operandReadFormat(instruction, element);
        const FormatSpec& output = outputFormat(instruction.model.output);
        MachineComparisonRow row;
        row.machine = machine->name;
        row.fractionBits = instruction.model.fractionBits;
        row.products = instruction.products;
        row.output = output.id;
        // The exact value is of the operands as read (for TF32 the FP32 values), so that the
        // error includes what the instruction's own truncation of them costs.
        std::vector<ExactValue> x(comparison.k), y(comparison.k);
        MachineDotOptions options;
        options.c = roundedInto(c, output);
        row.exact = options.c;
        for (std::size_t i = 0; i < comparison.k; ++i) {
            const ExactValue ra = roundedInto(repeated(a, i), read);
            const ExactValue rb = roundedInto(repeated(b, i), read);
            row.exact = row.exact + ra * rb;
            x[i] = machineOperand(instruction, element, ra);
            y[i] = machineOperand(instruction, element, rb);
        }
        const MachineDotResult result = machineDot(*machine, element, x, y, options);
        row.value = result.value;
        row.format = result.format;
        row.bits = roundToFormat(result.value, *result.format).code;
        row.steps = result.steps;
        row.relative = row.exact.isFinite() && !row.exact.isZero() && row.value.isFinite()
                           ? (row.value - row.exact) / row.exact
                           : ExactValue::nan();
        row.fp32Nearest = roundedInto(row.exact, fp32Spec());
        if (row.value.isFinite() && row.fp32Nearest.isFinite())
            row.ulpsFromNearest =
                nearestDouble((row.value - row.fp32Nearest) / fp32Spacing(row.fp32Nearest));
        comparison.rows.push_back(std::move(row));
    }
    // The majority's value, when one value is more common than every other.
    std::vector<std::size_t> same(comparison.rows.size(), 0);
    for (std::size_t i = 0; i < comparison.rows.size(); ++i)
        for (const MachineComparisonRow& other : comparison.rows)
            same[i] += comparison.rows[i].value.isIdenticalTo(other.value) ? 1 : 0;
    const std::size_t most = same.empty() ? 0 : *std::max_element(same.begin(), same.end());
    std::size_t holders = 0; // rows holding a value that `most` rows share
    for (std::size_t i = 0; i < same.size(); ++i)
        holders += same[i] == most ? 1 : 0;
    if (holders == most && most * 2 > comparison.rows.size())
        for (std::size_t i = 0; i < same.size(); ++i)
            comparison.rows[i].differsFromMajority = same[i] != most;
    return comparison;
}

std::string comparisonCsv(const MachineComparison& comparison) {
    std::string csv = "machine,element,k,fraction_bits,products,output,value,bits,instructions,"
                      "exact,rel_error,fp32_nearest,ulps_from_fp32_nearest,differs_from_majority\n";
    for (const MachineComparisonRow& row : comparison.rows)
        csv += csvField(row.machine) + "," + csvField(comparison.element) + "," +
               std::to_string(comparison.k) + "," + std::to_string(row.fractionBits) + "," +
               std::to_string(row.products) + "," + row.output + "," + decimal(row.value) + "," +
               codeToHex(row.bits, row.format->totalBits()) + "," + std::to_string(row.steps) +
               "," + decimal(row.exact) + "," +
               (row.relative.isNaN() ? std::string() : toSignificantDigits(row.relative, 17)) +
               "," + decimal(row.fp32Nearest) + "," +
               (row.ulpsFromNearest ? doubleText(*row.ulpsFromNearest) : std::string()) + "," +
               (row.differsFromMajority ? "yes" : "no") + "\n";
    return csv;
}

std::vector<const MachineModel*> machineCatalogue(std::span<const MachineModel> own) {
    std::vector<const MachineModel*> machines;
    for (const MachineModel& machine : own)
        machines.push_back(&machine);
    for (const MachineModel& machine : builtInMachines())
        machines.push_back(&machine);
    return machines;
}

std::vector<const MachineModel*> machinesTaking(std::string_view element,
                                                std::span<const MachineModel> own) {
    std::vector<const MachineModel*> machines;
    for (const MachineModel* machine : machineCatalogue(own))
        if (machine->instructionFor(element))
            machines.push_back(machine);
    return machines;
}

std::vector<std::string> machineElements(std::span<const MachineModel> own) {
    std::vector<std::string> elements;
    auto add = [&elements](const MachineModel& machine) {
        for (const MachineInstruction& instruction : machine.instructions)
            for (const std::string& id : instruction.elements) {
                // Element formats only: an instruction may name a block format its operands
                // are quantized into, which the page's values cannot be typed in.
                const FormatLookup format = findFormat(id);
                if (format && format.spec->kind == FormatKind::BinaryFloat &&
                    std::find(elements.begin(), elements.end(), format.spec->id) == elements.end())
                    elements.push_back(format.spec->id);
            }
    };
    for (const MachineModel& machine : builtInMachines())
        add(machine);
    for (const MachineModel& machine : own)
        add(machine);
    return elements;
}

} // namespace fpx::gui
