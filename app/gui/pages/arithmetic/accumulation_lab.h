// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fpx::gui {

// What the accumulation lab sums: N terms of a distribution, in every accumulator × method.
struct AccumulationLabRequest {
    std::size_t terms = 4096;
    std::string distribution = "ones";
    std::optional<FormatSpec> element; // nullopt: each accumulator's own format
    std::vector<FormatSpec> accumulators;
    std::vector<SumMethodSpec> methods;
    RoundingOptions rounding;
    std::uint64_t seed = 1;
    std::size_t tracePoints = 512; // about this many running-sum points per curve
};

struct AccumulationLabRun {
    FormatSpec element;
    FormatSpec accumulator;
    SumMethodSpec method;
    std::optional<std::string> unsupported; // why this pair cannot be summed
    AccumulationResult result;
    std::string label() const; // "fp16 sequential"
};

struct AccumulationLabResult {
    AccumulationLabRequest request;
    std::string error; // a bad request (distribution, file): nothing was summed
    std::vector<AccumulationLabRun> runs;
    bool cancelled = false;
};

// The largest N the lab accepts (the terms are held in memory).
inline constexpr std::size_t kMaxLabTerms = 100'000'000;

// Runs every accumulator × method in turn. `progress(done, total)` is called often, with terms
// summed so far over all runs; returning false cancels (the runs finished so far are kept).
// Safe to call from a worker thread.
AccumulationLabResult
runAccumulationLab(const AccumulationLabRequest& request,
                   const std::function<bool(std::size_t done, std::size_t total)>& progress = {});

// The running sums as CSV with exact decimals: accumulator, element, method, point ("trace"
// for each running-sum point, "final" for the run's result with its stagnation term), terms,
// sum, exact_sum, rel_error, stagnation_term.
std::string accumulationLabCsv(const AccumulationLabResult& result);

} // namespace fpx::gui
