// SPDX-License-Identifier: GPL-3.0-or-later
// fpx range-fit: a tensor (a file, a distribution or a list of values) scaled by S and rounded
// once into each format, sorted into zones: zero, flushed, subnormal, normal, overflow; with
// the relative error of the representable values and the power-of-two scales that fit. The
// options, the fits the core computes and their text and JSON renderers.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "tensor_source.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"
#include "fpx/training/range_fit.h"

#include <cstdio>
#include <limits>
#include <memory>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx range-fit (--input PATH[:TENSOR] [--dtype D] | --dist SPEC --count N [--seed S]\n"
    "                     [--outliers F:S] | --values V1,V2,...) --formats ID,...\n"
    "                     [--scale S] [--round MODE] [--overflow ieee|saturate] [--json]\n"
    "  Scales every value by S, rounds it once into each format and counts where it lands:\n"
    "  zero (in the input), flushed (to 0), subnormal, normal, overflow (to inf/NaN, or\n"
    "  clipped to max); the relative error of the subnormal and normal ones; and the range\n"
    "  of power-of-two scales 2^k (instead of S) that overflow nothing and flush the fewest.\n"
    "  --scale: any exact positive value: 1024, 0.5, 1e-3, 2^16, 2^-10 (default 1)\n"
    "  --round: rne (default), rna, rtz, rup, rdn, rto, sr (bits from --seed and the index)\n"
    "  --input: .npy, .safetensors (one tensor by name, or the first), text (one value a line),\n"
    "           raw little-endian with --dtype f32|f64|f16|bf16|e4m3|e5m2\n"
    "  --dist: normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU, uniform:A:B\n"
    "          (values rounded to FP32); gradients: lognormal:-16:2.5\n"
    "  --values: each value rounded once to FP32 (nearest even), as every tensor fpx makes\n";

constexpr RangeZone kZones[] = {RangeZone::Zero, RangeZone::Flushed, RangeZone::Subnormal,
                                RangeZone::Normal, RangeZone::Overflow};

// The scale exactly: its decimal expansion, or "P/Q" when that does not terminate (1/3).
std::string exactText(const ExactValue& scale) {
    const DecimalText decimal = toDecimal(scale);
    if (decimal.exact)
        return decimal.text;
    BigInt numerator = scale.numerator();
    BigInt denominator = scale.denominator();
    if (scale.exponent2() >= 0)
        numerator <<= static_cast<unsigned>(scale.exponent2());
    else
        denominator <<= static_cast<unsigned>(-scale.exponent2());
    return (scale.isNegative() ? "-" : "") + numerator.str() + "/" + denominator.str();
}

// "1 (2^0)", "0.001", "65536 (2^16)", "1/3".
std::string scaleText(const ExactValue& scale) {
    std::string text = exactText(scale);
    if (const auto k = powerOfTwoExponent(scale); k && (*k < -16 || *k > 16))
        text = "2^" + std::to_string(*k);
    else if (k)
        text += " (2^" + std::to_string(*k) + ")";
    return text;
}

std::string countText(std::size_t count, double fraction) {
    if (count == 0)
        return "0";
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.4g", 100 * fraction);
    return std::to_string(count) + " (" + percent + " %)";
}

std::string errorText(const std::optional<double>& error) {
    if (!error)
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", *error);
    return text;
}

bool unboundedBelow(std::int64_t k) {
    return k == std::numeric_limits<std::int64_t>::min();
}

std::string bestScalesText(const RangeFit& fit) {
    if (!fit.bestScales)
        return "none";
    const auto [low, high] = *fit.bestScales;
    return (unboundedBelow(low) ? "(-inf" : "[" + std::to_string(low)) + ", " +
           std::to_string(high) + "]";
}

Json fitJson(const RangeFit& fit) {
    Json json;
    json["format"] = fit.format.id;
    json["scale"] = exactText(fit.scale);
    for (const RangeZone zone : kZones)
        json[std::string(rangeZoneId(zone))] = fit.count(zone);
    json["non_finite"] = fit.nonFinite;
    Json fractions = Json::object();
    for (const RangeZone zone : kZones)
        fractions[std::string(rangeZoneId(zone))] = fit.fraction(zone);
    json["fractions"] = fractions;
    if (fit.bestScales) {
        const auto [low, high] = *fit.bestScales;
        json["best_scales"] = Json::array({unboundedBelow(low) ? Json(nullptr) : Json(low), high});
    } else {
        json["best_scales"] = nullptr;
    }
    json["max_relative_error"] = fit.maxRelativeError ? Json(*fit.maxRelativeError) : Json();
    json["mean_relative_error"] = fit.meanRelativeError ? Json(*fit.meanRelativeError) : Json();
    return json;
}

struct RangeFitCommandOptions {
    std::shared_ptr<const TensorSource> source;
    std::vector<FormatSpec> formats;
    RangeFitOptions fit;
    bool json = false;
};

