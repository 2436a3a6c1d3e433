// SPDX-License-Identifier: GPL-3.0-or-later
// fpx show: one value in every selected format, with everything the explorer shows. The
// options and the report; show_render.cpp prints it.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "show.h"

#include "fpx/exact/code_parser.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/nan_payload.h"
#include "fpx/exact/value_parser.h"

#include <algorithm>
#include <charconv>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx show VALUE [--formats ID,...] [--round MODE] [--overflow POLICY] [--json]\n"
    "                      [--round sr|sr:N [--seed N] [--draws N]]\n"
    "       fpx show --bits CODE --as FORMAT [...]\n"
    "       fpx show --bits CODE --width N [--formats ID,...] [--json]\n"
    "       fpx show VALUE --conventions [--formats ID,...] [--json]\n"
    "\n"
    "  --conventions  VALUE cast into FP8, FP6 and FP4 as the OCP specs, NVIDIA's cvt,\n"
    "                 PyTorch, ml_dtypes and Transformer Engine cast it, beside fpx's own\n"
    "                 cast, and the E8M0 scale each MX scale rule (floor, ceil, even) picks\n"
    "                 for |VALUE| as a block's amax, with whether the amax then clips\n";

// The most stochastic roundings --draws may ask for: each is one exact rounding.
constexpr std::uint64_t kMaxDraws = 10'000'000;

// --width N (a width some format has) and --bits CODE read at that width.
std::optional<CommandError> readSameBitsInput(const Arguments& args, ShowOptions& options) {
    const std::string widthText(*args.value("width"));
    int bits = 0;
    const auto [ptr, ec] =
        std::from_chars(widthText.data(), widthText.data() + widthText.size(), bits);
    const std::vector<int> widths =
        formatWidths(options.formatsGiven ? options.formats : std::vector<FormatSpec>{});
    if (ec != std::errc() || ptr != widthText.data() + widthText.size() ||
        std::find(widths.begin(), widths.end(), bits) == widths.end()) {
        std::string list;
        for (int w : widths)
            list += (list.empty() ? "" : ", ") + std::to_string(w);
        return CommandError{"--width '" + widthText + "': no format has that many bits (" + list +
                            ", or add one with --formats)"};
    }
    const ParsedCode parsed = readCode(*args.value("bits"), bits);
    if (!parsed)
        return dataError("--bits '" + *args.value("bits") + "', column " +
                         std::to_string(parsed.errorPosition + 1) + ": " + parsed.error +
                         " (a code of " + std::to_string(bits) +
                         " bits is hex, 0x…, or binary, 0b…)");
    options.width = widthText;
    options.widthBits = bits;
    options.input.code = *parsed.code;
    return std::nullopt;
}

// --bits CODE --as FORMAT: the code decoded, NaN payload and all.
std::optional<CommandError> readCodeInput(const Arguments& args, const ConversionSetup& setup,
                                          ShowInput& input) {
    if (!args.positionals().empty() || !args.has("as"))
        return CommandError{"--bits CODE needs --as FORMAT and no VALUE"};
    FormatLookup from = findFormat(*args.value("as"));
    if (!from)
        return CommandError{"--as: " + from.error};
    setup.applyScale(*from.spec);
    const ParsedCode parsed = readCode(*args.value("bits"), from.spec->totalBits());
    if (!parsed)
        return dataError("--bits '" + *args.value("bits") + "', column " +
                         std::to_string(parsed.errorPosition + 1) + ": " + parsed.error +
                         " (a code of " + std::to_string(from.spec->totalBits()) + " bits for " +
                         from.spec->id + " is hex, 0x…, or binary, 0b…)");
    input.value = decodeCode(*from.spec, *parsed.code).value;
    input.text = codeToHex(*parsed.code, from.spec->totalBits());
    input.fromFormat = from.spec->id;
    input.fromSpec = *from.spec;
    input.code = *parsed.code;
    return std::nullopt;
}

// VALUE, exactly or (very long or far) as a stand-in.
std::optional<CommandError> readValueInput(const Arguments& args, ShowInput& input) {
    if (args.positionals().size() != 1)
        return CommandError{std::string("expected one VALUE") +
                            (args.positionals().empty() ? "" : " (quote values with spaces)")};
    input.text = args.positionals().front();
    const ParsedValue parsed = parseValue(input.text);
    if (!parsed)
        return dataError("cannot read VALUE '" + input.text + "' at column " +
                         std::to_string(parsed.error.position + 1) + ": " + parsed.error.message);
    input.value = *parsed.value;
    input.exact = parsed.exact;
    return std::nullopt;
}

// --conventions shows only formats some convention casts into.
std::optional<CommandError> checkConventionFormats(const std::vector<FormatSpec>& formats) {
    for (const FormatSpec& spec : formats) {
        const auto& conventions = castConventions();
        if (std::any_of(conventions.begin(), conventions.end(),
                        [&](const CastConvention& c) { return conventionCovers(c, spec); }))
            continue;
        std::string covered;
        for (const FormatSpec& f : conventionFormats())
            covered += (covered.empty() ? "" : ", ") + f.id;
        return CommandError{"--formats: no conversion convention casts into " + spec.id +
                            " (the conventions cover " + covered + ")"};
    }
    return std::nullopt;
}

StochasticView stochasticView(const ExactValue& x, const FormatSpec& spec,
                              const RoundingOptions& options, std::uint64_t seed,
                              std::uint64_t draws) {
    StochasticView view;
    view.outcomes = stochasticOutcomes(x, spec, options.overflow, options.stochastic);
    if (view.outcomes && draws > 0)
        view.observed =
            observedFractionUp(x, spec, options.overflow, seed, draws, options.stochastic);
    return view;
}

} // namespace

