// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The NaN answers of 64 inputs put into their codes once per 64: shared by the AVX-512 lookups
// of breakpoints, in buckets (avx512_bucket_lookup.cpp) and by bisection
// (register_bisection_encoder.h).

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace fpx::kernels {

// NaNs are rare: one test per 64 inputs (the largest magnitude against ∞'s), and the NaN codes
// put in by sign only where there are NaNs, instead of a compare and two masked moves per 16.
// (The zero-masked maximum with every lane kept: the plain intrinsic starts from an undefined
// vector, which GCC 12 reports as maybe uninitialised.)
[[gnu::target("avx512f,avx512dq"), gnu::always_inline]] inline void
putNaNCodesBySign(const __m512i (&bits)[4], __m512i (&codes)[4], __m512i positiveNaN,
                  __m512i negativeNaN) {
    constexpr __mmask16 kAll = 0xffff;
    const __m512i magnitudeMask = _mm512_set1_epi32(0x7fffffff);
    const __m512i infinity = _mm512_set1_epi32(0x7f800000);
    __m512i magnitude[4]; // unrolled loops, so that the vectors stay in registers
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v)
        magnitude[v] = _mm512_and_si512(bits[v], magnitudeMask);
    const __m512i largest =
        _mm512_maskz_max_epu32(kAll, _mm512_maskz_max_epu32(kAll, magnitude[0], magnitude[1]),
                               _mm512_maskz_max_epu32(kAll, magnitude[2], magnitude[3]));
    if (_mm512_cmpgt_epu32_mask(largest, infinity) != 0) [[unlikely]] {
#pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
            const __mmask16 nan = _mm512_cmpgt_epu32_mask(magnitude[v], infinity);
            const __mmask16 negative = _mm512_movepi32_mask(bits[v]);
            codes[v] = _mm512_mask_mov_epi32(codes[v], nan & ~negative, positiveNaN);
            codes[v] = _mm512_mask_mov_epi32(codes[v], nan & negative, negativeNaN);
        }
    }
}

} // namespace fpx::kernels
#endif
