// SPDX-License-Identifier: GPL-3.0-or-later
// fpx fp8-scaling: per-tensor FP8 scaling recipes (current, delayed with an amax history) side
// by side over a sequence of tensors, synthetic (a distribution with a drift over the steps)
// or read from files: per step the scale, amax, overflowed and flushed fractions and SQNR.
#include "arguments.h"
#include "commands.h"
#include "tensor_source.h"
#include "training_options.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/training/fp8_scaling.h"
#include "fpx/training/step_series.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>

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

struct Setup {
    FormatSpec format;
    std::vector<Fp8Recipe> recipes;
    RoundingOptions rounding{RoundingMode::NearestEven, OverflowPolicy::Saturate, 0};
    int margin = 0;
    std::string source;                    // for reports
    std::vector<TensorFile::Loaded> files; // --inputs
    std::vector<std::vector<float>> drawn; // --dist
    std::vector<TensorView> tensors;
};

std::optional<int> readSetup(const Arguments& args, Setup& setup, std::string& error) {
    auto usage = [&](std::string message) {
        error = std::move(message);
        return std::optional<int>(kExitUsage);
    };
    const bool files = args.has("inputs");
    if (files == args.has("dist"))
        return usage("give --inputs FILES, or --steps N with --dist SPEC --count N");
    if (files)
        for (const char* option : {"steps", "count", "drift", "outliers"})
            if (args.has(option))
                return usage(std::string("--") + option + " goes with --dist");
    if (!files && !args.has("steps"))
        return usage("--steps N is required with --dist");
    if (args.has("json") && args.has("csv"))
        return usage("choose one of --json and --csv");

    const FormatLookup lookup = findFormat(args.value("format").value_or("fp8_e4m3"));
    if (!lookup)
        return usage("--format: " + lookup.error);
    setup.format = *lookup.spec;
    if (const auto why = fp8ScalingUnsupported(setup.format))
        return usage("--format: " + *why);
    if (auto text = args.value("round")) {
        const auto mode = parseRoundingMode(*text);
        if (!mode)
            return usage("--round: '" + *text + "' is not rne, rna, rtz, rup, rdn, sr or rto");
        setup.rounding.mode = *mode;
    }
    if (auto text = args.value("overflow")) {
        const auto policy = parseOverflowPolicy(*text);
        if (!policy)
            return usage("--overflow: '" + *text + "' is not ieee or saturate");
        setup.rounding.overflow = *policy;
    }
    std::uint64_t seed = 0;
    if (auto text = args.value("seed")) {
        const auto parsed = parseSeedOption(*text, error);
        if (!parsed)
            return kExitUsage;
        seed = *parsed;
    }
    setup.rounding.randomBits = seed; // stochastic rounding: element i of a step draws from it
    if (auto text = args.value("margin")) {
        int margin = 0;
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), margin);
        if (text->empty() || ec != std::errc() || end != text->data() + text->size() ||
            margin < 0 || margin > kMaxMargin)
            return usage("--margin: expected an integer from 0 to " + std::to_string(kMaxMargin) +
                         ", got '" + *text + "'");
        setup.margin = margin;
    }
    const auto recipesText = args.value("recipe");
    if (!recipesText)
        return usage("--recipe R,... is required (current, delayed:LEN:max, "
                     "delayed:LEN:most_recent)");
    for (std::string_view item : splitAt(*recipesText, ',')) {
        auto recipe = parseFp8Recipe(item, error);
        if (!recipe)
            return usage("--recipe: " + error);
        recipe->margin = setup.margin;
        setup.recipes.push_back(std::move(*recipe));
    }

    if (files) {
        const std::string inputs = *args.value("inputs");
        for (std::string_view item : splitAt(inputs, ',')) {
            auto loaded = loadTensorArgument(std::string(trim(item)), std::nullopt, error);
            if (!loaded)
                return kExitDataError;
            setup.files.push_back(std::move(*loaded));
        }
        if (setup.files.size() > kMaxSteps)
            return usage("--inputs: at most " + std::to_string(kMaxSteps) + " tensors");
        for (const auto& loaded : setup.files)
            setup.tensors.push_back(loaded.view);
        setup.source = std::to_string(setup.files.size()) + " tensors from files";
        return std::nullopt;
    }

    const auto steps = parseCountOption("--steps", *args.value("steps"), kMaxSteps, error);
    if (!steps)
        return kExitUsage;
    const auto distribution = readDistributionOptions(args, error);
    if (!distribution)
        return kExitUsage;
    if (distribution->count > kMaxTotalValues / *steps)
        return usage("--steps × --count is more than " + std::to_string(kMaxTotalValues) +
                     " values");
    const auto drift = parseStepSeries(args.value("drift").value_or("constant:1"), error);
    if (!drift)
        return usage("--drift: " + error);
    const std::vector<double> drifts = stepSeriesValues(*drift, *steps, distribution->seed);
    for (std::size_t t = 0; t < *steps; ++t) {
        setup.drawn.push_back(driftedStepValues(distribution->distribution, distribution->count,
                                                distribution->seed, t, drifts[t]));
    }
    for (const auto& values : setup.drawn) {
        TensorView view;
        view.floats = values;
        view.shape = {values.size()};
        setup.tensors.push_back(view);
    }
    setup.source = distribution->description + ", drift " + drift->text;
    return std::nullopt;
}

