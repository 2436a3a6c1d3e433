// SPDX-License-Identifier: GPL-3.0-or-later
// fpx sgd: plain SGD on one weight held in each format, with and without a master copy,
// against exact arithmetic (docs/behaviour.md, "Master weights"): the options and the runs the
// core simulates from them; sgd_render.cpp prints them.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"
#include "sgd.h"
#include "term_options.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/training/sgd_simulation.h"
#include "fpx/training/update_rule.h"

#include <stdexcept>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx sgd --weight W --lr LR --grads DIST|LIST [--steps N] --formats ID,...\n"
    "               [--master ID] [--grad-format ID] [--update RULE] [--exact-lr]\n"
    "               [--round MODE] [--overflow POLICY] [--seed S] [--scale S]\n"
    "               [--trajectory N] [--json]\n"
    "  Plain SGD on one weight, w <- w - lr*g, for N steps with the weight held in each\n"
    "  format (each update computed exactly and rounded once), and with --master M also\n"
    "  in each format with a master copy in M (the update rounded into M, the working\n"
    "  copy cast from it), beside exact arithmetic: the final weight, the lost updates\n"
    "  (steps whose update left the stepped value unchanged) and the error.\n"
    "  W: an exact value (2^-3, 0.1, 1/3), rounded into each format.\n"
    "  LR: rounded to the nearest double, as PyTorch's lr is a Python float (a double);\n"
    "  --exact-lr keeps it exactly as written. The lr used is printed exactly.\n"
    "  --grads: a distribution as in fpx quantize --dist (normal:MU:SIGMA, uniform:A:B,\n"
    "  lognormal:MU:SIGMA, laplace:B, student:NU), drawn as doubles from --seed and used\n"
    "  exactly (needs --steps); or comma-separated exact values used in turn and\n"
    "  repeated (--steps defaults to their number). --grad-format ID rounds each\n"
    "  gradient into ID first.\n"
    "  --update RULE: how a step is computed and rounded, with F the stepped format\n"
    "  (the master's with --master):\n"
    "    exact        F(w - lr*g): exact, rounded once (the default)\n"
    "    pytorch-cpu  PyTorch 1.13's CPU kernel of param.add_(grad, alpha=-lr): bf16\n"
    "                 F(fp32(w + F(fp32(-lr))*g)), fp16 F(w + F(F(fp32(-lr))*g)),\n"
    "                 fp32 F(w + F(-lr)*g), fp64 exact\n"
    "    pytorch2-cpu the same as PyTorch 2's sources read: fp16 as bf16\n"
    "    fp32-opmath  F(fp32(w + fp32(-lr)*g)): FP32 arithmetic, rounded into F\n"
    "  or a formula in w, lr, g: exact arithmetic (+ - * / fma sqrt min max abs),\n"
    "  rounded once where a format is named: bf16(fp32(w + bf16(-lr)*g)); fp32(x, rtz)\n"
    "  names the mode (else --round's). The result is rounded into F at the end.\n"
    "  --round sr: stochastic rounding, a fresh draw per step (seeded by --seed).\n"
    "  --trajectory N: N evenly spaced steps of each run beside the exact weight.\n";

// Each step runs on the exact core (a rounding of a short exact number); the gradients are all
// held at once, exactly, so the run is bounded to keep time and memory to seconds and
// megabytes.
constexpr std::size_t kMaxSteps = kMaxSgdSteps;
constexpr std::size_t kMaxTrajectory = 100'000;

// Exact values: W as written, LR as written or (the default) as the nearest double.
Outcome<ExactValue> readExact(const Arguments& args, const char* option) {
    const std::string text = *args.value(option);
    const ParsedValue parsed = parseValue(text);
    if (!parsed)
        return CommandError{std::string("--") + option + " '" + text + "': column " +
                            std::to_string(parsed.error.position + 1) + ": " +
                            parsed.error.message};
    if (!parsed.exact || !parsed.value->isFinite())
        return CommandError{std::string("--") + option +
                            " must be a finite exact value (at most 40000 "
                            "digits, within 10^±20000), got '" +
                            text + "'"};
    return *parsed.value;
}

} // namespace

