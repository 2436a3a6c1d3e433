// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk loops, included by one .cpp per instruction set (kernels_*.cpp) and compiled with
// that instruction set's flags. Everything here has internal linkage, so the copies never mix.
// No #pragma once: each including file wants its own copy.

#include "loop_set.h"

#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace {

using namespace fpx;
using namespace fpx::kernels;

template <typename T> T loadCode(const void* in, std::size_t i) {
    T value;
    std::memcpy(&value, static_cast<const unsigned char*>(in) + i * sizeof(T), sizeof(T));
    return value;
}

// The parameters are copied to a local: stores through the byte-sized output pointer may
// alias anything, and a local whose address never escapes keeps them in registers.
// The codes are computed in 32-bit lanes into a small block on the stack, then narrowed in a
// second pass: done in one loop, GCC narrows every intermediate select to the output width and
// spends more instructions shuffling masks than computing.
template <RoundingMode Mode, EncodeKind Kind, bool Symmetric>
void encodeBlock(const EncodeParams& p, const std::uint32_t* __restrict__ in,
                 std::uint32_t* __restrict__ out, std::size_t count, std::uint64_t seed,
                 std::uint64_t firstIndex) {
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t random = 0;
        if constexpr (Mode == RoundingMode::Stochastic)
            random = stochasticBits(seed, firstIndex + i);
        out[i] = encodeElementOf<Mode, Kind, Symmetric>(p, in[i], random);
    }
}

// The parameters are copied to a local: stores through the byte-sized output pointer may
// alias anything, and a local whose address never escapes keeps them in registers.
template <RoundingMode Mode, EncodeKind Kind, typename Out, bool Symmetric = false>
void encodeLoop(const EncodeParams& params, const std::uint32_t* __restrict__ in, void* outBytes,
                std::size_t count, std::uint64_t seed, std::uint64_t firstIndex) {
    const EncodeParams p = params;
    Out* __restrict__ out = static_cast<Out*>(outBytes);
    if constexpr (sizeof(Out) == 4) {
        encodeBlock<Mode, Kind, Symmetric>(p, in, reinterpret_cast<std::uint32_t*>(out), count,
                                           seed, firstIndex);
    } else {
        constexpr std::size_t kBlock = 512;
        alignas(64) std::uint32_t codes[kBlock];
        for (std::size_t start = 0; start < count; start += kBlock) {
            const std::size_t n = count - start < kBlock ? count - start : kBlock;
            encodeBlock<Mode, Kind, Symmetric>(p, in + start, codes, n, seed, firstIndex + start);
            for (std::size_t i = 0; i < n; ++i)
                out[start + i] = static_cast<Out>(codes[i]);
        }
    }
}

// lookupElement, reorganised in blocks so that the vector loop runs over elements (GCC would
// otherwise vectorise the short loop over breakpoints): the same comparisons and counts.
template <typename Out>
void lookupLoop(const LookupParams& params, const std::uint32_t* __restrict__ in, void* outBytes,
                std::size_t count) {
    const LookupParams p = params;
    Out* __restrict__ out = static_cast<Out*>(outBytes);
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

// Kept scalar in every loop set: a vector gather from a 1–256 KiB table is slower on current
// x86 cores than one load per element (measured: AVX-512 gathers 0.5 vs scalar 1.0 G elem/s).
template <typename In>
[[gnu::optimize("no-tree-vectorize")]] void
tableLoop(const std::uint32_t* __restrict__ table, std::uint32_t mask, const void* inBytes,
          std::uint32_t* __restrict__ out, std::size_t count) {
    const In* __restrict__ in = static_cast<const In*>(inBytes);
    for (std::size_t i = 0; i < count; ++i)
        out[i] = table[in[i] & mask];
}

// One 64-byte line (16 FP32 results, computed in a local array the compiler keeps in vector
// registers) written with non-temporal stores of this instruction set's width.
inline void streamLine(std::uint32_t* __restrict__ to, const std::uint32_t* __restrict__ line) {
#if defined(__AVX512F__)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(to), _mm512_load_si512(line));
#elif defined(__AVX__)
    for (int half = 0; half < 2; ++half)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(to) + half,
                            _mm256_load_si256(reinterpret_cast<const __m256i*>(line) + half));
#elif defined(__SSE2__)
    for (int quarter = 0; quarter < 4; ++quarter)
        _mm_stream_si128(reinterpret_cast<__m128i*>(to) + quarter,
                         _mm_load_si128(reinterpret_cast<const __m128i*>(line) + quarter));
#else
    std::memcpy(to, line, 64);
#endif
}