Outcome<RangeFitCommandOptions> parseRangeFitOptions(const Arguments& args) {
    // Every option checked before any work.
    if (const auto problem = checkTensorSourceOptions(args))
        return CommandError{*problem};
    const auto formatsText = args.value("formats");
    if (!formatsText)
        return CommandError{"--formats ID,... is required"};
    FormatListLookup formats = findFormats(*formatsText);
    if (!formats.error.empty())
        return CommandError{"--formats: " + formats.error};
    if (formats.specs.empty())
        return CommandError{"--formats: name at least one format"};

    RangeFitCommandOptions options;
    options.formats = std::move(formats.specs);
    RangeFitOptions& fit = options.fit;
    if (auto text = args.value("scale")) {
        const ParsedValue parsed = parseValue(*text);
        if (!parsed)
            return CommandError{"--scale '" + *text + "': column " +
                                std::to_string(parsed.error.position + 1) + ": " +
                                parsed.error.message};
        if (!parsed.exact)
            return CommandError{"--scale must be exact: at most 40000 digits, within 10^±20000"};
        if (!parsed.value->isFinite() || parsed.value->isZero() || parsed.value->isNegative())
            return CommandError{"--scale must be a finite positive number, got '" + *text + "'"};
        fit.scale = *parsed.value;
    }
    if (auto text = args.value("round")) {
        const auto mode = parseRoundingMode(*text);
        if (!mode)
            return CommandError{"--round: unknown rounding mode '" + *text +
                                "' (use rne, rna, rtz, rup, rdn, sr or rto)"};
        fit.rounding.mode = *mode;
    }
    if (auto text = args.value("overflow")) {
        const auto policy = parseOverflowPolicy(*text);
        if (!policy || (*policy != OverflowPolicy::Ieee && *policy != OverflowPolicy::Saturate))
            return CommandError{"--overflow: unknown policy '" + *text +
                                "' (use ieee or saturate)"};
        fit.rounding.overflow = *policy;
    }

    auto source = loadTensorSource(args);
    if (!source)
        return source.error();
    options.source = std::move(*source);
    // Stochastic rounding: element i's bits from a stream of its own made from the seed (the
    // --dist seed, else 0), not the stream that drew element i.
    fit.rounding.randomBits =
        streamSeed(args.value("seed") ? std::stoull(*args.value("seed")) : 0, 0);
    options.json = args.has("json");
    return options;
}

struct RangeFitReport {
    std::shared_ptr<const TensorSource> source;
    RangeFitOptions options;
    std::vector<RangeFit> fits; // one per format
};

RangeFitReport computeRangeFit(const RangeFitCommandOptions& options) {
    RangeFitReport report{options.source, options.fit, {}};
    for (const FormatSpec& format : options.formats)
        report.fits.push_back(fitRange(options.source->view, format, options.fit));
    return report;
}

void renderRangeFitJson(const RangeFitReport& report, std::ostream& out) {
    const RangeFitOptions& options = report.options;
    Json document;
    document["source"] = report.source->description;
    document["count"] = report.source->view.size();
    document["scale"] = exactText(options.scale);
    document["round"] = roundingModeId(options.rounding.mode);
    document["overflow"] = overflowPolicyId(options.rounding.overflow);
    Json results = Json::array();
    for (const RangeFit& fit : report.fits)
        results.push_back(fitJson(fit));
    document["results"] = results;
    printJson(out, document);
}

void renderRangeFitText(const RangeFitReport& report, std::ostream& out) {
    const RangeFitOptions& options = report.options;
    out << "range fit of " << report.source->description << ": " << report.source->view.size()
        << " values × " << scaleText(options.scale) << ", " << roundingModeId(options.rounding.mode)
        << ", overflow " << overflowPolicyId(options.rounding.overflow) << "\n\n";
    TextTable table({"format", "zero", "flushed", "subnormal", "normal", "overflow", "max rel err",
                     "mean rel err", "best 2^k"});
    std::size_t nonFinite = 0;
    for (const RangeFit& fit : report.fits) {
        std::vector<std::string> row{fit.format.id};
        for (const RangeZone zone : kZones)
            row.push_back(countText(fit.count(zone), fit.fraction(zone)));
        row.push_back(errorText(fit.maxRelativeError));
        row.push_back(errorText(fit.meanRelativeError));
        row.push_back(bestScalesText(fit));
        table.addRow(std::move(row));
        nonFinite = fit.nonFinite;
    }
    table.print(out, false);
    if (nonFinite > 0)
        out << "\n" << nonFinite << " NaN or infinite input values, in no zone\n";
    out << "\nbest 2^k: the power-of-two scales (instead of S) that overflow nothing and flush "
           "the fewest\n";
}

} // namespace

int runRangeFit(const std::vector<std::string>& rawArgs, Streams& io) {
    std::set<std::string> withValue = tensorSourceOptions();
    withValue.insert({"formats", "scale", "round", "overflow"});
    const Arguments args(rawArgs, std::move(withValue), {"json"});
    if (const auto stop = checkOptionsOnly(args, io, "range-fit", kUsage))
        return *stop;
    const Outcome<RangeFitCommandOptions> options = parseRangeFitOptions(args);
    if (!options)
        return reportError(io, "range-fit", options.error());
    const RangeFitReport report = computeRangeFit(*options);
    if (options->json)
        renderRangeFitJson(report, io.out);
    else
        renderRangeFitText(report, io.out);
    return kExitOk;
}

} // namespace fpx::cli
