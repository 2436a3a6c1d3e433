// SPDX-License-Identifier: GPL-3.0-or-later
// Static and dynamic loss scaling over a run of steps, with PyTorch GradScaler's update rule
// (docs/behaviour.md, "Loss scaling").
#include "fpx/training/loss_scaling.h"

#include "scaled_cast.h"

#include "fpx/exact/rounding.h"
#include "fpx/training/range_fit.h"

#include <algorithm>
#include <cmath>

namespace fpx {

namespace {

// GradScaler's update, as its kernel computes it: `*current_scale * growth_factor` with a
// float scale and a double factor is a double multiplication (nearest even), and storing it
// into the float scale tensor is a second rounding (nearest even). The double arithmetic here
// is the framework's own, not a detour: fpx reproduces what it computes, bit for bit.
float gradScalerProduct(float scale, double factor) {
    return static_cast<float>(double(scale) * factor);
}

// amax·S not finite once rounded into the format, decided by range fit's zones on the exact
// product (nearest even, IEEE overflow: what a framework's cast to FP16 does).
bool overflows(double amax, float scale, const FormatSpec& format) {
    if (!std::isfinite(amax))
        return true;
    const ExactValue scaled = exactFromDouble(amax) * exactFromDouble(double(scale));
    return rangeZoneOf(scaled, format, {RoundingMode::NearestEven, OverflowPolicy::Ieee, 0}) ==
           RangeZone::Overflow;
}

// The step's gradients, g = (d / max|d|)·amax: |d / max|d|| ≤ 1 rounds to at most 1 and the
// product to at most amax, and the largest draw gives exactly 1·amax, so the step's amax is
// the trace's to the bit.
void countGradientZones(const StepGradients& gradients, std::size_t step, double amax, float scale,
                        const training::ScaledCast& cast, LossScaleStep& out) {
    if (!std::isfinite(amax)) // no finite gradients to count at an overflowed step
        return;
    const std::vector<double> draws =
        drawValues(gradients.distribution, gradients.count, stochasticBits(gradients.seed, step));
    double largest = 0;
    for (double d : draws)
        if (std::isfinite(d))
            largest = std::max(largest, std::fabs(d));
    std::size_t nonZero = 0, flushed = 0, subnormal = 0;
    if (largest > 0 && amax > 0)
        for (std::size_t i = 0; i < draws.size(); ++i) {
            if (!std::isfinite(draws[i]))
                continue;
            const double g = (draws[i] / largest) * amax;
            if (g == 0)
                continue;
            ++nonZero;
            const RangeZone zone = cast(g, double(scale), i).zone;
            flushed += zone == RangeZone::Flushed;
            subnormal += zone == RangeZone::Subnormal;
        }
    out.flushedFraction = nonZero ? double(flushed) / double(nonZero) : 0.0;
    out.subnormalFraction = nonZero ? double(subnormal) / double(nonZero) : 0.0;
}

} // namespace

LossScaleRun simulateLossScaling(const std::vector<double>& amaxes, const FormatSpec& format,
                                 const LossScalerOptions& options,
                                 const std::optional<StepGradients>& gradients) {
    LossScaleRun run;
    run.format = format;
    run.options = options;
    run.steps.reserve(amaxes.size());
    std::optional<training::ScaledCast> cast;
    if (gradients)
        cast.emplace(format, RoundingOptions{RoundingMode::NearestEven, OverflowPolicy::Ieee, 0});

    float scale = options.staticScale ? *options.staticScale : options.initScale;
    std::size_t growthTracker = 0; // consecutive steps without overflow since the last change
    for (std::size_t t = 0; t < amaxes.size(); ++t) {
        LossScaleStep step;
        step.step = t;
        step.amax = amaxes[t];
        step.scale = scale;
        step.overflow = overflows(amaxes[t], scale, format);
        if (gradients)
            countGradientZones(*gradients, t, amaxes[t], scale, *cast, step);
        if (!options.staticScale) {
            // torch.amp's _amp_update_scale_: back off and restart the count on overflow;
            // otherwise count the step and grow when the count reaches the interval, keeping
            // the scale when the grown one would not be finite in FP32.
            if (step.overflow) {
                step.skipped = true;
                run.skipped.push_back(t);
                scale = gradScalerProduct(scale, options.backoffFactor);
                growthTracker = 0;
            } else if (growthTracker + 1 == options.growthInterval) {
                const float grown = gradScalerProduct(scale, options.growthFactor);
                if (std::isfinite(grown))
                    scale = grown;
                growthTracker = 0;
            } else {
                ++growthTracker;
            }
        }
        run.steps.push_back(step);
    }
    return run;
}

} // namespace fpx
