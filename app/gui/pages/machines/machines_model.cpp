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

std::optional<MachineElement> findPageElement(std::string_view id, std::string& error) {
    std::optional<MachineElement> element = findMachineElement(id, error);
    if (element && !element->block && element->format.kind != FormatKind::BinaryFloat) {
        error = element->id + " is not a floating-point format";
        return std::nullopt;
    }
    return element;
}

std::optional<BlockScaledOperand> quantizeTyped(const BlockFormat& format,
                                                const std::vector<ExactValue>& typed,
                                                std::string& error, std::vector<ExactValue>* fp32) {
    std::vector<float> floats(typed.size());
    if (fp32)
        fp32->resize(typed.size());
    for (std::size_t i = 0; i < typed.size(); ++i) {
        const ExactValue read = roundedInto(typed[i], fp32Spec());
        floats[i] = static_cast<float>(nearestDouble(read)); // an FP32 value: exact
        if (fp32)
            (*fp32)[i] = read;
    }
    return quantizeOperand(format, floats, error);
}

std::string describeQuantized(const BlockFormat& format, const BlockScaledOperand& operand,
                              std::size_t shown) {
    const std::size_t n = operand.values.size();
    const std::size_t size = std::max<std::size_t>(1, format.blocks.elementsPerBlock(n, n));
    std::string text;
    for (std::size_t begin = 0; begin < n; begin += size) {
        const std::size_t end = std::min(n, begin + size);
        std::string values;
        for (std::size_t i = begin; i < end && i < begin + shown; ++i)
            values += (i == begin ? "" : ", ") + shortNumber(operand.values[i]);
        if (end - begin > shown)
            values += ", … (" + std::to_string(end - begin) + ")";
        const ExactValue& scale = operand.scales[begin];
        const std::string power = powerOfTwo(scale);
        const bool many = end - begin > 1;
        text += std::string(text.empty() ? "" : "; ") + (many ? "(" : "") + values +
                (many ? ")" : "") + " × " + (power.empty() ? shortNumber(scale) : power);
    }
    if (format.scheme == BlockScheme::Nvfp4)
        text += ", tensor scale " + shortNumber(operand.tensorScale);
    return text;
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
    std::optional<MachineElement> element = findPageElement(input.element, error);
    if (!element)
        return fault(InstructionField::Element);
    drawn.elementId = element->id;
    drawn.element = element->format;
    drawn.block = element->block;
    const MachineInstruction* instruction = drawn.machine.instructionFor(drawn.elementId);
    if (!instruction) {
        error = drawn.machine.name + " has no instruction for " + drawn.elementId +
                " (its elements: " + elementsOf(drawn.machine) + ")";
        return fault(InstructionField::Machine);
    }
    if (drawn.block && !instruction->blockScaled) {
        error = drawn.machine.name + "'s " + drawn.elementId + " instruction takes no block scales";
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
        error = drawn.machine.name + "'s " + drawn.elementId + " instruction takes " +
                std::to_string(products) + " products: a and b have " + std::to_string(a->size()) +
                " values";
        return fault(InstructionField::A);
    }
    if (drawn.block && a->empty()) {
        error = "a: type the values to quantize into " + drawn.elementId;
        return fault(InstructionField::A);
    }
    drawn.typed = a->size();
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

    MachineDotOptions options;
    options.c = drawn.c;
    options.explain = true;
    if (drawn.block) {
        // As fpx dot reads them: FP32 values, quantized along K by the block format.
        std::vector<ExactValue> fa, fb;
        std::optional<BlockScaledOperand> qa = quantizeTyped(*drawn.block, *a, error, &fa);
        if (!qa) {
            error = "a: " + error;
            return fault(InstructionField::A);
        }
        std::optional<BlockScaledOperand> qb = quantizeTyped(*drawn.block, *b, error, &fb);
        if (!qb) {
            error = "b: " + error;
            return fault(InstructionField::B);
        }
        for (std::size_t i = 0; i < fa.size(); ++i) {
            if (!fa[i].isIdenticalTo((*a)[i]))
                drawn.notes.push_back("a" + std::to_string(i + 1) + ": " + shortNumber((*a)[i]) +
                                      " is read as " + decimal(fa[i]) + " in fp32");
            if (!fb[i].isIdenticalTo((*b)[i]))
                drawn.notes.push_back("b" + std::to_string(i + 1) + ": " + shortNumber((*b)[i]) +
                                      " is read as " + decimal(fb[i]) + " in fp32");
        }
        if (!drawn.c.isIdenticalTo(c))
            drawn.notes.push_back("c: " + shortNumber(c) + " is " + decimal(drawn.c) + " in " +
                                  drawn.outputFormat().id);
        drawn.inputExact = drawn.c;
        for (std::size_t i = 0; i < fa.size(); ++i)
            drawn.inputExact = drawn.inputExact + fa[i] * fb[i];
        drawn.quantizedA = std::move(*qa);
        drawn.quantizedB = std::move(*qb);
        drawn.a = drawn.quantizedA.values;
        drawn.b = drawn.quantizedB.values;
        drawn.dequantizedExact = blockScaledExact(drawn.quantizedA, drawn.quantizedB, drawn.c);
        MachineDotResult one = machineBlockDot(drawn.machine, *drawn.block, drawn.quantizedA,
                                               drawn.quantizedB, options);
        drawn.step = std::move(one.explained.front());
        drawn.value = one.value;
        drawn.valueFormat = one.format;
        // The instruction's own exact sum: c and its terms (products or runs times their
        // scales) as they came.
        drawn.exact = drawn.c;
        for (std::size_t t = 1; t < drawn.step.terms.size(); ++t)
            drawn.exact = drawn.exact + drawn.step.terms[t].value;
    } else {
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
        if (!drawn.c.isIdenticalTo(c))
            drawn.notes.push_back("c: " + shortNumber(c) + " is " + decimal(drawn.c) + " in " +
                                  drawn.outputFormat().id);

        // Through machineDot, one instruction explained: each machine's own way of adding its
        // products (the core dispatches on the instruction), never a model of the page's own.
        MachineDotResult one = machineDot(drawn.machine, drawn.element, drawn.a, drawn.b, options);
        drawn.step = std::move(one.explained.front());
        drawn.value = one.value;
        drawn.valueFormat = one.format;
        drawn.exact = drawn.c;
        for (std::size_t i = 0; i < products; ++i)
            drawn.exact = drawn.exact + drawn.a[i] * drawn.b[i];
        drawn.inputExact = drawn.exact;
        drawn.dequantizedExact = drawn.exact;
    }
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

std::string DrawnInstruction::termLabel(std::size_t t) const {
    if (t == 0)
        return "c";
    const std::string i = std::to_string(t);
    if (!block)
        return "a" + i + "·b" + i;
    if (instruction.subBlock <= 0)
        return "a" + i + "·b" + i + "·sa·sb";
    const std::size_t run = std::size_t(instruction.subBlock);
    const std::size_t first = (t - 1) * run + 1;
    const std::size_t last = std::min(typed, t * run);
    return "run " + i + " (a" + std::to_string(first) +
           (last > first ? "…a" + std::to_string(last) : "") + ")·sa·sb";
}

namespace {

// The plain description: the instruction's terms, and its output against their exact sum.
std::string describeStep(const DrawnInstruction& drawn) {
    // c and the products typed (for a block element, c and the step's terms: runs or products)
    const std::size_t terms = drawn.isBlock() ? drawn.step.terms.size() : 1 + drawn.typed;
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
    const std::string exact = drawn.isBlock() ? "the exact sum of its terms" : "the exact sum";
    if (drawn.error.isZero()) {
        text += "; the output equals " + exact + ".";
        return text;
    }
    const std::string power = powerOfTwo(drawn.error);
    text += "; the output differs from " + exact + " by " + shortNumber(drawn.error) +
            (power.empty() ? "" : " (" + power + ")");
    if (!drawn.exact.isZero())
        text += ", relative " + toSignificantDigits((drawn.error / drawn.exact), 3);
    const ExactValue rounding = drawn.step.output - drawn.step.sum;
    if (!rounding.isZero() && rounding.isFinite())
        text +=
            "; rounding into " + drawn.outputFormat().id + " moved it by " + shortNumber(rounding);
    return text + ".";
}

// An exact value in full where that is short, else to 12 digits: "36.00000095367431640625".
std::string exactText(const ExactValue& value) {
    const std::string full = decimal(value);
    return full.size() <= 28 ? full : "≈" + toSignificantDigits(value, 12);
}

// "30", or "36.00000095367431640625 (the machine's is 2^-20 below)": an exact value beside what
// the machine returns.
std::string besideValue(const ExactValue& exact, const ExactValue& value) {
    std::string text = exactText(exact);
    if (exact.isFinite() && value.isFinite() && compare(exact, value) != 0) {
        const ExactValue off = (value - exact).abs();
        const std::string power = powerOfTwo(off);
        text += " (the machine's is " + (power.empty() ? shortNumber(off) : power) +
                (compare(value, exact) < 0 ? " below)" : " above)");
    }
    return text;
}

} // namespace

std::string describeInstruction(const DrawnInstruction& drawn) {
    if (!drawn.isBlock())
        return describeStep(drawn);
    const BlockFormat& format = *drawn.block;
    std::string text = "a and b read as FP32, quantized into " + format.id + " along K: a → " +
                       describeQuantized(format, drawn.quantizedA) + "; b → " +
                       describeQuantized(format, drawn.quantizedB) + ".\n";
    text += describeStep(drawn) + "\n";
    text += "The machine returns " + shortNumber(drawn.value) +
            (drawn.valueFormat ? " (" + drawn.valueFormat->id + ")" : std::string()) +
            ". Exact: of the inputs " + besideValue(drawn.inputExact, drawn.value) +
            ", of the quantized operands " + besideValue(drawn.dequantizedExact, drawn.value) + ".";
    if (format.scheme == BlockScheme::Nvfp4) {
        const ExactValue alpha =
            roundedInto(drawn.quantizedA.tensorScale * drawn.quantizedB.tensorScale, fp32Spec());
        text += " The tensor scales stay outside the instruction: its output is multiplied by "
                "FP32(tA·tB) = " +
                shortNumber(alpha) + " after it, as a GEMM's epilogue does, and rounded into FP32.";
    }
    return text;
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
        if (!instruction || (request.element.block && !instruction->blockScaled))
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
        // A block element's operands are quantized the same for every machine.
        const std::string key = request.element.block ? std::string() : p.machine->name;
        auto found = operands.find(key);
        if (found == operands.end()) {
            if (request.element.block) {
                std::string problem;
                std::optional<GemmOperands> drawn =
                    drawBlockGemmOperands(*request.element.block, request.distribution, request.m,
                                          request.n, kMax, request.seed, problem);
                if (!drawn) {
                    result.error = request.element.id + ": " + problem;
                    return result;
                }
                found = operands.emplace(key, std::move(*drawn)).first;
            } else {
                found = operands
                            .emplace(key, drawGemmOperands(*p.instruction, request.element.format,
                                                           request.distribution, request.m,
                                                           request.n, kMax, request.seed))
                            .first;
            }
        }
        MachineErrorCurve curve{p.machine->name, p.promoteEvery, {}};
        for (const std::size_t k : request.ks) {
            curve.points.push_back(request.element.block
                                       ? measureMachineError(*p.machine, *request.element.block,
                                                             found->second, k, p.promoteEvery)
                                       : measureMachineError(*p.machine, request.element.format,
                                                             found->second, k, p.promoteEvery));
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
    std::optional<MachineElement> found = findPageElement(elementId, comparison.error);
    if (!found)
        return comparison;
    const FormatSpec& element = found->format;
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
    // A block element: a and b read as FP32 and quantized along K once, for every machine.
    std::optional<BlockScaledOperand> qa, qb;
    ExactValue inputSum; // Σ a_i·b_i of the FP32 values
    if (found->block) {
        comparison.blockScaled = true;
        std::vector<ExactValue> x(comparison.k), y(comparison.k), fx, fy;
        for (std::size_t i = 0; i < comparison.k; ++i) {
            x[i] = repeated(a, i);
            y[i] = repeated(b, i);
        }
        std::string problem;
        qa = quantizeTyped(*found->block, x, problem, &fx);
        if (qa)
            qb = quantizeTyped(*found->block, y, problem, &fy);
        if (!qa || !qb) {
            comparison.error = found->id + ": " + problem;
            return comparison;
        }
        for (std::size_t i = 0; i < comparison.k; ++i)
            inputSum = inputSum + fx[i] * fy[i];
        comparison.quantizedA = describeQuantized(*found->block, *qa);
        comparison.quantizedB = describeQuantized(*found->block, *qb);
    }
    for (const MachineModel* machine : machinesTaking(found->id, own)) {
        const MachineInstruction& instruction = *machine->instructionFor(found->id);
        if (found->block && !instruction.blockScaled)
            continue;
        const FormatSpec& output = outputFormat(instruction.model.output);
        MachineComparisonRow row;
        row.machine = machine->name;
        row.fractionBits = instruction.model.fractionBits;
        row.products = instruction.products;
        row.output = output.id;
        MachineDotOptions options;
        options.c = roundedInto(c, output);
        MachineDotResult result{};
        if (found->block) {
            // The exact value is of the FP32 inputs, as fpx dot's: the error includes the
            // quantization's.
            row.exact = options.c + inputSum;
            comparison.dequantizedExact = blockScaledExact(*qa, *qb, options.c);
            result = machineBlockDot(*machine, *found->block, *qa, *qb, options);
        } else {
            // The exact value is of the operands as read (for TF32 the FP32 values), so that
            // the error includes what the instruction's own truncation of them costs.
            const FormatSpec& read = operandReadFormat(instruction, element);
            std::vector<ExactValue> x(comparison.k), y(comparison.k);
            row.exact = options.c;
            for (std::size_t i = 0; i < comparison.k; ++i) {
                const ExactValue ra = roundedInto(repeated(a, i), read);
                const ExactValue rb = roundedInto(repeated(b, i), read);
                row.exact = row.exact + ra * rb;
                x[i] = machineOperand(instruction, element, ra);
                y[i] = machineOperand(instruction, element, rb);
            }
            result = machineDot(*machine, element, x, y, options);
        }
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

std::vector<std::string> machineBlockElements(std::span<const MachineModel> own) {
    std::vector<std::string> elements;
    auto add = [&elements](const MachineModel& machine) {
        for (const MachineInstruction& instruction : machine.instructions) {
            if (!instruction.blockScaled)
                continue;
            for (const std::string& id : instruction.elements) {
                std::string error;
                const std::optional<MachineElement> element = findMachineElement(id, error);
                if (element && element->block &&
                    std::find(elements.begin(), elements.end(), element->id) == elements.end())
                    elements.push_back(element->id);
            }
        }
    };
    for (const MachineModel& machine : builtInMachines())
        add(machine);
    for (const MachineModel& machine : own)
        add(machine);
    return elements;
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
