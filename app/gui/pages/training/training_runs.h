// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/tensor_input.h"

#include "fpx/data/histogram.h"
#include "fpx/training/fp8_scaling.h"
#include "fpx/training/loss_scaling.h"
#include "fpx/training/range_fit.h"
#include "fpx/training/sgd_simulation.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fpx::gui {

// The Training page's work, one request and result per view. Every run is safe on a worker
// thread, never throws on bad input (`error` names what is wrong) and reads `stop` between
// its pieces of work: a stopped run's result is marked `cancelled` and is not shown.

// --- Range: a tensor against each format's range at a scale 2^k -----------------------------

struct RangeRequest {
    TensorSource source; // FP32 draws or a tensor file, as the Quantization page reads
    // The input already read for this source: the slider reruns the fit, not the draws.
    std::shared_ptr<const TensorInput> input;
    std::vector<std::string> formats;
    std::int64_t scaleExponent = 0; // S = 2^k
    RoundingOptions rounding;
    std::size_t bins = 120;
};

// One format's zones on the log2|x·S| axis (the zone edges' log2, where the format has them).
struct RangeFormatFit {
    std::string id;
    std::string error;
    std::optional<FormatSpec> spec;
    std::optional<RangeFit> fit;
    RangeZoneEdges edges;
    std::optional<double> flushLog2, normalLog2, overflowLog2;
};

struct RangeResult {
    std::string error; // the input could not be read: nothing else is set
    std::shared_ptr<const TensorInput> input;
    Histogram magnitudes; // log2|x| of the unscaled input: the scale only shifts it by k
    std::int64_t scaleExponent = 0;
    std::vector<RangeFormatFit> fits;
    bool cancelled = false;
};

RangeResult runRangeFit(const RangeRequest& request, const std::atomic<bool>& stop);

// log2|v| of a finite non-zero exact value, rounded once to double at any exponent (FP64's
// 2^−1075 included, which no double holds).
double log2Magnitude(const ExactValue& v);

// --- Loss scaling: the dynamic scaler over a run of steps -----------------------------------

struct LossScaleRequest {
    // Gradients shrinking over training with occasional spikes: the scaler backs off at the
    // spikes and grows every growth interval, and the shrinking gradients flush all the same.
    std::string amaxSeries = "geometric:1:1e-5,spikes:0.001:100"; // parseStepSeries
    std::string traceFile; // set: the amaxes from this file instead of the series
    std::size_t steps = 10000;
    std::uint64_t seed = 1;
    std::string format = "fp16";
    LossScalerOptions options;
    std::string gradients;           // a value distribution per step; empty: amax only
    std::size_t gradientCount = 256; // values per step
};

struct LossScaleResult {
    std::string error;
    std::string description; // "geometric:1:1e-4, 6 000 steps in fp16"
    std::optional<LossScaleRun> run;
    bool cancelled = false;
};

LossScaleResult runLossScale(const LossScaleRequest& request, const std::atomic<bool>& stop);

// --- FP8 scaling recipes side by side -------------------------------------------------------

struct Fp8Request {
    std::size_t steps = 200;
    std::string distribution = "normal:0:1";              // each step's values, before the drift
    std::string drift = "geometric:1:100,spikes:0.03:40"; // parseStepSeries: × per step
    std::size_t count = 4096;                             // values per step
    std::uint64_t seed = 1;
    std::string format = "fp8_e4m3";
    std::vector<std::string> recipes = {"current", "delayed:16:max", "delayed:16:most_recent"};
    int margin = 0; // added to every recipe's own margin
};

struct Fp8Result {
    std::string error;
    std::string description;
    std::vector<double> amax; // each step's tensor amax, for the amax plot
    std::vector<Fp8ScalingRun> runs;
    bool cancelled = false;
};

Fp8Result runFp8Recipes(const Fp8Request& request, const std::atomic<bool>& stop);

// --- Master weights: SGD in each format against exact arithmetic ----------------------------

struct SgdVariant {
    std::string format;
    std::string master; // empty: the weight is held in `format` alone
};

struct SgdRequest {
    std::string weight = "1"; // parseValue: exact
    std::string learningRate = "1e-3";
    std::string gradients = "normal:0.5:1"; // a distribution, or a comma list used in turn
    std::size_t steps = 4000;
    std::uint64_t seed = 1;
    std::vector<SgdVariant> variants = {
        {"fp32", ""}, {"bf16", ""}, {"fp16", ""}, {"bf16", "fp32"}, {"fp16", "fp32"}};
    std::size_t trajectoryPoints = 400;
    // How a step is computed and rounded: a built-in's name or a formula (update_rule.h).
    std::string updateRule = "exact";
};

struct SgdResult {
    std::string error;
    std::string description;
    std::string updateRule;          // the rule's name ("custom" for a formula)
    std::string updateDescription;   // where it comes from, one line
    std::vector<std::string> labels; // "bf16", "bf16 + fp32 master"
    std::vector<SgdRun> runs;
    bool cancelled = false;
};

SgdResult runSgd(const SgdRequest& request, const std::atomic<bool>& stop);

// --- CSV of each view's data ----------------------------------------------------------------

std::string rangeCsv(const RangeResult& result);
std::string lossScaleCsv(const LossScaleResult& result);
std::string fp8Csv(const Fp8Result& result);
std::string sgdCsv(const SgdResult& result);

} // namespace fpx::gui
