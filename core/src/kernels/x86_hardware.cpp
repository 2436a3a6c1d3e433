// SPDX-License-Identifier: GPL-3.0-or-later
#include "x86_hardware.h"

#include "interleaved_blocks.h"
#include "nan_codes_by_sign.h"
#include "pack_in_order.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace fpx::kernels {

namespace {

enum class IsaCap { Baseline, Avx2, Unlimited };

struct MaxIsa {
    IsaCap cap = IsaCap::Unlimited;
    std::string note;
};

// FPX_MAX_ISA, read once: the paths a converter has chosen must not change under it.
const MaxIsa& maxIsa() {
    static const MaxIsa parsed = [] {
        const char* value = std::getenv("FPX_MAX_ISA");
        if (value == nullptr || *value == '\0')
            return MaxIsa{};
        std::string name(value);
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (name == "avx2")
            return MaxIsa{IsaCap::Avx2, "FPX_MAX_ISA=avx2: AVX-512 not used"};
        if (name == "baseline")
            return MaxIsa{IsaCap::Baseline, "FPX_MAX_ISA=baseline: AVX2, F16C, AVX-512 not used"};
        if (name == "avx512")
            return MaxIsa{IsaCap::Unlimited, "FPX_MAX_ISA=avx512: everything the CPU has"};
        return MaxIsa{IsaCap::Unlimited, "FPX_MAX_ISA=" + std::string(value) +
                                             " not understood (avx512, avx2 or baseline): ignored"};
    }();
    return parsed;
}

} // namespace

std::string maxIsaNote() {
    return maxIsa().note;
}

bool hasF16c() {
    return maxIsa().cap != IsaCap::Baseline && __builtin_cpu_supports("f16c") &&
           __builtin_cpu_supports("avx2");
}
bool hasAvx2() {
    // The AVX2 loop set is compiled with -mavx2 -mbmi2 -mfma.
    return maxIsa().cap != IsaCap::Baseline && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma");
}
bool hasAvx512() {
    return maxIsa().cap == IsaCap::Unlimited && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq");
}
bool hasAvx512Bf16() {
    return hasAvx512() && __builtin_cpu_supports("avx512bf16");
}
bool hasAvx512Fp16() {
    return hasAvx512() && __builtin_cpu_supports("avx512fp16");
}
bool hasAvx512Vbmi() {
    return hasAvx512() && __builtin_cpu_supports("avx512vbmi");
}

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
std::size_t headBytes(const unsigned char* to, std::size_t bytes, std::size_t alignment) {
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
// local copy before it is stored, so each line is written once. (Converting into 16 KiB pieces
// and copying them out measured 62–69 % of memcpy; this 108–115 %, for the bare instruction.)
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

template <int Rounding>
[[gnu::target("avx2,f16c")]] void f16cEncodeWith(const std::uint32_t* in, std::uint16_t* out,
                                                 std::size_t count,
                                                 const std::uint32_t (&nanCode)[2]) {
    std::size_t i = 0;
    // Eight vectors share one NaN test (NaN is rare; the test is all the overhead over the bare
    // instruction loop): one unordered compare per pair of vectors (true where either lane is
    // a NaN), ORed together. vcvtps2ph and the compare share the same two vector ports; a
    // shift and a maximum per vector instead ran at 61–76 % of the bare loop.
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
        out[i] = static_cast<std::uint16_t>(_cvtss_sh(value, Rounding));
    }
    canonicalizeNaNs(in + (count & ~std::size_t{7}), out + (count & ~std::size_t{7}), count & 7,
                     nanCode);
}

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

// A path's loop for the stores asked for.
template <typename Loop> Loop loopFor(OutputStores stores, Loop cached, Loop streaming) {
    return stores == OutputStores::Streaming ? streaming : cached;
}
using EncodeLoop = void (*)(const std::uint32_t*, std::uint16_t*, std::size_t,
                            const std::uint32_t (&)[2]);

template <int Rounding> EncodeLoop f16cEncodeLoop(OutputStores stores) {
    return loopFor<EncodeLoop>(stores, &f16cEncodeWith<Rounding>, &f16cEncodeStreaming<Rounding>);
}

} // namespace

void f16cEncode(RoundingMode mode, const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                const std::uint32_t (&nanCode)[2], OutputStores stores) {
    switch (mode) {
    case RoundingMode::TowardZero:
        return f16cEncodeLoop<_MM_FROUND_TO_ZERO>(stores)(in, out, count, nanCode);
    case RoundingMode::TowardPositive:
        return f16cEncodeLoop<_MM_FROUND_TO_POS_INF>(stores)(in, out, count, nanCode);
    case RoundingMode::TowardNegative:
        return f16cEncodeLoop<_MM_FROUND_TO_NEG_INF>(stores)(in, out, count, nanCode);
    default:
        return f16cEncodeLoop<_MM_FROUND_TO_NEAREST_INT>(stores)(in, out, count, nanCode);
    }
}

