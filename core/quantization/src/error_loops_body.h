// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The loops of error_loops.h, included by one file per instruction set and compiled with its
// flags and -ffp-contract=off (a fused multiply-add in one copy and not another would change
// the bits): internal linkage, so the copies never mix. Plain element code over arrays of eight
// lanes, for the compiler to vectorise without changing the order of any addition.

#include "error_loops.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#include <immintrin.h>
// GCC's AVX-512 intrinsics start their results from an undefined vector, which it then
// reports as maybe uninitialized once they are inlined; nothing here reads such a value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace {

using namespace fpx;
using fpx::kernels::CodeDecoding;
using fpx::kernels::CodeValues;

void scaledLookup(const std::uint8_t* codes, std::size_t count, const double* table, double scale,
                  double* values) {
    for (std::size_t i = 0; i < count; ++i)
        values[i] = table[codes[i]] * scale;
}

// The lanes as arrays (structure of arrays), so that each field is a few vectors.
struct Lanes {
    alignas(64) double signal[kErrorLanes] = {};
    alignas(64) double noise[kErrorLanes] = {};
    alignas(64) double maxAbsError[kErrorLanes] = {};
    alignas(64) std::size_t valid[kErrorLanes] = {};
    alignas(64) std::size_t nonFiniteOutputs[kErrorLanes] = {};
    alignas(64) std::size_t maxErrorIndex[kErrorLanes] = {};

    void add(std::size_t j, double x, double q, std::size_t index) {
        addErrorTerms(x, q, index, signal[j], noise[j], valid[j], nonFiniteOutputs[j],
                      maxAbsError[j], maxErrorIndex[j]);
    }
    ErrorSums met() const {
        ErrorLane lanes[kErrorLanes];
        for (std::size_t j = 0; j < kErrorLanes; ++j)
            lanes[j] = ErrorLane{signal[j],           noise[j],       valid[j],
                                 nonFiniteOutputs[j], maxAbsError[j], maxErrorIndex[j]};
        return meetLanes(lanes);
    }
};

template <typename X, typename Scaled>
ErrorSums pieceSums(const X* x, const double* q, std::size_t count, std::size_t first,
                    const Scaled& scaled) {
    Lanes lanes;
    std::size_t i = 0;
    for (; i + kErrorLanes <= count; i += kErrorLanes)
        for (std::size_t j = 0; j < kErrorLanes; ++j)
            lanes.add(j, scaled(x[i + j]), scaled(q[i + j]), first + i + j);
    for (std::size_t j = 0; i + j < count; ++j)
        lanes.add(j, scaled(x[i + j]), scaled(q[i + j]), first + i + j);
    return lanes.met();
}

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512BW__) && defined(__AVX512VL__)

// Eight lanes as one register each: addErrorTerms on eight elements at once, the same
// operations in the same order (a masked zero where the scalar code picks 0.0). Four of them
// hold the 32 lanes, element 8k + i going to register k mod 4.
struct VectorLanes {
    __m512d signal = _mm512_setzero_pd();
    __m512d noise = _mm512_setzero_pd();
    __m512d maxAbsError = _mm512_setzero_pd();
    __m512i valid = _mm512_setzero_si512();
    __m512i nonFiniteOutputs = _mm512_setzero_si512();
    __m512i maxErrorIndex = _mm512_setzero_si512();
    __m512i index;

