// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/expression_report.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/bit_layout.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/operation_steps.h"

namespace fpx::gui {

namespace {

std::string exactText(const ExactValue& value) {
    const DecimalText text = toDecimal(value);
    return text.exact ? text.text : text.text + "…";
}

// "0x3fd3333333333334  0 01111111101 0011…0100  inexact"
std::string codeLine(const FormatSpec& spec, Code code, const ArithmeticFlags& flags) {
    std::string line = codeToHex(code, spec.totalBits()) + "  " + binaryByField(spec, code);
    const std::string names = arithmeticFlagsToString(flags);
    if (!names.empty())
        line += "  [" + names + "]";
    return line;
}

} // namespace

ExpressionReport evaluateExpressionReport(const Expression& expression,
                                          const std::vector<FormatSpec>& formats,
                                          const RoundingOptions& options, std::uint64_t seed) {
    ExpressionReport report;
    report.expression = expression;
    report.exact = evaluateExactly(expression);
    report.rows.reserve(formats.size());
    for (const FormatSpec& spec : formats) {
        ExpressionRow row;
        // The exact value once for all formats: it is the costly part of a long expression.
        row.evaluation = evaluateInFormat(expression, spec, options, seed, report.exact);
        if (!row.evaluation.unsupported)
            row.roundedOnce = roundToFormat(report.exact.value, spec, options);
        report.rows.push_back(std::move(row));
    }
    return report;
}

std::vector<std::string> expressionSteps(const ExpressionReport& report, const ExpressionRow& row,
                                         const RoundingOptions& options) {
    const FormatEvaluation& e = row.evaluation;
    const FormatSpec& spec = e.spec;
    std::vector<std::string> lines;
    lines.push_back(report.expression.text + " in " + spec.id + ", rounding " +
                    roundingChoiceId(options) + ", overflow " +
                    std::string(overflowPolicyId(options.overflow)));
    if (e.unsupported) {
        lines.push_back("no arithmetic: " + *e.unsupported);
        return lines;
    }
    lines.push_back("");
    lines.push_back("Literals, each rounded once into " + spec.id + ":");
    for (const LiteralRounding& literal : e.literals) {
        lines.push_back("  " + literal.text + " = " + exactText(literal.exact));
        lines.push_back("    stored " + exactText(literal.value));
        lines.push_back("    " + codeLine(spec, literal.rounded.code,
                                          fromConversionFlags(literal.rounded.flags)));
    }
    int number = 1;
    for (const ExpressionStep& step : e.steps) {
        lines.push_back("");
        lines.push_back("Step " + std::to_string(number++) + ":");
        for (const std::string& line : explainOperation(spec, step, options))
            lines.push_back("  " + line);
        lines.push_back("  bits " + codeLine(spec, step.result.rounded.code, step.result.flags));
    }
    lines.push_back("");
    lines.push_back("Result in " + spec.id + ": " + exactText(e.value));
    lines.push_back("  " + codeLine(spec, e.code, e.flags));
    lines.push_back("Exact real value: " + exactText(report.exact.value) +
                    (report.exact.approximate ? " (approximate: a square root)" : ""));
    lines.push_back("Error: " + exactText(e.error) + (e.errorApproximate ? " (approximate)" : ""));
    if (row.roundedOnce) {
        if (row.differsFromRoundedOnce())
            lines.push_back("The exact value rounded once would be " +
                            codeToHex(row.roundedOnce->code, spec.totalBits()) + ": computing in " +
                            spec.id + " gave a different code.");
        else
            lines.push_back("Same code as the exact value rounded once.");
    }
    return lines;
}

} // namespace fpx::gui
