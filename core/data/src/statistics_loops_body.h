// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The loops of statistics_loops.h, included by one file per instruction set and compiled with
// its flags and -ffp-contract=off (a fused multiply-add in one copy and not another would change
// the bits): internal linkage, so the copies never mix. The FP32 piece, what inspecting a model
// mostly runs, is in intrinsics for AVX-512 and AVX2, the same operations lane for lane as the
// plain code over arrays of eight lanes that the baseline copy, the FP64 piece and the last
// elements of every loop run.

#include "statistics_loops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif
#if defined(__AVX512F__) && defined(__AVX512DQ__)
// GCC's AVX-512 intrinsics start their results from an undefined vector, which it then
// reports as maybe uninitialized once they are inlined; nothing here reads such a value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace {

using namespace fpx::tensor_file;

constexpr std::size_t kLanes = kStatisticsLanes;

// Keys in which signed integer order is the order of the values, −0 below +0: a negative
// value's magnitude bits are flipped. The map is its own inverse.
inline std::int32_t orderKey(std::int32_t bits) {
    return bits ^ static_cast<std::int32_t>(static_cast<std::uint32_t>(bits >> 31) >> 1);
}
inline std::int64_t orderKey(std::int64_t bits) {
    return bits ^ static_cast<std::int64_t>(static_cast<std::uint64_t>(bits >> 63) >> 1);
}

// The running sums of the lanes: each adds its values by two-sum, keeping the sum and the sum
// of the rounding errors.
struct SumLanes {
    alignas(64) double sum[kLanes] = {};
    alignas(64) double error[kLanes] = {};

    void add(std::size_t j, double v) {
        const double s = sum[j] + v;
        const double b = s - sum[j];
        error[j] += (sum[j] - (s - b)) + (v - b);
        sum[j] = s;
    }
};

// The lanes met as ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)): what one register of eight
// doubles does folded in halves, or two of four, or eight scalars.
void meetSumLanes(const SumLanes& lanes, double& sum, double& error) {
    double s[kLanes], e[kLanes];
    for (std::size_t j = 0; j < kLanes; ++j) {
        s[j] = lanes.sum[j];
        e[j] = lanes.error[j];
    }
    for (std::size_t half = kLanes / 2; half > 0; half /= 2)
        for (std::size_t j = 0; j < half; ++j)
            meetStatisticsSums(s[j], e[j], s[j + half], e[j + half]);
    sum = s[0];
    error = e[0];
}

double meetSquares(const double (&lanes)[kLanes]) {
    double v[kLanes];
    for (std::size_t j = 0; j < kLanes; ++j)
        v[j] = lanes[j];
    for (std::size_t half = kLanes / 2; half > 0; half /= 2)
        for (std::size_t j = 0; j < half; ++j)
            v[j] = v[j] + v[j + half];
    return v[0];
}

// Counts and extremes: exact, so their order is free; kept in lanes for the vectoriser.
template <typename Key> struct TallyLanes {
    Key minKey[kLanes], maxKey[kLanes];
    std::uint32_t finite[kLanes] = {}, zeros[kLanes] = {}, nans[kLanes] = {};

    TallyLanes() {
        for (std::size_t j = 0; j < kLanes; ++j) {
            minKey[j] = std::numeric_limits<Key>::max();
            maxKey[j] = std::numeric_limits<Key>::min();
        }
    }
    // `magnitude`: the bits without the sign; `infinity`: those of +∞.
    void add(std::size_t j, Key bits, Key magnitude, Key infinity) {
        const bool isFinite = magnitude < infinity;
        const Key key = orderKey(bits);
        minKey[j] = std::min(minKey[j], isFinite ? key : std::numeric_limits<Key>::max());
        maxKey[j] = std::max(maxKey[j], isFinite ? key : std::numeric_limits<Key>::min());
        finite[j] += static_cast<std::uint32_t>(isFinite);
        zeros[j] += static_cast<std::uint32_t>(magnitude == 0);
        nans[j] += static_cast<std::uint32_t>(magnitude > infinity);
    }
    template <typename Value> void met(std::size_t count, StatisticsFigures& figures) const {
        Key low = minKey[0], high = maxKey[0];
        for (std::size_t j = 0; j < kLanes; ++j) {
            low = minKey[j] < low ? minKey[j] : low;
            high = maxKey[j] > high ? maxKey[j] : high;
            figures.finite += finite[j];
            figures.zeros += zeros[j];
            figures.nans += nans[j];
        }
        figures.infs = count - figures.finite - figures.nans;
        if (figures.finite > 0) {
            figures.min = static_cast<double>(std::bit_cast<Value>(orderKey(low)));
            figures.max = static_cast<double>(std::bit_cast<Value>(orderKey(high)));
        }
    }
};

