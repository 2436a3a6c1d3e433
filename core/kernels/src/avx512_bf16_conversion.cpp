// SPDX-License-Identifier: GPL-3.0-or-later
// FP32 → BF16 by AVX512-BF16 (vcvtneps2bf16, vcvtne2ps2bf16).
#include "fpx/kernels/x86_hardware.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "hardware_path_support.h"
#include "interleaved_blocks.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fpx::kernels {

namespace {

[[gnu::target("avx512f,avx512bw,avx512vl,avx512bf16")]] void
avx512Bf16EncodeCached(const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                       const std::uint32_t (&nanCode)[2]) {
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512i bits = _mm512_loadu_si512(in + i);
        const __m256bh half = _mm512_cvtneps_pbh(_mm512_castsi512_ps(bits));
        __m256i stored;
        std::memcpy(&stored, &half, sizeof stored);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), stored);
        const __mmask16 nan = _mm512_cmpgt_epu32_mask(
            _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
        if (nan) [[unlikely]]
            canonicalizeNaNs(in + i, out + i, 16, nanCode);
    }
    if (i < count) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (count - i)) - 1u);
        const __m512i bits = _mm512_maskz_loadu_epi32(tail, in + i);
        const __m256bh half = _mm512_cvtneps_pbh(_mm512_castsi512_ps(bits));
        __m256i stored;
        std::memcpy(&stored, &half, sizeof stored);
        _mm256_mask_storeu_epi16(out + i, tail, stored);
        canonicalizeNaNs(in + i, out + i, count - i, nanCode);
    }
}

[[gnu::target("avx512f,avx512bw,avx512vl,avx512bf16")]] void
avx512Bf16EncodeStreaming(const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                          const std::uint32_t (&nanCode)[2]) {
    streamInInterleavedBlocks<kEncodeBlock>(
        in, out, count,
        [&](std::size_t first, std::size_t n) {
            avx512Bf16EncodeCached(in + first, out + first, n, nanCode);
        },
        [&](std::size_t first) __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) {
            const BlockInputs block = loadBlock(in + first);
            __m512i lines[2];
            for (int line = 0; line < 2; ++line) {
                // vcvtne2ps2bf16 packs two vectors, the second operand's in the low half.
                const __m512bh packed =
                    _mm512_cvtne2ps_pbh(block.vectors[2 * line + 1], block.vectors[2 * line]);
                std::memcpy(&lines[line], &packed, sizeof packed);
            }
            streamCodeLines(in + first, out + first, lines, block.anyNaN, nanCode);
        });
}

} // namespace

void avx512Bf16Encode(const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                      const std::uint32_t (&nanCode)[2], OutputStores stores) {
    loopFor<EncodeLoop>(stores, &avx512Bf16EncodeCached, &avx512Bf16EncodeStreaming)(in, out, count,
                                                                                     nanCode);
}

[[gnu::target("avx512f,avx512bw,avx512vl,avx512bf16")]] void
avx512Bf16EncodeBare(const std::uint32_t* in, std::uint16_t* out, std::size_t count) {
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m256bh half = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + i));
        __m256i stored;
        std::memcpy(&stored, &half, sizeof stored);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), stored);
    }
    if (i < count) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (count - i)) - 1u);
        const __m256bh half =
            _mm512_cvtneps_pbh(_mm512_castsi512_ps(_mm512_maskz_loadu_epi32(tail, in + i)));
        __m256i stored;
        std::memcpy(&stored, &half, sizeof stored);
        _mm256_mask_storeu_epi16(out + i, tail, stored);
    }
}

} // namespace fpx::kernels

#endif