// out[i] = element(i) for i < count, reading codes of InBytes each. Streaming (outputs far
// beyond the cache): the results go to memory with non-temporal stores a few lines at a time,
// as soon as they are computed, so the core converts the next block while the
// write-combining buffers drain the last one. Converting a large piece and then copying it out
// serialises the two (the copy stalls once the few write-combining buffers are full, and
// converting waits for the copy): FP8 decode far beyond the cache went from about 50 % to 80 %
// of memcpy on the machine in the README.
//
// A block is one 64-byte vector of input codes (64 FP8, 32 BF16 or 16 TF32 codes), which GCC
// turns into whole-register loads and widenings; other block sizes vectorised worse (16 FP8
// codes: 128-bit operations; 256: no better than the piece copy).
//
//   out:  |head (0–15)| block of 1–4 lines | … | block |tail (< one block)|
//                     ^ 64-byte aligned
// The head before the first 64-byte boundary and the tail are ordinary stores.
template <OutputStores Stores, std::size_t InBytes, typename Element>
void writeOutput(std::uint32_t* __restrict__ out, std::size_t count, const Element& element) {
    std::size_t i = 0;
    if constexpr (Stores == OutputStores::Streaming) {
        const std::size_t misalignment = (reinterpret_cast<std::uintptr_t>(out) % 64) / 4;
        const std::size_t head = misalignment == 0 ? 0 : 16 - misalignment;
        for (; i < head && i < count; ++i)
            out[i] = element(i);
        constexpr std::size_t kBlock = 64 / InBytes;
        for (; i + kBlock <= count; i += kBlock) {
            alignas(64) std::uint32_t block[kBlock];
            for (std::size_t j = 0; j < kBlock; ++j)
                block[j] = element(i + j);
            for (std::size_t j = 0; j < kBlock; j += 16)
                streamLine(out + i + j, block + j);
        }
    }
    for (; i < count; ++i)
        out[i] = element(i);
}

template <typename In, OutputStores Stores>
void widenLoop(const WidenParams& params, const void* inBytes, std::uint32_t* __restrict__ out,
               std::size_t count) {
    const WidenParams p = params;
    const In* __restrict__ in = static_cast<const In*>(inBytes);
    writeOutput<Stores, sizeof(In)>(out, count,
                                    [&](std::size_t i) { return widenElement(p, in[i]); });
}

template <typename In, OutputStores Stores>
void floatDecodeLoop(const FloatDecodeParams& params, const void* inBytes,
                     std::uint32_t* __restrict__ out, std::size_t count) {
    const FloatDecodeParams p = params;
    const In* __restrict__ in = static_cast<const In*>(inBytes);
    writeOutput<Stores, sizeof(In)>(out, count,
                                    [&](std::size_t i) { return decodeFloatElement(p, in[i]); });
}

template <RoundingMode Mode, EncodeKind Kind>
constexpr void fillEncodeKind(LoopSet::EncodeLoop (&row)[3]) {
    row[0] = &encodeLoop<Mode, Kind, std::uint8_t>;
    row[1] = &encodeLoop<Mode, Kind, std::uint16_t>;
    row[2] = &encodeLoop<Mode, Kind, std::uint32_t>;
}

