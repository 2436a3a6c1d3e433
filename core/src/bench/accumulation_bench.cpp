// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/accumulation_bench.h"

#include "fpx/accumulation.h"
#include "fpx/format_catalogue.h"

#include <algorithm>
#include <cstring>

namespace fpx::bench {

namespace {

// FP8 E4M3 values are FP16 and BF16 values too, so one array of them serves every
// accumulator, and the plain loop adds exactly the same floats. Uniform on [0, 1), positive as
// sums of squares or of probabilities are: each sum grows until it stagnates (at 2048 in FP16,
// 256 in BF16, 16 in E4M3), the regime in which a long low-precision sum spends most of its
// terms, and it never overflows (which would send every later addition through the exact core).
// Sums that keep crossing binades take the bit trick more often and run slower; the design
// document says so.
constexpr const char* kElement = "fp8_e4m3";
constexpr const char* kDistribution = "uniform:0:1";
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

std::string accumulationBenchTerms() {
    return std::string(kElement) + " values, " + kDistribution;
}

std::vector<AccumulationBenchRow>
runAccumulationBench(const AccumulationBenchRequest& request,
                     const std::function<void(double, const std::string&)>& progress,
                     const std::atomic<bool>* cancel) {
    std::vector<AccumulationBenchRow> rows;
    const FormatSpec element = *findFormat(kElement).spec;
    std::string error;
    const auto distribution = parseTermDistribution(kDistribution, error);
    const auto made = makeTerms(*distribution, request.terms, element, 1, error);
    if (!made)
        return rows;
    const TermSequence& terms = *made;
    const TermSequence prefix = prefixOf(terms, std::min(kVerifiedPrefix, terms.size()));
    const float* data = terms.floats.data();
    const std::size_t n = terms.size();
    volatile float sink = 0;
    const auto plainLoop = [&] { sink = plainFloatSum(data, n); };

    const char* accumulators[] = {"fp16", "bf16", "fp8_e4m3"};
    const double steps = std::size(accumulators) + 1;
    double step = 0;
    for (const char* id : accumulators) {
        if (cancel && cancel->load())
            return rows;
        AccumulationOptions options;
        options.element = element;
        options.accumulator = *findFormat(id).spec;
        AccumulationBenchRow row;
        row.what = options.accumulator.id + " sequential";
        row.reference = "float loop";
        row.goal = 0.25;
        if (progress)
            progress(step / steps, "verifying " + row.what);
        const AccumulationResult fast = accumulate(prefix, options);
        options.exactCoreOnly = true;
        const AccumulationResult exact = accumulate(prefix, options);
        options.exactCoreOnly = false;
        row.path = fast.path;
        row.verified = fast.fastPath && fast.sum.isIdenticalTo(exact.sum);
        if (!row.verified)
            row.note = "on the first " + std::to_string(prefix.size()) +
                       " terms the hardware path's sum differs from the exact core's";
        if (progress)
            progress(step / steps, "timing " + row.what);
        options.exactReference = false;
        volatile bool keep = false;
        const StatisticsAlongside t =
            measureAlongside([&] { keep = accumulate(terms, options).sum.isZero(); }, plainLoop,
                             request.plan, cancel);
        (void)keep;
        row.time = t.body;
        row.referenceTime = t.reference;
        rows.push_back(row);
        ++step;
    }

    if (cancel && cancel->load())
        return rows;
    AccumulationBenchRow row;
    row.what = "exact sum";
    row.path = "superaccumulator";
    row.reference = "memcpy";
    row.goal = 0.1;
    if (progress)
        progress(step / steps, "verifying the exact sum");
    ExactValue reference;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        reference = reference + prefix.at(i);
    row.verified = exactSums(prefix).total.isIdenticalTo(reference);
    if (!row.verified)
        row.note = "the superaccumulator differs from a sum of exact values";
    std::vector<float> copy(n);
    if (progress)
        progress(step / steps, "timing the exact sum");
    volatile bool keep = false;
    const StatisticsAlongside t = measureAlongside(
        [&] { keep = exactSums(terms).total.isZero(); },
        [&] { std::memcpy(copy.data(), data, n * sizeof(float)); }, request.plan, cancel);
    (void)keep;
    row.time = t.body;
    row.referenceTime = t.reference;
    rows.push_back(row);

    for (AccumulationBenchRow& r : rows) {
        if (r.time.median > 0)
            r.termsPerSecond = static_cast<double>(n) / r.time.median;
        if (r.referenceTime.median > 0)
            r.referenceTermsPerSecond = static_cast<double>(n) / r.referenceTime.median;
        if (r.time.median > 0)
            r.ratio = r.referenceTime.median / r.time.median;
    }
    if (progress)
        progress(1, "accumulation done");
    return rows;
}

} // namespace fpx::bench
