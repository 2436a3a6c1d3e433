// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// Whole 64-byte lines written with non-temporal stores: the line itself, the head before the
// first line boundary, and the streaming encoders' skeleton over local blocks.

#include "interleaved_blocks.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace {

using namespace fpx;
using namespace fpx::kernels;

// One 64-byte line, computed in a local array (which the compiler keeps in vector registers
// where it can), written to `to` (64-byte aligned) with non-temporal stores of this
// instruction set's width.
inline void streamLine(void* __restrict__ to, const void* __restrict__ line) {
#if defined(__AVX512F__)
    _mm512_stream_si512(static_cast<__m512i*>(to), _mm512_load_si512(line));
#elif defined(__AVX__)
    for (int half = 0; half < 2; ++half)
        _mm256_stream_si256(static_cast<__m256i*>(to) + half,
                            _mm256_load_si256(static_cast<const __m256i*>(line) + half));
#elif defined(__SSE2__)
    for (int quarter = 0; quarter < 4; ++quarter)
        _mm_stream_si128(static_cast<__m128i*>(to) + quarter,
                         _mm_load_si128(static_cast<const __m128i*>(line) + quarter));
#else
    std::memcpy(to, line, 64);
#endif
}

// Elements of `Out` before the first 64-byte boundary at or after `out` (at most count).
template <typename Out> std::size_t elementsToLine(const Out* out, std::size_t count) {
    const std::size_t misalignment = (reinterpret_cast<std::uintptr_t>(out) % 64) / sizeof(Out);
    const std::size_t head = misalignment == 0 ? 0 : 64 / sizeof(Out) - misalignment;
    return head < count ? head : count;
}

// The streaming encoders' skeleton (streamInInterleavedBlocks) with each whole block computed
// by `fill(first, block)` into a local block of 64 codes, then streamed out line by line.
template <typename Out, typename Cached, typename Fill>
[[gnu::always_inline]] inline void streamLocalBlocks(const std::uint32_t* in, Out* __restrict__ out,
                                                     std::size_t count, const Cached& cached,
                                                     const Fill& fill) {
    constexpr std::size_t kStreamBlock = 64;
    streamInInterleavedBlocks<kStreamBlock>(in, out, count, cached, [&](std::size_t first) {
        alignas(64) Out block[kStreamBlock];
        fill(first, block);
        for (std::size_t line = 0; line < sizeof block; line += 64)
            streamLine(reinterpret_cast<unsigned char*>(out + first) + line,
                       reinterpret_cast<const unsigned char*>(block) + line);
    });
}

} // namespace