constexpr std::int32_t kFloatMagnitude = 0x7fffffff;
constexpr std::int32_t kFloatInfinity = 0x7f800000;
constexpr std::int64_t kDoubleMagnitude = 0x7fffffffffffffff;
constexpr std::int64_t kDoubleInfinity = 0x7ff0000000000000;

inline bool isFiniteFloat(float x) {
    return (std::bit_cast<std::int32_t>(x) & kFloatMagnitude) < kFloatInfinity;
}
inline bool isFiniteDouble(double x) {
    return (std::bit_cast<std::int64_t>(x) & kDoubleMagnitude) < kDoubleInfinity;
}
// v where `keep`, +0 otherwise, by masking the bits: the vectoriser takes it where a branch
// would stop it.
inline double keptOrZero(bool keep, double v) {
    const auto mask = -static_cast<std::int64_t>(keep);
    return std::bit_cast<double>(std::bit_cast<std::int64_t>(v) & mask);
}
inline double finiteOrZero(float x) {
    return keptOrZero(isFiniteFloat(x), double(x));
}

// The center, once the lanes' sums have met.
void centerFigures(StatisticsFigures& figures) {
    figures.center = statisticsCenter(figures.sum, figures.sumError, figures.finite);
}

// The FP32 loops as plain code, one pass per figure (the piece is in cache after the first):
// what the baseline copy runs, and the last elements after each vector loop.
void floatTally(const float* x, std::size_t first, std::size_t count,
                TallyLanes<std::int32_t>& tally) {
    std::size_t i = first;
    for (; i + kLanes <= count; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j) {
            const auto bits = std::bit_cast<std::int32_t>(x[i + j]);
            tally.add(j, bits, bits & kFloatMagnitude, kFloatInfinity);
        }
    for (std::size_t j = 0; i + j < count; ++j) {
        const auto bits = std::bit_cast<std::int32_t>(x[i + j]);
        tally.add(j, bits, bits & kFloatMagnitude, kFloatInfinity);
    }
}

void floatSums(const float* x, std::size_t first, std::size_t count, SumLanes& lanes) {
    std::size_t i = first;
    for (; i + kLanes <= count; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j)
            lanes.add(j, finiteOrZero(x[i + j]));
    for (std::size_t j = 0; i + j < count; ++j)
        lanes.add(j, finiteOrZero(x[i + j]));
}

void floatSquares(const float* x, std::size_t first, std::size_t count, double center,
                  double (&lanes)[kLanes]) {
    double squares[kLanes];
    for (std::size_t j = 0; j < kLanes; ++j)
        squares[j] = lanes[j];
    const auto add = [&](std::size_t j, float v) {
        const double d = keptOrZero(isFiniteFloat(v), double(v) - center);
        squares[j] += d * d;
    };
    std::size_t i = first;
    for (; i + kLanes <= count; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j)
            add(j, x[i + j]);
    for (std::size_t j = 0; i + j < count; ++j)
        add(j, x[i + j]);
    for (std::size_t j = 0; j < kLanes; ++j)
        lanes[j] = squares[j];
}

#if defined(__AVX512F__) && defined(__AVX512DQ__)

