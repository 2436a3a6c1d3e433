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
    "       fpx calc --explicit EXPR [--round MODE] [--overflow POLICY] [--seed N] [--json]\n"
    "                     [--full] [--color|--no-color]\n"
    "  EXPR: numbers, + - * / ( ), fma(a,b,c), sqrt(x), min(a,b), max(a,b), abs(x)\n"
    "  --explicit: EXPR is computed exactly except where it names a format, which rounds\n"
    "  its argument once: bf16(0.1)+bf16(0.2), fp32(1 + 2^-30), bf16(fp32(1/3)*3, rtz).\n"
    "  Any format id (fpx formats) rounds; a mode after a comma overrides --round.\n"
    "  Prints each rounding (what was rounded into what) and the result beside the\n"
    "  value with no rounding.\n";

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

    options.explicitRoundings = args.has("explicit");
    if (options.explicitRoundings) {
        // The formats are written in EXPR, each where it rounds.
        for (const char* option : {"formats", "scale"})
            if (args.has(option))
                return CommandError{std::string("--") + option +
                                    " does not go with --explicit: EXPR names its formats "
                                    "where it rounds (bf16(0.1))"};
        ExpressionParse parsed = parseExplicitExpression(options.text);
        if (!parsed)
            return dataError("cannot read EXPR '" + options.text + "' at column " +
                             std::to_string(parsed.error.position + 1) + ": " +
                             parsed.error.message);
        options.expression = std::move(*parsed.expression);
        options.rounding = setup.rounding;
        options.seed = setup.seed;
        options.json = args.has("json");
        options.full = args.has("full");
        options.color = readColorChoice(args);
        return options;
    }

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
    if (options.explicitRoundings) {
        ExplicitOptions explicitOptions;
        explicitOptions.rounding = options.rounding;
        // The k-th rounding draws as the k-th rounding of fpx calc in a format does.
        const std::uint64_t seed = options.seed;
        explicitOptions.randomBits = [seed](std::size_t k) { return stochasticBits(seed, k); };
        report.explicitResult = evaluateExplicitly(options.expression, {}, explicitOptions);
        report.resultRounded = options.expression.kind == Expression::Kind::Rounding;
        if (report.explicitResult->error)
            report.status = kExitDataError;
        return report;
    }
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
                         {"json", "full", "color", "no-color", "explicit"});
    if (const auto stop = checkArguments(args, io, "calc", kUsage))
        return *stop;
    const Outcome<CalcOptions> options = parseCalcOptions(args);
    if (!options)
        return reportError(io, "calc", options.error());
    const CalcReport report = computeCalc(*options);
    if (report.explicitResult) {
        if (const auto& error = report.explicitResult->error)
            return reportError(io, "calc",
                               dataError("EXPR '" + report.text + "' at column " +
                                         std::to_string(error->position + 1) + ": " +
                                         error->message));
        if (options->json)
            renderExplicitJson(report, io.out);
        else
            renderExplicitText(report, TerminalStyle::forChoice(options->color, io.outIsTerminal),
                               options->full, io.out);
        return report.status;
    }
    if (options->json)
        renderCalcJson(report, io.out);
    else
        renderCalcText(report, TerminalStyle::forChoice(options->color, io.outIsTerminal),
                       options->full, io.out);
    return report.status;
}

} // namespace fpx::cli
