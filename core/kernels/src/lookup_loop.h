// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// The lookup loop: FP32 to codes by a format's breakpoints (NF4, and any format of few codes),
// by bisection over registers (AVX-512), by counting compares (AVX2) or by the element code.

#include "block_encoders.h"
#include "line_streaming.h"
#include "loop_set.h"
#include "register_bisection_encoder.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX2__) && !defined(__AVX512F__)
// lookupElement eight inputs at a time for AVX2: the segment is the number of breakpoints
// (padded with INT32_MAX to a multiple of 4, which only a NaN's key reaches) less those above
// the key, one vpcmpgtd per breakpoint with the broadcast breakpoint read from memory, four
// per step into two sums; the code picked from two registers (up to 16 codes: NF4, FP4, INT4)
// or gathered. Written out because GCC's vectorisation of the block loop below keeps the
// segment counts in memory.
template <typename Out>
void avx2LookupLoop(const LookupParams& p, const std::uint32_t* __restrict__ in,
                    Out* __restrict__ out, std::size_t count) {
    static_assert(LookupParams::kMaxBreakpoints % 4 == 0);
    const std::uint32_t padded = (p.count + 3u) & ~3u;
    alignas(32) std::int32_t broadcast[LookupParams::kMaxBreakpoints][8];
    for (std::uint32_t b = 0; b < padded; ++b)
        for (std::int32_t& lane : broadcast[b])
            lane = b < p.count ? p.breakpoints[b] : INT32_MAX;
    alignas(32) std::uint32_t codes[16] = {};
    std::memcpy(codes, p.codes, sizeof codes);
    const __m256i codesLow = _mm256_load_si256(reinterpret_cast<const __m256i*>(codes));
    const __m256i codesHigh = _mm256_load_si256(reinterpret_cast<const __m256i*>(codes + 8));
    const __m256i inUse = _mm256_set1_epi32(static_cast<int>(padded));
    const __m256i positiveNaN = _mm256_set1_epi32(static_cast<int>(p.nanCode[0]));
    const __m256i negativeNaN = _mm256_set1_epi32(static_cast<int>(p.nanCode[1]));
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
        const __m256i negative = _mm256_srai_epi32(bits, 31);
        const __m256i key = _mm256_xor_si256(magnitude, negative); // orderedKey
        const auto above = [&](std::uint32_t b) { // all ones where breakpoint b > key
            return _mm256_cmpgt_epi32(
                _mm256_load_si256(reinterpret_cast<const __m256i*>(broadcast[b])), key);
        };
        __m256i sums[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()}; // −(how many above)
        for (std::uint32_t b = 0; b < padded; b += 4) {
            sums[0] = _mm256_add_epi32(sums[0], _mm256_add_epi32(above(b), above(b + 2)));
            sums[1] = _mm256_add_epi32(sums[1], _mm256_add_epi32(above(b + 1), above(b + 3)));
        }
        const __m256i segment = _mm256_add_epi32(inUse, _mm256_add_epi32(sums[0], sums[1]));
        __m256i code =
            p.count < 16
                // vblendvps by each dword's top bit: the segment's bit 3 shifted there.
                ? _mm256_castps_si256(_mm256_blendv_ps(
                      _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(codesLow, segment)),
                      _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(codesHigh, segment)),
                      _mm256_castsi256_ps(_mm256_slli_epi32(segment, 28))))
                : _mm256_i32gather_epi32(reinterpret_cast<const int*>(p.codes), segment, 4);
        const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
        code =
            _mm256_blendv_epi8(code, _mm256_blendv_epi8(positiveNaN, negativeNaN, negative), nan);
        if constexpr (sizeof(Out) == 4) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), code);
        } else {
            // Codes fit the output: unsigned saturating packs keep them.
            const __m128i words =
                _mm_packus_epi32(_mm256_castsi256_si128(code), _mm256_extracti128_si256(code, 1));
            if constexpr (sizeof(Out) == 2)
                _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), words);
            else
                _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i),
                                 _mm_packus_epi16(words, words));
        }
    }
    for (; i < count; ++i)
        out[i] = static_cast<Out>(lookupElement(p, in[i]));
}
#endif

// lookupElement, reorganised in blocks so that the vector loop runs over elements (GCC would
// otherwise vectorise the short loop over breakpoints): the same comparisons and counts.
template <typename Out>
void lookupElements(const LookupParams& p, const std::uint32_t* __restrict__ in,
                    Out* __restrict__ out, std::size_t count) {
#if defined(__AVX2__) && !defined(__AVX512F__)
    return avx2LookupLoop(p, in, out, count);
#endif
    constexpr std::size_t kBlock = 64;
    for (std::size_t start = 0; start < count; start += kBlock) {
        const std::size_t n = count - start < kBlock ? count - start : kBlock;
        std::int32_t keys[kBlock];
        std::uint32_t segment[kBlock];
        for (std::size_t j = 0; j < kBlock; ++j) {
            keys[j] = orderedKey(in[start + (j < n ? j : 0)]);
            segment[j] = 0;
        }
        for (std::uint32_t b = 0; b < LookupParams::kMaxBreakpoints; ++b) {
            const std::int32_t breakpoint = p.breakpoints[b];
            for (std::size_t j = 0; j < kBlock; ++j)
                segment[j] += static_cast<std::uint32_t>(keys[j] >= breakpoint);
        }
        for (std::size_t j = 0; j < n; ++j) {
            const std::uint32_t bits = in[start + j];
            out[start + j] =
                static_cast<Out>(select((bits & 0x7fffffffu) > 0x7f800000u,
                                        bySign(p.nanCode, bits >> 31), p.codes[segment[j]]));
        }
    }
}

// The parameters are copied once to a local (see encodeLoop). With AVX-512, up to 31
// breakpoints go through RegisterBisectionEncoder and encodeCodes, like the hand-written
// encoders; otherwise, streaming, blocks of 64 codes are looked up into a local block and
// streamed in interleaved runs, like encodeLoop's.
template <typename Out, OutputStores Stores>
void lookupLoop(const LookupParams& params, const std::uint32_t* __restrict__ in, void* outBytes,
                std::size_t count) {
    const LookupParams p = params;
    Out* __restrict__ out = static_cast<Out*>(outBytes);
#if defined(__AVX512BW__) && defined(__AVX512DQ__)
    if (p.count < 16)
        return encodeCodes<Stores>(RegisterBisectionEncoder<false, Out>(p), in, out, count);
    if (p.count < 32)
        return encodeCodes<Stores>(RegisterBisectionEncoder<true, Out>(p), in, out, count);
#endif
    if constexpr (Stores == OutputStores::Streaming) {
        streamLocalBlocks(
            in, out, count,
            [&](std::size_t first, std::size_t n) {
                lookupElements(p, in + first, out + first, n);
            },
            [&](std::size_t first, auto& block) {
                lookupElements(p, in + first, block, sizeof block / sizeof(Out));
            });
    } else {
        lookupElements(p, in, out, count);
    }
}

} // namespace