namespace {

// Decoders: a vector's NaN lanes are fixed in a local copy before it is stored, so that a
// streaming store writes each line once and final.

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

// Streaming decoders write whole blocks of 32 FP32 results (one line of FP16 codes, two of
// results) in the interleaved order of interleaved_blocks.h, like the encoders. Front to back,
// a decoder reading 2-byte codes keeps too few lines in flight: vcvtph2psx measured a median
// 84 % of memcpy front to back, 101 % interleaved (fpx bench, 2 threads, 1 GiB of FP32).
constexpr std::size_t kDecodeBlock = 32;

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

void avx512Fp16Encode(RoundingMode mode, const std::uint32_t* in, std::uint16_t* out,
                      std::size_t count, const std::uint32_t (&nanCode)[2], OutputStores stores) {
    switch (mode) {
    case RoundingMode::TowardZero:
        return fp16EncodeLoop<_MM_FROUND_TO_ZERO>(stores)(in, out, count, nanCode);
    case RoundingMode::TowardPositive:
        return fp16EncodeLoop<_MM_FROUND_TO_POS_INF>(stores)(in, out, count, nanCode);
    case RoundingMode::TowardNegative:
        return fp16EncodeLoop<_MM_FROUND_TO_NEG_INF>(stores)(in, out, count, nanCode);
    default:
        return fp16EncodeLoop<_MM_FROUND_TO_NEAREST_INT>(stores)(in, out, count, nanCode);
    }
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

namespace {

// A 256-entry table of dwords takes 8 dword permutes and 7 blends per 16 codes
// (registerTableLoop, table_decode_loop.h), all on one port. Split into its four byte planes, each
// plane is looked up for 64 codes at once: vpermi2b picks from 128 entries by the index's
// low 7 bits, two of them and a blend on bit 7 cover 256. The four planes' bytes are then
// interleaved into dwords by unpacking, which works within 128-bit lanes:
//
//   plane bytes, per lane:  P0 = b0 of codes 0…15, P1 = b1, …
//   unpack 8 → 16 bits:     lo01 = (b0,b1) of codes 0…7,  hi01 = codes 8…15  (and P2/P3)
//   unpack 16 → 32 bits:    lo01+lo23 → codes 0…3, 4…7;   hi01+hi23 → codes 8…11, 12…15
//
// Result k lane L so holds lane L's codes 4k…4k+3. Permuting the 64 codes first (kLaneOrder:
// lane L, position 4k + i ← code 16k + 4L + i) makes result k hold codes 16k…16k+15 in order.
// 13 instructions on the permute port per 64 codes instead of about 40: FP8 in cache 4.6–6.7
// against 3.0–3.5 G elements/s (fpx bench on the machine in the README).
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] inline __m512i tableLaneOrder() {
    alignas(64) std::uint8_t order[64];
    for (int lane = 0; lane < 4; ++lane)
        for (int k = 0; k < 4; ++k)
            for (int i = 0; i < 4; ++i)
                order[16 * lane + 4 * k + i] = static_cast<std::uint8_t>(16 * k + 4 * lane + i);
    return _mm512_load_si512(order);
}

template <OutputStores Stores>
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] void
avx512VbmiTableDecodeWith(const std::uint8_t* in, std::uint32_t* out, std::size_t count,
                          const std::uint32_t* table,
                          const std::uint8_t (&planes)[kTablePlaneBytes], std::uint8_t mask) {
    // The loops over planes are unrolled so that the 16 table registers and the planes stay in
    // registers (GCC -O2 keeps such arrays on the stack otherwise).
    __m512i entries[4][4]; // [plane][64 entries]
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p)
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q)
            entries[p][q] = _mm512_loadu_si512(planes + 256 * p + 64 * q);
    const __m512i laneOrder = tableLaneOrder();
    const __m512i indexMask = _mm512_set1_epi8(static_cast<char>(mask));
    std::size_t i = 0;
    if constexpr (Stores == OutputStores::Streaming)
        for (const std::size_t head =
                 headBytes(reinterpret_cast<unsigned char*>(out), count * 4, 64) / 4;
             i < head; ++i)
            out[i] = table[in[i] & mask];
    for (; i + 64 <= count; i += 64) {
        // The zero-masked form with every lane kept: the plain intrinsic starts from
        // _mm512_undefined_epi32(), which GCC 12 reports as maybe uninitialised.
        const __m512i index = _mm512_and_si512(
            _mm512_maskz_permutexvar_epi8(~__mmask64{0}, laneOrder, _mm512_loadu_si512(in + i)),
            indexMask);
        const __mmask64 upperHalf = _mm512_movepi8_mask(index);
        __m512i plane[4];
#pragma GCC unroll 4
        for (int p = 0; p < 4; ++p)
            plane[p] = _mm512_mask_blend_epi8(
                upperHalf, _mm512_permutex2var_epi8(entries[p][0], index, entries[p][1]),
                _mm512_permutex2var_epi8(entries[p][2], index, entries[p][3]));
        const __m512i low01 = _mm512_unpacklo_epi8(plane[0], plane[1]);
        const __m512i high01 = _mm512_unpackhi_epi8(plane[0], plane[1]);
        const __m512i low23 = _mm512_unpacklo_epi8(plane[2], plane[3]);
        const __m512i high23 = _mm512_unpackhi_epi8(plane[2], plane[3]);
        const __m512i answers[4] = {
            _mm512_unpacklo_epi16(low01, low23), _mm512_unpackhi_epi16(low01, low23),
            _mm512_unpacklo_epi16(high01, high23), _mm512_unpackhi_epi16(high01, high23)};
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            if constexpr (Stores == OutputStores::Streaming)
                _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i + 16 * k), answers[k]);
            else
                _mm512_storeu_si512(out + i + 16 * k, answers[k]);
        }
    }
    for (; i < count; ++i)
        out[i] = table[in[i] & mask];
}

} // namespace

