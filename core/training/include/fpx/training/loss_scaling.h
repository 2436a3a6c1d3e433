// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/value_distribution.h"
#include "fpx/exact/format_spec.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fpx {

// Loss scaling as PyTorch's GradScaler does it. The scale is an FP32 number and the factors
// are Python floats (doubles); every change is what GradScaler's update kernel computes: the
// FP32 scale times the double factor in double, converted to FP32 (both nearest even), so a
// factor such as 0.7 is never rounded to FP32 first. A step overflows when any scaled gradient g·S
// is not finite once rounded into the gradient format (so with amax alone: when amax·S is not); an
// overflowed step is skipped and the scale backs off; after `growthInterval` consecutive
// steps without overflow the scale grows and the count restarts. Static scaling keeps S and
// skips nothing (an overflowed step is reported, and its update is lost to ∞/NaN).
// The largest run `fpx loss-scale` and the Training page simulate: steps, and simulated
// gradients per step (each step's are drawn, counted and dropped before the next).
inline constexpr std::size_t kMaxLossScaleSteps = std::size_t(1) << 24;
inline constexpr std::size_t kMaxGradientsPerStep = std::size_t(1) << 24;
inline constexpr std::size_t kMaxSimulatedGradients = std::size_t(1) << 31; // over all steps

struct LossScalerOptions {
    float initScale = 65536.0f; // 2^16
    double growthFactor = 2.0;  // as given in Python: a double
    double backoffFactor = 0.5;
    std::size_t growthInterval = 2000;
    std::optional<float> staticScale; // set: static scaling with this scale
};

// Optional per-step gradients: at step t, `count` values drawn from the distribution (seed
// mixed with t, so each step is reproducible on its own), multiplied by amax_t / max|draws| so
// that the step's amax is the trace's. Each gradient g is then scaled by S and rounded once.
struct StepGradients {
    ValueDistribution distribution;
    std::size_t count = 4096;
    std::uint64_t seed = 1;
};

struct LossScaleStep {
    std::size_t step = 0;
    double amax = 0;       // the trace's gradient amax at this step (unscaled)
    float scale = 0;       // the scale used at this step (exact: an FP32 number)
    bool overflow = false; // amax · scale is not finite in the format
    bool skipped = false;  // dynamic scaling skipped the update
    // With StepGradients: the fraction of the step's non-zero gradients whose scaled value
    // rounds to zero in the format (underflow that loss scaling is there to prevent), and the
    // fraction that land in the subnormals.
    std::optional<double> flushedFraction;
    std::optional<double> subnormalFraction;
};

struct LossScaleRun {
    FormatSpec format;
    LossScalerOptions options;
    std::vector<LossScaleStep> steps;
    std::vector<std::size_t> skipped; // the indices of skipped steps
};

// `amaxes[t]` is the gradient amax of step t (NaN or ∞ allowed: an overflow at any scale).
LossScaleRun simulateLossScaling(const std::vector<double>& amaxes, const FormatSpec& format,
                                 const LossScalerOptions& options,
                                 const std::optional<StepGradients>& gradients = std::nullopt);

} // namespace fpx