    VectorLanes() = default;
    explicit VectorLanes(std::size_t first)
        : index(_mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first)),
                                 _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0))) {}

    void add(__m512d x, __m512d q) {
        const __m512d zero = _mm512_setzero_pd();
        const __m512i one = _mm512_set1_epi64(1);
        const __mmask8 finiteX = _mm512_cmp_pd_mask(_mm512_sub_pd(x, x), zero, _CMP_EQ_OQ);
        const __mmask8 finiteQ = _mm512_cmp_pd_mask(_mm512_sub_pd(q, q), zero, _CMP_EQ_OQ);
        const __mmask8 ok = finiteX & finiteQ;
        const __m512d d = _mm512_maskz_sub_pd(ok, x, q);
        const __m512d xx = _mm512_maskz_mul_pd(ok, x, x);
        const __m512d dd = _mm512_mul_pd(d, d);
        signal = _mm512_add_pd(signal, xx);
        noise = _mm512_add_pd(noise, dd);
        valid = _mm512_mask_add_epi64(valid, ok, valid, one);
        nonFiniteOutputs = _mm512_mask_add_epi64(
            nonFiniteOutputs, static_cast<__mmask8>(finiteX & ~finiteQ), nonFiniteOutputs, one);
        const __m512d magnitude = _mm512_abs_pd(d);
        const __mmask8 larger = _mm512_cmp_pd_mask(magnitude, maxAbsError, _CMP_GT_OQ);
        maxAbsError = _mm512_mask_mov_pd(maxAbsError, larger, magnitude);
        maxErrorIndex = _mm512_mask_mov_epi64(maxErrorIndex, larger, index);
        index = _mm512_add_epi64(index, _mm512_set1_epi64(kErrorLanes));
    }

    // addErrorTerms for x and q known finite: add()'s operations with every mask full, so the
    // same bits; `infinite` gathers q − q, whose bits are all zero where q is finite (+0) and
    // not where it is not (NaN), so that one test at the end tells.
    void addFinite(__m512d x, __m512d q, __m512d& infinite) {
        infinite = _mm512_or_pd(infinite, _mm512_sub_pd(q, q));
        const __m512d d = _mm512_sub_pd(x, q);
        signal = _mm512_add_pd(signal, _mm512_mul_pd(x, x));
        noise = _mm512_add_pd(noise, _mm512_mul_pd(d, d));
        valid = _mm512_add_epi64(valid, _mm512_set1_epi64(1));
        const __m512d magnitude = _mm512_abs_pd(d);
        const __mmask8 larger = _mm512_cmp_pd_mask(magnitude, maxAbsError, _CMP_GT_OQ);
        maxAbsError = _mm512_mask_mov_pd(maxAbsError, larger, magnitude);
        maxErrorIndex = _mm512_mask_mov_epi64(maxErrorIndex, larger, index);
        index = _mm512_add_epi64(index, _mm512_set1_epi64(kErrorLanes));
    }

    // Into lanes 8k … 8k + 7 of the arrays, for the last elements and the meeting.
    void store(Lanes& l, std::size_t k) const {
        _mm512_store_pd(l.signal + 8 * k, signal);
        _mm512_store_pd(l.noise + 8 * k, noise);
        _mm512_store_pd(l.maxAbsError + 8 * k, maxAbsError);
        _mm512_store_si512(l.valid + 8 * k, valid);
        _mm512_store_si512(l.nonFiniteOutputs + 8 * k, nonFiniteOutputs);
        _mm512_store_si512(l.maxErrorIndex + 8 * k, maxErrorIndex);
    }
};

// The 32 lanes of a piece starting at element `first`.
struct FourVectors {
    VectorLanes v[4];
    explicit FourVectors(std::size_t first) {
        for (std::size_t k = 0; k < 4; ++k)
            v[k] = VectorLanes(first + 8 * k);
    }
    Lanes lanes() const {
        Lanes l;
        for (std::size_t k = 0; k < 4; ++k)
            v[k].store(l, k);
        return l;
    }
};

void pieceOfFloats(const float* x, const double* q, std::size_t count, std::size_t first,
                   ErrorSums& sums) {
    FourVectors v(first);
    std::size_t i = 0;
    for (; i + kErrorLanes <= count; i += kErrorLanes)
        for (std::size_t k = 0; k < 4; ++k)
            v.v[k].add(_mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8 * k)),
                       _mm512_loadu_pd(q + i + 8 * k));
    Lanes lanes = v.lanes();
    for (std::size_t j = 0; i + j < count; ++j)
        lanes.add(j, double(x[i + j]), q[i + j], first + i + j);
    sums = lanes.met();
}

