// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/plot_data.h"

#include "fpx/code_details.h"
#include "fpx/conversion.h"
#include "fpx/format_catalogue.h"
#include "fpx/format_limits.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace fpx {

namespace {

const FormatSpec& fp64() {
    static const FormatSpec spec = *findFormat("fp64").spec;
    return spec;
}

// Nearest double (±inf beyond its range, ±0 below it).
double toDouble(const ExactValue& v) {
    if (v.isNaN())
        return std::nan("");
    const Code code = roundToFormat(v, fp64()).code;
    const auto bits = static_cast<std::uint64_t>(code);
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

ExactValue fromDouble(double d) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof d);
    return decodeCode(fp64(), bits).value;
}

// log2 |v| as a double, for values far beyond the range of double.
double log2Of(const ExactValue& v) {
    const std::int64_t e = v.abs().floorLog2();
    const double mantissa = toDouble(v.abs().timesPowerOfTwo(-e)); // in [1, 2)
    return static_cast<double>(e) + std::log2(mantissa);
}

std::vector<ExactValue> sortedFiniteValues(const FormatSpec& spec) {
    std::vector<ExactValue> values;
    const Code count = Code(1) << spec.totalBits();
    for (Code code = 0; code < count; ++code) {
        const DecodedCode d = decodeCode(spec, code);
        if (d.value.isFinite())
            values.push_back(d.value.isZero() ? ExactValue::zero() : d.value);
    }
    std::sort(values.begin(), values.end(),
              [](const ExactValue& a, const ExactValue& b) { return compare(a, b) < 0; });
    values.erase(
        std::unique(values.begin(), values.end(),
                    [](const ExactValue& a, const ExactValue& b) { return compare(a, b) == 0; }),
        values.end());
    return values;
}

// stored value − x, exactly; NaN when the result is not finite.
ExactValue errorAt(const ExactValue& x, const FormatSpec& spec, const RoundingOptions& options) {
    const ExactValue stored = decodeCode(spec, roundToFormat(x, spec, options).code).value;
    if (!stored.isFinite())
        return ExactValue::nan();
    return stored - x;
}

// Adds a point of the sawtooth; the relative curve keeps only the peaks next to each jump,
// which is what a logarithmic axis can show (the zeros in between would be −∞).
void addPoint(ErrorCurve& curve, const ExactValue& x, const ExactValue& error, bool peak) {
    if (error.isNaN())
        return;
    const double xd = toDouble(x);
    const double ed = toDouble(error);
    curve.absolute.push_back({xd, ed});
    if (peak && !x.isZero() && !error.isZero())
        curve.relative.push_back({xd, std::abs(toDouble(error / x))});
}

bool nearestMode(RoundingMode m) {
    return m == RoundingMode::NearestEven || m == RoundingMode::NearestAway;
}

} // namespace

