// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/measurement.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fpx::bench {

// The speed of sums in emulated formats, each as a ratio to a reference timed alongside it
// (measureAlongside) in the same run, on one thread (docs/behaviour.md, "Benchmarks"):
//   - sequential accumulation in FP16, BF16 and FP8 E4M3 (accumulate(), its hardware path)
//     against a plain `float` loop s += t[i] over the same terms, a true sequential
//     dependency the compiler may not reorder (no -ffast-math, so no vectorised reduction),
//     on two workloads: positive terms, whose sum settles in one binade, and zero-mean terms,
//     whose sum wanders across binades (AccumulationWorkload);
//   - the exact reference sum (the superaccumulator) against memcpy of the terms.
// Every sum is verified before it is timed: on a prefix of the terms, the hardware path's sum
// equals the exact core's, and the superaccumulator's equals a sum of ExactValues.
struct AccumulationWorkload {
    std::string label;        // what a reader is told: "positive terms (the sum settles)"
    std::string distribution; // makeTerms' distribution: "uniform:0:1"
};
// The workloads, in the order the rows come: positive, then zero-mean.
std::vector<AccumulationWorkload> accumulationWorkloads();

struct AccumulationBenchRow {
    std::string what;      // "fp16 sequential", "exact sum"
    std::string format;    // the accumulator's id ("fp16"); "exact" for the exact sum
    std::string workload;  // AccumulationWorkload::label
    std::string path;      // accumulate()'s path, "superaccumulator"
    std::string reference; // "float loop", "memcpy"
    bool verified = false;
    std::uint64_t checked = 0; // terms of the prefix the verification summed
    std::string note;          // why not verified
    Statistics time;
    Statistics referenceTime;
    double termsPerSecond = 0;
    double referenceTermsPerSecond = 0;
    double ratio = 0; // reference time / time: the speed as a fraction of the reference's
    double goal = 0;  // the ratio the issue asks for
};

struct AccumulationBenchRequest {
    std::size_t terms = 100'000'000;
    TimingPlan plan;
};

// `progress` gets the fraction done and what runs; `cancel` stops between measurements.
std::vector<AccumulationBenchRow>
runAccumulationBench(const AccumulationBenchRequest& request,
                     const std::function<void(double, const std::string&)>& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

// What the terms are, for the report: their element format.
std::string accumulationBenchTerms();

} // namespace fpx::bench
