// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// Decoding by a table of FP32 answers: in registers (AVX-512, or AVX2 up to 16 entries), by
// gathers (AVX2), or one load per element (16-bit codes, and the baseline loop set).

#include "decode_output.h"
#include "fpx/kernels/output_stores.h"
#include "line_streaming.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX512F__)
// Tables of up to 256 answers (the codes of an 8-bit or smaller format) held in registers,
// 16 entries per register, and looked up 16 codes at a time: vpermt2d picks from a pair of
// registers (32 entries) by the index's low 5 bits, then the pairs' picks are blended by the
// index's bits 5, 6 and 7.
//
//   index:  b7 b6 b5 | b4 b3 b2 b1 b0
//           blends     vpermt2d within a pair (entries 32p … 32p + 31)
//
// A 16-entry table (FP4, INT4, NF4) takes one permute per 16 codes, a 256-entry one 8
// permutes and 7 blends; a gather (one load per lane) is slower than either.
template <int Pairs>
inline __m512i lookUpInRegisters(const __m512i (&entries)[2 * Pairs], __m512i index) {
    __m512i picked[Pairs];
    for (int p = 0; p < Pairs; ++p)
        picked[p] = _mm512_permutex2var_epi32(entries[2 * p], index, entries[2 * p + 1]);
    for (int bit = 32, n = Pairs; n > 1; bit *= 2, n /= 2) {
        const __mmask16 high = _mm512_test_epi32_mask(index, _mm512_set1_epi32(bit));
        for (int p = 0; p < n / 2; ++p)
            picked[p] = _mm512_mask_blend_epi32(high, picked[2 * p], picked[2 * p + 1]);
    }
    return picked[0];
}

template <int Pairs, OutputStores Stores>
void registerTableLoop(const std::uint32_t* table, std::uint32_t mask,
                       const std::uint8_t* __restrict__ in, std::uint32_t* __restrict__ out,
                       std::size_t count) {
    // Entries past the table's end are never picked (index = code & mask): zeros.
    alignas(64) std::uint32_t padded[32 * Pairs] = {};
    std::memcpy(padded, table, (std::size_t{mask} + 1) * sizeof(std::uint32_t));
    __m512i entries[2 * Pairs];
    for (int r = 0; r < 2 * Pairs; ++r)
        entries[r] = _mm512_load_si512(padded + 16 * r);
    const __m512i indexMask = _mm512_set1_epi32(static_cast<int>(mask));
    std::size_t i = 0;
    if constexpr (Stores == OutputStores::Streaming)
        for (const std::size_t head = elementsToLine(out, count); i < head; ++i)
            out[i] = table[in[i] & mask];
    for (; i + 16 <= count; i += 16) {
        // The zero-masked form of vpmovzxbd with every lane kept: the plain intrinsic starts
        // from _mm512_undefined_epi32(), which GCC 12 reports as maybe uninitialised.
        const __m512i codes =
            _mm512_maskz_cvtepu8_epi32(static_cast<__mmask16>(0xffff),
                                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
        const __m512i index = _mm512_and_si512(codes, indexMask);
        const __m512i answers = lookUpInRegisters<Pairs>(entries, index);
        if constexpr (Stores == OutputStores::Streaming)
            _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), answers);
        else
            _mm512_storeu_si512(out + i, answers);
    }
    for (; i < count; ++i)
        out[i] = table[in[i] & mask];
}
#endif

// Larger tables (16-bit codes: 256 KiB) stay scalar: a vector gather from them is slower on
// current x86 cores than one load per element.
// GCC's optimize attribute keeps its vectoriser off this loop; clang has no such attribute
// (it warns about an unknown one), so there the loop is left to clang's own cost model.
#if __has_cpp_attribute(gnu::optimize)
#define FPX_SCALAR_TABLE_LOOP [[gnu::optimize("no-tree-vectorize")]]
#else
#define FPX_SCALAR_TABLE_LOOP
#endif
template <typename In, OutputStores Stores>
FPX_SCALAR_TABLE_LOOP void scalarTableLoop(const std::uint32_t* __restrict__ table,
                                           std::uint32_t mask, const In* in,
                                           std::uint32_t* __restrict__ out, std::size_t count) {
    writeOutput<Stores, sizeof(In)>(out, count, [&](std::size_t i) { return table[in[i] & mask]; });
}

template <typename In, OutputStores Stores>
void tableLoop(const std::uint32_t* __restrict__ table, std::uint32_t mask, const void* inBytes,
               std::uint32_t* __restrict__ out, std::size_t count) {
    const In* __restrict__ in = static_cast<const In*>(inBytes);
#if defined(__AVX512F__)
    if constexpr (sizeof(In) == 1) {
        if (mask < 32)
            return registerTableLoop<1, Stores>(table, mask, in, out, count);
        if (mask < 64)
            return registerTableLoop<2, Stores>(table, mask, in, out, count);
        if (mask < 128)
            return registerTableLoop<4, Stores>(table, mask, in, out, count);
        return registerTableLoop<8, Stores>(table, mask, in, out, count);
    }
#elif defined(__AVX2__)
    if constexpr (sizeof(In) == 1) {
        const auto element = [&](std::size_t i) { return table[in[i] & mask]; };
        const __m256i indexMask = _mm256_set1_epi32(static_cast<int>(mask));
        if (mask < 16) {
            // 16 entries (FP4, INT4, NF4) in two registers: vpermd picks by the index's low
            // 3 bits from each, bit 3 chooses between them.
            alignas(32) std::uint32_t padded[16] = {};
            std::memcpy(padded, table, (std::size_t{mask} + 1) * sizeof(std::uint32_t));
            const __m256i low = _mm256_load_si256(reinterpret_cast<const __m256i*>(padded));
            const __m256i high = _mm256_load_si256(reinterpret_cast<const __m256i*>(padded + 8));
            return writeOutput8<Stores, 1>(out, count, element, [&](std::size_t i) {
                const __m256i index = _mm256_and_si256(loadCodes8(in + i), indexMask);
                // vblendvps by each dword's top bit: the index's bit 3 shifted there.
                return _mm256_castps_si256(
                    _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(low, index)),
                                     _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(high, index)),
                                     _mm256_castsi256_ps(_mm256_slli_epi32(index, 28))));
            });
        }
        return writeOutput8<Stores, 1>(out, count, element, [&](std::size_t i) {
            return _mm256_i32gather_epi32(reinterpret_cast<const int*>(table),
                                          _mm256_and_si256(loadCodes8(in + i), indexMask), 4);
        });
    }
#endif
    scalarTableLoop<In, Stores>(table, mask, in, out, count);
}

} // namespace
