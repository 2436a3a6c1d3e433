// SPDX-License-Identifier: GPL-3.0-or-later
// fpx loss-scale: static or dynamic (GradScaler) loss scaling over a run of steps, driven by
// a per-step gradient amax (synthetic or a trace file), optionally with per-step gradients
// whose flushed and subnormal fractions show the underflow that the scale is there to stop.
#include "arguments.h"
#include "commands.h"
#include "training_options.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/training/loss_scaling.h"
#include "fpx/training/step_series.h"

#include <cmath>
#include <ostream>

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
    "  --seed: spikes and gradient draws (default 0)\n";

constexpr std::size_t kMaxSteps = kMaxLossScaleSteps;
constexpr std::size_t kMaxGradientValues = kMaxSimulatedGradients; // steps × count
constexpr std::size_t kListedEvents = 40;

struct Setup {
    FormatSpec format;
    LossScalerOptions options;
    std::vector<double> amaxes;
    std::string amaxSource;
    std::uint64_t seed = 0;
    std::optional<StepGradients> gradients;
};

// nullopt when every option is good; else the exit status, with `error` saying why.
std::optional<int> readSetup(const Arguments& args, Setup& setup, std::string& error) {
    auto usage = [&](std::string message) {
        error = std::move(message);
        return std::optional<int>(kExitUsage);
    };
    const bool trace = args.has("amax-trace");
    if (trace == (args.has("steps") || args.has("amax")))
        return usage("give --amax-trace FILE, or --steps N with --amax SPEC");
    if (!trace && !(args.has("steps") && args.has("amax")))
        return usage("--steps N and --amax SPEC go together");
    if (args.has("json") && args.has("csv"))
        return usage("choose one of --json and --csv");
    if (args.has("count") && !args.has("dist"))
        return usage("--count goes with --dist");
    if (args.has("static"))
        for (const char* option : {"init", "growth-factor", "backoff", "interval"})
            if (args.has(option))
                return usage(std::string("--") + option +
                             " is a dynamic scaler's option; --static keeps one scale");

    const FormatLookup lookup = findFormat(args.value("format").value_or("fp16"));
    if (!lookup)
        return usage("--format: " + lookup.error);
    setup.format = *lookup.spec;
    if (auto text = args.value("seed")) {
        const auto seed = parseSeedOption(*text, error);
        if (!seed)
            return kExitUsage;
        setup.seed = *seed;
    }
    if (auto text = args.value("init")) {
        const auto v = parsePositiveFp32("--init", *text, error);
        if (!v)
            return kExitUsage;
        setup.options.initScale = *v;
    }
    if (auto text = args.value("growth-factor")) {
        const auto v = parsePositiveFp32("--growth-factor", *text, error);
        if (!v)
            return kExitUsage;
        if (!(*v > 1))
            return usage("--growth-factor must be above 1, as GradScaler requires");
        setup.options.growthFactor = *v;
    }
    if (auto text = args.value("backoff")) {
        const auto v = parsePositiveFp32("--backoff", *text, error);
        if (!v)
            return kExitUsage;
        if (!(*v < 1))
            return usage("--backoff must be below 1, as GradScaler requires");
        setup.options.backoffFactor = *v;
    }
    if (auto text = args.value("interval")) {
        const auto v = parseCountOption("--interval", *text, kMaxSteps, error);
        if (!v)
            return kExitUsage;
        setup.options.growthInterval = *v;
    }
    if (auto text = args.value("static")) {
        const auto v = parsePositiveFp32("--static", *text, error);
        if (!v)
            return kExitUsage;
        setup.options.staticScale = *v;
    }

    if (trace) {
        setup.amaxSource = *args.value("amax-trace");
        auto values = readStepTrace(setup.amaxSource, error);
        if (!values)
            return kExitDataError;
        if (values->size() > kMaxSteps) {
            error = setup.amaxSource + ": more than " + std::to_string(kMaxSteps) + " steps";
            return kExitDataError;
        }
        setup.amaxes = std::move(*values);
    } else {
        const auto steps = parseCountOption("--steps", *args.value("steps"), kMaxSteps, error);
        if (!steps)
            return kExitUsage;
        const auto spec = parseStepSeries(*args.value("amax"), error);
        if (!spec)
            return usage("--amax: " + error);
        setup.amaxSource = spec->text;
        setup.amaxes = stepSeriesValues(*spec, *steps, setup.seed);
    }

    if (auto text = args.value("dist")) {
        StepGradients gradients;
        auto distribution = parseValueDistribution(*text, error);
        if (!distribution)
            return usage("--dist: " + error);
        gradients.distribution = std::move(*distribution);
        if (auto count = args.value("count")) {
            const auto v = parseCountOption("--count", *count, kMaxGradientsPerStep, error);
            if (!v)
                return kExitUsage;
            gradients.count = *v;
        }
        if (gradients.count > kMaxGradientValues / std::max<std::size_t>(setup.amaxes.size(), 1))
            return usage("--dist: steps × --count is more than " +
                         std::to_string(kMaxGradientValues) + " gradients");
        gradients.seed = setup.seed;
        setup.gradients = std::move(gradients);
    }
    return std::nullopt;
}

