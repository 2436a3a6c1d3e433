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
    "usage: fpx calc EXPR|- [--formats ID,...] [--round MODE] [--overflow POLICY] [--seed N]\n"
    "                     [--scale S] [--json] [--full] [--color|--no-color]\n"
    "       fpx calc --explicit EXPR [--round MODE] [--overflow POLICY] [--seed N] [--json]\n"
    "                     [--full] [--color|--no-color]\n"
    "  EXPR: numbers, + - * / ( ), fma(a,b,c), sqrt(x), min(a,b), max(a,b), abs(x)\n"
    "  -: one EXPR a line from standard input (blank lines and # comments skipped); a line\n"
    "     that cannot be read is reported as stdin:LINE:COLUMN and the others go on; --json\n"
    "     prints one document a line\n"
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
        return CommandError{"expected an expression EXPR, or - to read one a line from standard "
                            "input"};
    CalcOptions options;
    // `fpx calc 0.1 + 0.2` reads as `fpx calc "0.1 + 0.2"`.
    for (const std::string& part : args.positionals())
        options.text += (options.text.empty() ? "" : " ") + part;
    options.fromInput = options.text == "-";

    options.explicitRoundings = args.has("explicit");
    if (options.explicitRoundings) {
        // The formats are written in EXPR, each where it rounds.
        for (const char* option : {"formats", "scale"})
            if (args.has(option))
                return CommandError{std::string("--") + option +
                                    " does not go with --explicit: EXPR names its formats "
                                    "where it rounds (bf16(0.1))"};
        options.rounding = setup.rounding;
        options.seed = setup.seed;
        options.json = args.has("json");
        options.full = args.has("full");
        options.color = readColorChoice(args);
        if (auto error = readExpression(options))
            return dataError(*error);
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

    options.rounding = setup.rounding;
    options.seed = setup.seed;
    options.json = args.has("json");
    options.full = args.has("full");
    options.color = readColorChoice(args);
    if (auto error = readExpression(options))
        return dataError(*error);
    return options;
}

std::optional<std::string> readExpression(CalcOptions& options) {
    if (options.fromInput && options.text == "-")
        return std::nullopt; // the lines come later
    ExpressionParse parsed = options.explicitRoundings ? parseExplicitExpression(options.text)
                                                       : parseExpression(options.text);
    if (!parsed)
        return "cannot read EXPR '" + options.text + "' at column " +
               std::to_string(parsed.error.position + 1) + ": " + parsed.error.message;
    options.expression = std::move(*parsed.expression);
    return std::nullopt;
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

namespace {

// One expression's report, or the error that stops it (its status and message).
int printCalc(const CalcOptions& options, Streams& io, bool oneLine,
              std::optional<std::string>& error) {
    const CalcReport report = computeCalc(options);
    const auto json = [&](const Json& document) {
        if (oneLine)
            printJsonLine(io.out, document);
        else
            printJson(io.out, document);
    };
    if (report.explicitResult) {
        if (const auto& failure = report.explicitResult->error) {
            error = "EXPR '" + report.text + "' at column " +
                    std::to_string(failure->position + 1) + ": " + failure->message;
            return kExitDataError;
        }
        if (options.json)
            json(explicitJson(report));
        else
            renderExplicitText(report, TerminalStyle::forChoice(options.color, io.outIsTerminal),
                               options.full, io.out);
        return report.status;
    }
    if (options.json)
        json(calcJson(report));
    else
        renderCalcText(report, TerminalStyle::forChoice(options.color, io.outIsTerminal),
                       options.full, io.out);
    return report.status;
}

// `fpx calc -`: each line of standard input an EXPR under the same options. A line that cannot
// be read or computed is named on stderr (stdin:LINE:COLUMN) and the others go on; the status
// is the worst of them.
int calcLines(CalcOptions options, Streams& io) {
    int status = kExitOk;
    std::string line;
    bool first = true;
    for (std::size_t number = 1; std::getline(io.in, line); ++number) {
        const std::size_t start = line.find_first_not_of(" \t\r");
        if (start == std::string::npos || line[start] == '#')
            continue;
        const std::size_t end = line.find_last_not_of(" \t\r");
        options.text = line.substr(start, end - start + 1);
        ExpressionParse parsed = options.explicitRoundings ? parseExplicitExpression(options.text)
                                                           : parseExpression(options.text);
        const std::string where = "stdin:" + std::to_string(number) + ":";
        if (!parsed) {
            io.err << "fpx calc: " << where << parsed.error.position + start + 1 << ": "
                   << parsed.error.message << " in '" << options.text << "'\n";
            status = std::max(status, kExitDataError);
            continue;
        }
        options.expression = std::move(*parsed.expression);
        if (!first && !options.json)
            io.out << '\n';
        first = false;
        std::optional<std::string> error;
        status = std::max(status, printCalc(options, io, true, error));
        if (error)
            io.err << "fpx calc: " << where << " " << *error << '\n';
    }
    return status;
}

} // namespace

int runCalc(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"formats", "round", "overflow", "seed", "scale"},
                         {"json", "full", "color", "no-color", "explicit"});
    if (const auto stop = checkArguments(args, io, "calc", kUsage))
        return *stop;
    const Outcome<CalcOptions> options = parseCalcOptions(args);
    if (!options)
        return reportError(io, "calc", options.error());
    if (options->fromInput)
        return calcLines(*options, io);
    std::optional<std::string> error;
    const int status = printCalc(*options, io, false, error);
    if (error)
        return reportError(io, "calc", dataError(*error));
    return status;
}

} // namespace fpx::cli