// Eight lanes in one register: SumLanes::add on eight elements at once.
inline void addSums(__m512d& sum, __m512d& error, __m512d v) {
    const __m512d s = _mm512_add_pd(sum, v);
    const __m512d b = _mm512_sub_pd(s, sum);
    error = _mm512_add_pd(
        error, _mm512_add_pd(_mm512_sub_pd(sum, _mm512_sub_pd(s, b)), _mm512_sub_pd(v, b)));
    sum = s;
}

// The tally and the sums in one pass (the one that reads memory), sixteen elements at a time:
// i … i + 7 go to lanes 0 … 7, then i + 8 … i + 15 to the same lanes.
void floatPiece(const float* x, std::size_t count, StatisticsFigures& figures) {
    const __m512i magnitudeMask = _mm512_set1_epi32(kFloatMagnitude);
    const __m512i infinity = _mm512_set1_epi32(kFloatInfinity);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi32(1);
    __m512i minKey = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max());
    __m512i maxKey = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min());
    __m512i finiteCount = zero, zeroCount = zero, nanCount = zero;
    __m512d sum = _mm512_setzero_pd(), error = _mm512_setzero_pd();
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 values = _mm512_loadu_ps(x + i);
        const __m512i bits = _mm512_castps_si512(values);
        const __m512i magnitude = _mm512_and_si512(bits, magnitudeMask);
        const __mmask16 finite = _mm512_cmplt_epi32_mask(magnitude, infinity);
        finiteCount = _mm512_mask_add_epi32(finiteCount, finite, finiteCount, one);
        zeroCount = _mm512_mask_add_epi32(zeroCount, _mm512_cmpeq_epi32_mask(magnitude, zero),
                                          zeroCount, one);
        nanCount = _mm512_mask_add_epi32(nanCount, _mm512_cmpgt_epi32_mask(magnitude, infinity),
                                         nanCount, one);
        const __m512i key =
            _mm512_xor_si512(bits, _mm512_srli_epi32(_mm512_srai_epi32(bits, 31), 1));
        minKey = _mm512_mask_min_epi32(minKey, finite, minKey, key);
        maxKey = _mm512_mask_max_epi32(maxKey, finite, maxKey, key);
        addSums(
            sum, error,
            _mm512_maskz_cvtps_pd(static_cast<__mmask8>(finite), _mm512_castps512_ps256(values)));
        addSums(sum, error,
                _mm512_maskz_cvtps_pd(static_cast<__mmask8>(finite >> 8),
                                      _mm512_extractf32x8_ps(values, 1)));
    }
    SumLanes sums;
    _mm512_store_pd(sums.sum, sum);
    _mm512_store_pd(sums.error, error);
    TallyLanes<std::int32_t> tally;
    alignas(64) std::int32_t lows[16], highs[16];
    alignas(64) std::uint32_t finites[16], zeros[16], nans[16];
    _mm512_store_si512(lows, minKey);
    _mm512_store_si512(highs, maxKey);
    _mm512_store_si512(finites, finiteCount);
    _mm512_store_si512(zeros, zeroCount);
    _mm512_store_si512(nans, nanCount);
    for (std::size_t j = 0; j < 16; ++j) {
        const std::size_t lane = j % kLanes;
        tally.minKey[lane] = lows[j] < tally.minKey[lane] ? lows[j] : tally.minKey[lane];
        tally.maxKey[lane] = highs[j] > tally.maxKey[lane] ? highs[j] : tally.maxKey[lane];
        tally.finite[lane] += finites[j];
        tally.zeros[lane] += zeros[j];
        tally.nans[lane] += nans[j];
    }
    floatTally(x, i, count, tally);
    floatSums(x, i, count, sums);
    tally.met<float>(count, figures);
    meetSumLanes(sums, figures.sum, figures.sumError);
    centerFigures(figures);

    // The second pass, in cache.
    const __m512d center = _mm512_set1_pd(figures.center);
    __m512d squares = _mm512_setzero_pd();
    i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 values = _mm512_loadu_ps(x + i);
        const __m512i magnitude = _mm512_and_si512(_mm512_castps_si512(values), magnitudeMask);
        const __mmask16 finite = _mm512_cmplt_epi32_mask(magnitude, infinity);
        const __m512d low = _mm512_maskz_sub_pd(
            static_cast<__mmask8>(finite), _mm512_cvtps_pd(_mm512_castps512_ps256(values)), center);
        squares = _mm512_add_pd(squares, _mm512_mul_pd(low, low));
        const __m512d high =
            _mm512_maskz_sub_pd(static_cast<__mmask8>(finite >> 8),
                                _mm512_cvtps_pd(_mm512_extractf32x8_ps(values, 1)), center);
        squares = _mm512_add_pd(squares, _mm512_mul_pd(high, high));
    }
    alignas(64) double lanes[kLanes];
    _mm512_store_pd(lanes, squares);
    floatSquares(x, i, count, figures.center, lanes);
    figures.squares = meetSquares(lanes);
}

