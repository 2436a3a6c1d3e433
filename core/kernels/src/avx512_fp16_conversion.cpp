// SPDX-License-Identifier: GPL-3.0-or-later
// FP32 ↔ FP16 by AVX512-FP16 (vcvtps2phx, vcvtph2psx), sixteen values per instruction.
#include "fpx/kernels/x86_hardware.h"

// Built only where the compiler offers the AVX512-FP16 intrinsics in a function with a target
// attribute (FPX_AVX512FP16_INTRINSICS, core/CMakeLists.txt); elsewhere on x86-64 the functions
// below are never called, as hasAvx512Fp16() is false, and do nothing.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && FPX_AVX512FP16_INTRINSICS
#include "hardware_path_support.h"
#include "interleaved_blocks.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace fpx::kernels {

namespace {

template <int Rounding>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16")]] void
fp16EncodeWith(const std::uint32_t* in, std::uint16_t* out, std::size_t count,
               const std::uint32_t (&nanCode)[2]) {
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512i bits = _mm512_loadu_si512(in + i);
        const __m256h half =
            _mm512_cvtx_roundps_ph(_mm512_castsi512_ps(bits), Rounding | _MM_FROUND_NO_EXC);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_castph_si256(half));
        const __mmask16 nan = _mm512_cmpgt_epu32_mask(
            _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
        if (nan) [[unlikely]]
            canonicalizeNaNs(in + i, out + i, 16, nanCode);
    }
    if (i < count) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (count - i)) - 1u);
        const __m512i bits = _mm512_maskz_loadu_epi32(tail, in + i);
        const __m256h half =
            _mm512_cvtx_roundps_ph(_mm512_castsi512_ps(bits), Rounding | _MM_FROUND_NO_EXC);
        _mm256_mask_storeu_epi16(out + i, tail, _mm256_castph_si256(half));
        canonicalizeNaNs(in + i, out + i, count - i, nanCode);
    }
}

template <int Rounding>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16")]] void
fp16EncodeStreaming(const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                    const std::uint32_t (&nanCode)[2]) {
    streamInInterleavedBlocks<kEncodeBlock>(
        in, out, count,
        [&](std::size_t first, std::size_t n) {
            fp16EncodeWith<Rounding>(in + first, out + first, n, nanCode);
        },
        [&](std::size_t first)
            __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16"))) {
                const BlockInputs block = loadBlock(in + first);
                __m512i lines[2];
                for (int line = 0; line < 2; ++line) {
                    constexpr int kRounding = Rounding | _MM_FROUND_NO_EXC;
                    // The zero-masked form with every lane kept: the plain intrinsic starts
                    // from an undefined vector, which GCC 12 reports as maybe uninitialised.
                    lines[line] = _mm512_maskz_inserti64x4(
                        static_cast<__mmask8>(0xff),
                        _mm512_castsi256_si512(_mm256_castph_si256(
                            _mm512_cvtx_roundps_ph(block.vectors[2 * line], kRounding))),
                        _mm256_castph_si256(
                            _mm512_cvtx_roundps_ph(block.vectors[2 * line + 1], kRounding)),
                        1);
                }
                streamCodeLines(in + first, out + first, lines, block.anyNaN, nanCode);
            });
}

template <int Rounding> EncodeLoop fp16EncodeLoop(OutputStores stores) {
    return loopFor<EncodeLoop>(stores, &fp16EncodeWith<Rounding>, &fp16EncodeStreaming<Rounding>);
}

} // namespace

void avx512Fp16Encode(RoundingMode mode, const std::uint32_t* in, std::uint16_t* out,
                      std::size_t count, const std::uint32_t (&nanCode)[2], OutputStores stores) {
    withRoundingImmediate(mode, [&](auto rounding) {
        fp16EncodeLoop<decltype(rounding)::value>(stores)(in, out, count, nanCode);
    });
}