ErrorCurve roundingErrorCurve(const FormatSpec& spec, const RoundingOptions& options, double from,
                              double to, bool logarithmic, int samples) {
    ErrorCurve curve;
    const FormatLimits limits = deriveLimits(spec);
    curve.unitRoundoff =
        spec.kind == FormatKind::BinaryFloat ? std::ldexp(1.0, -spec.precision()) : 0;
    curve.minNormal = toDouble(limits.minNormal ? *limits.minNormal : limits.minPositive);
    curve.max = toDouble(limits.max);
    if (!(from < to) || !std::isfinite(from) || !std::isfinite(to))
        return curve;
    const ExactValue a = fromDouble(from);
    const ExactValue b = fromDouble(to);

    // Small formats: follow the sawtooth through every segment that meets [from, to].
    if (spec.totalBits() <= 16) {
        const std::vector<ExactValue> values = sortedFiniteValues(spec);
        auto first = std::lower_bound(
            values.begin(), values.end(), a,
            [](const ExactValue& v, const ExactValue& x) { return compare(v, x) < 0; });
        auto last = std::upper_bound(
            values.begin(), values.end(), b,
            [](const ExactValue& x, const ExactValue& v) { return compare(x, v) < 0; });
        if (first != values.begin())
            --first;
        if (last != values.end())
            ++last;
        const auto segments = std::distance(first, last);
        if (segments <= 20000) {
            for (auto it = first; it != last && std::next(it) != last; ++it) {
                const ExactValue& lo = *it;
                const ExactValue& hi = *std::next(it);
                const ExactValue m = midpoint(lo, hi);
                const ExactValue eps = (hi - lo).timesPowerOfTwo(-24);
                // Each piece is linear with slope −1: its ends trace it exactly. The jumps sit
                // at the midpoint (nearest modes) or at the values themselves (directed modes).
                const ExactValue quarterGap = (hi - lo).timesPowerOfTwo(-2);
                for (const ExactValue& x : {lo, lo + eps, m - eps, m, m + eps, hi - eps}) {
                    if (compare(x, a) < 0 || compare(x, b) > 0)
                        continue;
                    const ExactValue error = errorAt(x, spec, options);
                    const bool peak = !error.isNaN() && compare(error.abs(), quarterGap) >= 0;
                    addPoint(curve, x, error, peak);
                }
            }
            if (last != values.end() || compare(values.back(), b) <= 0)
                addPoint(curve, values.back(), errorAt(values.back(), spec, options), false);
            return curve;
        }
    }

    // Wide formats: the envelope. Gaps grow with |x|, so in each bucket the largest possible
    // error is the one at the bucket's end farther from zero.
    curve.exact = false;
    const bool useLog = logarithmic && from > 0;
    RoundingOptions down = options;
    down.mode = RoundingMode::TowardNegative;
    RoundingOptions up = options;
    up.mode = RoundingMode::TowardPositive;
    for (int i = 0; i <= samples; ++i) {
        const double t = static_cast<double>(i) / samples;
        const double x = useLog ? from * std::pow(to / from, t) : from + (to - from) * t;
        const ExactValue ex = fromDouble(x);
        const Code loCode = roundToFormat(ex, spec, down).code;
        const Code hiCode = roundToFormat(ex, spec, up).code;
        const ExactValue lo = decodeCode(spec, loCode).value;
        const ExactValue hi = decodeCode(spec, hiCode).value;
        if (!lo.isFinite() || !hi.isFinite())
            continue; // past the largest finite value: overflow, no rounding error to draw
        ExactValue gap;
        if (compare(lo, hi) != 0) {
            gap = hi - lo;
        } else if (const auto ulp = unitInLastPlace(spec, loCode)) {
            gap = *ulp;
        } else {
            continue;
        }
        const double g = toDouble(gap);
        double upper = g;
        double lower = -g;
        if (nearestMode(options.mode)) {
            upper = g / 2;
            lower = -g / 2;
        } else if (options.mode == RoundingMode::TowardPositive ||
                   (options.mode == RoundingMode::TowardZero && x < 0)) {
            lower = 0;
        } else if (options.mode == RoundingMode::TowardNegative ||
                   (options.mode == RoundingMode::TowardZero && x > 0)) {
            upper = 0;
        }
        curve.absolute.push_back({x, upper});
        curve.absoluteLower.push_back({x, lower});
        if (x != 0)
            curve.relative.push_back({x, std::max(std::abs(upper), std::abs(lower)) / std::abs(x)});
    }
    return curve;
}

