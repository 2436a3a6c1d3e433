// SPDX-License-Identifier: GPL-3.0-or-later
// fpx fp8-scaling: per-tensor FP8 scaling recipes (current, delayed with an amax history) side
// by side over a sequence of tensors, synthetic (a distribution with a drift over the steps)
// or read from files: per step the scale, amax, overflowed and flushed fractions and SQNR.
// The options and the runs; fp8_scaling_render.cpp prints them.
#include "arguments.h"
#include "commands.h"
#include "fp8_scaling.h"
#include "tensor_source.h"
#include "training_options.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/training/fp8_scaling.h"
#include "fpx/training/step_series.h"

#include <charconv>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx fp8-scaling (--inputs PATH[:TENSOR],... | --steps N --dist SPEC --count N\n"
    "                       [--outliers F:S] [--drift SERIES]) --recipe R,... [--margin M]\n"
    "                       [--format ID] [--round MODE] [--overflow POLICY] [--seed S]\n"
    "                       [--json|--csv]\n"
    "  Each step's tensor cast to --format (default fp8_e4m3; fp8_e5m2 for gradients) with a\n"
    "  per-tensor FP32 scale, (format max / amax) / 2^margin, from each recipe:\n"
    "    current                  this tensor's own amax\n"
    "    delayed:LEN:max          the largest amax of the previous LEN steps\n"
    "    delayed:LEN:most_recent  the previous step's amax\n"
    "  amax 0, inf or nan keeps the previous scale (1 at the first step), as Transformer\n"
    "  Engine does. The cast saturates (satfinite) unless --overflow ieee.\n"
    "  --inputs: one tensor per step (.npy, .safetensors, text)\n"
    "  --dist: N values a step (each step's draw seeded by --seed and the step), times the\n"
    "          step's --drift (geometric:START:END or constant:V, then ,spikes:P:FACTOR\n"
    "          ,spike-at:I:FACTOR; default constant:1), stored as FP32\n";

constexpr std::size_t kMaxSteps = kMaxFp8ScalingSteps;
constexpr std::size_t kMaxTotalValues = kMaxFp8ScalingValues;
constexpr int kMaxMargin = 64;

} // namespace

