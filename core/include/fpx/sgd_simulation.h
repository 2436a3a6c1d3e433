// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact_value.h"
#include "fpx/format_spec.h"
#include "fpx/rounding.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace fpx {

// Plain SGD on one weight, w ← w − lr·g, over a sequence of gradients, with the weight held in
// a format: why weights are kept in FP32 (an update smaller than half an ULP of w is lost).
//   held in F              w_{t+1} = round_F(w_t − lr·g_t): the update is computed exactly
//                          and rounded once, as a fused optimizer step in wider registers
//   F with a master copy M m_{t+1} = round_M(m_t − lr·g_t), w_{t+1} = round_F(m_{t+1}): the
//                          optimizer updates the master and the working copy is cast from it
//   exact                  e_{t+1} = e_t − lr·g_t in exact arithmetic (the reference)
// w_0 = round_F(W) (and m_0 = round_M(W)); the gradients are used as given (exact), unless
// `gradientFormat` rounds each one into a format first, as gradients held in BF16 are.
struct SgdOptions {
    ExactValue initialWeight;
    ExactValue learningRate;
    std::optional<FormatSpec> gradientFormat;
    RoundingOptions rounding;           // RNE by default; stochastic rounding draws per step
    std::uint64_t seed = 0;             // for stochastic rounding: stochasticBits(seed, step)
    std::size_t trajectoryPoints = 512; // how many evenly spaced steps keep their weights
};

struct SgdRun {
    FormatSpec format;                // the format the weight is held in
    std::optional<FormatSpec> master; // the master copy's format, when there is one
    ExactValue finalWeight;           // the working copy after the last step
    ExactValue finalExact;            // the exact reference after the last step
    std::size_t lostUpdates = 0;      // steps with lr·g ≠ 0 that left the held value unchanged
                                      // (the master's, when there is one)
    ExactValue error;                 // finalWeight − finalExact
    // (step, held weight, exact weight) at trajectoryPoints steps, the first and last included,
    // as doubles for plotting (each rounded once from the exact value).
    struct Point {
        std::size_t step = 0;
        double weight = 0;
        double exact = 0;
    };
    std::vector<Point> trajectory;
};

SgdRun simulateSgd(const std::vector<ExactValue>& gradients, const FormatSpec& format,
                   const std::optional<FormatSpec>& master, const SgdOptions& options);

} // namespace fpx
