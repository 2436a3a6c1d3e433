// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/work_budget.h"
#include "fpx/training/update_rule.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// Plain SGD on one weight, w ← w − lr·g, over a sequence of gradients, with the weight held in
// a format: why weights are kept in FP32 (an update smaller than half an ULP of w is lost).
//   held in F              w_{t+1} = round_F(w_t − lr·g_t): the update is computed exactly
//                          and rounded once, as a fused optimizer step in wider registers
//   F with a master copy M m_{t+1} = round_M(m_t − lr·g_t), w_{t+1} = round_F(m_{t+1}): the
//                          optimizer updates the master and the working copy is cast from it
//   exact                  e_{t+1} = e_t − lr·g_t in exact arithmetic (the reference)
// The step's arithmetic is the update rule's (update_rule.h; docs/behaviour.md, "Update
// rules"): the default, exact, is F(w - lr*g) as above; another rule computes the step as its
// formula says, with F the stepped format (M with a master), and its result is rounded into
// that format when the formula does not end with F(…).
// w_0 = round_F(W) (and m_0 = round_M(W)); the gradients are used as given (exact), unless
// `gradientFormat` rounds each one into a format first, as gradients held in BF16 are.
//
// The exact reference always uses the gradients as given, so a gradient format's rounding
// shows in the error. Every rounding (each one roundToFormat of an exact value) uses
// `rounding`'s mode and overflow policy. Under stochastic rounding each rounding draws its own
// bits, so that the runs are reproducible from `seed` and no two roundings share a draw:
//   the update at step t (into F, or into M with a master)  stochasticBits(update, t)
//   the working copy's cast at step t                        stochasticBits(cast, t)
//   the gradient's rounding at step t                        stochasticBits(gradient, t)
//   the initial roundings of W into F and into M             stochasticBits(initial, 0 and 1)
//   the rule's k-th rounding at step t, k ≥ 1                stochasticBits(streamSeed(update,
//                                                            k), t); k = 0 is the update's
//   the rule's result rounded into the stepped format        stochasticBits(settle, t)
// where each stream's seed is streamSeed(seed, SgdStream::…) (rounding.h): none is `seed`
// itself, from which parseGradientSequence draws the gradients.
// simulateSgd throws std::invalid_argument when the format, the master's or the gradients'
// has no arithmetic (arithmeticUnsupported: NF4, E8M0), when the initial weight, the
// learning rate or a gradient is not finite, when the update rule has no formula for the
// stepped format, or when its formula would cost more exact work than kMaxSgdRuleWork over the
// run.
enum class SgdStream : std::uint64_t {
    Cast = 0,
    Gradient = 1,
    Initial = 2,
    Update = 3,
    Settle = 4
};

// The most big-integer work (work_budget.h's units) a run's update rule may spend over all its
// steps: the built-ins cost a few ten thousand a step, so a million steps stay far below it,
// while a formula full of huge literals is refused rather than run for hours.
inline constexpr double kMaxSgdRuleWork = kStreamWork;

// The longest run `fpx sgd` and the Training page simulate: each step is a few exact roundings.
inline constexpr std::size_t kMaxSgdSteps = 1'000'000;

struct SgdOptions {
    ExactValue initialWeight;
    ExactValue learningRate;
    std::optional<FormatSpec> gradientFormat;
    RoundingOptions rounding;           // RNE by default; stochastic rounding draws per step
    std::uint64_t seed = 0;             // for stochastic rounding: the streams above
    std::size_t trajectoryPoints = 512; // how many evenly spaced steps keep their weights
                                        // (steps 0 … N; 0 keeps none, 1 only the last)
    std::optional<UpdateRule> update;   // the step's arithmetic; none: exactUpdateRule()
};

struct SgdRun {
    FormatSpec format;                // the format the weight is held in
    std::optional<FormatSpec> master; // the master copy's format, when there is one
    std::string updateRule;           // the update rule's name ("exact", "pytorch-cpu", …)
    std::string updateFormula;        // its formula for the stepped format, F written out
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

// PyTorch's lr is a Python float: the double nearest the value written (ties to even), which
// `fpx sgd` and the Training page use unless told to keep it exact. nullopt when that double
// would be infinite.
std::optional<ExactValue> learningRateAsDouble(const ExactValue& written);

// The gradients of a run, from the text `fpx sgd --grads` and the Training page take: a
// distribution ("normal:0:1e-3", anything with a colon), `steps` draws as doubles seeded by
// `seed`, each used exactly; or a comma-separated list of exact values ("1,-0.5,2^-9") used in
// turn and repeated over `steps` steps (the list's length when steps is nullopt). nullopt with
// `error` naming what is wrong ("'x' (item 3, column 5): ...", "a distribution needs a number
// of steps").
// Whether that text names a distribution rather than a list (it has a colon).
bool namesDistribution(std::string_view text);
std::optional<std::vector<ExactValue>> parseGradientSequence(std::string_view text,
                                                             std::optional<std::size_t> steps,
                                                             std::uint64_t seed,
                                                             std::string& error);

SgdRun simulateSgd(const std::vector<ExactValue>& gradients, const FormatSpec& format,
                   const std::optional<FormatSpec>& master, const SgdOptions& options);

} // namespace fpx