void avx512VbmiTableDecode(const std::uint8_t* in, std::uint32_t* out, std::size_t count,
                           const std::uint32_t* table,
                           const std::uint8_t (&planes)[kTablePlaneBytes], std::uint8_t mask,
                           OutputStores stores) {
    loopFor(stores, &avx512VbmiTableDecodeWith<OutputStores::Cached>,
            &avx512VbmiTableDecodeWith<OutputStores::Streaming>)(in, out, count, table, planes,
                                                                 mask);
}

namespace {

// The zero-masked forms of some intrinsics with every lane kept: the plain ones start from
// _mm512_undefined_epi32(), which GCC 12 reports as maybe uninitialised.
constexpr __mmask16 kAllLanes = 0xffff;

// avx512BucketLookup's tables in registers, rewritten so that one signed compare of |x| picks
// the code in both signs (bucketLookupElement compares orderedKey(x), which takes an XOR for
// negative x):
//
//   x ≥ 0:  key = |x|,  key ≥ b  ⇔  |x| > b − 1   threshold b − 1 (−1 for b ≤ 0: always),
//                                                  codes as they are (below | from << 8)
//   x < 0:  key = ~|x|, key ≥ b  ⇔  |x| ≤ ~b      threshold ~b, the two codes swapped:
//                                                  |x| > ~b picks the code below b
//
// A bucket without a breakpoint (b = INT32_MAX) gets INT32_MAX (x ≥ 0: |x| is never above it)
// or INT32_MIN (x < 0: |x| is always above it); either way the code below b.
struct BucketRegisters {
    __m512i thresholdsLow, thresholdsHigh, codesLow, codesHigh, shift, base;
    std::uint32_t nanCode[2];
};

// bucket = clamp((|x| >> shift) − base, 0, 15). With WordClamp (shift ≥ 15, so that the unit
// fits the low 16 bits, and base < 2^16) by a saturating word subtraction and a word minimum:
// the high words stay 0 − 0 = 0. Otherwise by a subtraction, a maximum and a minimum.
constexpr __mmask32 kAllLanesWords = 0xffffffffu;

template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq"), gnu::always_inline]] inline __m512i
bucketCodes16(const BucketRegisters& r, __m512i bits, __m512i magnitude) {
    const __m512i unit = _mm512_maskz_srlv_epi32(kAllLanes, magnitude, r.shift);
    __m512i bucket;
    if constexpr (WordClamp)
        bucket = _mm512_maskz_min_epu16(kAllLanesWords, _mm512_subs_epu16(unit, r.base),
                                        _mm512_set1_epi32(15));
    else
        bucket =
            _mm512_maskz_min_epi32(kAllLanes,
                                   _mm512_maskz_max_epi32(kAllLanes, _mm512_sub_epi32(unit, r.base),
                                                          _mm512_setzero_si512()),
                                   _mm512_set1_epi32(15));
    // The sign by vptestmd (port 5) rather than vpmovd2m: the shift, the clamp and the pick
    // below all need port 0.
    const __mmask16 negative = _mm512_test_epi32_mask(bits, _mm512_set1_epi32(INT32_MIN));
    const __m512i index = _mm512_mask_or_epi32(bucket, negative, bucket, _mm512_set1_epi32(16));
    const __m512i threshold = _mm512_permutex2var_epi32(r.thresholdsLow, index, r.thresholdsHigh);
    const __m512i code = _mm512_permutex2var_epi32(r.codesLow, index, r.codesHigh);
    // Below 2^16; bits 8–15 are the other code where no shift took them (cut when packing).
    return _mm512_mask_srli_epi32(code, _mm512_cmpgt_epi32_mask(magnitude, threshold), code, 8);
}

// 64 codes as one vector of bytes, in order (lanesInOrder), NaNs put in once per 64
// (putNaNCodesBySign).
template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq"), gnu::always_inline]] inline __m512i
bucketCodes64(const BucketRegisters& r, const std::uint32_t* in) {
    __m512i bits[4], magnitude[4], codes[4]; // unrolled, so that they stay in registers
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
        bits[v] = _mm512_loadu_si512(in + 16 * v);
        magnitude[v] = _mm512_and_si512(bits[v], _mm512_set1_epi32(0x7fffffff));
        codes[v] = bucketCodes16<WordClamp>(r, bits[v], magnitude[v]);
    }
    putNaNCodesBySign(bits, codes, _mm512_set1_epi32(static_cast<int>(r.nanCode[0])),
                      _mm512_set1_epi32(static_cast<int>(r.nanCode[1])));
    // Words keep the codes' two bytes (below 2^16: no saturation); the low byte of each is
    // the code.
    const __m512i lowBytes = _mm512_set1_epi16(0xff);
    return lanesInOrder(
        _mm512_packus_epi16(_mm512_and_si512(_mm512_packus_epi32(codes[0], codes[1]), lowBytes),
                            _mm512_and_si512(_mm512_packus_epi32(codes[2], codes[3]), lowBytes)));
}

