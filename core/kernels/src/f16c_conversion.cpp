// SPDX-License-Identifier: GPL-3.0-or-later
// FP32 ↔ FP16 by F16C (vcvtps2ph, vcvtph2ps), eight values per instruction.
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

// One value by vcvtps2ph on the low lane: what _cvtss_sh does, without that macro's C99
// compound literal (clang's header), which -Wpedantic rejects in C++.
template <int Rounding> [[gnu::target("avx2,f16c")]] std::uint16_t scalarToHalf(float value) {
    return static_cast<std::uint16_t>(_mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(value), Rounding)));
}

template <int Rounding>
[[gnu::target("avx2,f16c")]] void f16cEncodeWith(const std::uint32_t* in, std::uint16_t* out,
                                                 std::size_t count,
                                                 const std::uint32_t (&nanCode)[2]) {
    std::size_t i = 0;
    // Eight vectors share one NaN test (NaN is rare; the test is all the overhead over the bare
    // instruction loop): one unordered compare per pair of vectors (true where either lane is
    // a NaN), ORed together. vcvtps2ph and the compare share the same two vector ports; a
    // shift and a maximum per vector would put two operations per vector on them instead of
    // half a compare.
    for (; i + 64 <= count; i += 64) {
        __m256 nan = _mm256_setzero_ps();
        for (std::size_t k = 0; k < 64; k += 16) {
            const __m256 low = _mm256_loadu_ps(reinterpret_cast<const float*>(in + i + k));
            const __m256 high = _mm256_loadu_ps(reinterpret_cast<const float*>(in + i + k + 8));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + k),
                             _mm256_cvtps_ph(low, Rounding));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + k + 8),
                             _mm256_cvtps_ph(high, Rounding));
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(low, high, _CMP_UNORD_Q));
        }
        if (!_mm256_testz_ps(nan, nan)) [[unlikely]]
            canonicalizeNaNs(in + i, out + i, 64, nanCode);
    }
    for (; i + 8 <= count; i += 8) {
        const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m128i half = _mm256_cvtps_ph(_mm256_castsi256_ps(bits), Rounding);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), half);
        if (anyNaN8(bits)) [[unlikely]]
            canonicalizeNaNs(in + i, out + i, 8, nanCode);
    }
    for (; i < count; ++i) {
        float value;
        std::memcpy(&value, in + i, sizeof value);
        out[i] = scalarToHalf<Rounding>(value);
    }
    canonicalizeNaNs(in + (count & ~std::size_t{7}), out + (count & ~std::size_t{7}), count & 7,
                     nanCode);
}

// F16C's 256-bit stores, two per line: eight conversions per block, one NaN test.
template <int Rounding>
[[gnu::target("avx2,f16c")]] void f16cEncodeStreaming(const std::uint32_t* in, std::uint16_t* out,
                                                      std::size_t count,
                                                      const std::uint32_t (&nanCode)[2]) {
    streamInInterleavedBlocks<kEncodeBlock>(
        in, out, count,
        [&](std::size_t first, std::size_t n) {
            f16cEncodeWith<Rounding>(in + first, out + first, n, nanCode);
        },
        [&](std::size_t first) __attribute__((target("avx2,f16c"))) {
            const std::uint32_t* from = in + first;
            std::uint16_t* to = out + first;
            __m256i lines[4];
            __m256 nan = _mm256_setzero_ps(); // as in f16cEncodeWith
            for (std::size_t k = 0; k < kEncodeBlock; k += 16) {
                const __m256 low = _mm256_loadu_ps(reinterpret_cast<const float*>(from + k));
                const __m256 high = _mm256_loadu_ps(reinterpret_cast<const float*>(from + k + 8));
                lines[k / 16] = _mm256_set_m128i(_mm256_cvtps_ph(high, Rounding),
                                                 _mm256_cvtps_ph(low, Rounding));
                nan = _mm256_or_ps(nan, _mm256_cmp_ps(low, high, _CMP_UNORD_Q));
            }
            if (!_mm256_testz_ps(nan, nan)) [[unlikely]] {
                alignas(32) std::uint16_t fixed[kEncodeBlock];
                for (int v = 0; v < 4; ++v)
                    _mm256_store_si256(reinterpret_cast<__m256i*>(fixed) + v, lines[v]);
                canonicalizeNaNs(from, fixed, kEncodeBlock, nanCode);
                for (int v = 0; v < 4; ++v)
                    lines[v] = _mm256_load_si256(reinterpret_cast<const __m256i*>(fixed) + v);
            }
            for (int v = 0; v < 4; ++v)
                _mm256_stream_si256(reinterpret_cast<__m256i*>(to) + v, lines[v]);
        });
}

