// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the hardware paths (x86_hardware.h) share: NaN fix-ups, block sizes of their streaming
// loops, the choice of a loop by its stores. Internal linkage: each unit has its own copy.

#include "fpx/kernels/output_stores.h"

#include "fpx/exact/rounding.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fpx::kernels {

namespace {

// The instructions keep a NaN's payload bits; the exact core gives the canonical NaN of the
// sign. NaN is rare, so a whole vector is checked at once and fixed lane by lane.
inline void canonicalizeNaNs(const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                             const std::uint32_t (&nanCode)[2]) {
    for (std::size_t k = 0; k < count; ++k)
        if ((in[k] & 0x7fffffffu) > 0x7f800000u)
            out[k] = static_cast<std::uint16_t>(nanCode[in[k] >> 31]);
}

inline void canonicalizeNaNs(const std::uint16_t* in, std::uint32_t* out, std::size_t count,
                             const std::uint32_t (&nanBits)[2]) {
    for (std::size_t k = 0; k < count; ++k)
        if ((in[k] & 0x7fffu) > 0x7c00u)
            out[k] = nanBits[in[k] >> 15];
}

// Bytes before the first `alignment`-aligned address of `to` (at most `bytes`).
[[maybe_unused]] std::size_t headBytes(const unsigned char* to, std::size_t bytes,
                                       std::size_t alignment) {
    return std::min(bytes,
                    (alignment - (reinterpret_cast<std::uintptr_t>(to) % alignment)) % alignment);
}

[[gnu::target("avx2")]] inline bool anyNaN8(__m256i bits) {
    const __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
    const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
    return !_mm256_testz_si256(nan, nan);
}

// Streaming encoders (outputs far beyond the cache) write whole blocks of 64 FP16/BF16 codes,
// two cache lines, in the interleaved order of interleaved_blocks.h; the head before the first
// line boundary and the tail go through the cached loop. A block's NaN lanes are fixed in a
// local copy before it is stored, so each line is written once. (Converting into pieces and
// copying them out would serialise the conversion and the copy.)
constexpr std::size_t kEncodeBlock = 64;

// Two lines of codes to 64-byte aligned `out` with streaming stores, NaN lanes fixed first.
[[gnu::target("avx512f")]] inline void streamCodeLines(const std::uint32_t* in, std::uint16_t* out,
                                                       __m512i (&lines)[2], bool anyNaN,
                                                       const std::uint32_t (&nanCode)[2]) {
    if (anyNaN) [[unlikely]] {
        alignas(64) std::uint16_t fixed[kEncodeBlock];
        _mm512_store_si512(fixed, lines[0]);
        _mm512_store_si512(fixed + 32, lines[1]);
        canonicalizeNaNs(in, fixed, kEncodeBlock, nanCode);
        lines[0] = _mm512_load_si512(fixed);
        lines[1] = _mm512_load_si512(fixed + 32);
    }
    _mm512_stream_si512(reinterpret_cast<__m512i*>(out), lines[0]);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(out + 32), lines[1]);
}

[[gnu::target("avx512f")]] inline __mmask16 nanLanes(__m512i bits) {
    return _mm512_cmpgt_epu32_mask(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)),
                                   _mm512_set1_epi32(0x7f800000));
}

// A block's 64 FP32 inputs as four vectors, and whether any of them is a NaN.
struct BlockInputs {
    __m512 vectors[4];
    bool anyNaN;
};
[[gnu::target("avx512f")]] inline BlockInputs loadBlock(const std::uint32_t* from) {
    BlockInputs block;
    __mmask16 nan = 0;
    for (int v = 0; v < 4; ++v) {
        const __m512i bits = _mm512_loadu_si512(from + 16 * v);
        block.vectors[v] = _mm512_castsi512_ps(bits);
        nan |= nanLanes(bits);
    }
    block.anyNaN = nan != 0;
    return block;
}

// The conversion instructions take their rounding as an immediate, so each mode is its own
// instantiation: calls run(std::integral_constant<int, immediate>{}) for `mode`. Callers pass
// only the modes the instruction has; any other gets nearest-even.
template <typename Run> decltype(auto) withRoundingImmediate(RoundingMode mode, Run run) {
    switch (mode) {
    case RoundingMode::TowardZero:
        return run(std::integral_constant<int, _MM_FROUND_TO_ZERO>{});
    case RoundingMode::TowardPositive:
        return run(std::integral_constant<int, _MM_FROUND_TO_POS_INF>{});
    case RoundingMode::TowardNegative:
        return run(std::integral_constant<int, _MM_FROUND_TO_NEG_INF>{});
    default:
        return run(std::integral_constant<int, _MM_FROUND_TO_NEAREST_INT>{});
    }
}

// A path's loop for the stores asked for.
template <typename Loop> Loop loopFor(OutputStores stores, Loop cached, Loop streaming) {
    return stores == OutputStores::Streaming ? streaming : cached;
}
using EncodeLoop = void (*)(const std::uint32_t*, std::uint16_t*, std::size_t,
                            const std::uint32_t (&)[2]);

// Decoders: a vector's NaN lanes are fixed in a local copy before it is stored, so that a
// streaming store writes each line once and final.

// Streaming decoders write whole blocks of 32 FP32 results (one line of FP16 codes, two of
// results) in the interleaved order of interleaved_blocks.h, like the encoders. Front to back,
// a decoder reading 2-byte codes keeps too few lines in flight.
constexpr std::size_t kDecodeBlock = 32;

} // namespace

} // namespace fpx::kernels

#endif