#elif defined(__AVX2__)

// Eight lanes in two registers of four: SumLanes::add on eight elements at once.
inline void addSums(__m256d& sum, __m256d& error, __m256d v) {
    const __m256d s = _mm256_add_pd(sum, v);
    const __m256d b = _mm256_sub_pd(s, sum);
    error = _mm256_add_pd(
        error, _mm256_add_pd(_mm256_sub_pd(sum, _mm256_sub_pd(s, b)), _mm256_sub_pd(v, b)));
    sum = s;
}

// The tally and the sums in one pass (the one that reads memory), eight elements at a time:
// lanes 0 … 3 in one register, 4 … 7 in the other.
void floatPiece(const float* x, std::size_t count, StatisticsFigures& figures) {
    const __m256i magnitudeMask = _mm256_set1_epi32(kFloatMagnitude);
    const __m256i infinity = _mm256_set1_epi32(kFloatInfinity);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i none = _mm256_set1_epi32(std::numeric_limits<std::int32_t>::max());
    const __m256i noneHigh = _mm256_set1_epi32(std::numeric_limits<std::int32_t>::min());
    __m256i minKey = none, maxKey = noneHigh;
    __m256i finiteCount = zero, zeroCount = zero, nanCount = zero;
    __m256d sumLow = _mm256_setzero_pd(), errorLow = _mm256_setzero_pd();
    __m256d sumHigh = _mm256_setzero_pd(), errorHigh = _mm256_setzero_pd();
    std::size_t i = 0;
    for (; i + kLanes <= count; i += kLanes) {
        const __m256 values = _mm256_loadu_ps(x + i);
        const __m256i bits = _mm256_castps_si256(values);
        const __m256i magnitude = _mm256_and_si256(bits, magnitudeMask);
        const __m256i finite = _mm256_cmpgt_epi32(infinity, magnitude); // all ones where finite
        finiteCount = _mm256_sub_epi32(finiteCount, finite);
        zeroCount = _mm256_sub_epi32(zeroCount, _mm256_cmpeq_epi32(magnitude, zero));
        nanCount = _mm256_sub_epi32(nanCount, _mm256_cmpgt_epi32(magnitude, infinity));
        const __m256i key =
            _mm256_xor_si256(bits, _mm256_srli_epi32(_mm256_srai_epi32(bits, 31), 1));
        minKey = _mm256_min_epi32(minKey, _mm256_blendv_epi8(none, key, finite));
        maxKey = _mm256_max_epi32(maxKey, _mm256_blendv_epi8(noneHigh, key, finite));
        const __m256 kept = _mm256_and_ps(values, _mm256_castsi256_ps(finite));
        addSums(sumLow, errorLow, _mm256_cvtps_pd(_mm256_castps256_ps128(kept)));
        addSums(sumHigh, errorHigh, _mm256_cvtps_pd(_mm256_extractf128_ps(kept, 1)));
    }
    SumLanes sums;
    _mm256_store_pd(sums.sum, sumLow);
    _mm256_store_pd(sums.sum + 4, sumHigh);
    _mm256_store_pd(sums.error, errorLow);
    _mm256_store_pd(sums.error + 4, errorHigh);
    TallyLanes<std::int32_t> tally;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tally.minKey), minKey);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tally.maxKey), maxKey);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tally.finite), finiteCount);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tally.zeros), zeroCount);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tally.nans), nanCount);
    floatTally(x, i, count, tally);
    floatSums(x, i, count, sums);
    tally.met<float>(count, figures);
    meetSumLanes(sums, figures.sum, figures.sumError);
    centerFigures(figures);

    // The second pass, in cache.
    const __m256d center = _mm256_set1_pd(figures.center);
    __m256d squaresLow = _mm256_setzero_pd(), squaresHigh = _mm256_setzero_pd();
    for (i = 0; i + kLanes <= count; i += kLanes) {
        const __m256 values = _mm256_loadu_ps(x + i);
        const __m256i finite = _mm256_cmpgt_epi32(
            infinity, _mm256_and_si256(_mm256_castps_si256(values), magnitudeMask));
        const __m256d low = _mm256_and_pd(
            _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(values)), center),
            _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(finite))));
        const __m256d high = _mm256_and_pd(
            _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(values, 1)), center),
            _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(finite, 1))));
        squaresLow = _mm256_add_pd(squaresLow, _mm256_mul_pd(low, low));
        squaresHigh = _mm256_add_pd(squaresHigh, _mm256_mul_pd(high, high));
    }
    alignas(32) double lanes[kLanes];
    _mm256_store_pd(lanes, squaresLow);
    _mm256_store_pd(lanes + 4, squaresHigh);
    floatSquares(x, i, count, figures.center, lanes);
    figures.squares = meetSquares(lanes);
}

