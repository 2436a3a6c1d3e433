// SPDX-License-Identifier: GPL-3.0-or-later
// fpx loss-scale: static or dynamic (GradScaler) loss scaling over a run of steps, driven by
// a per-step gradient amax (synthetic or a trace file), optionally with per-step gradients
// whose flushed and subnormal fractions show the underflow that the scale is there to stop.
// The options and the run; loss_scale_render.cpp prints it.
#include "arguments.h"
#include "commands.h"
#include "loss_scale.h"
#include "training_options.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/training/step_series.h"

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx loss-scale (--amax-trace FILE | --steps N --amax SPEC) [--format ID]\n"
    "                      [--init S] [--growth-factor G] [--backoff B] [--interval N]\n"
    "                      [--static S] [--dist SPEC [--count N]] [--seed S] [--json|--csv]\n"
    "  The loss scale at every step, as PyTorch's GradScaler keeps it (FP32 scale, default\n"
    "  init 2^16, x2 after 2000 steps without overflow, x0.5 and the step skipped when the\n"
    "  scaled gradient amax is not finite in --format, default fp16), or --static S.\n"
    "  --amax-trace: one amax a line, or CSV step,amax; inf/nan for an overflowed step\n"
    "  --amax: geometric:START:END or constant:V, then ,spikes:P:FACTOR ,spike-at:I:FACTOR\n"
    "  --dist: each step's gradients (--count of them, default 4096) drawn from SPEC and\n"
    "          scaled to the step's amax: the fraction flushed to zero and left subnormal\n"
    "  --seed: spikes and gradient draws (default 0)\n"
    "  --growth-factor, --backoff: doubles, as Python holds them; each change is the FP32\n"
    "          scale times the factor in double, stored as FP32, as GradScaler's kernel does\n";

constexpr std::size_t kMaxSteps = kMaxLossScaleSteps;
constexpr std::size_t kMaxGradientValues = kMaxSimulatedGradients; // steps × count

} // namespace

Outcome<LossScaleOptions> parseLossScaleOptions(const Arguments& args) {
    LossScaleOptions options;
    std::string error;
    const bool trace = args.has("amax-trace");
    if (trace == (args.has("steps") || args.has("amax")))
        return CommandError{"give --amax-trace FILE, or --steps N with --amax SPEC"};
    if (!trace && !(args.has("steps") && args.has("amax")))
        return CommandError{"--steps N and --amax SPEC go together"};
    const auto form = readOutputForm(args);
    if (!form)
        return CommandError{"choose one of --json and --csv"};
    options.form = *form;
    if (args.has("count") && !args.has("dist"))
        return CommandError{"--count goes with --dist"};
    if (args.has("static"))
        for (const char* option : {"init", "growth-factor", "backoff", "interval"})
            if (args.has(option))
                return CommandError{std::string("--") + option +
                                    " is a dynamic scaler's option; --static keeps one scale"};

    const FormatLookup lookup = findFormat(args.value("format").value_or("fp16"));
    if (!lookup)
        return CommandError{"--format: " + lookup.error};
    options.format = *lookup.spec;
    if (auto text = args.value("seed")) {
        const auto seed = parseSeedOption(*text, error);
        if (!seed)
            return CommandError{error};
        options.seed = *seed;
    }
    if (auto text = args.value("init")) {
        const auto v = parsePositiveFp32("--init", *text, error);
        if (!v)
            return CommandError{error};
        options.scaler.initScale = *v;
    }
    if (auto text = args.value("growth-factor")) {
        const auto v = parsePositiveDouble("--growth-factor", *text, error);
        if (!v)
            return CommandError{error};
        if (!(*v > 1))
            return CommandError{"--growth-factor must be above 1, as GradScaler requires"};
        options.scaler.growthFactor = *v;
    }
    if (auto text = args.value("backoff")) {
        const auto v = parsePositiveDouble("--backoff", *text, error);
        if (!v)
            return CommandError{error};
        if (!(*v < 1))
            return CommandError{"--backoff must be below 1, as GradScaler requires"};
        options.scaler.backoffFactor = *v;
    }
    if (auto text = args.value("interval")) {
        const auto v = parseCountOption("--interval", *text, kMaxSteps, error);
        if (!v)
            return CommandError{error};
        options.scaler.growthInterval = *v;
    }
    if (auto text = args.value("static")) {
        const auto v = parsePositiveFp32("--static", *text, error);
        if (!v)
            return CommandError{error};
        options.scaler.staticScale = *v;
    }

    if (trace) {
        options.amaxSource = *args.value("amax-trace");
        auto values = readStepTrace(options.amaxSource, error);
        if (!values)
            return dataError(error);
        if (values->size() > kMaxSteps) {
            error = options.amaxSource + ": more than " + std::to_string(kMaxSteps) + " steps";
            return dataError(error);
        }
        options.amaxes = std::move(*values);
    } else {
        const auto steps = parseCountOption("--steps", *args.value("steps"), kMaxSteps, error);
        if (!steps)
            return CommandError{error};
        const auto spec = parseStepSeries(*args.value("amax"), error);
        if (!spec)
            return CommandError{"--amax: " + error};
        options.amaxSource = spec->text;
        options.amaxes = stepSeriesValues(*spec, *steps, options.seed);
    }

    if (auto text = args.value("dist")) {
        StepGradients gradients;
        auto distribution = parseValueDistribution(*text, error);
        if (!distribution)
            return CommandError{"--dist: " + error};
        gradients.distribution = std::move(*distribution);
        if (auto count = args.value("count")) {
            const auto v = parseCountOption("--count", *count, kMaxGradientsPerStep, error);
            if (!v)
                return CommandError{error};
            gradients.count = *v;
        }
        if (gradients.count > kMaxGradientValues / std::max<std::size_t>(options.amaxes.size(), 1))
            return CommandError{"--dist: steps × --count is more than " +
                                std::to_string(kMaxGradientValues) + " gradients"};
        gradients.seed = options.seed;
        options.gradients = std::move(gradients);
    }
    return options;
}

LossScaleReport computeLossScale(const LossScaleOptions& options) {
    return {options.scaler, options.amaxSource, options.seed, options.gradients,
            simulateLossScaling(options.amaxes, options.format, options.scaler, options.gradients)};
}

int runLossScale(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs,
                         {"amax-trace", "steps", "amax", "format", "init", "growth-factor",
                          "backoff", "interval", "static", "dist", "count", "seed"},
                         {"json", "csv"});
    if (const auto stop = checkOptionsOnly(args, io, "loss-scale", kUsage))
        return *stop;
    const Outcome<LossScaleOptions> options = parseLossScaleOptions(args);
    if (!options)
        return reportError(io, "loss-scale", options.error());
    const LossScaleReport report = computeLossScale(*options);
    switch (options->form) {
    case OutputForm::Json:
        renderLossScaleJson(report, io.out);
        break;
    case OutputForm::Csv:
        renderLossScaleCsv(report, io.out);
        break;
    case OutputForm::Text:
        renderLossScaleText(report, io.out);
        break;
    }
    return kExitOk;
}

} // namespace fpx::cli