Outcome<ShowOptions> parseShowOptions(const Arguments& args) {
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return CommandError{setup.error};
    ShowOptions options;
    options.rounding = setup.forElement(0);
    options.seed = setup.seed;
    options.json = args.has("json");
    options.full = args.has("full");
    options.color = readColorChoice(args);
    options.conventions = args.has("conventions");
    if (options.conventions && (args.has("width") || args.has("draws")))
        return CommandError{"--conventions takes no --width and no --draws"};
    if (auto text = args.value("draws")) {
        const char* end = text->data() + text->size();
        const auto [ptr, ec] = std::from_chars(text->data(), end, options.draws);
        if (ec != std::errc() || ptr != end || options.draws == 0 || options.draws > kMaxDraws)
            return CommandError{"--draws: expected a count from 1 to " + std::to_string(kMaxDraws) +
                                ", got '" + *text + "'"};
        if (setup.rounding.mode != RoundingMode::Stochastic)
            return CommandError{"--draws needs --round sr"};
    }

    if (auto list = args.value("formats")) {
        FormatListLookup lookup = findFormats(*list);
        if (!lookup.error.empty())
            return CommandError{"--formats: " + lookup.error};
        options.formats = std::move(lookup.specs);
        options.formatsGiven = true;
    } else {
        options.formats = options.conventions ? conventionFormats() : builtinFormats();
    }
    for (FormatSpec& spec : options.formats)
        setup.applyScale(spec);
    if (options.conventions)
        if (auto error = checkConventionFormats(options.formats))
            return *error;

    std::optional<CommandError> error;
    if (args.has("width")) {
        if (!args.has("bits") || args.has("as") || !args.positionals().empty())
            return CommandError{"--width N reads --bits CODE in every N-bit format; it takes no "
                                "--as and no VALUE"};
        error = readSameBitsInput(args, options);
    } else if (args.has("bits")) {
        error = readCodeInput(args, setup, options.input);
    } else {
        error = readValueInput(args, options.input);
    }
    if (error)
        return *error;
    return options;
}

ShowReport computeShow(const ShowOptions& options) {
    ShowReport report;
    report.input = options.input;
    report.rounding = options.rounding;
    report.seed = options.seed;
    report.draws = options.draws;
    if (options.draws > 0 && options.rounding.mode == RoundingMode::Stochastic)
        report.seedAudit = auditNeighbouringSeeds(
            options.seed, options.draws,
            options.rounding.stochastic.count == 0 ? 64 : options.rounding.stochastic.count);
    const ShowInput& input = report.input;
    // Scaled formats cannot take a stand-in for a very long or far-out input exactly.
    for (const FormatSpec& spec : options.formats) {
        if (input.exact || acceptsStandInInput(spec, input.value)) {
            report.formats.push_back(spec);
            continue;
        }
        report.skipped.push_back(spec.id +
                                 " skipped: a value longer than 40000 digits or beyond "
                                 "10^±20000 cannot be rounded exactly into a scaled format");
        if (options.formatsGiven)
            report.status = kExitDataError;
    }
    if (!input.exact && report.formats.empty())
        report.status = kExitDataError;
    report.results.reserve(report.formats.size());
    for (const FormatSpec& spec : report.formats) {
        report.results.push_back(convertAndDescribe(input.value, spec, options.rounding));
        if (!input.fromSpec || !input.value.isNaN())
            continue;
        // A NaN code keeps its payload where a format can hold it (docs/behaviour.md,
        // "NaN payloads"); its own format shows the code as typed.
        if (sameEncoding(spec, *input.fromSpec)) {
            report.results.back().conversion = Conversion{input.code, {}};
            report.results.back().details = describeCode(spec, input.code, options.rounding);
        } else {
            keepNaNPayload(report.results.back(), *input.fromSpec, input.code, spec,
                           options.rounding);
        }
    }
    if (options.rounding.mode == RoundingMode::Stochastic)
        for (const FormatSpec& spec : report.formats)
            report.stochastic.push_back(
                stochasticView(input.value, spec, options.rounding, options.seed, options.draws));
    return report;
}

SameBitsReport computeSameBits(const ShowOptions& options) {
    SameBitsReport report;
    report.code = options.input.code;
    report.bits = options.widthBits;
    report.widthText = *options.width;
    // Only the formats named with --formats join the built-ins.
    report.rows =
        readInEveryFormat(report.code, report.bits,
                          options.formatsGiven ? options.formats : std::vector<FormatSpec>{});
    return report;
}

int runShow(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(
        rawArgs, {"formats", "round", "overflow", "seed", "scale", "bits", "as", "draws", "width"},
        {"json", "full", "color", "no-color", "conventions"});
    if (const auto stop = checkArguments(args, io, "show", kUsage))
        return *stop;
    const Outcome<ShowOptions> options = parseShowOptions(args);
    if (!options)
        return reportError(io, "show", options.error());
    const auto style = TerminalStyle::forChoice(options->color, io.outIsTerminal);
    if (options->conventions) {
        const ConventionsReport report = computeConventions(*options);
        if (options->json)
            renderConventionsJson(report, io.out);
        else
            renderConventionsText(report, style, io.out);
        return kExitOk;
    }
    if (options->width) {
        const SameBitsReport report = computeSameBits(*options);
        if (options->json)
            renderSameBitsJson(report, io.out);
        else
            renderSameBitsText(report, style, options->full, io.out);
        return kExitOk;
    }
    const ShowReport report = computeShow(*options);
    for (const std::string& skipped : report.skipped)
        io.err << "fpx show: " << skipped << '\n';
    if (!report.input.exact && report.formats.empty())
        return report.status;
    if (options->json)
        renderShowJson(report, io.out);
    else
        renderShowText(report, style, options->full, io.out);
    return report.status;
}

} // namespace fpx::cli
