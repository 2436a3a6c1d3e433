// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// How the decoders write their output: element by element or eight at a time (AVX2), with
// cached or streaming stores.

#include "fpx/kernels/output_stores.h"
#include "interleaved_blocks.h"
#include "line_streaming.h"

#include <cstddef>
#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

// out[i] = element(i) for i < count, reading codes of InBytes each. Streaming (outputs far
// beyond the cache): the results go to memory with non-temporal stores a few lines at a time,
// as soon as they are computed, so the core converts the next block while the
// write-combining buffers drain the last one. Converting a large piece and then copying it out
// serialises the two (the copy stalls once the few write-combining buffers are full, and
// converting waits for the copy).
//
// A block is one 64-byte vector of input codes (64 FP8, 32 BF16 or 16 TF32 codes), which GCC
// turns into whole-register loads and widenings; other block sizes vectorised worse (16 FP8
// codes: 128-bit operations; 256: no better than the piece copy).
//
// Codes of 2 and 4 bytes are visited in the interleaved runs of interleaved_blocks.h, like the
// encoders' blocks: reads are a third to a half of their traffic, and one stream front to back
// keeps too few lines in flight. Byte codes go front to back: their reads are a fifth of the
// traffic, and interleaved they run slower (so does the byte-plane table decoder of
// avx512_table_decode.cpp).
//
//   out:  |head (0–15)| block of 1–4 lines | … | block |tail (< one block)|
//                     ^ 64-byte aligned
// The head before the first 64-byte boundary and the tail are ordinary stores.
//
// compute(first, n, to) writes results first … first + n − 1 to `to`; fillBlock(first, to)
// the kBlock (a multiple of 16) from `first`.
template <OutputStores Stores, std::size_t InBytes, typename Compute, typename FillBlock>
void writeOutputBy(std::uint32_t* __restrict__ out, std::size_t count, const Compute& compute,
                   const FillBlock& fillBlock) {
    if constexpr (Stores == OutputStores::Streaming) {
        constexpr std::size_t kBlock = 64 / InBytes;
        const auto block = [&](std::size_t first) {
            alignas(64) std::uint32_t results[kBlock];
            fillBlock(first, results);
            for (std::size_t j = 0; j < kBlock; j += 16)
                streamLine(out + first + j, results + j);
        };
        const auto cached = [&](std::size_t first, std::size_t n) {
            compute(first, n, out + first);
        };
        if constexpr (InBytes >= 2) {
            streamInInterleavedBlocks<kBlock>(nullptr, out, count, cached, block);
        } else {
            const std::size_t head = elementsToLine(out, count);
            cached(0, head);
            std::size_t i = head;
            for (; i + kBlock <= count; i += kBlock)
                block(i);
            cached(i, count - i);
        }
    } else {
        compute(0, count, out);
    }
}

// out[i] = element(i), one element at a time in the source (GCC vectorises the loop).
template <OutputStores Stores, std::size_t InBytes, typename Element>
void writeOutput(std::uint32_t* __restrict__ out, std::size_t count, const Element& element) {
    const auto compute = [&](std::size_t first, std::size_t n, std::uint32_t* __restrict__ to) {
        for (std::size_t j = 0; j < n; ++j)
            to[j] = element(first + j);
    };
    writeOutputBy<Stores, InBytes>(out, count, compute, [&](std::size_t first, auto& block) {
        compute(first, sizeof block / sizeof block[0], block);
    });
}

#if defined(__AVX2__) && !defined(__AVX512F__)
// out[i] = element(i), eight at a time by vector8(i) (results i … i + 7 as one AVX2 vector).
// For the decoders whose element code GCC leaves scalar for AVX2 (its selects on unsigned
// compares stay branches without AVX-512's masks).
template <OutputStores Stores, std::size_t InBytes, typename Element, typename Vector8>
void writeOutput8(std::uint32_t* __restrict__ out, std::size_t count, const Element& element,
                  const Vector8& vector8) {
    writeOutputBy<Stores, InBytes>(
        out, count,
        [&](std::size_t first, std::size_t n, std::uint32_t* __restrict__ to) {
            std::size_t j = 0;
            for (; j + 8 <= n; j += 8)
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + j), vector8(first + j));
            for (; j < n; ++j)
                to[j] = element(first + j);
        },
        [&](std::size_t first, auto& block) {
            for (std::size_t j = 0; j < sizeof block / sizeof block[0]; j += 8)
                _mm256_store_si256(reinterpret_cast<__m256i*>(block + j), vector8(first + j));
        });
}

// Eight codes of `In` from `in` as dwords.
template <typename In> __m256i loadCodes8(const In* in) {
    if constexpr (sizeof(In) == 1)
        return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)));
    else if constexpr (sizeof(In) == 2)
        return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
    else
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
}

// |x| ≥ bound as a lane mask, for values below 2^31 (signed vpcmpgtd orders them as unsigned)
// and bound − 1 at least −1.
inline __m256i atLeast(__m256i x, std::uint32_t bound) {
    return _mm256_cmpgt_epi32(x, _mm256_set1_epi32(static_cast<int>(bound - 1u)));
}
#endif

} // namespace