// Eight element values from their one-byte codes.
template <CodeValues Values>
__m512d elementValues(const std::uint8_t* codes, const double* table, __m512d low, __m512d high,
                      const CodeDecoding& d) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes));
    if constexpr (Values == CodeValues::SignedBytes) // exact: |k| < 2^7, unit a power of two
        return _mm512_mul_pd(_mm512_cvtepi64_pd(_mm512_cvtepi8_epi64(bytes)),
                             _mm512_set1_pd(d.unit));
    if constexpr (Values == CodeValues::HalfBits) {
        // FP16 holds every FP8 and FP6 value once the bits are in place; the conversions to
        // FP32 and FP64 and the product by a power of two are exact.
        const __m128i wide = _mm_cvtepu8_epi16(bytes);
        const __m128i magnitude = _mm_and_si128(wide, _mm_set1_epi16(short(d.magnitudeMask)));
        const __m128i half =
            _mm_or_si128(_mm_sll_epi16(magnitude, _mm_cvtsi32_si128(d.fractionShift)),
                         _mm_sll_epi16(_mm_and_si128(wide, _mm_set1_epi16(short(d.signMask))),
                                       _mm_cvtsi32_si128(d.signShift)));
        // AVX-512F's conversion of 16 halves (the upper 8 zero), without needing F16C.
        const __m256 floats = _mm512_castps512_ps256(_mm512_cvtph_ps(_mm256_zextsi128_si256(half)));
        const __m512d value = _mm512_mul_pd(_mm512_cvtps_pd(floats), _mm512_set1_pd(d.unit));
        const __mmask8 nan = _mm_cmpeq_epi16_mask(magnitude, _mm_set1_epi16(short(d.nanMagnitude)));
        return _mm512_mask_mov_pd(value, nan,
                                  _mm512_set1_pd(std::numeric_limits<double>::quiet_NaN()));
    }
    const __m512i code = _mm512_cvtepu8_epi64(bytes);
    if constexpr (Values == CodeValues::Sixteen)
        return _mm512_permutex2var_pd(low, code, high);
    return _mm512_i64gather_pd(code, table, 8);
}

template <CodeValues Values, bool Finite>
bool codesInVectors(const float* x, const std::uint8_t* codes, std::size_t count,
                    std::size_t blockSize, const double* scales, const double* table,
                    const CodeDecoding& decoding, std::size_t first, ErrorSums& sums) {
    FourVectors v(first);
    const __m512d low = _mm512_loadu_pd(table);
    const __m512d high = _mm512_loadu_pd(table + 8);
    __m512d infinite = _mm512_setzero_pd();
    // Each vector's scale (blocks are whole vectors), so that four vectors of any blocks go
    // to the four registers in turn.
    constexpr std::size_t kMaxVectors = 512;
    double onStack[kMaxVectors];
    std::vector<double> more;
    const std::size_t vectors = count / 8;
    double* vectorScales = onStack;
    if (vectors > kMaxVectors) {
        more.resize(vectors);
        vectorScales = more.data();
    }
    const std::size_t perBlock = blockSize / 8;
    for (std::size_t k = 0, b = 0; k < vectors; k += perBlock, ++b)
        for (std::size_t j = k; j < std::min(vectors, k + perBlock); ++j)
            vectorScales[j] = scales[b];
    const auto step = [&](VectorLanes& lanes, std::size_t k) {
        const __m512d q =
            _mm512_mul_pd(elementValues<Values>(codes + 8 * k, table, low, high, decoding),
                          _mm512_set1_pd(vectorScales[k]));
        const __m512d in = _mm512_cvtps_pd(_mm256_loadu_ps(x + 8 * k));
        if constexpr (Finite)
            lanes.addFinite(in, q, infinite);
        else
            lanes.add(in, q);
    };
    std::size_t k = 0;
    for (; k + 4 <= vectors; k += 4) {
        step(v.v[0], k);
        step(v.v[1], k + 1);
        step(v.v[2], k + 2);
        step(v.v[3], k + 3);
    }
    for (std::size_t r = 0; k < vectors; ++k, ++r)
        step(v.v[r], k);
    if constexpr (Finite)
        if (_mm512_test_epi64_mask(_mm512_castpd_si512(infinite), _mm512_castpd_si512(infinite)) !=
            0)
            return false;
    Lanes lanes = v.lanes();
    for (std::size_t i = 8 * vectors; i < count; ++i)
        lanes.add(i % kErrorLanes, double(x[i]), table[codes[i]] * scales[i / blockSize],
                  first + i);
    sums = lanes.met();
    return true;
}

