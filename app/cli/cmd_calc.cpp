// SPDX-License-Identifier: GPL-3.0-or-later
// fpx calc: an expression computed in each format, every literal rounded first and every
// operation rounded once (docs/behaviour.md, "Arithmetic"), beside its exact value. The
// options and the evaluations; calc_render.cpp prints them.
#include "arguments.h"
#include "calc.h"
#include "commands.h"
#include "conversion_setup.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/format_catalogue.h"

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx calc EXPR [--formats ID,...] [--round MODE] [--overflow POLICY] [--seed N]\n"
    "                     [--scale S] [--json] [--full] [--color|--no-color]\n"
    "  EXPR: numbers, + - * / ( ), fma(a,b,c), sqrt(x), min(a,b), max(a,b), abs(x)\n";

} // namespace

Outcome<CalcOptions> parseCalcOptions(const Arguments& args) {
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return CommandError{setup.error};
    if (args.positionals().empty())
        return CommandError{"expected an expression EXPR"};
    CalcOptions options;
    // `fpx calc 0.1 + 0.2` reads as `fpx calc "0.1 + 0.2"`.
    for (const std::string& part : args.positionals())
        options.text += (options.text.empty() ? "" : " ") + part;

    if (auto list = args.value("formats")) {
        FormatListLookup lookup = findFormats(*list);
        if (!lookup.error.empty())
            return CommandError{"--formats: " + lookup.error};
        options.formats = std::move(lookup.specs);
    } else {
        for (const FormatSpec& spec : builtinFormats())
            if (!arithmeticUnsupported(spec))
                options.formats.push_back(spec);
    }
    for (FormatSpec& spec : options.formats)
        setup.applyScale(spec);

    ExpressionParse parsed = parseExpression(options.text);
    if (!parsed)
        return dataError("cannot read EXPR '" + options.text + "' at column " +
                         std::to_string(parsed.error.position + 1) + ": " + parsed.error.message);
    options.expression = std::move(*parsed.expression);
    options.rounding = setup.rounding;
    options.seed = setup.seed;
    options.json = args.has("json");
    options.full = args.has("full");
    options.color = readColorChoice(args);
    return options;
}

CalcReport computeCalc(const CalcOptions& options) {
    CalcReport report;
    report.text = options.text;
    report.rounding = options.rounding;
    report.seed = options.seed;
    report.exact = evaluateExactly(options.expression);
    report.results.reserve(options.formats.size());
    for (const FormatSpec& spec : options.formats) {
        report.results.push_back(evaluateInFormat(options.expression, spec, options.rounding,
                                                  options.seed, report.exact));
        if (report.results.back().unsupported)
            report.status = kExitDataError;
    }
    return report;
}

int runCalc(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"formats", "round", "overflow", "seed", "scale"},
                         {"json", "full", "color", "no-color"});
    if (const auto stop = checkArguments(args, io, "calc", kUsage))
        return *stop;
    const Outcome<CalcOptions> options = parseCalcOptions(args);
    if (!options)
        return reportError(io, "calc", options.error());
    const CalcReport report = computeCalc(*options);
    if (options->json)
        renderCalcJson(report, io.out);
    else
        renderCalcText(report, TerminalStyle::forChoice(options->color, io.outIsTerminal),
                       options->full, io.out);
    return report.status;
}

} // namespace fpx::cli