template <RoundingMode Mode> constexpr void fillSymmetric(LoopSet::EncodeLoop (&row)[3]) {
    row[0] = &encodeLoop<Mode, EncodeKind::BinaryFloat, std::uint8_t, true>;
    row[1] = &encodeLoop<Mode, EncodeKind::BinaryFloat, std::uint16_t, true>;
    row[2] = &encodeLoop<Mode, EncodeKind::BinaryFloat, std::uint32_t, true>;
}

template <RoundingMode Mode> constexpr void fillEncode(LoopSet::EncodeLoop (&rows)[2][3]) {
    fillEncodeKind<Mode, EncodeKind::BinaryFloat>(rows[static_cast<int>(EncodeKind::BinaryFloat)]);
    fillEncodeKind<Mode, EncodeKind::SignedInteger>(
        rows[static_cast<int>(EncodeKind::SignedInteger)]);
}

template <OutputStores Stores>
constexpr void fillDecode(LoopSet::FloatDecodeLoop (&floatDecode)[3],
                          LoopSet::WidenLoop (&widen)[2]) {
    floatDecode[0] = &floatDecodeLoop<std::uint8_t, Stores>;
    floatDecode[1] = &floatDecodeLoop<std::uint16_t, Stores>;
    floatDecode[2] = &floatDecodeLoop<std::uint32_t, Stores>;
    widen[0] = &widenLoop<std::uint16_t, Stores>;
    widen[1] = &widenLoop<std::uint32_t, Stores>;
}

LoopSet makeLoopSet(const char* name) {
    LoopSet set{};
    set.isaName = name;
    fillEncode<RoundingMode::NearestEven>(set.encode[static_cast<int>(RoundingMode::NearestEven)]);
    fillEncode<RoundingMode::NearestAway>(set.encode[static_cast<int>(RoundingMode::NearestAway)]);
    fillEncode<RoundingMode::TowardZero>(set.encode[static_cast<int>(RoundingMode::TowardZero)]);
    fillEncode<RoundingMode::TowardPositive>(
        set.encode[static_cast<int>(RoundingMode::TowardPositive)]);
    fillEncode<RoundingMode::TowardNegative>(
        set.encode[static_cast<int>(RoundingMode::TowardNegative)]);
    fillEncode<RoundingMode::Stochastic>(set.encode[static_cast<int>(RoundingMode::Stochastic)]);
    fillEncode<RoundingMode::ToOdd>(set.encode[static_cast<int>(RoundingMode::ToOdd)]);
    fillSymmetric<RoundingMode::NearestEven>(
        set.encodeSymmetric[static_cast<int>(RoundingMode::NearestEven)]);
    fillSymmetric<RoundingMode::NearestAway>(
        set.encodeSymmetric[static_cast<int>(RoundingMode::NearestAway)]);
    fillSymmetric<RoundingMode::TowardZero>(
        set.encodeSymmetric[static_cast<int>(RoundingMode::TowardZero)]);
    fillSymmetric<RoundingMode::TowardPositive>(
        set.encodeSymmetric[static_cast<int>(RoundingMode::TowardPositive)]);
    fillSymmetric<RoundingMode::TowardNegative>(
        set.encodeSymmetric[static_cast<int>(RoundingMode::TowardNegative)]);
    fillSymmetric<RoundingMode::Stochastic>(
        set.encodeSymmetric[static_cast<int>(RoundingMode::Stochastic)]);
    fillSymmetric<RoundingMode::ToOdd>(set.encodeSymmetric[static_cast<int>(RoundingMode::ToOdd)]);
    set.lookup[0] = &lookupLoop<std::uint8_t>;
    set.lookup[1] = &lookupLoop<std::uint16_t>;
    set.lookup[2] = &lookupLoop<std::uint32_t>;
    set.table[0] = &tableLoop<std::uint8_t>;
    set.table[1] = &tableLoop<std::uint16_t>;
    fillDecode<OutputStores::Cached>(set.floatDecode[0], set.widen[0]);
    fillDecode<OutputStores::Streaming>(set.floatDecode[1], set.widen[1]);
    return set;
}

} // namespace