Outcome<Fp8ScalingOptions> parseFp8ScalingOptions(const Arguments& args) {
    Fp8ScalingOptions options;
    std::string error;
    const bool files = args.has("inputs");
    if (files == args.has("dist"))
        return CommandError{"give --inputs FILES, or --steps N with --dist SPEC --count N"};
    if (files)
        for (const char* option : {"steps", "count", "drift", "outliers"})
            if (args.has(option))
                return CommandError{std::string("--") + option + " goes with --dist"};
    if (!files && !args.has("steps"))
        return CommandError{"--steps N is required with --dist"};
    const auto form = readOutputForm(args);
    if (!form)
        return CommandError{"choose one of --json and --csv"};
    options.form = *form;

    const FormatLookup lookup = findFormat(args.value("format").value_or("fp8_e4m3"));
    if (!lookup)
        return CommandError{"--format: " + lookup.error};
    options.format = *lookup.spec;
    if (const auto why = fp8ScalingUnsupported(options.format))
        return CommandError{"--format: " + *why};
    if (auto text = args.value("round")) {
        const auto mode = parseRoundingMode(*text);
        if (!mode)
            return CommandError{"--round: '" + *text +
                                "' is not rne, rna, rtz, rup, rdn, sr or rto"};
        options.rounding.mode = *mode;
    }
    if (auto text = args.value("overflow")) {
        const auto policy = parseOverflowPolicy(*text);
        if (!policy || (*policy != OverflowPolicy::Ieee && *policy != OverflowPolicy::Saturate))
            return CommandError{"--overflow: '" + *text + "' is not ieee or saturate"};
        options.rounding.overflow = *policy;
    }
    std::uint64_t seed = 0;
    if (auto text = args.value("seed")) {
        const auto parsed = parseSeedOption(*text, error);
        if (!parsed)
            return CommandError{error};
        seed = *parsed;
    }
    options.rounding.randomBits = seed; // stochastic rounding: element i of a step draws from it
    if (auto text = args.value("margin")) {
        int margin = 0;
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), margin);
        if (text->empty() || ec != std::errc() || end != text->data() + text->size() ||
            margin < 0 || margin > kMaxMargin)
            return CommandError{"--margin: expected an integer from 0 to " +
                                std::to_string(kMaxMargin) + ", got '" + *text + "'"};
        options.margin = margin;
    }
    const auto recipesText = args.value("recipe");
    if (!recipesText)
        return CommandError{"--recipe R,... is required (current, delayed:LEN:max, "
                            "delayed:LEN:most_recent)"};
    for (std::string_view item : splitAt(*recipesText, ',')) {
        auto recipe = parseFp8Recipe(item, error);
        if (!recipe)
            return CommandError{"--recipe: " + error};
        recipe->margin = options.margin;
        options.recipes.push_back(std::move(*recipe));
    }

    if (files) {
        const std::string inputs = *args.value("inputs");
        for (std::string_view item : splitAt(inputs, ',')) {
            auto loaded = loadTensorArgument(std::string(trim(item)), std::nullopt, error);
            if (!loaded)
                return dataError(error);
            options.files.push_back(std::move(*loaded));
        }
        if (options.files.size() > kMaxSteps)
            return CommandError{"--inputs: at most " + std::to_string(kMaxSteps) + " tensors"};
        for (const auto& loaded : options.files)
            options.tensors.push_back(loaded.view);
        options.source = std::to_string(options.files.size()) + " tensors from files";
        return options;
    }

    const auto steps = parseCountOption("--steps", *args.value("steps"), kMaxSteps, error);
    if (!steps)
        return CommandError{error};
    const auto distribution = readDistributionOptions(args, error);
    if (!distribution)
        return CommandError{error};
    if (distribution->count > kMaxTotalValues / *steps)
        return CommandError{"--steps × --count is more than " + std::to_string(kMaxTotalValues) +
                            " values"};
    const auto drift = parseStepSeries(args.value("drift").value_or("constant:1"), error);
    if (!drift)
        return CommandError{"--drift: " + error};
    const std::vector<double> drifts = stepSeriesValues(*drift, *steps, distribution->seed);
    for (std::size_t t = 0; t < *steps; ++t) {
        options.drawn.push_back(driftedStepValues(distribution->distribution, distribution->count,
                                                  distribution->seed, t, drifts[t]));
    }
    for (const auto& values : options.drawn) {
        TensorView view;
        view.floats = values;
        view.shape = {values.size()};
        options.tensors.push_back(view);
    }
    options.source = distribution->description + ", drift " + drift->text;
    return options;
}

Fp8ScalingReport computeFp8Scaling(const Fp8ScalingOptions& options) {
    Fp8ScalingReport report{options.format, options.rounding,       options.margin,
                            options.source, options.tensors.size(), {}};
    for (const Fp8Recipe& recipe : options.recipes)
        report.runs.push_back(
            simulateFp8Scaling(options.tensors, options.format, recipe, options.rounding));
    return report;
}

int runFp8Scaling(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs,
                         {"inputs", "steps", "dist", "count", "outliers", "drift", "seed", "recipe",
                          "margin", "format", "round", "overflow"},
                         {"json", "csv"});
    if (const auto stop = checkOptionsOnly(args, io, "fp8-scaling", kUsage))
        return *stop;
    const Outcome<Fp8ScalingOptions> options = parseFp8ScalingOptions(args);
    if (!options)
        return reportError(io, "fp8-scaling", options.error());
    const Fp8ScalingReport report = computeFp8Scaling(*options);
    switch (options->form) {
    case OutputForm::Json:
        renderFp8ScalingJson(report, io.out);
        break;
    case OutputForm::Csv:
        renderFp8ScalingCsv(report, io.out);
        break;
    case OutputForm::Text:
        renderFp8ScalingText(report, io.out);
        break;
    }
    return kExitOk;
}

} // namespace fpx::cli