#else

void floatPiece(const float* x, std::size_t count, StatisticsFigures& figures) {
    TallyLanes<std::int32_t> tally;
    floatTally(x, 0, count, tally);
    tally.met<float>(count, figures);
    SumLanes sums;
    floatSums(x, 0, count, sums);
    meetSumLanes(sums, figures.sum, figures.sumError);
    centerFigures(figures);
    double squares[kLanes] = {};
    floatSquares(x, 0, count, figures.center, squares);
    figures.squares = meetSquares(squares);
}

#endif

// FP64 as plain code from element `first` (a multiple of 8) on: the tally, the sums of
// x · factor, the squares of x · factor − center.
void doubleTally(const double* x, std::size_t first, std::size_t count,
                 TallyLanes<std::int64_t>& tally) {
    const auto add = [&](std::size_t j, double v) {
        const auto bits = std::bit_cast<std::int64_t>(v);
        tally.add(j, bits, bits & kDoubleMagnitude, kDoubleInfinity);
    };
    std::size_t i = first;
    for (; i + kLanes <= count; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j)
            add(j, x[i + j]);
    for (std::size_t j = 0; i + j < count; ++j)
        add(j, x[i + j]);
}

void doubleSums(const double* x, std::size_t first, std::size_t count, double factor,
                SumLanes& sums) {
    const auto add = [&](std::size_t j, double v) {
        sums.add(j, keptOrZero(isFiniteDouble(v), v * factor));
    };
    std::size_t i = first;
    for (; i + kLanes <= count; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j)
            add(j, x[i + j]);
    for (std::size_t j = 0; i + j < count; ++j)
        add(j, x[i + j]);
}

void doubleSquares(const double* x, std::size_t first, std::size_t count, double factor,
                   double center, double (&squares)[kLanes]) {
    const auto add = [&](std::size_t j, double v) {
        const double d = keptOrZero(isFiniteDouble(v), v * factor - center);
        squares[j] += d * d;
    };
    std::size_t i = first;
    for (; i + kLanes <= count; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j)
            add(j, x[i + j]);
    for (std::size_t j = 0; i + j < count; ++j)
        add(j, x[i + j]);
}

#if defined(__AVX512F__) && defined(__AVX512DQ__)