std::vector<PlotPoint> ulpStaircase(const FormatSpec& spec) {
    std::vector<PlotPoint> points;
    const FormatLimits limits = deriveLimits(spec);
    auto step = [&](double x0, double x1, double ulp) {
        points.push_back({x0, ulp});
        points.push_back({x1, ulp});
    };
    switch (spec.kind) {
    case FormatKind::BinaryFloat: {
        const double maxLog2 = log2Of(limits.max);
        const int emin = spec.minExponent();
        const int emax = limits.maxExponent;
        if (limits.minSubnormal)
            step(log2Of(*limits.minSubnormal), emin, emin - spec.fractionBits);
        for (int e = emin; e <= emax; ++e)
            step(e, std::min<double>(e + 1, maxLog2), e - spec.fractionBits);
        break;
    }
    case FormatKind::Integer:
        step(log2Of(limits.minPositive), log2Of(limits.max), log2Of(spec.scale.abs()));
        break;
    case FormatKind::Lookup: {
        const std::vector<ExactValue> values = sortedFiniteValues(spec);
        for (std::size_t i = 0; i + 1 < values.size(); ++i) {
            if (!values[i + 1].isNegative() && !values[i + 1].isZero() && !values[i].isNegative())
                step(values[i].isZero() ? log2Of(values[i + 1]) - 1 : log2Of(values[i]),
                     log2Of(values[i + 1]), log2Of(values[i + 1] - values[i]));
        }
        break;
    }
    }
    return points;
}

RangeBar rangeBar(const FormatSpec& spec) {
    const FormatLimits limits = deriveLimits(spec);
    RangeBar bar;
    bar.id = spec.id;
    bar.log2Max = log2Of(limits.max);
    bar.log2MinNormal = log2Of(limits.minNormal ? *limits.minNormal : limits.minPositive);
    bar.log2MinSubnormal = limits.minSubnormal ? log2Of(*limits.minSubnormal) : bar.log2MinNormal;
    bar.decimalDigits = limits.decimalDigits;
    return bar;
}

std::vector<double> finiteValues(const FormatSpec& spec) {
    std::vector<double> values;
    if (spec.totalBits() > 16)
        return values;
    for (const ExactValue& v : sortedFiniteValues(spec))
        values.push_back(toDouble(v));
    return values;
}

std::vector<int> codeClassMap(const FormatSpec& spec) {
    std::vector<int> classes;
    if (spec.totalBits() > 8)
        return classes;
    for (Code code = 0; code < (Code(1) << spec.totalBits()); ++code)
        classes.push_back(static_cast<int>(decodeCode(spec, code).valueClass));
    return classes;
}

std::vector<StorageCost> storageCosts(const std::vector<FormatSpec>& specs) {
    std::vector<StorageCost> costs;
    auto has = [&](const char* id) {
        return std::any_of(specs.begin(), specs.end(),
                           [&](const FormatSpec& s) { return s.id == id; });
    };
    for (const FormatSpec& spec : specs) {
        StorageCost c{spec.id, static_cast<double>(spec.totalBits()), ""};
        if (spec.id == "tf32") {
            c.bitsPerElement = 32;
            c.note = "stored in 32-bit FP32 containers";
        } else if (spec.id == "fp80") {
            c.bitsPerElement = 128;
            c.note = "padded to 16 bytes as long double on x86-64";
        }
        costs.push_back(c);
    }
    // Block-scaled variants of the narrow formats: elements plus their shared scales.
    if (has("fp8_e4m3") || has("fp8_e5m2"))
        costs.push_back({"MXFP8", 8 + 8.0 / 32, "E4M3/E5M2 elements, one E8M0 scale per 32"});
    if (has("fp6_e3m2") || has("fp6_e2m3"))
        costs.push_back({"MXFP6", 6 + 8.0 / 32, "FP6 elements, one E8M0 scale per 32"});
    if (has("fp4_e2m1")) {
        costs.push_back({"MXFP4", 4 + 8.0 / 32, "E2M1 elements, one E8M0 scale per 32"});
        costs.push_back({"NVFP4", 4 + 8.0 / 16,
                         "E2M1 elements, one E4M3 scale per 16 (+ one FP32 per tensor)"});
    }
    if (has("nf4"))
        costs.push_back({"NF4 (bnb)", 4 + 32.0 / 64, "4-bit levels, one FP32 absmax per 64"});
    if (has("int4"))
        costs.push_back(
            {"INT4 g128", 4 + 16.0 / 128, "4-bit levels, one FP16 scale per group of 128"});
    return costs;
}

} // namespace fpx
