// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/operation_steps.h"

#include "fpx/decimal_text.h"

namespace fpx {

std::vector<std::string> explainOperation(const FormatSpec& spec, const ExpressionStep& step,
                                          const RoundingOptions& options) {
    std::vector<std::string> lines;
    if (const auto why = arithmeticUnsupported(spec)) {
        lines.push_back(*why);
        return lines;
    }
    lines.push_back(step.text + "  (" + std::string(operationSymbol(step.op)) + ")");
    for (std::size_t i = 0; i < step.operands.size(); ++i)
        lines.push_back("operand " + std::to_string(i + 1) + ": " +
                        toDecimal(step.operands[i]).text);
    const DecimalText exact = toDecimal(step.result.exact.value);
    lines.push_back("exact result: " + exact.text + (exact.exact ? "" : "…"));
    lines.push_back("rounded (" + std::string(roundingModeId(options.mode)) +
                    "): " + toDecimal(step.result.value).text);
    return lines;
}

} // namespace fpx