// The FP64 loops eight elements (the eight lanes) at a time; each returns where it stopped.
std::size_t doubleTallyVector(const double* x, std::size_t count, TallyLanes<std::int64_t>& tally) {
    const __m512i magnitudeMask = _mm512_set1_epi64(kDoubleMagnitude);
    const __m512i infinity = _mm512_set1_epi64(kDoubleInfinity);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi64(1);
    __m512i minKey = _mm512_set1_epi64(std::numeric_limits<std::int64_t>::max());
    __m512i maxKey = _mm512_set1_epi64(std::numeric_limits<std::int64_t>::min());
    __m512i finiteCount = zero, zeroCount = zero, nanCount = zero;
    std::size_t i = 0;
    for (; i + kLanes <= count; i += kLanes) {
        const __m512i bits = _mm512_castpd_si512(_mm512_loadu_pd(x + i));
        const __m512i magnitude = _mm512_and_si512(bits, magnitudeMask);
        const __mmask8 finite = _mm512_cmplt_epi64_mask(magnitude, infinity);
        finiteCount = _mm512_mask_add_epi64(finiteCount, finite, finiteCount, one);
        zeroCount = _mm512_mask_add_epi64(zeroCount, _mm512_cmpeq_epi64_mask(magnitude, zero),
                                          zeroCount, one);
        nanCount = _mm512_mask_add_epi64(nanCount, _mm512_cmpgt_epi64_mask(magnitude, infinity),
                                         nanCount, one);
        const __m512i key =
            _mm512_xor_si512(bits, _mm512_srli_epi64(_mm512_srai_epi64(bits, 63), 1));
        minKey = _mm512_mask_min_epi64(minKey, finite, minKey, key);
        maxKey = _mm512_mask_max_epi64(maxKey, finite, maxKey, key);
    }
    alignas(64) std::int64_t finites[kLanes], zeros[kLanes], nans[kLanes];
    _mm512_storeu_si512(tally.minKey, minKey);
    _mm512_storeu_si512(tally.maxKey, maxKey);
    _mm512_store_si512(finites, finiteCount);
    _mm512_store_si512(zeros, zeroCount);
    _mm512_store_si512(nans, nanCount);
    for (std::size_t j = 0; j < kLanes; ++j) {
        tally.finite[j] += static_cast<std::uint32_t>(finites[j]);
        tally.zeros[j] += static_cast<std::uint32_t>(zeros[j]);
        tally.nans[j] += static_cast<std::uint32_t>(nans[j]);
    }
    return i;
}

inline __mmask8 finiteDoubles(__m512d v) {
    return _mm512_cmplt_epi64_mask(
        _mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(kDoubleMagnitude)),
        _mm512_set1_epi64(kDoubleInfinity));
}

std::size_t doubleSumsVector(const double* x, std::size_t count, double factor, SumLanes& sums) {
    const __m512d scale = _mm512_set1_pd(factor);
    __m512d sum = _mm512_setzero_pd(), error = _mm512_setzero_pd();
    std::size_t i = 0;
    for (; i + kLanes <= count; i += kLanes) {
        const __m512d v = _mm512_loadu_pd(x + i);
        addSums(sum, error, _mm512_maskz_mul_pd(finiteDoubles(v), v, scale));
    }
    _mm512_store_pd(sums.sum, sum);
    _mm512_store_pd(sums.error, error);
    return i;
}

std::size_t doubleSquaresVector(const double* x, std::size_t count, double factor, double center,
                                double (&lanes)[kLanes]) {
    const __m512d scale = _mm512_set1_pd(factor);
    const __m512d c = _mm512_set1_pd(center);
    __m512d squares = _mm512_setzero_pd();
    std::size_t i = 0;
    for (; i + kLanes <= count; i += kLanes) {
        const __m512d v = _mm512_loadu_pd(x + i);
        const __m512d d = _mm512_maskz_sub_pd(finiteDoubles(v), _mm512_mul_pd(v, scale), c);
        squares = _mm512_add_pd(squares, _mm512_mul_pd(d, d));
    }
    _mm512_storeu_pd(lanes, squares);
    return i;
}

#elif defined(__AVX2__)