template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq")]] void
avx512BucketLookupCached(const BucketRegisters& r, const std::uint32_t* in, std::uint8_t* out,
                         std::size_t count) {
    std::size_t i = 0;
    for (; i + 64 <= count; i += 64)
        _mm512_storeu_si512(out + i, bucketCodes64<WordClamp>(r, in + i));
    if (i < count) {
        // The last < 64 inputs through a zero-padded copy.
        alignas(64) std::uint32_t tailIn[64] = {};
        alignas(64) std::uint8_t tailOut[64];
        std::memcpy(tailIn, in + i, (count - i) * sizeof(std::uint32_t));
        _mm512_store_si512(tailOut, bucketCodes64<WordClamp>(r, tailIn));
        std::memcpy(out + i, tailOut, count - i);
    }
}

template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq")]] void
avx512BucketLookupWith(const BucketRegisters& r, const std::uint32_t* in, std::uint8_t* out,
                       std::size_t count, OutputStores stores) {
    if (stores == OutputStores::Cached)
        return avx512BucketLookupCached<WordClamp>(r, in, out, count);
    streamInInterleavedBlocks<64>(
        in, out, count,
        [&](std::size_t first, std::size_t n) {
            avx512BucketLookupCached<WordClamp>(r, in + first, out + first, n);
        },
        [&](std::size_t first) __attribute__((target("avx512f,avx512bw,avx512dq"))) {
            _mm512_stream_si512(reinterpret_cast<__m512i*>(out + first),
                                bucketCodes64<WordClamp>(r, in + first));
        });
}

// The thresholds and codes of BucketRegisters from the buckets.
[[gnu::target("avx512f,avx512bw,avx512dq")]] BucketRegisters
bucketRegisters(const BucketedBreakpoints& buckets) {
    alignas(64) std::int32_t thresholds[32];
    alignas(64) std::uint32_t codes[32];
    for (int j = 0; j < 32; ++j) {
        const std::int32_t b = buckets.breakpoint[j];
        const std::uint32_t below = buckets.codes[j] & 0xffu, from = buckets.codes[j] >> 8 & 0xffu;
        if (j < 16) {
            thresholds[j] =
                b == std::numeric_limits<std::int32_t>::max() ? b : (b <= 0 ? -1 : b - 1);
            codes[j] = below | from << 8;
        } else {
            thresholds[j] = ~b;
            codes[j] = from | below << 8;
        }
    }
    BucketRegisters r;
    r.thresholdsLow = _mm512_load_si512(thresholds);
    r.thresholdsHigh = _mm512_load_si512(thresholds + 16);
    r.codesLow = _mm512_load_si512(codes);
    r.codesHigh = _mm512_load_si512(codes + 16);
    r.shift = _mm512_set1_epi32(static_cast<int>(buckets.shift));
    r.base = _mm512_set1_epi32(buckets.base);
    r.nanCode[0] = buckets.nanCode[0] & 0xffu;
    r.nanCode[1] = buckets.nanCode[1] & 0xffu;
    return r;
}

} // namespace

