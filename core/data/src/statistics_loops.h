// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "element_widening.h"

#include <cstddef>
#include <cstdint>

// The loops behind tensorStatistics, compiled once per instruction set
// (statistics_loops_avx512.cpp, statistics_loops_avx2.cpp, statistics_loops_baseline.cpp, each
// including statistics_loops_body.h with floating-point contraction off): every copy does the
// same arithmetic in the same order, so they give the same bits, and the fastest the CPU runs is
// chosen at run time. The order: docs/design.md, "Tensor statistics"; its error bound:
// docs/behaviour.md, "Tensor files".

namespace fpx::tensor_file {

// A piece's element j goes to lane j mod kStatisticsLanes; a piece is kStatisticsPiece
// consecutive elements of a tensor (the last one shorter), small enough to stay in the first
// level cache between the loop's two passes over it.
constexpr std::size_t kStatisticsLanes = 8;
constexpr std::size_t kStatisticsPiece = 4096;

// The figures of a run of elements: one piece, or pieces met (tensor_statistics.cpp). The sums
// are of x · 2^−scale, so that FP64 values near the top of double's range neither overflow nor
// lose their squares (scale is 0 for FP32 values, whose sums and squares always fit).
struct StatisticsFigures {
    // Σx as the unevaluated sum sum + sumError: sum is the two-sum tree's running total,
    // sumError the rounding errors it made, added up.
    double sum = 0;
    double sumError = 0;
    // What the deviations are taken from: (sum + sumError) / finite, rounded twice.
    double center = 0;
    double squares = 0; // Σ(x − center)²
    int scale = 0;
    std::size_t finite = 0, zeros = 0, nans = 0, infs = 0;
    double min = 0, max = 0; // of the finite values, unscaled, −0 below +0; 0 when none
};

// The center of `finite` values whose sum is sum + sumError: the same two roundings in every
// copy of the loops and where figures meet. (Internal linkage here and below: each instruction
// set's copy keeps its own, so that no AVX-512 code is linked into the baseline loops.)
static inline double statisticsCenter(double sum, double sumError, std::size_t finite) {
    return finite == 0 ? 0.0 : (sum + sumError) / static_cast<double>(finite);
}

// A partial sum (sum, sumError) followed by a later one: the sums met by two-sum, the errors
// added, the new rounding error last.
static inline void meetStatisticsSums(double& sum, double& sumError, double laterSum,
                                      double laterError) {
    const double s = sum + laterSum;
    const double b = s - sum;
    const double t = (sum - (s - b)) + (laterSum - b);
    sumError = (sumError + laterError) + t;
    sum = s;
}

struct StatisticsLoops {
    const char* isaName; // "AVX-512", "AVX2", "baseline"
    // One piece of count ≤ kStatisticsPiece values; scale 0.
    void (*floats)(const float* x, std::size_t count, StatisticsFigures& figures);
    // One piece of FP64 values, scaled by 2^−scale with scale the binade of the piece's largest
    // finite magnitude (at least −1022, so that 2^−scale is a double).
    void (*doubles)(const double* x, std::size_t count, StatisticsFigures& figures);
    // n stored elements of `type` (not F64) as FP32, a piece at a time before `floats`: exact
    // for every value but NaN, which stays a NaN of its sign, its payload perhaps not
    // widenToFloat's (the statistics only count NaNs).
    void (*widen)(ElementType type, const std::uint8_t* src, std::size_t n, float* dst);
};

const StatisticsLoops& baselineStatisticsLoops();
const StatisticsLoops* avx2StatisticsLoops(); // nullptr where not built (not x86-64)
const StatisticsLoops* avx512StatisticsLoops();
// The fastest copy this CPU runs, within FPX_MAX_ISA (avx2, baseline) as fpx_kernels reads it.
const StatisticsLoops& fastestStatisticsLoops();

} // namespace fpx::tensor_file
