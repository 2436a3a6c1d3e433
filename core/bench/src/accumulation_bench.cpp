// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/accumulation_bench.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/format_catalogue.h"

#include <algorithm>
#include <cstring>

namespace fpx::bench {

namespace {

// FP8 E4M3 values are FP16 and BF16 values too, so one array of them serves every
// accumulator, and the plain loop adds exactly the same floats. Two workloads, because the
// speed of an emulated sum depends on where the sum goes:
//   - positive terms, uniform on [0, 1), as sums of squares or of probabilities are: each sum
//     grows until it stagnates (at 2048 in FP16, 256 in BF16, 16 in E4M3) and stays in one
//     binade, and it never overflows (which would send every later addition through the
//     exact core);
//   - zero-mean terms, normal(0, 1), as gradients and residuals are: the sum is a random walk
//     that keeps crossing powers of two, in E4M3 every few terms, and passes through zero.
constexpr const char* kElement = "fp8_e4m3";
constexpr std::size_t kVerifiedPrefix = 200'000;

// The plain float loop: each addition waits for the previous one. GCC and Clang keep the order
// of float additions unless told they may reassociate (-ffast-math, -fassociative-math), which
// fpx never is; the sum is stored where the optimiser must assume it is read.
float plainFloatSum(const float* terms, std::size_t n) {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i)
        s += terms[i];
    return s;
}

TermSequence prefixOf(const TermSequence& terms, std::size_t n) {
    TermSequence prefix;
    prefix.element = terms.element;
    prefix.storage = terms.storage;
    prefix.floats.assign(terms.floats.begin(),
                         terms.floats.begin() + static_cast<std::ptrdiff_t>(n));
    return prefix;
}

} // namespace

std::vector<AccumulationWorkload> accumulationWorkloads() {
    return {{"positive terms (the sum settles)", "uniform:0:1"},
            {"zero-mean terms (the sum wanders across binades)", "normal:0:1"}};
}

std::string accumulationBenchTerms() {
    return std::string(kElement) + " values";
}

namespace {

// The rows of one workload: every accumulator against the plain loop, and with `exactSum`
// the superaccumulator against memcpy. False when the terms cannot be made.
bool benchWorkload(const AccumulationWorkload& workload, const AccumulationBenchRequest& request,
                   bool exactSum, const std::function<void(const std::string&)>& step,
                   const std::atomic<bool>* cancel, std::vector<AccumulationBenchRow>& rows) {
    const FormatSpec element = *findFormat(kElement).spec;
    std::string error;
    const auto distribution = parseTermDistribution(workload.distribution, error);
    if (!distribution)
        return false;
    const auto made = makeTerms(*distribution, request.terms, element, 1, error);
    if (!made)
        return false;
    const TermSequence& terms = *made;
    const TermSequence prefix = prefixOf(terms, std::min(kVerifiedPrefix, terms.size()));
    const float* data = terms.floats.data();
    const std::size_t n = terms.size();
    volatile float sink = 0;
    const auto plainLoop = [&] { sink = plainFloatSum(data, n); };

    for (const char* id : {"fp16", "bf16", "fp8_e4m3"}) {
        if (cancel && cancel->load())
            return true;
        AccumulationOptions options;
        options.element = element;
        options.accumulator = *findFormat(id).spec;
        AccumulationBenchRow row;
        row.what = options.accumulator.id + " sequential";
        row.format = options.accumulator.id;
        row.workload = workload.label;
        row.reference = "float loop";
        row.goal = 0.25;
        step("verifying " + row.what + ", " + workload.label);
        const AccumulationResult fast = accumulate(prefix, options);
        options.exactCoreOnly = true;
        const AccumulationResult exact = accumulate(prefix, options);
        options.exactCoreOnly = false;
        row.path = fast.path;
        row.verified = fast.fastPath && fast.sum.isIdenticalTo(exact.sum);
        row.checked = prefix.size();
        if (!row.verified)
            row.note = "on the first " + std::to_string(prefix.size()) +
                       " terms the hardware path's sum differs from the exact core's";
        step("timing " + row.what + ", " + workload.label);
        options.exactReference = false;
        volatile bool keep = false;
        const StatisticsAlongside t =
            measureAlongside([&] { keep = accumulate(terms, options).sum.isZero(); }, plainLoop,
                             request.plan, cancel);
        (void)keep;
        row.time = t.body;
        row.referenceTime = t.reference;
        rows.push_back(row);
    }

    if (!exactSum || (cancel && cancel->load()))
        return true;
    AccumulationBenchRow row;
    row.what = "exact sum";
    row.format = "exact";
    row.workload = workload.label;
    row.path = "superaccumulator";
    row.reference = "memcpy";
    row.goal = 0.1;
    step("verifying the exact sum");
    ExactValue reference;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        reference = reference + prefix.at(i);
    row.verified = exactSums(prefix).total.isIdenticalTo(reference);
    row.checked = prefix.size();
    if (!row.verified)
        row.note = "the superaccumulator differs from a sum of exact values";
    std::vector<float> copy(n);
    step("timing the exact sum");
    volatile bool keep = false;
    const StatisticsAlongside t = measureAlongside(
        [&] { keep = exactSums(terms).total.isZero(); },
        [&] { std::memcpy(copy.data(), data, n * sizeof(float)); }, request.plan, cancel);
    (void)keep;
    row.time = t.body;
    row.referenceTime = t.reference;
    rows.push_back(row);
    return true;
}

} // namespace

std::vector<AccumulationBenchRow>
runAccumulationBench(const AccumulationBenchRequest& request,
                     const std::function<void(double, const std::string&)>& progress,
                     const std::atomic<bool>* cancel) {
    std::vector<AccumulationBenchRow> rows;
    const std::vector<AccumulationWorkload> workloads = accumulationWorkloads();
    // Three accumulators a workload, and the exact sum once, on the first.
    const double steps = 3.0 * static_cast<double>(workloads.size()) + 1;
    double done = 0;
    const auto step = [&](const std::string& what) {
        if (progress)
            progress(std::min(1.0, done / steps), what);
        if (what.rfind("timing", 0) == 0)
            ++done;
    };
    for (std::size_t w = 0; w < workloads.size(); ++w) {
        if (cancel && cancel->load())
            break;
        // One workload's terms at a time: 10^8 floats are 400 MB.
        if (!benchWorkload(workloads[w], request, w == 0, step, cancel, rows))
            return rows;
    }
    for (AccumulationBenchRow& r : rows) {
        if (r.time.median > 0)
            r.termsPerSecond = static_cast<double>(request.terms) / r.time.median;
        if (r.referenceTime.median > 0)
            r.referenceTermsPerSecond = static_cast<double>(request.terms) / r.referenceTime.median;
        if (r.time.median > 0)
            r.ratio = r.referenceTime.median / r.time.median;
    }
    if (progress)
        progress(1, "accumulation done");
    return rows;
}

} // namespace fpx::bench