// The FP64 loops eight elements (the eight lanes, four to a register) at a time; each returns
// where it stopped. AVX2 has no 64-bit arithmetic shift, min or max: the sign comes from a
// compare with zero, and min and max from compares and blends.
std::size_t doubleTallyVector(const double* x, std::size_t count, TallyLanes<std::int64_t>& tally) {
    const __m256i magnitudeMask = _mm256_set1_epi64x(kDoubleMagnitude);
    const __m256i infinity = _mm256_set1_epi64x(kDoubleInfinity);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i none = _mm256_set1_epi64x(std::numeric_limits<std::int64_t>::max());
    const __m256i noneHigh = _mm256_set1_epi64x(std::numeric_limits<std::int64_t>::min());
    __m256i minKey[2] = {none, none}, maxKey[2] = {noneHigh, noneHigh};
    __m256i finiteCount[2] = {zero, zero}, zeroCount[2] = {zero, zero}, nanCount[2] = {zero, zero};
    std::size_t i = 0;
    for (; i + kLanes <= count; i += kLanes)
        for (int h = 0; h < 2; ++h) {
            const __m256i bits = _mm256_castpd_si256(_mm256_loadu_pd(x + i + 4 * h));
            const __m256i magnitude = _mm256_and_si256(bits, magnitudeMask);
            const __m256i finite = _mm256_cmpgt_epi64(infinity, magnitude);
            finiteCount[h] = _mm256_sub_epi64(finiteCount[h], finite);
            zeroCount[h] = _mm256_sub_epi64(zeroCount[h], _mm256_cmpeq_epi64(magnitude, zero));
            nanCount[h] = _mm256_sub_epi64(nanCount[h], _mm256_cmpgt_epi64(magnitude, infinity));
            const __m256i key =
                _mm256_xor_si256(bits, _mm256_srli_epi64(_mm256_cmpgt_epi64(zero, bits), 1));
            const __m256i low = _mm256_blendv_epi8(none, key, finite);
            const __m256i high = _mm256_blendv_epi8(noneHigh, key, finite);
            minKey[h] = _mm256_blendv_epi8(minKey[h], low, _mm256_cmpgt_epi64(minKey[h], low));
            maxKey[h] = _mm256_blendv_epi8(maxKey[h], high, _mm256_cmpgt_epi64(high, maxKey[h]));
        }
    alignas(32) std::int64_t finites[kLanes], zeros[kLanes], nans[kLanes];
    for (int h = 0; h < 2; ++h) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(tally.minKey + 4 * h), minKey[h]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(tally.maxKey + 4 * h), maxKey[h]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(finites + 4 * h), finiteCount[h]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(zeros + 4 * h), zeroCount[h]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(nans + 4 * h), nanCount[h]);
    }
    for (std::size_t j = 0; j < kLanes; ++j) {
        tally.finite[j] += static_cast<std::uint32_t>(finites[j]);
        tally.zeros[j] += static_cast<std::uint32_t>(zeros[j]);
        tally.nans[j] += static_cast<std::uint32_t>(nans[j]);
    }
    return i;
}

inline __m256d finiteDoubles(__m256d v) {
    return _mm256_castsi256_pd(_mm256_cmpgt_epi64(
        _mm256_set1_epi64x(kDoubleInfinity),
        _mm256_and_si256(_mm256_castpd_si256(v), _mm256_set1_epi64x(kDoubleMagnitude))));
}

