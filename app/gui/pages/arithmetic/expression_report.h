// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/expression.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpx::gui {

// One parsed expression computed in every shown format, with what the Arithmetic page says
// about each row beyond evaluateInFormat: the real value rounded once, to show at a glance
// where computing in the format gives a different code.
struct ExpressionRow {
    FormatEvaluation evaluation;
    // The exact real value of the expression rounded once into the format (nullopt for
    // formats without arithmetic). When its code differs from the evaluation's, the format's
    // arithmetic did not give the nearest value: 0.1+0.2 in FP64.
    std::optional<Conversion> roundedOnce;
    bool differsFromRoundedOnce() const {
        return roundedOnce && roundedOnce->code != evaluation.code;
    }
};

struct ExpressionReport {
    Expression expression;
    ExactEvaluation exact;
    std::vector<ExpressionRow> rows;
};

ExpressionReport evaluateExpressionReport(const Expression& expression,
                                          const std::vector<FormatSpec>& formats,
                                          const RoundingOptions& options, std::uint64_t seed);

// The teaching text of one row, in a monospace panel: every literal's rounding with its bits,
// then every operation in evaluation order with explainOperation's text and the result's bits.
std::vector<std::string> expressionSteps(const ExpressionReport& report, const ExpressionRow& row,
                                         const RoundingOptions& options);

} // namespace fpx::gui