template <bool Finite>
bool codesByValues(const float* x, const std::uint8_t* codes, std::size_t count,
                   std::size_t blockSize, const double* scales, const double* table,
                   const CodeDecoding& d, std::size_t first, ErrorSums& sums) {
    switch (d.values) {
    case CodeValues::Sixteen:
        return codesInVectors<CodeValues::Sixteen, Finite>(x, codes, count, blockSize, scales,
                                                           table, d, first, sums);
    case CodeValues::SignedBytes:
        return codesInVectors<CodeValues::SignedBytes, Finite>(x, codes, count, blockSize, scales,
                                                               table, d, first, sums);
    case CodeValues::HalfBits:
        return codesInVectors<CodeValues::HalfBits, Finite>(x, codes, count, blockSize, scales,
                                                            table, d, first, sums);
    case CodeValues::Table:
        break;
    }
    return codesInVectors<CodeValues::Table, Finite>(x, codes, count, blockSize, scales, table, d,
                                                     first, sums);
}

void pieceOfCodes(const float* x, const std::uint8_t* codes, std::size_t count,
                  std::size_t blockSize, const double* scales, const double* table,
                  const CodeDecoding& decoding, bool finiteInputs, std::size_t first,
                  ErrorSums& sums) {
    // Finite inputs give finite values in every format fpx has; where one did not, the piece
    // is measured again in full.
    if (finiteInputs &&
        codesByValues<true>(x, codes, count, blockSize, scales, table, decoding, first, sums))
        return;
    codesByValues<false>(x, codes, count, blockSize, scales, table, decoding, first, sums);
}

#else

void pieceOfFloats(const float* x, const double* q, std::size_t count, std::size_t first,
                   ErrorSums& sums) {
    sums = pieceSums(x, q, count, first, [](auto v) { return double(v); });
}

void pieceOfCodes(const float* x, const std::uint8_t* codes, std::size_t count,
                  std::size_t blockSize, const double* scales, const double* table,
                  const CodeDecoding&, bool, std::size_t first, ErrorSums& sums) {
    Lanes lanes;
    std::size_t i = 0;
    for (std::size_t block = 0; i < count; ++block) {
        const double scale = scales[block];
        const std::size_t end = std::min(count, i + blockSize);
        for (; i < end; ++i)
            lanes.add(i % kErrorLanes, double(x[i]), table[codes[i]] * scale, first + i);
    }
    sums = lanes.met();
}

#endif

void pieceOfDoubles(const double* x, const double* q, std::size_t count, std::size_t first,
                    double factor, ErrorSums& sums) {
    sums = pieceSums(x, q, count, first, [factor](double v) { return v * factor; });
}

fpx::kernels::ErrorLoops makeErrorLoops(const char* name) {
    return fpx::kernels::ErrorLoops{name, &scaledLookup, &pieceOfFloats, &pieceOfDoubles,
                                    &pieceOfCodes};
}

} // namespace