Json optionsJson(const Setup& setup) {
    const LossScalerOptions& o = setup.options;
    Json options;
    options["mode"] = o.staticScale ? "static" : "dynamic";
    if (o.staticScale) {
        options["static_scale"] = exactDecimal(*o.staticScale);
    } else {
        options["init_scale"] = exactDecimal(o.initScale);
        options["growth_factor"] = exactDecimal(o.growthFactor);
        options["backoff_factor"] = exactDecimal(o.backoffFactor);
        options["growth_interval"] = o.growthInterval;
    }
    options["amax"] = setup.amaxSource;
    options["seed"] = setup.seed;
    if (setup.gradients) {
        options["dist"] = setup.gradients->distribution.text;
        options["count"] = setup.gradients->count;
    }
    return options;
}

void printJsonReport(std::ostream& out, const Setup& setup, const LossScaleRun& run) {
    Json doc;
    doc["command"] = "loss-scale";
    doc["format"] = run.format.id;
    doc["options"] = optionsJson(setup);
    doc["steps"] = run.steps.size();
    doc["skipped"] = run.skipped;
    Json overflow = Json::array(), scales = Json::array(), amax = Json::array();
    for (const LossScaleStep& step : run.steps) {
        if (step.overflow)
            overflow.push_back(step.step);
        scales.push_back(exactDecimal(step.scale));
        amax.push_back(jsonNumber(step.amax));
    }
    doc["overflow"] = std::move(overflow);
    doc["scales"] = std::move(scales);
    doc["amax"] = std::move(amax);
    doc["final_scale"] =
        run.steps.empty() ? Json(nullptr) : Json(exactDecimal(run.steps.back().scale));
    if (setup.gradients) {
        Json flushed = Json::array(), subnormal = Json::array();
        for (const LossScaleStep& step : run.steps) {
            flushed.push_back(step.flushedFraction ? Json(*step.flushedFraction) : Json(nullptr));
            subnormal.push_back(step.subnormalFraction ? Json(*step.subnormalFraction)
                                                       : Json(nullptr));
        }
        doc["flushed"] = std::move(flushed);
        doc["subnormal"] = std::move(subnormal);
    }
    printJson(out, doc);
}

void printCsv(std::ostream& out, const Setup& setup, const LossScaleRun& run) {
    out << "step,amax,scale,overflow,skipped" << (setup.gradients ? ",flushed,subnormal" : "")
        << '\n';
    char amax[40];
    for (const LossScaleStep& step : run.steps) {
        std::snprintf(amax, sizeof amax, "%.17g", step.amax);
        out << step.step << ',' << amax << ',' << exactDecimal(step.scale) << ','
            << (step.overflow ? 1 : 0) << ',' << (step.skipped ? 1 : 0);
        if (setup.gradients) {
            auto field = [](const std::optional<double>& v) {
                char text[40] = "";
                if (v)
                    std::snprintf(text, sizeof text, "%.17g", *v);
                return std::string(text);
            };
            out << ',' << field(step.flushedFraction) << ',' << field(step.subnormalFraction);
        }
        out << '\n';
    }
}