namespace {

// The `n` (< 16) elements from `at`, by masked loads and stores.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16")]] void
avx512Fp16DecodePartial(const std::uint16_t* in, std::uint32_t* out, std::size_t at, std::size_t n,
                        const std::uint32_t (&nanBits)[2]) {
    const __mmask16 lanes = static_cast<__mmask16>((1u << n) - 1u);
    const __m256i half = _mm256_maskz_loadu_epi16(lanes, in + at);
    _mm512_mask_storeu_ps(out + at, lanes, _mm512_cvtxph_ps(_mm256_castsi256_ph(half)));
    canonicalizeNaNs(in + at, out + at, n, nanBits);
}

// Sixteen codes at `in` to `out`, NaN lanes fixed before the store.
template <OutputStores Stores>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16")]] inline void
avx512Fp16Decode16(const std::uint16_t* in, std::uint32_t* out, const std::uint32_t (&nanBits)[2]) {
    const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    __m512 wide = _mm512_cvtxph_ps(_mm256_castsi256_ph(half));
    const __mmask16 nan = _mm256_cmpgt_epu16_mask(_mm256_and_si256(half, _mm256_set1_epi16(0x7fff)),
                                                  _mm256_set1_epi16(0x7c00));
    if (nan) [[unlikely]] {
        alignas(64) std::uint32_t fixed[16];
        _mm512_store_ps(fixed, wide);
        canonicalizeNaNs(in, fixed, 16, nanBits);
        wide = _mm512_load_ps(fixed);
    }
    if constexpr (Stores == OutputStores::Streaming)
        _mm512_stream_ps(reinterpret_cast<float*>(out), wide);
    else
        _mm512_storeu_ps(out, wide);
}

// Streaming: whole blocks in interleaved order, as f16cDecodeWith.
template <OutputStores Stores>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16")]] void
avx512Fp16DecodeWith(const std::uint16_t* in, std::uint32_t* out, std::size_t count,
                     const std::uint32_t (&nanBits)[2]) {
    if constexpr (Stores == OutputStores::Streaming) {
        streamInInterleavedBlocks<kDecodeBlock>(
            nullptr, out, count,
            [&](std::size_t first, std::size_t n) {
                avx512Fp16DecodeWith<OutputStores::Cached>(in + first, out + first, n, nanBits);
            },
            [&](std::size_t first)
                __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16"))) {
                    for (std::size_t k = first; k < first + kDecodeBlock; k += 16)
                        avx512Fp16Decode16<OutputStores::Streaming>(in + k, out + k, nanBits);
                });
    } else {
        std::size_t i = 0;
        for (; i + 16 <= count; i += 16)
            avx512Fp16Decode16<OutputStores::Cached>(in + i, out + i, nanBits);
        if (i < count)
            avx512Fp16DecodePartial(in, out, i, count - i, nanBits);
    }
}

} // namespace

void avx512Fp16Decode(const std::uint16_t* in, std::uint32_t* out, std::size_t count,
                      const std::uint32_t (&nanBits)[2], OutputStores stores) {
    loopFor(stores, &avx512Fp16DecodeWith<OutputStores::Cached>,
            &avx512Fp16DecodeWith<OutputStores::Streaming>)(in, out, count, nanBits);
}

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16")]] void
avx512Fp16EncodeBare(const std::uint32_t* in, std::uint16_t* out, std::size_t count) {
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16)
        _mm256_storeu_si256(
            reinterpret_cast<__m256i*>(out + i),
            _mm256_castph_si256(_mm512_cvtx_roundps_ph(
                _mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
    if (i < count) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (count - i)) - 1u);
        const __m256h half =
            _mm512_cvtx_roundps_ph(_mm512_castsi512_ps(_mm512_maskz_loadu_epi32(tail, in + i)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_mask_storeu_epi16(out + i, tail, _mm256_castph_si256(half));
    }
}

} // namespace fpx::kernels

#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// A compiler without the AVX512-FP16 intrinsics: hasAvx512Fp16() is false, so the dispatch never
// comes here; if it ever did, stopping beats leaving the output unwritten (wrong bits, silently).
namespace fpx::kernels {
void avx512Fp16Encode(RoundingMode, const std::uint32_t*, std::uint16_t*, std::size_t,
                      const std::uint32_t (&)[2], OutputStores) {
    __builtin_trap();
}
void avx512Fp16Decode(const std::uint16_t*, std::uint32_t*, std::size_t, const std::uint32_t (&)[2],
                      OutputStores) {
    __builtin_trap();
}
void avx512Fp16EncodeBare(const std::uint32_t*, std::uint16_t*, std::size_t) {
    __builtin_trap();
}
} // namespace fpx::kernels

#endif
