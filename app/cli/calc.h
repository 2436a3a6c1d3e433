// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx calc in its three steps: the options read from the command line, the evaluations the
// core makes from them, and the renderers that print them (cmd_calc.cpp, calc_render.cpp).

#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "text_table.h"

#include "fpx/exact/expression.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fpx::cli {

struct CalcOptions {
    std::string text;       // EXPR as typed, its words joined by spaces
    bool fromInput = false; // EXPR "-": one EXPR a line from standard input
    Expression expression;
    // --explicit: EXPR names its roundings (bf16(0.1)+bf16(0.2)) and is computed exactly
    // elsewhere, instead of in each format.
    bool explicitRoundings = false;
    std::vector<FormatSpec> formats; // --scale applied
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    bool json = false;
    bool full = false;
    ColorChoice color = ColorChoice::Auto;
};

Outcome<CalcOptions> parseCalcOptions(const Arguments& args);
// options.text parsed into options.expression (as plain or --explicit EXPR); the message when
// it cannot be read.
std::optional<std::string> readExpression(CalcOptions& options);

struct CalcReport {
    std::string text;
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    ExactEvaluation exact;                 // for --explicit, the value without its roundings
    std::vector<FormatEvaluation> results; // one per format
    // --explicit: the value with the written roundings, and each rounding in order.
    std::optional<ExplicitEvaluation> explicitResult;
    bool resultRounded = false; // EXPR's last step is a rounding: the result has a code
    // kExitDataError when a format could not compute the expression.
    int status = kExitOk;
};

CalcReport computeCalc(const CalcOptions& options);

// One format: every literal and operation written out; several: tables.
void renderCalcText(const CalcReport& report, const TerminalStyle& style, bool full,
                    std::ostream& out);
Json calcJson(const CalcReport& report);
// --explicit: each written rounding, what it rounded into what, and the result.
void renderExplicitText(const CalcReport& report, const TerminalStyle& style, bool full,
                        std::ostream& out);
Json explicitJson(const CalcReport& report);

} // namespace fpx::cli