void avx512BucketLookup(const BucketedBreakpoints& buckets, const std::uint32_t* in,
                        std::uint8_t* out, std::size_t count, OutputStores stores) {
    const BucketRegisters r = bucketRegisters(buckets);
    if (buckets.shift >= 15 && buckets.base >= 0 && buckets.base <= 0xffff)
        avx512BucketLookupWith<true>(r, in, out, count, stores);
    else
        avx512BucketLookupWith<false>(r, in, out, count, stores);
}

namespace {

// A whole cache line per streaming store: written in one piece, it leaves its write-combining
// buffer at once instead of waiting there for its other three parts. (On this project's
// 2-vCPU VM the difference drowns in run-to-run noise; it is the documented best case.)
[[gnu::target("avx512f")]] void streamingCopyAvx512(unsigned char* to, const unsigned char* from,
                                                    std::size_t bytes) {
    const std::size_t head = headBytes(to, bytes, 64);
    std::memcpy(to, from, head);
    std::size_t i = head;
    for (; i + 64 <= bytes; i += 64)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(to + i), _mm512_loadu_si512(from + i));
    std::memcpy(to + i, from + i, bytes - i);
}

} // namespace

void streamingCopy(void* destination, const void* source, std::size_t bytes) {
    auto* to = static_cast<unsigned char*>(destination);
    const auto* from = static_cast<const unsigned char*>(source);
    if (hasAvx512()) {
        streamingCopyAvx512(to, from, bytes);
        return;
    }
    // Head up to a 16-byte boundary, 16-byte streaming stores (SSE2: every x86-64), tail.
    const std::size_t head = headBytes(to, bytes, 16);
    std::memcpy(to, from, head);
    std::size_t i = head;
    for (; i + 16 <= bytes; i += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + i),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i)));
    std::memcpy(to + i, from + i, bytes - i);
}

void streamingFence() {
    _mm_sfence();
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
        out[i] = static_cast<std::uint16_t>(_cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT));
    }
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

#else // not x86-64 GCC/Clang: no such instructions

#include <cstring>

namespace fpx::kernels {
std::string maxIsaNote() {
    return "";
}
bool hasF16c() {
    return false;
}
bool hasAvx2() {
    return false;
}
bool hasAvx512() {
    return false;
}
bool hasAvx512Bf16() {
    return false;
}
bool hasAvx512Fp16() {
    return false;
}
bool hasAvx512Vbmi() {
    return false;
}
void avx512BucketLookup(const BucketedBreakpoints&, const std::uint32_t*, std::uint8_t*,
                        std::size_t, OutputStores) {}
void avx512VbmiTableDecode(const std::uint8_t*, std::uint32_t*, std::size_t, const std::uint32_t*,
                           const std::uint8_t (&)[kTablePlaneBytes], std::uint8_t, OutputStores) {}
void f16cEncode(RoundingMode, const std::uint32_t*, std::uint16_t*, std::size_t,
                const std::uint32_t (&)[2], OutputStores) {}
void f16cDecode(const std::uint16_t*, std::uint32_t*, std::size_t, const std::uint32_t (&)[2],
                OutputStores) {}
void avx512Bf16Encode(const std::uint32_t*, std::uint16_t*, std::size_t, const std::uint32_t (&)[2],
                      OutputStores) {}
void avx512Fp16Encode(RoundingMode, const std::uint32_t*, std::uint16_t*, std::size_t,
                      const std::uint32_t (&)[2], OutputStores) {}
void avx512Fp16Decode(const std::uint16_t*, std::uint32_t*, std::size_t, const std::uint32_t (&)[2],
                      OutputStores) {}
void f16cEncodeBare(const std::uint32_t*, std::uint16_t*, std::size_t) {}
void streamingCopy(void* destination, const void* source, std::size_t bytes) {
    std::memcpy(destination, source, bytes);
}
void streamingFence() {}
void avx512Fp16EncodeBare(const std::uint32_t*, std::uint16_t*, std::size_t) {}
void avx512Bf16EncodeBare(const std::uint32_t*, std::uint16_t*, std::size_t) {}
} // namespace fpx::kernels

#endif