Outcome<SgdCommandOptions> parseSgdOptions(const Arguments& args) {
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return CommandError{setup.error};
    for (const char* required : {"weight", "lr", "grads", "formats"})
        if (!args.has(required))
            return CommandError{std::string("--") + required + " is required"};

    SgdCommandOptions options;
    SgdOptions& simulation = options.simulation;
    const auto weight = readExact(args, "weight");
    if (!weight)
        return weight.error();
    const auto lrWritten = readExact(args, "lr");
    if (!lrWritten)
        return lrWritten.error();
    simulation.initialWeight = *weight;
    options.lrText = *args.value("lr");
    options.exactLr = args.has("exact-lr");
    const std::optional<ExactValue> learningRate =
        options.exactLr ? std::optional(*lrWritten) : learningRateAsDouble(*lrWritten);
    if (!learningRate)
        return CommandError{"--lr " + options.lrText +
                            " is beyond the range of a double (use --exact-lr)"};
    simulation.learningRate = *learningRate;
    simulation.rounding = setup.rounding;
    simulation.seed = setup.seed;

    std::optional<std::size_t> steps;
    if (auto text = args.value("steps")) {
        steps = parseTermCount(*text);
        if (!steps)
            return CommandError{"--steps: expected a count of at least 1, got '" + *text + "'"};
        if (*steps > kMaxSteps)
            return CommandError{"--steps: each step runs on the exact core; use at most " +
                                std::to_string(kMaxSteps)};
    }
    options.withTrajectory = args.has("trajectory");
    simulation.trajectoryPoints = 0;
    if (options.withTrajectory) {
        const std::string text = *args.value("trajectory");
        const auto points = parseTermCount(text);
        if (!points || *points < 2 || *points > kMaxTrajectory)
            return CommandError{"--trajectory: expected a number of points from 2 to " +
                                std::to_string(kMaxTrajectory) + ", got '" + text + "'"};
        simulation.trajectoryPoints = *points;
    }

    // Every format is named in the message, as the one of the --formats list it was.
    constexpr auto form = ArithmeticErrorForm::OptionAndId;
    const FormatListLookup formats = findFormats(*args.value("formats"));
    if (!formats.error.empty())
        return CommandError{"--formats: " + formats.error};
    for (const FormatSpec& listed : formats.specs) {
        const Outcome<FormatSpec> spec = readArithmeticFormat("formats", listed.id, setup, form);
        if (!spec)
            return spec.error();
        options.held.push_back(*spec);
    }
    if (auto id = args.value("master")) {
        const Outcome<FormatSpec> spec = readArithmeticFormat("master", *id, setup, form);
        if (!spec)
            return spec.error();
        options.master = *spec;
    }
    if (auto id = args.value("grad-format")) {
        const Outcome<FormatSpec> spec = readArithmeticFormat("grad-format", *id, setup, form);
        if (!spec)
            return spec.error();
        simulation.gradientFormat = *spec;
    }

    if (auto text = args.value("update")) {
        UpdateRuleParse rule = parseUpdateRule(*text);
        if (!rule)
            return CommandError{"--update '" + *text + "': column " +
                                std::to_string(rule.error.position + 1) + ": " +
                                rule.error.message};
        // The stepped format is each held format, or the master for the runs with one.
        std::vector<FormatSpec> stepped = options.held;
        if (options.master)
            stepped.push_back(*options.master);
        for (const FormatSpec& spec : stepped)
            if (auto why = rule.rule->unsupported(spec))
                return CommandError{"--update: " + *why};
        simulation.update = std::move(*rule.rule);
    }

    std::string error;
    options.gradsText = *args.value("grads");
    auto gradients = parseGradientSequence(options.gradsText, steps, setup.seed, error);
    if (!gradients)
        return CommandError{"--grads " + error};
    options.gradients = std::move(*gradients);
    options.json = args.has("json");
    return options;
}

SgdReport computeSgd(const SgdCommandOptions& options) {
    SgdReport report;
    report.simulation = options.simulation;
    report.gradsText = options.gradsText;
    report.lrText = options.lrText;
    report.exactLr = options.exactLr;
    report.withTrajectory = options.withTrajectory;
    report.steps = options.gradients.size();
    // Each format on its own, then each with the master copy (a format that is the master
    // itself would only repeat its own run).
    for (const FormatSpec& spec : options.held)
        report.runs.push_back(
            simulateSgd(options.gradients, spec, std::nullopt, options.simulation));
    if (options.master)
        for (const FormatSpec& spec : options.held)
            if (spec.id != options.master->id)
                report.runs.push_back(
                    simulateSgd(options.gradients, spec, options.master, options.simulation));
    report.exactFinal = report.runs.front().finalExact;
    return report;
}

int runSgd(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs,
                         {"weight", "lr", "grads", "steps", "formats", "master", "grad-format",
                          "update", "trajectory", "round", "overflow", "seed", "scale"},
                         {"json", "exact-lr"});
    if (const auto stop = checkOptionsOnly(args, io, "sgd", kUsage))
        return *stop;
    const Outcome<SgdCommandOptions> options = parseSgdOptions(args);
    if (!options)
        return reportError(io, "sgd", options.error());
    SgdReport report;
    try {
        report = computeSgd(*options);
    } catch (const std::invalid_argument& refused) { // a custom rule too costly to run
        return reportError(io, "sgd", dataError(refused.what()));
    }
    if (options->json)
        renderSgdJson(report, io.out);
    else
        renderSgdText(report, TerminalStyle{io.outIsTerminal}, io.out);
    return kExitOk;
}

} // namespace fpx::cli