Json stepJson(const Fp8ScalingStep& step) {
    Json s;
    s["step"] = step.step;
    s["amax"] = jsonNumber(step.amax);
    s["amax_used"] = jsonNumber(step.amaxUsed);
    s["scale"] = exactDecimal(step.scale);
    s["overflow_fraction"] = step.overflowFraction;
    s["flushed_fraction"] = step.flushedFraction;
    s["sqnr_db"] = step.sqnrDb ? jsonNumber(*step.sqnrDb) : Json(nullptr);
    return s;
}

void printJsonReport(std::ostream& out, const Setup& setup,
                     const std::vector<Fp8ScalingRun>& runs) {
    Json doc;
    doc["command"] = "fp8-scaling";
    doc["format"] = setup.format.id;
    doc["margin"] = setup.margin;
    doc["round"] = std::string(roundingModeId(setup.rounding.mode));
    doc["overflow"] = std::string(overflowPolicyId(setup.rounding.overflow));
    doc["source"] = setup.source;
    doc["steps"] = setup.tensors.size();
    Json results = Json::array();
    for (const Fp8ScalingRun& run : runs) {
        Json r;
        r["recipe"] = run.recipe.text;
        Json steps = Json::array();
        for (const Fp8ScalingStep& step : run.steps)
            steps.push_back(stepJson(step));
        r["steps"] = std::move(steps);
        results.push_back(std::move(r));
    }
    doc["results"] = std::move(results);
    printJson(out, doc);
}

std::string g17(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

void printCsv(std::ostream& out, const std::vector<Fp8ScalingRun>& runs) {
    out << "recipe,step,amax,amax_used,scale,overflow_fraction,flushed_fraction,sqnr_db\n";
    for (const Fp8ScalingRun& run : runs)
        for (const Fp8ScalingStep& step : run.steps)
            out << run.recipe.text << ',' << step.step << ',' << g17(step.amax) << ','
                << g17(step.amaxUsed) << ',' << exactDecimal(step.scale) << ','
                << g17(step.overflowFraction) << ',' << g17(step.flushedFraction) << ','
                << (step.sqnrDb ? g17(*step.sqnrDb) : std::string()) << '\n';
}

std::string sqnrText(const std::optional<double>& sqnr) {
    if (!sqnr)
        return "-";
    if (std::isinf(*sqnr))
        return "exact";
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", *sqnr);
    return text;
}

void printText(std::ostream& out, const Setup& setup, const std::vector<Fp8ScalingRun>& runs) {
    out << "FP8 scaling into " << setup.format.id << " (round "
        << roundingModeId(setup.rounding.mode) << ", overflow "
        << overflowPolicyId(setup.rounding.overflow) << ", margin " << setup.margin
        << "): " << setup.source << ", " << setup.tensors.size() << " steps\n";
    // The recipes side by side, numbered to keep the columns narrow.
    std::vector<std::string> header{"step", "amax"};
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const std::string tag = "[" + std::to_string(r + 1) + "] ";
        out << (r ? "  " : "") << tag << runs[r].recipe.text;
        for (const char* column : {"scale", "overflow", "flushed", "SQNR dB"})
            header.push_back(tag + column);
    }
    out << '\n';
    TextTable table(header);
    for (std::size_t t = 0; t < setup.tensors.size(); ++t) {
        std::vector<std::string> row{std::to_string(t), shortNumber(runs.front().steps[t].amax)};
        for (const Fp8ScalingRun& run : runs) {
            const Fp8ScalingStep& step = run.steps[t];
            row.push_back(shortNumber(double(step.scale)));
            row.push_back(percentText(step.overflowFraction));
            row.push_back(percentText(step.flushedFraction));
            row.push_back(sqnrText(step.sqnrDb));
        }
        table.addRow(std::move(row));
    }
    out << '\n';
    table.print(out, false);
    out << '\n';
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const Fp8ScalingRun& run = runs[r];
        std::size_t overflowSteps = 0, counted = 0;
        double sqnrSum = 0, worst = std::numeric_limits<double>::infinity();
        for (const Fp8ScalingStep& step : run.steps) {
            overflowSteps += step.overflowFraction > 0;
            if (step.sqnrDb && std::isfinite(*step.sqnrDb)) {
                ++counted;
                sqnrSum += *step.sqnrDb;
                worst = std::min(worst, *step.sqnrDb);
            }
        }
        out << "[" << r + 1 << "] " << run.recipe.text << ": " << overflowSteps
            << " steps with overflow";
        if (counted)
            out << ", SQNR mean " << sqnrText(sqnrSum / double(counted)) << " dB, worst "
                << sqnrText(worst) << " dB";
        out << '\n';
    }
}

} // namespace

int runFp8Scaling(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs,
                   {"inputs", "steps", "dist", "count", "outliers", "drift", "seed", "recipe",
                    "margin", "format", "round", "overflow"},
                   {"json", "csv"});
    if (const auto stop = checkOptionsOnly(args, io, "fp8-scaling", kUsage))
        return *stop;
    Setup setup;
    std::string error;
    if (const auto status = readSetup(args, setup, error))
        return reportError(io, "fp8-scaling", {error, *status});
    std::vector<Fp8ScalingRun> runs;
    for (const Fp8Recipe& recipe : setup.recipes)
        runs.push_back(simulateFp8Scaling(setup.tensors, setup.format, recipe, setup.rounding));
    if (args.has("json"))
        printJsonReport(io.out, setup, runs);
    else if (args.has("csv"))
        printCsv(io.out, runs);
    else
        printText(io.out, setup, runs);
    return kExitOk;
}

} // namespace fpx::cli
