// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// Decoding by bit arithmetic: widening (BF16, TF32: the leading bits of FP32) and binary
// floats of up to 8 exponent bits rebiased into FP32.

#include "decode_output.h"
#include "loop_set.h"

#include <cstddef>
#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

template <typename In, OutputStores Stores>
void widenLoop(const WidenParams& params, const void* inBytes, std::uint32_t* __restrict__ out,
               std::size_t count) {
    const WidenParams p = params;
    const In* __restrict__ in = static_cast<const In*>(inBytes);
    const auto element = [&](std::size_t i) { return widenElement(p, in[i]); };
#if defined(__AVX2__) && !defined(__AVX512F__)
    // widenElement eight at a time; every magnitude is below 2^31.
    const __m256i codeMask = _mm256_set1_epi32(static_cast<int>(p.codeMask));
    const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(p.shift));
    const __m256i nan = _mm256_set1_epi32(static_cast<int>(p.nanBits[0]));
    const __m256i infinity = _mm256_set1_epi32(static_cast<int>(p.infinityBits[0]));
    const __m256i infinityBits = _mm256_set1_epi32(0x7f800000);
    const __m256i signBit = _mm256_set1_epi32(INT32_MIN);
    writeOutput8<Stores, sizeof(In)>(out, count, element, [&](std::size_t i) {
        const __m256i bits =
            _mm256_sll_epi32(_mm256_and_si256(loadCodes8(in + i), codeMask), shift);
        const __m256i magnitude = _mm256_andnot_si256(signBit, bits);
        const __m256i special =
            _mm256_blendv_epi8(infinity, nan, _mm256_cmpgt_epi32(magnitude, infinityBits));
        const __m256i value =
            _mm256_blendv_epi8(magnitude, special, atLeast(magnitude, 0x7f800000u));
        return _mm256_or_si256(value, _mm256_and_si256(bits, signBit));
    });
#else
    writeOutput<Stores, sizeof(In)>(out, count, element);
#endif
}

template <typename In, OutputStores Stores>
void floatDecodeLoop(const FloatDecodeParams& params, const void* inBytes,
                     std::uint32_t* __restrict__ out, std::size_t count) {
    const FloatDecodeParams p = params;
    const In* __restrict__ in = static_cast<const In*>(inBytes);
    const auto element = [&](std::size_t i) { return decodeFloatElement(p, in[i]); };
#if defined(__AVX2__) && !defined(__AVX512F__)
    if constexpr (sizeof(In) <= 2) {
        // decodeFloatElement eight at a time. Codes of at most 16 bits: every magnitude, and
        // minNormalMagnitude and specialMagnitude (at most the magnitude mask + 1), are below
        // 2^31; the "none" codes 0xffffffff of infinityMagnitude and negativeZeroNaN equal
        // no code.
        const auto broadcast = [](std::uint32_t v) {
            return _mm256_set1_epi32(static_cast<int>(v));
        };
        const __m256i codeMask = broadcast(p.codeMask), magnitudeMask = broadcast(p.magnitudeMask),
                      rebias = broadcast(p.rebias), magic = broadcast(p.subnormalMagicBits),
                      infinityMagnitude = broadcast(p.infinityMagnitude),
                      infinityBits = broadcast(p.infinityMagnitudeBits),
                      nanBits = broadcast(p.nanMagnitude),
                      negativeZeroNaN = broadcast(p.negativeZeroNaN),
                      negativeZeroNaNBits = broadcast(p.negativeZeroNaNBits);
        const __m128i fractionShift = _mm_cvtsi32_si128(static_cast<int>(p.fractionShift));
        const __m128i signShift = _mm_cvtsi32_si128(static_cast<int>(p.signShift));
        return writeOutput8<Stores, sizeof(In)>(out, count, element, [&](std::size_t i) {
            const __m256i code = _mm256_and_si256(loadCodes8(in + i), codeMask);
            const __m256i magnitude = _mm256_and_si256(code, magnitudeMask);
            const __m256i normal =
                _mm256_add_epi32(_mm256_sll_epi32(magnitude, fractionShift), rebias);
            const __m256i subnormal = _mm256_castps_si256(
                _mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(magic, magnitude)),
                              _mm256_castsi256_ps(magic)));
            __m256i value =
                _mm256_blendv_epi8(subnormal, normal, atLeast(magnitude, p.minNormalMagnitude));
            const __m256i special = _mm256_blendv_epi8(
                nanBits, infinityBits, _mm256_cmpeq_epi32(magnitude, infinityMagnitude));
            value = _mm256_blendv_epi8(value, special, atLeast(magnitude, p.specialMagnitude));
            value =
                _mm256_or_si256(value, _mm256_slli_epi32(_mm256_srl_epi32(code, signShift), 31));
            return _mm256_blendv_epi8(value, negativeZeroNaNBits,
                                      _mm256_cmpeq_epi32(code, negativeZeroNaN));
        });
    }
#endif
    writeOutput<Stores, sizeof(In)>(out, count, element);
}

} // namespace
