// SPDX-License-Identifier: GPL-3.0-or-later
// fpx sgd: plain SGD on one weight held in each format, with and without a master copy,
// against exact arithmetic (docs/behaviour.md, "Master weights").
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"
#include "term_options.h"
#include "text_table.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/training/sgd_simulation.h"

#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx sgd --weight W --lr LR --grads DIST|LIST [--steps N] --formats ID,...\n"
    "               [--master ID] [--grad-format ID] [--exact-lr] [--round MODE]\n"
    "               [--overflow POLICY] [--seed S] [--scale S] [--trajectory N] [--json]\n"
    "  Plain SGD on one weight, w <- w - lr*g, for N steps with the weight held in each\n"
    "  format (each update computed exactly and rounded once), and with --master M also\n"
    "  in each format with a master copy in M (the update rounded into M, the working\n"
    "  copy cast from it), beside exact arithmetic: the final weight, the lost updates\n"
    "  (steps whose update left the stepped value unchanged) and the error.\n"
    "  W: an exact value (2^-3, 0.1, 1/3), rounded into each format.\n"
    "  LR: rounded to the nearest double, as PyTorch's lr is a Python float (a double);\n"
    "  --exact-lr keeps it exactly as written. The lr used is printed exactly.\n"
    "  --grads: a distribution as in fpx quantize --dist (normal:MU:SIGMA, uniform:A:B,\n"
    "  laplace:B, student:NU), drawn as doubles from --seed and used exactly (needs\n"
    "  --steps); or comma-separated exact values used in turn and repeated (--steps\n"
    "  defaults to their number). --grad-format ID rounds each gradient into ID first.\n"
    "  --round sr: stochastic rounding, a fresh draw per step (seeded by --seed).\n"
    "  --trajectory N: N evenly spaced steps of each run beside the exact weight.\n";

// Each step runs on the exact core (a rounding of a short exact number); the gradients are all
// held at once, exactly, so the run is bounded to keep time and memory to seconds and
// megabytes.
constexpr std::size_t kMaxSteps = kMaxSgdSteps;
constexpr std::size_t kMaxTrajectory = 100'000;

// The double nearest to x (ties to even), exactly: PyTorch's lr, the relative error.
ExactValue nearestDoubleValue(const ExactValue& x) {
    return exactFromDouble(nearestDouble(x));
}

// A format option's spec, with --scale applied; an error when unknown or without arithmetic.
std::optional<FormatSpec> readArithmeticFormat(const std::string& option, const std::string& id,
                                               const ConversionSetup& setup, std::string& error) {
    const FormatLookup lookup = findFormat(id);
    if (!lookup) {
        error = "--" + option + ": " + lookup.error;
        return std::nullopt;
    }
    FormatSpec spec = *lookup.spec;
    setup.applyScale(spec);
    if (auto why = arithmeticUnsupported(spec)) {
        error = "--" + option + " " + spec.id + ": " + *why;
        return std::nullopt;
    }
    return spec;
}

std::string runName(const SgdRun& run) {
    return run.master ? run.format.id + " + " + run.master->id + " master" : run.format.id;
}

// |error| / |exact| as the nearest double, or nullopt when the exact weight is 0 or the error
// is not finite.
std::optional<ExactValue> relativeError(const SgdRun& run) {
    if (run.finalExact.isZero() || !run.error.isFinite())
        return std::nullopt;
    return nearestDoubleValue(run.error.abs() / run.finalExact.abs());
}

Json runJson(const SgdRun& run, bool withTrajectory) {
    Json json;
    json["format"] = run.format.id;
    json["master"] = run.master ? Json(run.master->id) : Json(nullptr);
    json["final"] = decimalOrNull(run.finalWeight);
    json["final_exact"] = decimalOrNull(run.finalExact);
    json["lost_updates"] = run.lostUpdates;
    json["error"] = decimalOrNull(run.error);
    const auto relative = relativeError(run);
    json["relative_error"] = relative ? Json(doubleFromExact(*relative)) : Json(nullptr);
    if (withTrajectory) {
        Json points = Json::array();
        for (const SgdRun::Point& p : run.trajectory)
            points.push_back({{"step", p.step}, {"weight", p.weight}, {"exact", p.exact}});
        json["trajectory"] = std::move(points);
    }
    return json;
}

std::string doubleText(double x) {
    return toSignificantDigits(exactFromDouble(x), 10);
}

} // namespace