void printText(std::ostream& out, const Setup& setup, const LossScaleRun& run) {
    const LossScalerOptions& o = setup.options;
    out << "Loss scaling into " << run.format.id << ": ";
    if (o.staticScale)
        out << "static scale " << exactDecimal(*o.staticScale) << '\n';
    else
        out << "dynamic (GradScaler), init " << exactDecimal(o.initScale) << ", x"
            << exactDecimal(o.growthFactor) << " after " << o.growthInterval
            << " steps without overflow, x" << exactDecimal(o.backoffFactor)
            << " and skip on overflow\n";
    out << "amax: " << setup.amaxSource << ", " << run.steps.size() << " steps\n";

    std::size_t overflows = 0;
    float lowest = run.steps.empty() ? 0 : run.steps.front().scale, highest = lowest;
    for (const LossScaleStep& step : run.steps) {
        overflows += step.overflow;
        lowest = std::min(lowest, step.scale);
        highest = std::max(highest, step.scale);
    }
    out << "overflowed " << overflows << ", skipped " << run.skipped.size();
    if (!run.steps.empty())
        out << "; scale from " << exactDecimal(lowest) << " to " << exactDecimal(highest)
            << ", last " << exactDecimal(run.steps.back().scale);
    out << '\n';
    if (setup.gradients) {
        double flushedSum = 0, subnormalSum = 0, flushedMax = 0;
        std::size_t counted = 0, worst = 0;
        for (const LossScaleStep& step : run.steps) {
            if (!step.flushedFraction)
                continue;
            ++counted;
            flushedSum += *step.flushedFraction;
            subnormalSum += *step.subnormalFraction;
            if (*step.flushedFraction > flushedMax) {
                flushedMax = *step.flushedFraction;
                worst = step.step;
            }
        }
        out << "gradients: " << setup.gradients->distribution.text << ", " << setup.gradients->count
            << " a step: flushed to zero "
            << percentText(counted ? flushedSum / double(counted) : 0) << " on average, at most "
            << percentText(flushedMax) << " (step " << worst << "); subnormal "
            << percentText(counted ? subnormalSum / double(counted) : 0) << " on average\n";
    }

    // The steps where something happened: overflows and the steps whose scale differs from
    // the one before (growth, or the backoff after an overflow).
    TextTable table(setup.gradients
                        ? std::vector<std::string>{"step", "amax", "scale", "event", "flushed"}
                        : std::vector<std::string>{"step", "amax", "scale", "event"});
    std::size_t events = 0, listed = 0;
    for (std::size_t t = 0; t < run.steps.size(); ++t) {
        const LossScaleStep& step = run.steps[t];
        const bool grown = t > 0 && step.scale > run.steps[t - 1].scale;
        if (!step.overflow && !grown)
            continue;
        ++events;
        if (listed == kListedEvents)
            continue;
        ++listed;
        std::string event = grown ? "grown" : "";
        if (step.overflow)
            event += std::string(event.empty() ? "" : ", ") +
                     (step.skipped ? "overflow, skipped" : "overflow (update lost)");
        std::vector<std::string> row{std::to_string(t), shortNumber(step.amax),
                                     exactDecimal(step.scale), event};
        if (setup.gradients)
            row.push_back(step.flushedFraction ? percentText(*step.flushedFraction) : "-");
        table.addRow(std::move(row));
    }
    if (events == 0) {
        out << "no overflow and no change of scale\n";
        return;
    }
    out << '\n';
    table.print(out, false);
    if (events > listed)
        out << "... " << events - listed << " more (--json or --csv list every step)\n";
}

} // namespace

int runLossScale(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs,
                   {"amax-trace", "steps", "amax", "format", "init", "growth-factor", "backoff",
                    "interval", "static", "dist", "count", "seed"},
                   {"json", "csv"});
    if (const auto stop = checkOptionsOnly(args, io, "loss-scale", kUsage))
        return *stop;
    Setup setup;
    std::string error;
    if (const auto status = readSetup(args, setup, error))
        return reportError(io, "loss-scale", {error, *status});
    const LossScaleRun run =
        simulateLossScaling(setup.amaxes, setup.format, setup.options, setup.gradients);
    if (args.has("json"))
        printJsonReport(io.out, setup, run);
    else if (args.has("csv"))
        printCsv(io.out, setup, run);
    else
        printText(io.out, setup, run);
    return kExitOk;
}

} // namespace fpx::cli