template <int Rounding> EncodeLoop f16cEncodeLoop(OutputStores stores) {
    return loopFor<EncodeLoop>(stores, &f16cEncodeWith<Rounding>, &f16cEncodeStreaming<Rounding>);
}

} // namespace

void f16cEncode(RoundingMode mode, const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                const std::uint32_t (&nanCode)[2], OutputStores stores) {
    withRoundingImmediate(mode, [&](auto rounding) {
        f16cEncodeLoop<decltype(rounding)::value>(stores)(in, out, count, nanCode);
    });
}

namespace {

// Elements [from, to) one at a time (vectorised loops' heads and tails).
[[gnu::target("avx2,f16c")]] void f16cDecodeScalar(const std::uint16_t* in, std::uint32_t* out,
                                                   std::size_t from, std::size_t to,
                                                   const std::uint32_t (&nanBits)[2]) {
    for (std::size_t k = from; k < to; ++k) {
        const float value = _cvtsh_ss(in[k]);
        std::memcpy(out + k, &value, sizeof value);
    }
    canonicalizeNaNs(in + from, out + from, to - from, nanBits);
}

// Eight codes at `in` to `out`, NaN lanes fixed before the store.
template <OutputStores Stores>
[[gnu::target("avx2,f16c")]] inline void f16cDecode8(const std::uint16_t* in, std::uint32_t* out,
                                                     const std::uint32_t (&nanBits)[2]) {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    __m256 wide = _mm256_cvtph_ps(half);
    const __m128i nan =
        _mm_cmpgt_epi16(_mm_and_si128(half, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
    if (!_mm_testz_si128(nan, nan)) [[unlikely]] {
        alignas(32) std::uint32_t fixed[8];
        _mm256_store_ps(reinterpret_cast<float*>(fixed), wide);
        canonicalizeNaNs(in, fixed, 8, nanBits);
        wide = _mm256_load_ps(reinterpret_cast<const float*>(fixed));
    }
    if constexpr (Stores == OutputStores::Streaming)
        _mm256_stream_ps(reinterpret_cast<float*>(out), wide);
    else
        _mm256_storeu_ps(reinterpret_cast<float*>(out), wide);
}

template <OutputStores Stores>
[[gnu::target("avx2,f16c")]] void f16cDecodeWith(const std::uint16_t* in, std::uint32_t* out,
                                                 std::size_t count,
                                                 const std::uint32_t (&nanBits)[2]) {
    if constexpr (Stores == OutputStores::Streaming) {
        streamInInterleavedBlocks<kDecodeBlock>(
            nullptr, out, count,
            [&](std::size_t first, std::size_t n) {
                f16cDecodeWith<OutputStores::Cached>(in + first, out + first, n, nanBits);
            },
            [&](std::size_t first) __attribute__((target("avx2,f16c"))) {
                for (std::size_t k = first; k < first + kDecodeBlock; k += 8)
                    f16cDecode8<OutputStores::Streaming>(in + k, out + k, nanBits);
            });
    } else {
        std::size_t i = 0;
        for (; i + 8 <= count; i += 8)
            f16cDecode8<OutputStores::Cached>(in + i, out + i, nanBits);
        f16cDecodeScalar(in, out, i, count, nanBits);
    }
}

} // namespace

void f16cDecode(const std::uint16_t* in, std::uint32_t* out, std::size_t count,
                const std::uint32_t (&nanBits)[2], OutputStores stores) {
    loopFor(stores, &f16cDecodeWith<OutputStores::Cached>,
            &f16cDecodeWith<OutputStores::Streaming>)(in, out, count, nanBits);
}

[[gnu::target("avx2,f16c")]] void f16cEncodeBare(const std::uint32_t* in, std::uint16_t* out,
                                                 std::size_t count) {
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(reinterpret_cast<const float*>(in + i)),
                                         _MM_FROUND_TO_NEAREST_INT));
    for (; i < count; ++i) {
        float value;
        std::memcpy(&value, in + i, sizeof value);
        out[i] = scalarToHalf<_MM_FROUND_TO_NEAREST_INT>(value);
    }
}

} // namespace fpx::kernels

#endif
