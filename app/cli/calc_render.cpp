// SPDX-License-Identifier: GPL-3.0-or-later
// fpx calc's renderers: one format's every step written out, several formats as tables, or
// JSON.
#include "calc.h"
#include "presentation.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/operation_steps.h"

#include <ostream>

namespace fpx::cli {

namespace {

// A value's decimal text: exact when it terminates and the value is not a stand-in,
// otherwise 40 significant digits.
DecimalText valueText(const ExactValue& v, bool approximate) {
    if (!approximate)
        return toDecimal(v);
    return DecimalText{toSignificantDigits(v, 40), v.isZero() || !v.isFinite()};
}

Json decimalJson(const ExactValue& v, bool approximate = false) {
    if (v.isNaN())
        return nullptr;
    return valueText(v, approximate).text;
}

std::vector<std::string> flagNames(const ArithmeticFlags& flags) {
    std::vector<std::string> names;
    const std::string text = arithmeticFlagsToString(flags);
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::size_t end = comma == std::string::npos ? text.size() : comma;
        names.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return names;
}

std::string bitsOf(const FormatSpec& spec, Code code) {
    return codeToHex(code, spec.totalBits());
}

Json operationJson(const FormatSpec& spec, const ExpressionStep& step) {
    Json json;
    json["op"] = operationSymbol(step.op);
    json["text"] = step.text;
    Json operands = Json::array();
    Json operandBits = Json::array();
    for (std::size_t i = 0; i < step.operands.size(); ++i) {
        operands.push_back(decimalJson(step.operands[i]));
        operandBits.push_back(bitsOf(spec, step.operandCodes[i]));
    }
    json["operands"] = std::move(operands);
    json["operand_bits"] = std::move(operandBits);
    const bool approximate = step.result.exact.approximate;
    json["exact"] = decimalJson(step.result.exact.value, approximate);
    json["exact_approximate"] = approximate;
    json["value"] = decimalJson(step.result.value);
    json["bits"] = bitsOf(spec, step.result.rounded.code);
    json["ulp_error"] = step.ulpError ? decimalJson(*step.ulpError, approximate) : Json(nullptr);
    json["flags"] = flagNames(step.result.flags);
    return json;
}

Json resultJson(const FormatEvaluation& e, const RoundingOptions& options, bool explain) {
    Json json;
    json["format"] = e.spec.id;
    json["name"] = e.spec.displayName;
    if (e.unsupported) {
        json["unsupported"] = *e.unsupported;
        return json;
    }
    json["bits"] = bitsOf(e.spec, e.code);
    const DecimalText value = toDecimal(e.value);
    json["value"] = e.value.isNaN() ? Json(nullptr) : Json(value.text);
    json["value_exact"] = value.exact;
    const DecimalText error = valueText(e.error, e.errorApproximate);
    json["error"] = e.error.isNaN() ? Json(nullptr) : Json(error.text);
    json["error_exact"] = e.error.isNaN() || (error.exact && !e.errorApproximate);
    json["flags"] = flagNames(e.flags);
    Json literals = Json::array();
    for (const LiteralRounding& literal : e.literals)
        literals.push_back({{"text", literal.text},
                            {"exact", decimalJson(literal.exact)},
                            {"value", decimalJson(literal.value)},
                            {"bits", bitsOf(e.spec, literal.rounded.code)},
                            {"flags", flagNames(fromConversionFlags(literal.rounded.flags))}});
    json["literals"] = std::move(literals);
    Json operations = Json::array();
    for (const ExpressionStep& step : e.steps) {
        Json op = operationJson(e.spec, step);
        if (explain)
            op["explanation"] = explainOperation(e.spec, step, options);
        operations.push_back(std::move(op));
    }
    json["operations"] = std::move(operations);
    return json;
}

std::string shortText(const ExactValue& v, int digits, bool withSign) {
    if (v.isNaN())
        return "-";
    const std::string text = toSignificantDigits(v, digits);
    const bool positive = !v.isNegative() && !v.isZero() && v.isFinite();
    return withSign && positive ? "+" + text : text;
}

std::string flagsOrNone(const ArithmeticFlags& flags) {
    const std::string text = arithmeticFlagsToString(flags);
    return text.empty() ? "none (exact)" : text;
}

// One format: the literals, every operation written out, the result.
void printDetail(std::ostream& out, const FormatEvaluation& e, const std::string& expression,
                 const ExactEvaluation& exact, const RoundingOptions& options,
                 const TerminalStyle& style, bool full) {
    auto line = [&](std::string_view label, const std::string& text) {
        std::string padded(label);
        padded.resize(12, ' ');
        out << "  " << style.dim(padded) << text << '\n';
    };
    out << style.bold(e.spec.id) << " — " << e.spec.displayName << '\n';
    line("expression", expression);
    line("rounding", roundingChoiceName(options) + ", overflow " +
                         std::string(overflowPolicyId(options.overflow)));
    if (e.unsupported) {
        line("no result", *e.unsupported);
        return;
    }
    out << '\n' << style.bold("literals") << " (each rounded into " << e.spec.id << " first)\n";
    for (const LiteralRounding& literal : e.literals) {
        const DecimalText value = toDecimal(literal.value);
        const ArithmeticFlags flags = fromConversionFlags(literal.rounded.flags);
        out << "  " << literal.text << "  →  " << bitsOf(e.spec, literal.rounded.code) << "  "
            << elide(value.text, full, 60) << (value.exact ? "" : "…") << "  ("
            << (flags.any() ? arithmeticFlagsToString(flags) : "exact") << ")\n";
    }
    for (std::size_t i = 0; i < e.steps.size(); ++i) {
        out << '\n' << style.bold("step " + std::to_string(i + 1)) << '\n';
        for (const std::string& text : explainOperation(e.spec, e.steps[i], options))
            out << "  " << text << '\n';
    }
    out << '\n';
    const DecimalText value = toDecimal(e.value);
    line("result",
         bitsOf(e.spec, e.code) + "  " + elide(value.text, full, 100) + (value.exact ? "" : "…"));
    const DecimalText exactText = valueText(exact.value, exact.approximate);
    line("exact", elide(exactText.text, full, 100) + (exactText.exact ? "" : "…") +
                      (exact.approximate ? "  (approximate: a square root)" : ""));
    if (!e.error.isNaN()) {
        const DecimalText error = valueText(e.error, e.errorApproximate);
        line("error", elide(error.text, full, 100) + (error.exact ? "" : "…"));
    }
    line("flags", flagsOrNone(e.flags));
}

void printTable(std::ostream& out, const std::vector<FormatEvaluation>& results,
                const TerminalStyle& style, bool full) {
    TextTable table({"format", "hex", "value", "error", "flags", "bits"});
    std::vector<const FormatEvaluation*> unsupported;
    for (const FormatEvaluation& e : results) {
        if (e.unsupported) {
            unsupported.push_back(&e);
            continue;
        }
        const DecimalText value = toDecimal(e.value);
        table.addRow({style.bold(e.spec.id), bitsOf(e.spec, e.code),
                      elide(value.text, full) + (value.exact ? "" : "…"),
                      shortText(e.error, 6, true) + (e.errorApproximate ? "~" : ""),
                      arithmeticFlagsToString(e.flags), colouredBits(e.spec, e.code, style)});
    }
    table.print(out, style.enabled);
    // Every operation in order, per format: operands, exact result, rounded result, ULP error.
    bool anyStep = false;
    for (const FormatEvaluation& e : results)
        anyStep = anyStep || !e.steps.empty();
    if (anyStep) {
        out << '\n' << style.bold("operations") << '\n';
        TextTable steps({"format", "#", "operation", "operands", "exact", "value", "hex",
                         "ulp error", "flags"});
        for (const FormatEvaluation& e : results) {
            for (std::size_t i = 0; i < e.steps.size(); ++i) {
                const ExpressionStep& s = e.steps[i];
                std::string operands;
                for (const ExactValue& v : s.operands)
                    operands += (operands.empty() ? "" : ", ") + shortText(v, 8, false);
                steps.addRow({i == 0 ? style.bold(e.spec.id) : "", std::to_string(i + 1),
                              elide(s.text, full, 24), operands,
                              shortText(s.result.exact.value, 10, false) +
                                  (s.result.exact.approximate ? "~" : ""),
                              shortText(s.result.value, 10, false),
                              bitsOf(e.spec, s.result.rounded.code),
                              s.ulpError ? shortText(*s.ulpError, 4, true) : "-",
                              arithmeticFlagsToString(s.result.flags)});
            }
        }
        steps.print(out, style.enabled);
    }
    for (const FormatEvaluation* e : unsupported)
        out << style.bold(e->spec.id) << "  " << *e->unsupported << '\n';
}

} // namespace

Json calcJson(const CalcReport& report) {
    const ExactEvaluation& exact = report.exact;
    Json json;
    json["expression"] = report.text;
    const DecimalText exactText = valueText(exact.value, exact.approximate);
    json["exact"] = exact.value.isNaN() ? Json(nullptr) : Json(exactText.text);
    json["exact_decimal_complete"] = exactText.exact && !exact.approximate;
    json["exact_approximate"] = exact.approximate;
    json["round"] = roundingChoiceId(report.rounding);
    json["overflow"] = overflowPolicyId(report.rounding.overflow);
    if (report.rounding.mode == RoundingMode::Stochastic)
        json["seed"] = report.seed;
    Json list = Json::array();
    for (const FormatEvaluation& e : report.results)
        list.push_back(resultJson(e, report.rounding, report.results.size() == 1));
    json["results"] = std::move(list);
    return json;
}

void renderCalcText(const CalcReport& report, const TerminalStyle& style, bool full,
                    std::ostream& out) {
    const ExactEvaluation& exact = report.exact;
    if (report.results.size() == 1) {
        printDetail(out, report.results.front(), report.text, exact, report.rounding, style, full);
        return;
    }
    const DecimalText exactText = valueText(exact.value, exact.approximate);
    out << style.bold("expression") << "  " << report.text << '\n'
        << style.bold("exact") << "       " << elide(exactText.text, full, 60)
        << (exactText.exact ? "" : "…")
        << (exact.approximate ? "  (approximate: a square root)" : "") << '\n'
        << style.dim(std::string("round ") + roundingChoiceId(report.rounding) + ", overflow " +
                     std::string(overflowPolicyId(report.rounding.overflow)) +
                     "; every literal rounded into the format, every operation rounded once")
        << "\n\n";
    printTable(out, report.results, style, full);
}

namespace {

std::string modeAndFlags(const ExplicitRounding& r) {
    const ArithmeticFlags flags = fromConversionFlags(r.rounded.flags);
    return std::string(roundingModeId(r.mode)) + ", " +
           (flags.any() ? arithmeticFlagsToString(flags) : "exact");
}

// The difference of the rounded result from the value without roundings, as calc's error is
// computed: 0 for the same infinity, NaN when either is NaN.
ExactValue differenceOf(const ExactValue& value, const ExactValue& exact) {
    if (value.isNaN() || exact.isNaN())
        return ExactValue::nan();
    if (value.isInfinity() && exact.isInfinity())
        return value.isNegative() == exact.isNegative() ? ExactValue::zero() : value;
    return value - exact;
}

} // namespace

void renderExplicitText(const CalcReport& report, const TerminalStyle& style, bool full,
                        std::ostream& out) {
    const ExplicitEvaluation& e = *report.explicitResult;
    auto line = [&](std::string_view label, const std::string& text) {
        std::string padded(label);
        padded.resize(12, ' ');
        out << "  " << style.dim(padded) << text << '\n';
    };
    out << style.bold("explicit roundings") << '\n';
    line("expression", report.text);
    line("rounding", roundingChoiceName(report.rounding) + " where no mode is written, overflow " +
                         std::string(overflowPolicyId(report.rounding.overflow)) +
                         "; exact everywhere else");
    out << '\n';
    if (e.roundings.empty()) {
        out << "no rounding written: the value is exact\n";
    } else {
        out << style.bold("roundings") << " (in evaluation order: each rounds its argument once)\n";
        TextTable table(
            {"#", "rounding", "argument (exact)", "into", "bits", "value", "mode, flags"});
        for (std::size_t i = 0; i < e.roundings.size(); ++i) {
            const ExplicitRounding& r = e.roundings[i];
            const DecimalText argument = valueText(r.argument, r.argumentApproximate);
            const DecimalText value = toDecimal(r.value);
            table.addRow({std::to_string(i + 1), elide(r.text, full, 32),
                          elide(argument.text, full, 40) + (argument.exact ? "" : "…"), r.spec.id,
                          bitsOf(r.spec, r.rounded.code),
                          elide(value.text, full, 40) + (value.exact ? "" : "…"), modeAndFlags(r)});
        }
        table.print(out, style.enabled);
    }
    out << '\n';
    const DecimalText value = valueText(e.value, e.approximate);
    std::string result = elide(value.text, full, 100) + (value.exact ? "" : "…");
    if (report.resultRounded && !e.roundings.empty()) {
        const ExplicitRounding& last = e.roundings.back();
        result = bitsOf(last.spec, last.rounded.code) + " " + last.spec.id + "  " + result;
    }
    line("result", result + (e.approximate ? "  (approximate: a square root)" : ""));
    const DecimalText exactText = valueText(report.exact.value, report.exact.approximate);
    line("unrounded", elide(exactText.text, full, 100) + (exactText.exact ? "" : "…") +
                          "  (the same expression with no rounding)");
    const ExactValue difference = differenceOf(e.value, report.exact.value);
    if (!difference.isNaN()) {
        const DecimalText text = valueText(difference, e.approximate || report.exact.approximate);
        line("difference", elide(text.text, full, 100) + (text.exact ? "" : "…"));
    }
    line("flags", flagsOrNone(e.flags));
}

Json explicitJson(const CalcReport& report) {
    const ExplicitEvaluation& e = *report.explicitResult;
    Json json;
    json["expression"] = report.text;
    json["explicit"] = true;
    json["round"] = roundingChoiceId(report.rounding);
    json["overflow"] = overflowPolicyId(report.rounding.overflow);
    if (report.rounding.mode == RoundingMode::Stochastic)
        json["seed"] = report.seed;
    const DecimalText value = valueText(e.value, e.approximate);
    json["value"] = e.value.isNaN() ? Json(nullptr) : Json(value.text);
    json["value_decimal_complete"] = value.exact && !e.approximate;
    json["value_approximate"] = e.approximate;
    const bool coded = report.resultRounded && !e.roundings.empty();
    json["result_format"] = coded ? Json(e.roundings.back().spec.id) : Json(nullptr);
    json["result_bits"] =
        coded ? Json(bitsOf(e.roundings.back().spec, e.roundings.back().rounded.code))
              : Json(nullptr);
    const ExactEvaluation& exact = report.exact;
    const DecimalText exactText = valueText(exact.value, exact.approximate);
    json["unrounded"] = exact.value.isNaN() ? Json(nullptr) : Json(exactText.text);
    json["unrounded_approximate"] = exact.approximate;
    const ExactValue difference = differenceOf(e.value, exact.value);
    json["difference"] = difference.isNaN()
                             ? Json(nullptr)
                             : Json(valueText(difference, e.approximate || exact.approximate).text);
    json["flags"] = flagNames(e.flags);
    Json roundings = Json::array();
    for (const ExplicitRounding& r : e.roundings)
        roundings.push_back({{"text", r.text},
                             {"format", r.spec.id},
                             {"mode", roundingModeId(r.mode)},
                             {"argument", decimalJson(r.argument, r.argumentApproximate)},
                             {"argument_approximate", r.argumentApproximate},
                             {"bits", bitsOf(r.spec, r.rounded.code)},
                             {"value", decimalJson(r.value)},
                             {"flags", flagNames(fromConversionFlags(r.rounded.flags))}});
    json["roundings"] = std::move(roundings);
    return json;
}

} // namespace fpx::cli
