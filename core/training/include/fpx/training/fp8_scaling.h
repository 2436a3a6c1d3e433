// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_view.h"
#include "fpx/data/value_distribution.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// Per-tensor FP8 scaling recipes as Transformer Engine defines them:
//   Current            amax = the tensor's own amax this step
//   Delayed            amax = max (or the most recent) of the last `historyLength` steps'
//                      amaxes, the current step's not yet among them: it is recorded after
//                      the cast, as TE's amax history is updated after the GEMM
// scale = (format max / amax) / 2^margin, computed in FP32 (one rounding per operation, as
// TE's FP32 scale update does). amax 0, NaN or ∞, or a scale that is not finite or is 0
// (a margin past FP32's range), keeps the previous scale (1 at the first step). Elements are
// x·scale rounded once (exactly) into the format, saturating by default (TE casts with
// satfinite); dequantized as code value / scale.
// The largest run `fpx fp8-scaling` and the Training page make: steps, and values over all of
// them (1 GiB of FP32).
inline constexpr std::size_t kMaxFp8ScalingSteps = 100000;
inline constexpr std::size_t kMaxFp8ScalingValues = std::size_t(1) << 28;

struct Fp8Recipe {
    enum class Kind { Current, Delayed };
    enum class HistoryRule { Max, MostRecent };
    Kind kind = Kind::Current;
    std::size_t historyLength = 16;
    HistoryRule rule = HistoryRule::Max;
    int margin = 0;
    std::string text; // "current", "delayed:16:max", for reports
};

// "current", "delayed:LEN:max", "delayed:LEN:most_recent"; nullopt with `error` naming the
// part that is wrong.
std::optional<Fp8Recipe> parseFp8Recipe(std::string_view text, std::string& error);

struct Fp8ScalingStep {
    std::size_t step = 0;
    double amax = 0;              // the tensor's own amax this step
    double amaxUsed = 0;          // the amax the scale was computed from (history for Delayed)
    float scale = 0;              // the scale applied this step
    double overflowFraction = 0;  // |x·scale| beyond the format's rounding boundary (clipped)
    double flushedFraction = 0;   // non-zero x whose x·scale rounds to 0
    std::optional<double> sqnrDb; // of the dequantized tensor; nullopt when the signal is 0
};

struct Fp8ScalingRun {
    Fp8Recipe recipe;
    FormatSpec format;
    std::vector<Fp8ScalingStep> steps;
};

// Why a format cannot take a per-tensor scaling recipe, or nullopt: it must be a signed binary
// float with a zero and subnormals (a grid the scale slides values along) of at most 16 bits,
// whose max is finite in FP32 (the scale, max / amax, is an FP32 number).
std::optional<std::string> fp8ScalingUnsupported(const FormatSpec& format);

// One run of a recipe over a sequence of tensors (one per step). `rounding` picks the mode
// and the overflow policy of the cast (Saturate by default, see above).
Fp8ScalingRun simulateFp8Scaling(const std::vector<TensorView>& tensors, const FormatSpec& format,
                                 const Fp8Recipe& recipe,
                                 const RoundingOptions& rounding = {RoundingMode::NearestEven,
                                                                    OverflowPolicy::Saturate, 0});

// Step t's tensor of a synthetic run, as `fpx fp8-scaling --dist` and the Training page make
// it: `count` draws seeded by stochasticBits(seed, t), each rounded once to FP32, times the
// step's drift, rounded once again to FP32.
std::vector<float> driftedStepValues(const ValueDistribution& distribution, std::size_t count,
                                     std::uint64_t seed, std::size_t step, double drift);

} // namespace fpx