std::size_t doubleSumsVector(const double* x, std::size_t count, double factor, SumLanes& sums) {
    const __m256d scale = _mm256_set1_pd(factor);
    __m256d sum[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
    __m256d error[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
    std::size_t i = 0;
    for (; i + kLanes <= count; i += kLanes)
        for (int h = 0; h < 2; ++h) {
            const __m256d v = _mm256_loadu_pd(x + i + 4 * h);
            addSums(sum[h], error[h], _mm256_and_pd(_mm256_mul_pd(v, scale), finiteDoubles(v)));
        }
    for (int h = 0; h < 2; ++h) {
        _mm256_store_pd(sums.sum + 4 * h, sum[h]);
        _mm256_store_pd(sums.error + 4 * h, error[h]);
    }
    return i;
}

std::size_t doubleSquaresVector(const double* x, std::size_t count, double factor, double center,
                                double (&lanes)[kLanes]) {
    const __m256d scale = _mm256_set1_pd(factor);
    const __m256d c = _mm256_set1_pd(center);
    __m256d squares[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
    std::size_t i = 0;
    for (; i + kLanes <= count; i += kLanes)
        for (int h = 0; h < 2; ++h) {
            const __m256d v = _mm256_loadu_pd(x + i + 4 * h);
            const __m256d d =
                _mm256_and_pd(_mm256_sub_pd(_mm256_mul_pd(v, scale), c), finiteDoubles(v));
            squares[h] = _mm256_add_pd(squares[h], _mm256_mul_pd(d, d));
        }
    _mm256_storeu_pd(lanes, squares[0]);
    _mm256_storeu_pd(lanes + 4, squares[1]);
    return i;
}

#else

std::size_t doubleTallyVector(const double*, std::size_t, TallyLanes<std::int64_t>&) {
    return 0;
}
std::size_t doubleSumsVector(const double*, std::size_t, double, SumLanes&) {
    return 0;
}
std::size_t doubleSquaresVector(const double*, std::size_t, double, double, double (&)[kLanes]) {
    return 0;
}

#endif

// FP64: the tally first, for the scale; the sums of x · 2^−scale; the squares.
void doublePiece(const double* x, std::size_t count, StatisticsFigures& figures) {
    TallyLanes<std::int64_t> tally;
    doubleTally(x, doubleTallyVector(x, count, tally), count, tally);
    tally.met<double>(count, figures);
    const double largest = std::fmax(std::fabs(figures.min), std::fabs(figures.max));
    figures.scale = largest > 0 ? std::max(std::ilogb(largest), -1022) : 0;
    const double factor = std::ldexp(1.0, -figures.scale);

    SumLanes sums;
    doubleSums(x, doubleSumsVector(x, count, factor, sums), count, factor, sums);
    meetSumLanes(sums, figures.sum, figures.sumError);
    centerFigures(figures);

    double squares[kLanes] = {};
    doubleSquares(x, doubleSquaresVector(x, count, factor, figures.center, squares), count, factor,
                  figures.center, squares);
    figures.squares = meetSquares(squares);
}

#if defined(__AVX512F__) && defined(__AVX512DQ__)

// BF16 is the upper half of an FP32, FP16 converts exactly by vcvtph2ps, and E5M2 is the upper
// byte of an FP16; the rest (E4M3, the last elements) through widenToFloat's tables.
void widen(ElementType type, const std::uint8_t* src, std::size_t n, float* dst) {
    std::size_t i = 0;
    if (type == ElementType::BF16)
        for (; i + 16 <= n; i += 16) {
            const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i));
            _mm512_storeu_ps(dst + i,
                             _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
        }
    else if (type == ElementType::F16)
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(
                                          reinterpret_cast<const __m256i*>(src + 2 * i))));
    else if (type == ElementType::E5M2)
        for (; i + 16 <= n; i += 16) {
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
            _mm512_storeu_ps(dst + i,
                             _mm512_cvtph_ps(_mm256_slli_epi16(_mm256_cvtepu8_epi16(b), 8)));
        }
    widenToFloat(type, src + i * elementBytes(type), n - i, dst + i);
}

#elif defined(__AVX2__)

// BF16 is the upper half of an FP32; the rest through widenToFloat's tables (vcvtph2ps is
// F16C's, not part of this copy's instruction set).
void widen(ElementType type, const std::uint8_t* src, std::size_t n, float* dst) {
    std::size_t i = 0;
    if (type == ElementType::BF16)
        for (; i + 8 <= n; i += 8) {
            const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
            _mm256_storeu_ps(dst + i,
                             _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
        }
    widenToFloat(type, src + i * elementBytes(type), n - i, dst + i);
}

#else

void widen(ElementType type, const std::uint8_t* src, std::size_t n, float* dst) {
    widenToFloat(type, src, n, dst);
}

#endif

fpx::tensor_file::StatisticsLoops makeStatisticsLoops(const char* name) {
    return fpx::tensor_file::StatisticsLoops{name, &floatPiece, &doublePiece, &widen};
}

} // namespace
