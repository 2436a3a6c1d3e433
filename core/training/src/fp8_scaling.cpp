// SPDX-License-Identifier: GPL-3.0-or-later
// Per-tensor FP8 scaling recipes over a sequence of tensors: current scaling and delayed
// scaling with an amax history, as Transformer Engine defines them (docs/behaviour.md, "FP8 scaling
// recipes").
#include "fpx/training/fp8_scaling.h"

#include "fpx/data/signal_noise.h"
#include "scaled_cast.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/text_util.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>

namespace fpx {

namespace {

constexpr std::size_t kMaxHistoryLength = std::size_t(1) << 20;

// The tensor's amax as the framework sees it: NaN if any element is NaN, else max |x|.
double tensorAmax(const TensorView& tensor) {
    double amax = 0;
    for (std::size_t i = 0; i < tensor.size(); ++i) {
        const double x = tensor.at(i);
        if (std::isnan(x))
            return std::numeric_limits<double>::quiet_NaN();
        amax = std::max(amax, std::fabs(x));
    }
    return amax;
}

// The amax a delayed recipe uses at this step, from the previous steps' amaxes (most recent
// first). An empty history is TE's zero-filled one: amax 0, which keeps the scale.
double historyAmax(const std::deque<double>& history, Fp8Recipe::HistoryRule rule) {
    if (history.empty())
        return 0;
    if (rule == Fp8Recipe::HistoryRule::MostRecent)
        return history.front();
    double amax = 0;
    for (double a : history) {
        if (std::isnan(a))
            return a; // torch.max propagates NaN
        amax = std::max(amax, a);
    }
    return amax;
}

// scale = (format max / amax) / 2^margin in FP32: the amax rounded to FP32 (TE keeps it in an
// FP32 tensor) and each operation rounded once, nearest even. nullopt when the rule keeps the
// previous scale: amax 0, NaN or ∞, or a quotient that is not a finite, non-zero FP32 number.
std::optional<float> scaleFrom(double amax, float formatMax, int margin) {
    const float amax32 = static_cast<float>(amax);
    if (!(amax32 > 0) || !std::isfinite(amax32))
        return std::nullopt;
    const float quotient = formatMax / amax32;
    const float scale = quotient / std::ldexp(1.0f, margin);
    if (!std::isfinite(scale) || scale == 0)
        return std::nullopt;
    return scale;
}

float formatMaxAsFloat(const FormatSpec& format) {
    const FormatSpec& fp32 = fp32Spec();
    const Conversion c = roundToFormat(deriveLimits(format).max, fp32);
    return std::bit_cast<float>(static_cast<std::uint32_t>(c.code));
}

} // namespace

std::optional<std::string> fp8ScalingUnsupported(const FormatSpec& format) {
    if (format.kind != FormatKind::BinaryFloat || !format.isSigned ||
        !format.exponentZeroIsSubnormal)
        return format.id + " is not a signed float format with a zero (the recipes scale into one)";
    if (format.totalBits() > 16)
        return format.id + " is wider than 16 bits: a per-tensor scale is for narrow formats";
    if (!std::isfinite(formatMaxAsFloat(format)))
        return format.id + "'s max is beyond FP32, where the scale is computed";
    return std::nullopt;
}

std::optional<Fp8Recipe> parseFp8Recipe(std::string_view text, std::string& error) {
    Fp8Recipe recipe;
    recipe.text = std::string(trim(text));
    const std::vector<std::string_view> fields = splitAt(recipe.text, ':');
    if (fields.size() == 1 && fields[0] == "current") {
        recipe.kind = Fp8Recipe::Kind::Current;
        return recipe;
    }
    if (fields[0] != "delayed" || fields.size() != 3) {
        error =
            "'" + recipe.text + "': expected current, delayed:LEN:max or delayed:LEN:most_recent";
        return std::nullopt;
    }
    std::size_t length = 0;
    const std::string_view lengthText = fields[1];
    const auto [end, ec] =
        std::from_chars(lengthText.data(), lengthText.data() + lengthText.size(), length);
    if (lengthText.empty() || ec != std::errc() || end != lengthText.data() + lengthText.size() ||
        length == 0 || length > kMaxHistoryLength) {
        error = "'" + recipe.text + "': LEN must be a history length from 1 to " +
                std::to_string(kMaxHistoryLength) + ", got '" + std::string(lengthText) + "'";
        return std::nullopt;
    }
    if (fields[2] == "max")
        recipe.rule = Fp8Recipe::HistoryRule::Max;
    else if (fields[2] == "most_recent")
        recipe.rule = Fp8Recipe::HistoryRule::MostRecent;
    else {
        error = "'" + recipe.text + "': the history rule must be max or most_recent, got '" +
                std::string(fields[2]) + "'";
        return std::nullopt;
    }
    recipe.kind = Fp8Recipe::Kind::Delayed;
    recipe.historyLength = length;
    return recipe;
}

Fp8ScalingRun simulateFp8Scaling(const std::vector<TensorView>& tensors, const FormatSpec& format,
                                 const Fp8Recipe& recipe, const RoundingOptions& rounding) {
    Fp8ScalingRun run;
    run.recipe = recipe;
    run.format = format;
    const training::ScaledCast cast(format, rounding);
    const float formatMax = formatMaxAsFloat(format);

    float scale = 1;            // TE's initial scale
    std::deque<double> history; // previous steps' amaxes, most recent first
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        const TensorView& tensor = tensors[t];
        Fp8ScalingStep step;
        step.step = t;
        step.amax = tensorAmax(tensor);
        step.amaxUsed =
            recipe.kind == Fp8Recipe::Kind::Current ? step.amax : historyAmax(history, recipe.rule);
        if (const auto next = scaleFrom(step.amaxUsed, formatMax, recipe.margin))
            scale = *next;
        step.scale = scale;

        // The SQNR sums as measureQuantization takes them (SignalNoiseSums), leaving out
        // non-finite inputs and outputs as it does.
        double finiteAmax = 0;
        for (std::size_t i = 0; i < tensor.size(); ++i)
            if (std::isfinite(tensor.at(i)))
                finiteAmax = std::max(finiteAmax, std::fabs(tensor.at(i)));
        SignalNoiseSums sums(finiteAmax);
        std::size_t overflowed = 0, flushed = 0;
        for (std::size_t i = 0; i < tensor.size(); ++i) {
            const double x = tensor.at(i);
            if (!std::isfinite(x))
                continue;
            const training::ScaledOutcome outcome = cast(x, double(scale), i);
            overflowed += outcome.zone == RangeZone::Overflow;
            flushed += outcome.zone == RangeZone::Flushed;
            const double dequantized = outcome.value / double(scale);
            if (std::isfinite(dequantized))
                sums.add(x, dequantized);
        }
        const double total = double(tensor.size());
        step.overflowFraction = total > 0 ? double(overflowed) / total : 0.0;
        step.flushedFraction = total > 0 ? double(flushed) / total : 0.0;
        const SignalNoiseSums::Totals totals = sums.totals();
        if (totals.signal > 0)
            step.sqnrDb = totals.sqnrDb;
        run.steps.push_back(step);

        if (recipe.kind == Fp8Recipe::Kind::Delayed) {
            history.push_front(step.amax);
            if (history.size() > recipe.historyLength)
                history.pop_back();
        }
    }
    return run;
}

std::vector<float> driftedStepValues(const ValueDistribution& distribution, std::size_t count,
                                     std::uint64_t seed, std::size_t step, double drift) {
    const std::uint64_t stepSeed = stochasticBits(seed, step);
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        const float drawn = static_cast<float>(drawValue(distribution, stepSeed, i));
        values[i] = static_cast<float>(static_cast<double>(drawn) * drift);
    }
    return values;
}

} // namespace fpx