int runSgd(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs,
                   {"weight", "lr", "grads", "steps", "formats", "master", "grad-format",
                    "trajectory", "round", "overflow", "seed", "scale"},
                   {"json", "exact-lr"});
    auto usageError = [&](const std::string& message) {
        return cli::usageError(io, "sgd", message);
    };
    if (const auto stop = checkOptionsOnly(args, io, "sgd", kUsage))
        return *stop;
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return usageError(setup.error);
    for (const char* required : {"weight", "lr", "grads", "formats"})
        if (!args.has(required))
            return usageError(std::string("--") + required + " is required");

    // Exact values: W as written, LR as written or (the default) as the nearest double.
    auto readExact = [&](const char* option, std::string& error) -> std::optional<ExactValue> {
        const std::string text = *args.value(option);
        const ParsedValue parsed = parseValue(text);
        if (!parsed) {
            error = std::string("--") + option + " '" + text + "': column " +
                    std::to_string(parsed.error.position + 1) + ": " + parsed.error.message;
            return std::nullopt;
        }
        if (!parsed.exact || !parsed.value->isFinite()) {
            error = std::string("--") + option +
                    " must be a finite exact value (at most 40000 "
                    "digits, within 10^±20000), got '" +
                    text + "'";
            return std::nullopt;
        }
        return parsed.value;
    };
    std::string error;
    SgdOptions options;
    const auto weight = readExact("weight", error);
    if (!weight)
        return usageError(error);
    const auto lrWritten = readExact("lr", error);
    if (!lrWritten)
        return usageError(error);
    options.initialWeight = *weight;
    const bool exactLr = args.has("exact-lr");
    const std::optional<ExactValue> learningRate =
        exactLr ? lrWritten : learningRateAsDouble(*lrWritten);
    if (!learningRate)
        return usageError("--lr " + *args.value("lr") +
                          " is beyond the range of a double (use --exact-lr)");
    options.learningRate = *learningRate;
    options.rounding = setup.rounding;
    options.seed = setup.seed;

    std::optional<std::size_t> steps;
    if (auto text = args.value("steps")) {
        steps = parseTermCount(*text);
        if (!steps)
            return usageError("--steps: expected a count of at least 1, got '" + *text + "'");
        if (*steps > kMaxSteps)
            return usageError("--steps: each step runs on the exact core; use at most " +
                              std::to_string(kMaxSteps));
    }
    const bool withTrajectory = args.has("trajectory");
    options.trajectoryPoints = 0;
    if (withTrajectory) {
        const std::string text = *args.value("trajectory");
        const auto points = parseTermCount(text);
        if (!points || *points < 2 || *points > kMaxTrajectory)
            return usageError("--trajectory: expected a number of points from 2 to " +
                              std::to_string(kMaxTrajectory) + ", got '" + text + "'");
        options.trajectoryPoints = *points;
    }

    const FormatListLookup formats = findFormats(*args.value("formats"));
    if (!formats.error.empty())
        return usageError("--formats: " + formats.error);
    std::vector<FormatSpec> held;
    for (const FormatSpec& listed : formats.specs) {
        const auto spec = readArithmeticFormat("formats", listed.id, setup, error);
        if (!spec)
            return usageError(error);
        held.push_back(*spec);
    }
    std::optional<FormatSpec> master;
    if (auto id = args.value("master")) {
        master = readArithmeticFormat("master", *id, setup, error);
        if (!master)
            return usageError(error);
    }
    if (auto id = args.value("grad-format")) {
        options.gradientFormat = readArithmeticFormat("grad-format", *id, setup, error);
        if (!options.gradientFormat)
            return usageError(error);
    }

    const std::string gradsText = *args.value("grads");
    const std::optional<std::vector<ExactValue>> gradients =
        parseGradientSequence(gradsText, steps, setup.seed, error);
    if (!gradients)
        return usageError("--grads " + error);

    // Each format on its own, then each with the master copy (a format that is the master
    // itself would only repeat its own run).
    std::vector<SgdRun> runs;
    for (const FormatSpec& spec : held)
        runs.push_back(simulateSgd(*gradients, spec, std::nullopt, options));
    if (master)
        for (const FormatSpec& spec : held)
            if (spec.id != master->id)
                runs.push_back(simulateSgd(*gradients, spec, master, options));
    const std::size_t stepCount = gradients->size();
    const ExactValue exactFinal = runs.front().finalExact;

    if (args.has("json")) {
        Json json;
        json["weight"] = decimalOrNull(options.initialWeight);
        json["lr"] = decimalOrNull(options.learningRate);
        json["lr_as_double"] = !exactLr;
        json["grads"] = gradsText;
        json["steps"] = stepCount;
        json["grad_format"] =
            options.gradientFormat ? Json(options.gradientFormat->id) : Json(nullptr);
        json["round"] = roundingModeId(options.rounding.mode);
        json["overflow"] = overflowPolicyId(options.rounding.overflow);
        json["seed"] = options.seed;
        json["exact"] = decimalOrNull(exactFinal);
        Json results = Json::array();
        for (const SgdRun& run : runs)
            results.push_back(runJson(run, withTrajectory));
        json["results"] = std::move(results);
        printJson(io.out, json);
        return kExitOk;
    }

    io.out << "SGD on one weight, " << stepCount << " steps, rounding "
           << roundingModeId(options.rounding.mode) << "\n";
    io.out << "  initial weight  " << toDecimal(options.initialWeight).text << '\n';
    io.out << "  lr              " << toDecimal(options.learningRate).text
           << (exactLr ? "  (as written)" : "  (the double nearest " + *args.value("lr") + ")")
           << '\n';
    io.out << "  gradients       " << gradsText
           << (namesDistribution(gradsText) ? ", seed " + std::to_string(options.seed) : "")
           << (options.gradientFormat ? ", rounded into " + options.gradientFormat->id : "")
           << '\n';
    io.out << "  exact final     " << toSignificantDigits(exactFinal, 17) << "\n\n";
    TextTable table({"weights", "final", "lost updates", "error", "relative error"});
    for (const SgdRun& run : runs) {
        const auto relative = relativeError(run);
        table.addRow({runName(run), toSignificantDigits(run.finalWeight, 17),
                      std::to_string(run.lostUpdates), toSignificantDigits(run.error, 6),
                      relative ? toSignificantDigits(*relative, 4) : "-"});
    }
    table.print(io.out, io.outIsTerminal);
    if (withTrajectory) {
        io.out << '\n';
        std::vector<std::string> header{"step", "exact"};
        for (const SgdRun& run : runs)
            header.push_back(runName(run));
        TextTable trajectory(header);
        const auto& points = runs.front().trajectory;
        for (std::size_t i = 0; i < points.size(); ++i) {
            std::vector<std::string> row{std::to_string(points[i].step),
                                         doubleText(points[i].exact)};
            for (const SgdRun& run : runs)
                row.push_back(doubleText(run.trajectory[i].weight));
            trajectory.addRow(std::move(row));
        }
        trajectory.print(io.out, io.outIsTerminal);
    }
    return kExitOk;
}

} // namespace fpx::cli
