// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk loops, included by one .cpp per instruction set (kernels_*.cpp) and compiled with
// that instruction set's flags. Everything here has internal linkage, so the copies never mix.
// No #pragma once: each including file wants its own copy.

#include "interleaved_blocks.h"
#include "loop_set.h"
#include "nan_codes_by_sign.h"
#include "pack_in_order.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
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

// The codes are computed in 32-bit lanes into a small block on the stack, then narrowed in a
// second pass: done in one loop, GCC narrows every intermediate select to the output width and
// spends more instructions shuffling masks than computing.
// Flattened: with a streaming and an ordinary block loop in one function, GCC's inliner
// otherwise ran out of budget and called encodeElementOf once per element (INT8 ran 15× slower).
template <RoundingMode Mode, EncodeKind Kind, bool Symmetric>
[[gnu::flatten]] void encodeBlock(const EncodeParams& p, const std::uint32_t* __restrict__ in,
                                  std::uint32_t* __restrict__ out, std::size_t count,
                                  std::uint64_t seed, std::uint64_t firstIndex) {
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t random = 0;
        if constexpr (Mode == RoundingMode::Stochastic)
            random = stochasticBits(seed, firstIndex + i);
        out[i] = encodeElementOf<Mode, Kind, Symmetric>(p, in[i], random);
    }
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

#if defined(__AVX2__)
// The hand-written nearest-even encoders below (floats to codes of 1, 2 or 4 bytes, integers to
// bytes; AVX-512 where the loop set has it, AVX2 otherwise) share these rules, decided once per
// parameter set, and this loop.

// unsignedZeroApplies (element_conversion.h) says whether the unsigned-zero sign rule gives
// every answer of a format.

// How a float byte encoder finds the answers beyond its normal formula:
//
// - Overflow (code > maxMagnitude): by one vpminud with the overflow code where that is
//   maxMagnitude (saturation) or maxMagnitude + 1 (E4M3's NaN 0x7f, E5M2's ∞ 0x7c, fnuz's NaN
//   0x80), instead of a compare and a select.
// - NaN and ±∞: they take the normal formula; where it lands above maxMagnitude for all of
//   them, the overflow step catches them, and only answers that differ from the overflow answer
//   need their own test (E4M3 IEEE: all three are 0x7f). The sum |x| + addend + lsb wraps
//   modulo 2^32 by design (the addend holds −rebias); over the NaN and ∞ magnitudes it must not
//   cross a multiple of 2^32, so that it grows with |x| there and ∞'s sum is the smallest.
struct SpecialTests {
    bool overflowByMin = false;
    bool nan = true;
    bool infinity = true;
};
SpecialTests specialTests(const EncodeParams& p) {
    const std::uint64_t lowest = std::uint64_t{0x7f800000u} + p.nearestEvenAddend;
    const std::uint64_t highest = std::uint64_t{0x7fffffffu} + p.nearestEvenAddend + 1u;
    const bool noWrap = lowest >> 32 == highest >> 32;
    const bool specialsOverflow = noWrap && roundFloatMagnitude<RoundingMode::NearestEven>(
                                                p, 0x7f800000u, 0, 0) > p.maxMagnitude;
    return {p.overflowCode[0] == p.maxMagnitude || p.overflowCode[0] == p.maxMagnitude + 1u,
            !specialsOverflow || p.nanCode[0] != p.overflowCode[0],
            !specialsOverflow || p.infinityCode[0] != p.overflowCode[0]};
}

// Calls f(make(tests)) with `tests` a SpecialTests value as a template argument
// (std::integral_constant), so that the block encoder `make` returns has no branches for it.
template <typename Make, typename F>
void withSpecialTests(SpecialTests tests, const Make& make, const F& f) {
    const auto call = [&](auto overflowByMin, auto nan, auto infinity) {
        constexpr SpecialTests kTests{decltype(overflowByMin)::value, decltype(nan)::value,
                                      decltype(infinity)::value};
        f(make(std::integral_constant<SpecialTests, kTests>{}));
    };
    const auto withInfinity = [&](auto overflowByMin, auto nan) {
        tests.infinity ? call(overflowByMin, nan, std::true_type{})
                       : call(overflowByMin, nan, std::false_type{});
    };
    const auto withNaN = [&](auto overflowByMin) {
        tests.nan ? withInfinity(overflowByMin, std::true_type{})
                  : withInfinity(overflowByMin, std::false_type{});
    };
    tests.overflowByMin ? withNaN(std::true_type{}) : withNaN(std::false_type{});
}

// The integer encoder's clamp: |x| at most this (2^30 in units of the scale) rounds to an
// int32 beyond every code.
double integerClampMagnitude(const EncodeParams& p) {
    return 0x1p30 / p.reciprocalScale;
}

// Whether the integer byte encoder's answers are exactly these: zero 0, saturation for
// overflow and ±∞, one NaN code, codes within what the signed saturating packs keep (the NaN
// code goes in before them).
bool integerByteEncoderApplies(const EncodeParams& p) {
    const std::uint32_t minCode = (0u - p.maxNegativeMagnitude) & p.codeMask;
    return p.kind == EncodeKind::SignedInteger && p.reciprocalScale > 0 &&
           integerClampMagnitude(p) < 1e300 && p.zeroCode[0] == 0u && p.zeroCode[1] == 0u &&
           p.overflowCode[0] == p.maxMagnitude && p.overflowCode[1] == minCode &&
           p.infinityCode[0] == p.overflowCode[0] && p.infinityCode[1] == p.overflowCode[1] &&
           p.nanCode[0] == p.nanCode[1] && p.maxMagnitude <= 127u &&
           p.maxNegativeMagnitude <= 128u && p.nanCode[0] <= p.maxMagnitude;
}

// A hand-written encoder's loop: whole blocks of 64 codes by the encoder's block function
// encode64(in, out) (see withBlockEncoder), the rest one at a time; streaming (outputs far
// beyond the cache) in the interleaved runs of encodeLoop below.
template <OutputStores Stores, typename Encoder, typename Out>
void encodeCodes(const Encoder& encoder, const std::uint32_t* __restrict__ in,
                 Out* __restrict__ out, std::size_t count) {
    encoder.withBlockEncoder([&](const auto& encode64) {
        if constexpr (Stores == OutputStores::Streaming) {
            streamLocalBlocks(
                in, out, count,
                [&](std::size_t first, std::size_t n) {
                    encodeCodes<OutputStores::Cached>(encoder, in + first, out + first, n);
                },
                [&](std::size_t first, auto& block) { encode64(in + first, block); });
        } else {
            std::size_t i = 0;
            for (; i + 64 <= count; i += 64)
                encode64(in + i, out + i);
            for (; i < count; ++i)
                out[i] = encoder.encodeOne(in[i]);
        }
    });
}
#endif

#if defined(__AVX512BW__) && defined(__AVX512DQ__)
// The zero-masked forms of some intrinsics are used with every lane kept: the plain ones start
// from _mm512_undefined_epi32(), which GCC 12 reports as maybe uninitialised.
constexpr __mmask16 kAllLanes = 0xffff;
constexpr __mmask32 kAllWordLanes = 0xffffffffu;

// 64 dword codes (four vectors of 16, in order) stored as 64 codes of Out: bytes by the packs
// (codes below 256), words likewise (below 2^16), dwords as they are.
template <typename Out>
[[gnu::always_inline]] inline void storeCodesInOrder(Out* out, const __m512i (&codes)[4]) {
    if constexpr (sizeof(Out) == 1) {
        _mm512_storeu_si512(out, packCodesInOrder(codes));
    } else if constexpr (sizeof(Out) == 2) {
        _mm512_storeu_si512(out, packWordsInOrder(codes[0], codes[1]));
        _mm512_storeu_si512(out + 32, packWordsInOrder(codes[2], codes[3]));
    } else {
        for (int v = 0; v < 4; ++v)
            _mm512_storeu_si512(out + 16 * v, codes[v]);
    }
}

// encodeElementOf<NearestEven, BinaryFloat> for codes of one byte (FP8, FP6, FP4), two (FP16,
// BF16) or four (TF32), written out in intrinsics, 64 inputs at a time. GCC's vectorisation of the
// element code spends about 23 instructions per 16 inputs: two compares for the normal/small
// choice, a blend by OR, a shift with its count in an xmm register (two µops), the codes stored as
// dwords and narrowed in a second pass. Here (per 16 inputs):
//
//   normal = (|x| + addend + lsb) >> (23 − M)     the small result's lanes merged in by the
//   small  = (|x| + c) − c in FP32                  shift's mask: one compare, no blend
//   > max  → the overflow answer                  NaN and ±∞ only where their answers differ
//   ^ sign                                          from it (E4M3: all three are 0x7f)
//
// and the four vectors of 16 codes packed into 64 bytes with two vpackusdw, one vpackuswb and
// one vpermd (they pack within 128-bit lanes): about 14 instructions instead of 23. 2-byte
// codes: one vpackusdw and one vpermq per 32; 4-byte codes are stored as they are.
//
// The sign goes in by XOR, which needs answers for −x that are those for +x with the sign bit:
// every answer for the symmetric formats (symmetricSpecials), or, with UnsignedZero, every
// answer with magnitude bits (unsignedZeroApplies).
template <bool UnsignedZero, typename Out> class NearestEvenFloatEncoder {
  public:
    explicit NearestEvenFloatEncoder(const EncodeParams& p)
        : p_(p), magnitudeBits_(_mm512_set1_epi32(static_cast<int>(p.codeMask & ~p.signBit))),
          addend_(_mm512_set1_epi32(static_cast<int>(p.nearestEvenAddend))),
          fractionShift_(_mm512_set1_epi32(static_cast<int>(p.fractionShift))),
          magicBits_(_mm512_set1_epi32(static_cast<int>(p.subnormalMagicBits))),
          minNormal_(_mm512_set1_epi32(static_cast<int>(p.minNormalBits))),
          maxMagnitude_(_mm512_set1_epi32(static_cast<int>(p.maxMagnitude))),
          overflow_(_mm512_set1_epi32(static_cast<int>(p.overflowCode[0]))),
          nan_(_mm512_set1_epi32(static_cast<int>(p.nanCode[0]))),
          infinity_(_mm512_set1_epi32(static_cast<int>(p.infinityCode[0]))),
          signBit_(_mm512_set1_epi32(static_cast<int>(p.signBit))), tests_(specialTests(p)) {}

    Out encodeOne(std::uint32_t bits) const {
        return static_cast<Out>(
            encodeElementOf<RoundingMode::NearestEven, EncodeKind::BinaryFloat, true, UnsignedZero>(
                p_, bits, 0));
    }

    // Calls f(encode64) with a function that encodes 64 inputs to 64 codes, for this
    // format's specials (withSpecialTests).
    template <typename F> void withBlockEncoder(const F& f) const {
        withSpecialTests(
            tests_,
            [this](auto tests) {
                return [this](const std::uint32_t* in, Out* out) __attribute__((always_inline)) {
                    // NaN and ±∞ are rare: where their answers need their own tests, the 64
                    // inputs are encoded without them, and again with them only where the
                    // largest magnitude is ∞'s or above (one test per 64 instead of two
                    // compares and two masked moves per 16).
                    constexpr SpecialTests kTests = decltype(tests)::value;
                    constexpr SpecialTests kFinite{kTests.overflowByMin, false, false};
                    __m512i bits[4], magnitude[4], codes[4];
                    for (int v = 0; v < 4; ++v) {
                        bits[v] = _mm512_loadu_si512(in + 16 * v);
                        magnitude[v] = _mm512_and_si512(bits[v], _mm512_set1_epi32(0x7fffffff));
                        codes[v] = encode16<kFinite>(bits[v], magnitude[v]);
                    }
                    if constexpr (kTests.nan || kTests.infinity) {
                        const __m512i largest = _mm512_maskz_max_epu32(
                            kAllLanes,
                            _mm512_maskz_max_epu32(kAllLanes, magnitude[0], magnitude[1]),
                            _mm512_maskz_max_epu32(kAllLanes, magnitude[2], magnitude[3]));
                        if (_mm512_cmpge_epu32_mask(largest, _mm512_set1_epi32(0x7f800000)) != 0)
                            [[unlikely]] {
                            for (int v = 0; v < 4; ++v)
                                codes[v] = encode16<kTests>(bits[v], magnitude[v]);
                        }
                    }
                    storeCodesInOrder(out, codes);
                };
            },
            f);
    }

  private:
    // magnitude: bits & 0x7fffffff.
    template <SpecialTests Tests>
    [[gnu::always_inline]] __m512i encode16(__m512i bits, __m512i magnitude) const {
        const __m512i lsb = _mm512_and_si512(
            _mm512_maskz_srlv_epi32(kAllLanes, magnitude, fractionShift_), _mm512_set1_epi32(1));
        const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(magnitude, addend_), lsb);
        const __m512i small =
            _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(magnitude),
                                                               _mm512_castsi512_ps(magicBits_))),
                             magicBits_);
        const __mmask16 normal = _mm512_cmpge_epu32_mask(magnitude, minNormal_);
        __m512i code = _mm512_mask_srlv_epi32(small, normal, sum, fractionShift_);
        if constexpr (Tests.overflowByMin)
            code = _mm512_maskz_min_epu32(kAllLanes, code, overflow_);
        else
            code = _mm512_mask_mov_epi32(code, _mm512_cmpgt_epu32_mask(code, maxMagnitude_),
                                         overflow_);
        const __m512i infinityBits = _mm512_set1_epi32(0x7f800000);
        if constexpr (Tests.nan)
            code =
                _mm512_mask_mov_epi32(code, _mm512_cmpgt_epu32_mask(magnitude, infinityBits), nan_);
        if constexpr (Tests.infinity)
            code = _mm512_mask_mov_epi32(code, _mm512_cmpeq_epi32_mask(magnitude, infinityBits),
                                         infinity_);
        // code ^ (sign mask & signBit): vpternlogd 0x78 is A ^ (B & C).
        const __m512i signMask = _mm512_maskz_srai_epi32(kAllLanes, bits, 31);
        if constexpr (UnsignedZero)
            return _mm512_mask_ternarylogic_epi32(
                code, _mm512_test_epi32_mask(code, magnitudeBits_), signMask, signBit_, 0x78);
        else
            return _mm512_ternarylogic_epi32(code, signMask, signBit_, 0x78);
    }

    EncodeParams p_;
    __m512i magnitudeBits_, addend_, fractionShift_, magicBits_, minNormal_, maxMagnitude_,
        overflow_, nan_, infinity_, signBit_;
    SpecialTests tests_;
};

// encodeElementOf<NearestEven, BinaryFloat> for FP8 E5M2, whose codes are the top byte of FP16's
// (the same sign, 5 exponent bits with bias 15, FP16's 2 leading fraction bits, subnormals
// where FP16's are, ∞ 0x7c00 → 0x7c), 64 inputs at a time through FP16 rounded to odd:
//
//                      fraction bits 22 21 | 20 … 16 | 15 … 13 | 12 … 0
//   FP32 x'   s eeeeeeee             m  m  | m  …  m | m  …  m | m  …  m   x with bit 16 set where
//   FP16 h    s eeeee                m  m  | m  …  m | m  …  m |           bits 0–15 are not all 0
//   E5M2      s eeeee                m  m  |  (h + 0x7f + bit 8 of h) >> 8: ties to even
//
// vcvtps2ph toward zero takes x' to h, 16 inputs per µop pair, subnormals included. Rounding
// twice gives the correctly rounded answer because the first rounding is to odd (Boldo and
// Melquiond): x' lies strictly between the same two multiples of 2^17 (in units of x's last
// place) as x unless x is one; vcvtps2ph drops at most bits 0–15 of any x whose answer is not
// zero (bits 0–12 where h is normal, 0–15 at 2^-17, half E5M2's smallest subnormal, where FP16's
// step is 2^-24; below 2^-17, h is at most 0x0080 and the answer 0), so h keeps bit 16 and stays
// inside; E5M2's values and ties (multiples of 2^20 of x's last place where E5M2 is normal, of
// 2^-17 below 2^-14) are such multiples, so h is on the same side of each as x. Setting FP16's
// last bit (bit 13) instead would not do: at 2^-17 vcvtps2ph drops bits 13–15 as well.
//
// Doubled: an E5M2 of bias 16 (fnuz, b16) is E5M2 of 2x, up to its finite codes 0x7c–0x7f where
// FP16 has ∞ and NaN (x · 2 is exact below 2^127, and ∞ from there on is beyond `limit`).
// UnsignedZero: the fnuz sign rule, as the dword encoder's (zero and NaN unsigned).
//
// Finite inputs of 61440 and more round toward zero to 0x7bff at most and come out 0x7c (∞), the
// IEEE answer; NaN would carry into the sign, saturation wants 0x7b, and where 0x7c–0x7f are
// finite 0x7bff may stand for anything larger: a block holding a magnitude of `limit` or more is
// encoded by the dword encoder instead. Per 16 inputs: an add and a vpternlogd for the odd bit,
// vcvtps2ph (two µops), then per 32 a vinserti64x4 and 6 word operations, and per 64 the limit
// test and the pack (Doubled: a vmulps per 16; UnsignedZero: a vptestmb and a masked move per
// 64): about 8 instead of the dword encoder's 13 and a half (in cache on the machine in the
// README, E5M2 4.9–8.3 G elements/s per core against E4M3's 3.9–5.7 in the same runs; 5.8
// before).
template <bool UnsignedZero, bool Doubled> class HalfTopByteEncoder {
  public:
    // The caller has checked the sign rule: symmetric specials, or with UnsignedZero the
    // unsigned-zero rule.
    static bool applies(const EncodeParams& p) {
        return p.kind == EncodeKind::BinaryFloat && p.fractionShift == 21 &&
               p.minNormalBits == (Doubled ? kMinNormalBias16 : kMinNormalBias15) &&
               p.signBit == 0x80u && p.codeMask == 0xffu && p.maxMagnitude >= 0x7bu &&
               p.zeroCode[0] == 0u && p.zeroCode[1] == (UnsignedZero ? 0u : 0x80u);
    }

    explicit HalfTopByteEncoder(const EncodeParams& p)
        : exact_(p), twiceLimit_(_mm512_set1_epi16(static_cast<short>(2 * limit(p)))) {}

    std::uint8_t encodeOne(std::uint32_t bits) const { return exact_.encodeOne(bits); }

    template <typename F> void withBlockEncoder(const F& f) const {
        exact_.withBlockEncoder([&](const auto& exact64) {
            f([&](const std::uint32_t* in, std::uint8_t* out) __attribute__((always_inline)) {
                const __m512i h[2] = {halves32(in), halves32(in + 32)};
                // h + h: the magnitude doubled, the sign shifted out.
                const __m512i largest = _mm512_maskz_max_epu16(
                    kAllWordLanes, _mm512_add_epi16(h[0], h[0]), _mm512_add_epi16(h[1], h[1]));
                if (_mm512_cmpge_epu16_mask(largest, twiceLimit_) != 0) [[unlikely]]
                    return encodeExactly(exact64, in, out);
                __m512i codes = packBytesInOrder(topBytes(h[0]), topBytes(h[1]));
                if constexpr (UnsignedZero) // −x rounding to zero: 0x80 → 0
                    codes = _mm512_maskz_mov_epi8(
                        _mm512_test_epi8_mask(codes, _mm512_set1_epi8(0x7f)), codes);
                _mm512_storeu_si512(out, codes);
            });
        });
    }

  private:
    // The rare block out of line, so that the block encoder above stays small enough for GCC to
    // inline it into the streaming loop (inlined, the dword encoder's tests made it a call per
    // block, each broadcasting its constants again).
    template <typename Exact>
    [[gnu::noinline]] static void encodeExactly(const Exact& exact64, const std::uint32_t* in,
                                                std::uint8_t* out) {
        exact64(in, out);
    }

    // FP32 bits of E5M2's smallest normal value, 2^-14 at bias 15 and 2^-15 at bias 16.
    static constexpr std::uint32_t kMinNormalBias15 = (127u - 14u) << 23;
    static constexpr std::uint32_t kMinNormalBias16 = (127u - 15u) << 23;

    // The first FP16 magnitude whose answer the top-byte formula may get wrong.
    static std::uint32_t limit(const EncodeParams& p) {
        if (p.maxMagnitude >= 0x7cu) // finite codes FP16 has not: 0x7bff may be a larger input
            return 0x7bffu;
        // From 0x7b80 on the formula gives 0x7c: IEEE's ∞, right for finite inputs and ∞ where
        // those are the answers (NaN, above 0x7c00, is not).
        return p.overflowCode[0] == 0x7cu && p.infinityCode[0] == 0x7cu ? 0x7c01u : 0x7b80u;
    }

    // 32 inputs → 32 FP16 rounded to odd (at bit 16 of the input), in order.
    [[gnu::always_inline]] __m512i halves32(const std::uint32_t* in) const {
        __m256i h[2];
        for (int v = 0; v < 2; ++v) {
            __m512i x = _mm512_loadu_si512(in + 16 * v);
            if constexpr (Doubled)
                x = _mm512_castps_si512(
                    _mm512_mul_ps(_mm512_castsi512_ps(x), _mm512_set1_ps(2.0f)));
            // x | ((x + 0xffff) & 0x10000): where bit 16 is clear, the add carries into it
            // exactly when bits 0–15 are not all zero (vpternlogd 0xf8 is A | (B & C)).
            const __m512i odd =
                _mm512_ternarylogic_epi32(x, _mm512_add_epi32(x, _mm512_set1_epi32(0xffff)),
                                          _mm512_set1_epi32(0x10000), 0xf8);
            h[v] = _mm512_maskz_cvtps_ph(kAllLanes, _mm512_castsi512_ps(odd),
                                         _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        }
        return _mm512_maskz_inserti64x4(static_cast<__mmask8>(0xff), _mm512_castsi256_si512(h[0]),
                                        h[1], 1);
    }

    // (h + 0x7f + bit 8 of h) >> 8 in each word: below 0x100 where |h| is below `limit`.
    [[gnu::always_inline]] static __m512i topBytes(__m512i h) {
        const __m512i lsb = _mm512_and_si512(_mm512_srli_epi16(h, 8), _mm512_set1_epi16(1));
        return _mm512_srli_epi16(
            _mm512_add_epi16(_mm512_add_epi16(h, _mm512_set1_epi16(0x7f)), lsb), 8);
    }

    NearestEvenFloatEncoder<UnsignedZero, std::uint8_t> exact_;
    __m512i twiceLimit_;
};

// Encodes through HalfTopByteEncoder where it applies; false otherwise (and without AVX-512).
template <bool UnsignedZero, OutputStores Stores, typename Out>
bool encodeThroughHalf(const EncodeParams& p, const std::uint32_t* __restrict__ in,
                       Out* __restrict__ out, std::size_t count) {
    if constexpr (sizeof(Out) == 1) {
        if (HalfTopByteEncoder<UnsignedZero, false>::applies(p)) {
            encodeCodes<Stores>(HalfTopByteEncoder<UnsignedZero, false>(p), in, out, count);
            return true;
        }
        if (HalfTopByteEncoder<UnsignedZero, true>::applies(p)) {
            encodeCodes<Stores>(HalfTopByteEncoder<UnsignedZero, true>(p), in, out, count);
            return true;
        }
    }
    return false;
}

// encodeElementOf<NearestEven, SignedInteger> for byte codes (INT8, INT4) in intrinsics, 64
// inputs at a time, through FP64 like the element code (x · K · 2^−k is exact in a double),
// with one FMA instead of a multiply and an add (its single rounding is the same), and with
// the clamps done by instructions that also give the answers:
//
//   x → FP64, |x| clamped to 2^30 / (K · 2^−k) by vrangepd (min of magnitudes, x's sign)
//   x · K · 2^−k + 1.5·2^52  →  low dwords = round(x / scale), ties to even
//   vpmaxsd/vpminsd to the code range: saturation, the answer for overflow and ±∞
//   NaN lanes (an unordered compare) → the NaN code; packed by vpackss*, masked to the width
//
// About 14 instructions per 16 inputs; GCC's vectorisation of the element code spends about
// twice as many. Only for parameters whose answers are exactly these (applies()).
class NearestEvenIntegerByteEncoder {
  public:
    static bool applies(const EncodeParams& p) { return integerByteEncoderApplies(p); }

    explicit NearestEvenIntegerByteEncoder(const EncodeParams& p)
        : p_(p), reciprocalScale_(_mm512_set1_pd(p.reciprocalScale)),
          clamp_(_mm512_set1_pd(integerClampMagnitude(p))),
          lowest_(_mm512_set1_epi32(-static_cast<int>(p.maxNegativeMagnitude))),
          highest_(_mm512_set1_epi32(static_cast<int>(p.maxMagnitude))),
          nan_(_mm512_set1_epi32(static_cast<int>(p.nanCode[0]))),
          codeMask_(_mm512_set1_epi8(static_cast<char>(p.codeMask))) {}

    std::uint8_t encodeOne(std::uint32_t bits) const {
        return static_cast<std::uint8_t>(
            encodeElementOf<RoundingMode::NearestEven, EncodeKind::SignedInteger>(p_, bits, 0));
    }

    template <typename F> void withBlockEncoder(const F& f) const {
        f([this](const std::uint32_t* in, std::uint8_t* out) __attribute__((always_inline)) {
            __m512i codes[4];
            for (int v = 0; v < 4; ++v)
                codes[v] = encode16(in + 16 * v);
            // In [−128, 127] already: the signed saturating packs keep them.
            _mm512_storeu_si512(out, _mm512_and_si512(lanesInOrder(_mm512_packs_epi16(
                                                          _mm512_packs_epi32(codes[0], codes[1]),
                                                          _mm512_packs_epi32(codes[2], codes[3]))),
                                                      codeMask_));
        });
    }

  private:
    [[gnu::always_inline]] __m512i integers8(const std::uint32_t* in) const {
        const __m512d x = _mm512_maskz_cvtps_pd(
            static_cast<__mmask8>(0xff), _mm256_loadu_ps(reinterpret_cast<const float*>(in)));
        // vrangepd imm 0b0010: the smaller magnitude, with the first operand's sign.
        const __m512d clamped = _mm512_range_pd(x, clamp_, 0b0010);
        return _mm512_castpd_si512(
            _mm512_fmadd_pd(clamped, reciprocalScale_, _mm512_set1_pd(0x1.8p52)));
    }

    [[gnu::always_inline]] __m512i encode16(const std::uint32_t* in) const {
        // The low dwords of both halves' sums: even dwords 0…14 of each.
        const __m512i rounded = _mm512_permutex2var_epi32(
            integers8(in),
            _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
            integers8(in + 8));
        const __m512i code = _mm512_maskz_min_epi32(
            kAllLanes, _mm512_maskz_max_epi32(kAllLanes, rounded, lowest_), highest_);
        const __m512 bits = _mm512_loadu_ps(reinterpret_cast<const float*>(in));
        return _mm512_mask_mov_epi32(code, _mm512_cmp_ps_mask(bits, bits, _CMP_UNORD_Q), nan_);
    }

    EncodeParams p_;
    __m512d reciprocalScale_, clamp_;
    __m512i lowest_, highest_, nan_, codeMask_;
};
#elif defined(__AVX2__)
// The same two encoders for AVX2 (no mask registers, no unsigned compares, no vrangepd),
// 8 inputs per vector. GCC's vectorisation of the element code ran FP8 at 1.7 and INT8 at
// 0.17 G elements/s per core (the FP64 path does not vectorise without AVX-512).

// encodeElementOf<NearestEven, BinaryFloat> for codes of 1, 2 or 4 bytes, as the AVX-512
// encoder above:
//
//   normal = (|x| + addend + lsb) >> (23 − M)     chosen by a compare and vpblendvb
//   small  = (|x| + c) − c in FP32
//   > max  → the overflow answer, NaN and ±∞ where their answers differ from it
//   ^ sign (fnuz: only where the code has magnitude bits)
//
// Every value compared is below 2^31 (magnitudes, and codes shifted right by 23 − M ≥ 1), so
// the signed compares vpcmpgtd order them as unsigned.
template <bool UnsignedZero, typename Out> class NearestEvenFloatEncoder {
  public:
    explicit NearestEvenFloatEncoder(const EncodeParams& p)
        : p_(p), magnitudeBits_(broadcast(p.codeMask & ~p.signBit)),
          addend_(broadcast(p.nearestEvenAddend)), fractionShift_(broadcast(p.fractionShift)),
          magicBits_(broadcast(p.subnormalMagicBits)),
          belowMinNormal_(broadcast(p.minNormalBits - 1u)),
          maxMagnitude_(broadcast(p.maxMagnitude)), overflow_(broadcast(p.overflowCode[0])),
          nan_(broadcast(p.nanCode[0])), infinity_(broadcast(p.infinityCode[0])),
          signBit_(broadcast(p.signBit)), tests_(specialTests(p)) {}

    Out encodeOne(std::uint32_t bits) const {
        return static_cast<Out>(
            encodeElementOf<RoundingMode::NearestEven, EncodeKind::BinaryFloat, true, UnsignedZero>(
                p_, bits, 0));
    }

    // Calls f(encode64) with a function that encodes 64 inputs to 64 codes (two vectors of 32),
    // for this format's specials (withSpecialTests).
    template <typename F> void withBlockEncoder(const F& f) const {
        withSpecialTests(
            tests_,
            [this](auto tests) {
                return [this](const std::uint32_t* in, Out* out) __attribute__((always_inline)) {
                    // NaN and ±∞ tested once per 32 inputs, as in the AVX-512 encoder.
                    constexpr SpecialTests kTests = decltype(tests)::value;
                    constexpr SpecialTests kFinite{kTests.overflowByMin, false, false};
                    for (int half = 0; half < 64; half += 32) {
                        __m256i bits[4], magnitude[4], codes[4];
                        for (int v = 0; v < 4; ++v) {
                            bits[v] = _mm256_loadu_si256(
                                reinterpret_cast<const __m256i*>(in + half + 8 * v));
                            magnitude[v] = _mm256_and_si256(bits[v], _mm256_set1_epi32(0x7fffffff));
                            codes[v] = encode8<kFinite>(bits[v], magnitude[v]);
                        }
                        if constexpr (kTests.nan || kTests.infinity) {
                            // Magnitudes are below 2^31: the signed maximum and compare order
                            // them.
                            const __m256i largest =
                                _mm256_max_epi32(_mm256_max_epi32(magnitude[0], magnitude[1]),
                                                 _mm256_max_epi32(magnitude[2], magnitude[3]));
                            const __m256i special =
                                _mm256_cmpgt_epi32(largest, _mm256_set1_epi32(0x7f7fffff));
                            if (!_mm256_testz_si256(special, special)) [[unlikely]] {
                                for (int v = 0; v < 4; ++v)
                                    codes[v] = encode8<kTests>(bits[v], magnitude[v]);
                            }
                        }
                        if constexpr (sizeof(Out) == 1) {
                            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + half),
                                                packCodesInOrder(codes)); // below 256
                        } else if constexpr (sizeof(Out) == 4) {
                            for (int v = 0; v < 4; ++v)
                                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + half + 8 * v),
                                                    codes[v]);
                        } else {
                            for (int pair = 0; pair < 2; ++pair)
                                _mm256_storeu_si256(
                                    reinterpret_cast<__m256i*>(out + half + 16 * pair),
                                    packWordsInOrder(codes[2 * pair], codes[2 * pair + 1]));
                        }
                    }
                };
            },
            f);
    }

  private:
    static __m256i broadcast(std::uint32_t value) {
        return _mm256_set1_epi32(static_cast<int>(value));
    }

    // magnitude: bits & 0x7fffffff.
    template <SpecialTests Tests>
    [[gnu::always_inline]] __m256i encode8(__m256i bits, __m256i magnitude) const {
        const __m256i lsb =
            _mm256_and_si256(_mm256_srlv_epi32(magnitude, fractionShift_), _mm256_set1_epi32(1));
        const __m256i sum = _mm256_add_epi32(_mm256_add_epi32(magnitude, addend_), lsb);
        const __m256i small =
            _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(magnitude),
                                                               _mm256_castsi256_ps(magicBits_))),
                             magicBits_);
        __m256i code = _mm256_blendv_epi8(small, _mm256_srlv_epi32(sum, fractionShift_),
                                          _mm256_cmpgt_epi32(magnitude, belowMinNormal_));
        if constexpr (Tests.overflowByMin)
            code = _mm256_min_epu32(code, overflow_);
        else
            code = _mm256_blendv_epi8(code, overflow_, _mm256_cmpgt_epi32(code, maxMagnitude_));
        const __m256i infinityBits = _mm256_set1_epi32(0x7f800000);
        if constexpr (Tests.nan)
            code = _mm256_blendv_epi8(code, nan_, _mm256_cmpgt_epi32(magnitude, infinityBits));
        if constexpr (Tests.infinity)
            code = _mm256_blendv_epi8(code, infinity_, _mm256_cmpeq_epi32(magnitude, infinityBits));
        __m256i signMask = _mm256_srai_epi32(bits, 31);
        if constexpr (UnsignedZero)
            signMask = _mm256_andnot_si256(
                _mm256_cmpeq_epi32(_mm256_and_si256(code, magnitudeBits_), _mm256_setzero_si256()),
                signMask);
        return _mm256_xor_si256(code, _mm256_and_si256(signMask, signBit_));
    }

    EncodeParams p_;
    __m256i magnitudeBits_, addend_, fractionShift_, magicBits_, belowMinNormal_, maxMagnitude_,
        overflow_, nan_, infinity_, signBit_;
    SpecialTests tests_;
};

// encodeElementOf<NearestEven, SignedInteger> for byte codes, as the AVX-512 encoder above
// but with the clamp by vmaxpd/vminpd and the rounding by vcvtpd2dq, whose nearest-even is
// that of the AVX-512 encoder's FMA (both round as MXCSR says, which nothing here changes):
//
//   x → FP64, clamped to ±2^30 / (K · 2^−k)  (a NaN becomes −clamp: replaced below)
//   round(x · K · 2^−k) by vcvtpd2dq; the product is exact in a double
//   vpmaxsd/vpminsd to the code range, NaN lanes → the NaN code, packed by vpackss*, masked
class NearestEvenIntegerByteEncoder {
  public:
    static bool applies(const EncodeParams& p) { return integerByteEncoderApplies(p); }

    explicit NearestEvenIntegerByteEncoder(const EncodeParams& p)
        : p_(p), reciprocalScale_(_mm256_set1_pd(p.reciprocalScale)),
          clamp_(_mm256_set1_pd(integerClampMagnitude(p))),
          negativeClamp_(_mm256_set1_pd(-integerClampMagnitude(p))),
          lowest_(_mm256_set1_epi32(-static_cast<int>(p.maxNegativeMagnitude))),
          highest_(_mm256_set1_epi32(static_cast<int>(p.maxMagnitude))),
          nan_(_mm256_set1_epi32(static_cast<int>(p.nanCode[0]))),
          codeMask_(_mm256_set1_epi8(static_cast<char>(p.codeMask))) {}

    std::uint8_t encodeOne(std::uint32_t bits) const {
        return static_cast<std::uint8_t>(
            encodeElementOf<RoundingMode::NearestEven, EncodeKind::SignedInteger>(p_, bits, 0));
    }

    template <typename F> void withBlockEncoder(const F& f) const {
        f([this](const std::uint32_t* in, std::uint8_t* out) __attribute__((always_inline)) {
            for (int half = 0; half < 64; half += 32) {
                __m256i codes[4];
                for (int v = 0; v < 4; ++v)
                    codes[v] = encode8(in + half + 8 * v);
                // In [−128, 127] already: the signed saturating packs keep them.
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + half),
                                    _mm256_and_si256(lanesInOrder(_mm256_packs_epi16(
                                                         _mm256_packs_epi32(codes[0], codes[1]),
                                                         _mm256_packs_epi32(codes[2], codes[3]))),
                                                     codeMask_));
            }
        });
    }

  private:
    [[gnu::always_inline]] __m128i integers4(const std::uint32_t* in) const {
        const __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float*>(in)));
        const __m256d clamped = _mm256_min_pd(_mm256_max_pd(x, negativeClamp_), clamp_);
        return _mm256_cvtpd_epi32(_mm256_mul_pd(clamped, reciprocalScale_));
    }

    [[gnu::always_inline]] __m256i encode8(const std::uint32_t* in) const {
        const __m256i rounded = _mm256_set_m128i(integers4(in + 4), integers4(in));
        const __m256i code = _mm256_min_epi32(_mm256_max_epi32(rounded, lowest_), highest_);
        const __m256 bits = _mm256_loadu_ps(reinterpret_cast<const float*>(in));
        return _mm256_blendv_epi8(code, nan_,
                                  _mm256_castps_si256(_mm256_cmp_ps(bits, bits, _CMP_UNORD_Q)));
    }

    EncodeParams p_;
    __m256d reciprocalScale_, clamp_, negativeClamp_;
    __m256i lowest_, highest_, nan_, codeMask_;
};

// AVX2 has no FP16 route (HalfTopByteEncoder): its vcvtps2ph takes 8 inputs.
template <bool UnsignedZero, OutputStores Stores, typename Out>
bool encodeThroughHalf(const EncodeParams&, const std::uint32_t*, Out*, std::size_t) {
    return false;
}
#endif

// The parameters are copied to a local: stores through the byte-sized output pointer may
// alias anything, and a local whose address never escapes keeps them in registers.
// Streaming (outputs far beyond the cache): each block of 64 codes goes to memory with
// non-temporal stores as soon as it is narrowed, so the core converts the next block while the
// write-combining buffers drain the last one (see writeOutput below, the same for decoders),
// and the blocks are visited in interleaved runs (interleaved_blocks.h): FP8 E4M3 went from
// 39–46 % to 61–65 % of memcpy on the machine in the README, where the core's speed is now the
// limit.
template <RoundingMode Mode, EncodeKind Kind, typename Out, bool Symmetric, OutputStores Stores>
void encodeLoop(const EncodeParams& params, const std::uint32_t* __restrict__ in, void* outBytes,
                std::size_t count, std::uint64_t seed, std::uint64_t firstIndex) {
    const EncodeParams p = params;
    Out* __restrict__ out = static_cast<Out*>(outBytes);
#if defined(__AVX2__)
    // Codes of 1 byte (FP8, FP6, FP4), 2 (FP16, BF16; below 2^16, which the unsigned packs
    // keep) or 4 (TF32).
    if constexpr (Mode == RoundingMode::NearestEven && Kind == EncodeKind::BinaryFloat) {
        if constexpr (Symmetric) {
            if (encodeThroughHalf<false, Stores>(p, in, out, count))
                return;
            return encodeCodes<Stores>(NearestEvenFloatEncoder<false, Out>(p), in, out, count);
        } else if (unsignedZeroApplies(p)) {
            if (encodeThroughHalf<true, Stores>(p, in, out, count))
                return;
            return encodeCodes<Stores>(NearestEvenFloatEncoder<true, Out>(p), in, out, count);
        }
    }
    if constexpr (Mode == RoundingMode::NearestEven && Kind == EncodeKind::SignedInteger &&
                  sizeof(Out) == 1) {
        if (NearestEvenIntegerByteEncoder::applies(p))
            return encodeCodes<Stores>(NearestEvenIntegerByteEncoder(p), in, out, count);
    }
#endif
    if constexpr (Stores == OutputStores::Streaming) {
        streamLocalBlocks(
            in, out, count,
            [&](std::size_t first, std::size_t n) {
                encodeLoop<Mode, Kind, Out, Symmetric, OutputStores::Cached>(
                    p, in + first, out + first, n, seed, firstIndex + first);
            },
            // Flattened: a call of encodeBlock per block would broadcast every parameter again.
            [&](std::size_t first, auto& block) __attribute__((flatten)) {
                constexpr std::size_t kCount = sizeof block / sizeof(Out);
                if constexpr (sizeof(Out) == 4) {
                    encodeBlock<Mode, Kind, Symmetric>(p, in + first,
                                                       reinterpret_cast<std::uint32_t*>(block),
                                                       kCount, seed, firstIndex + first);
                } else {
                    alignas(64) std::uint32_t codes[kCount];
                    encodeBlock<Mode, Kind, Symmetric>(p, in + first, codes, kCount, seed,
                                                       firstIndex + first);
                    for (std::size_t i = 0; i < kCount; ++i)
                        block[i] = static_cast<Out>(codes[i]);
                }
            });
        return;
    }
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

#if defined(__AVX512BW__) && defined(__AVX512DQ__)
// lookupElement for up to 31 breakpoints, 64 inputs at a time: the segment (how many
// breakpoints are at or below the input's ordered key) by bisection over registers, its code
// picked by a permute instead of a gather. NF4, FP4 and INT4 have 15 breakpoints, so 4 steps of
// 8, 4, 2, 1 find their segment (0–15) with one-register permutes (vpermd); up to 31 (Wide)
// take 5 steps of 16 … 1 with two-register ones (vpermt2d). Per 16 inputs:
//
//   key     = bits ^ (bits >>arith 31 & 0x7fffffff)     orderedKey: vpsrad and one vpternlogd
//   segment = key ≥ b[7] ? 8 : 0                          the first probe is the same for all
//   segment += key ≥ probes4[segment] ? 4 : 0             probes_s[j] = b[j + s − 1]: the
//   segment += key ≥ probes2[segment] ? 2 : 0             permute reads the breakpoint that
//   segment += key ≥ probes1[segment] ? 1 : 0             bisection probes, with no add
//   code    = codes[segment]
//
// 14 instructions, 8 of them compares and permutes (Intel: port 5), and per 64 inputs the NaN test
// and the pack: about 17 per 16 in all where the loop before it spent about 29 (five steps of an
// add, a vpermt2d, a compare and a masked add; the key by a mask and a masked XOR; NaN lanes
// blended per 16; each vector narrowed by vpmovdb, two µops). NaNs are tested once per 64
// inputs (the largest magnitude against ∞'s) and put in by sign only where there are some;
// until then they take some segment's code (a NaN's key lies beyond every breakpoint, where the
// padding INT32_MAX may be reached). The 64 codes are packed by vpackus* and one vpermd. On the
// README's AMD EPYC VM, NF4, FP4 and INT4 by bisection went from 2.5 to 4.6–4.7 G elements/s
// per core in cache, and far beyond the cache from 39–52 % of memcpy to 71–99 %.
//
// Codes are cut to the output's width once, up front (as static_cast does), so that the
// unsigned saturating packs keep them.
template <bool Wide, typename Out> class RegisterBisectionEncoder {
  public:
    static constexpr int kSteps = Wide ? 5 : 4;
    static constexpr int kFirstStep = 1 << (kSteps - 1); // 16 or 8

    explicit RegisterBisectionEncoder(const LookupParams& p)
        : p_(p), first_(_mm512_set1_epi32(p.breakpoints[kFirstStep - 1])) {
        constexpr std::uint32_t kKeep = sizeof(Out) == 4 ? ~0u : (1u << 8 * sizeof(Out)) - 1;
        constexpr int kLast = static_cast<int>(LookupParams::kMaxBreakpoints) - 1;
        alignas(64) std::int32_t probes[32];
        for (int s = 0; s + 1 < kSteps; ++s) {
            const int step = kFirstStep >> (s + 1);
            // Bisection reads entries j that are multiples of 2·step, whose j + step − 1 is
            // at most 30; the others are never read (those past the end repeat entry 31).
            for (int j = 0; j < 32; ++j)
                probes[j] = p.breakpoints[j + step - 1 < kLast ? j + step - 1 : kLast];
            probesLow_[s] = _mm512_load_si512(probes);
            probesHigh_[s] = _mm512_load_si512(probes + 16);
        }
        alignas(64) std::uint32_t codes[32];
        for (int j = 0; j < 32; ++j)
            codes[j] = p.codes[j] & kKeep;
        codesLow_ = _mm512_load_si512(codes);
        codesHigh_ = _mm512_load_si512(codes + 16);
        nan_[0] = _mm512_set1_epi32(static_cast<int>(p.nanCode[0] & kKeep));
        nan_[1] = _mm512_set1_epi32(static_cast<int>(p.nanCode[1] & kKeep));
    }

    Out encodeOne(std::uint32_t bits) const { return static_cast<Out>(lookupElement(p_, bits)); }

    // Calls f(encode64) with a function that looks up 64 inputs into 64 codes.
    template <typename F> void withBlockEncoder(const F& f) const {
        f([this](const std::uint32_t* in, Out* out) __attribute__((always_inline)) {
            __m512i bits[4], codes[4]; // unrolled, so that they stay in registers
#pragma GCC unroll 4
            for (int v = 0; v < 4; ++v) {
                bits[v] = _mm512_loadu_si512(in + 16 * v);
                codes[v] = codes16(bits[v]);
            }
            putNaNCodesBySign(bits, codes, nan_[0], nan_[1]);
            storeCodesInOrder(out, codes);
        });
    }

  private:
    [[gnu::always_inline]] __m512i pick(__m512i low, __m512i index, __m512i high) const {
        if constexpr (Wide)
            return _mm512_maskz_permutex2var_epi32(kAllLanes, low, index, high);
        else
            return _mm512_maskz_permutexvar_epi32(kAllLanes, index, low);
    }

    // The codes of 16 inputs, NaNs aside.
    [[gnu::always_inline]] __m512i codes16(__m512i bits) const {
        // key = bits ^ (sign mask & 0x7fffffff): vpternlogd 0x78 is A ^ (B & C).
        const __m512i key =
            _mm512_ternarylogic_epi32(bits, _mm512_maskz_srai_epi32(kAllLanes, bits, 31),
                                      _mm512_set1_epi32(0x7fffffff), 0x78);
        __m512i segment = _mm512_maskz_mov_epi32(_mm512_cmpge_epi32_mask(key, first_),
                                                 _mm512_set1_epi32(kFirstStep));
        for (int s = 0; s + 1 < kSteps; ++s) {
            const __m512i breakpoint = pick(probesLow_[s], segment, probesHigh_[s]);
            segment = _mm512_mask_or_epi32(segment, _mm512_cmpge_epi32_mask(key, breakpoint),
                                           segment, _mm512_set1_epi32(kFirstStep >> (s + 1)));
        }
        return pick(codesLow_, segment, codesHigh_);
    }

    LookupParams p_;
    __m512i first_, probesLow_[kSteps - 1], probesHigh_[kSteps - 1], codesLow_, codesHigh_, nan_[2];
};
#endif

#if defined(__AVX2__) && !defined(__AVX512F__)
// lookupElement eight inputs at a time for AVX2: the segment is the number of breakpoints
// (padded with INT32_MAX to a multiple of 4, which only a NaN's key reaches) less those above
// the key, one vpcmpgtd per breakpoint with the broadcast breakpoint read from memory, four
// per step into two sums; the code picked from two registers (up to 16 codes: NF4, FP4, INT4)
// or gathered. NF4 in cache: 0.3 → 0.85 G elements/s per core (GCC's vectorisation of the
// block loop below keeps the segment counts in memory).
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

// out[i] = element(i) for i < count, reading codes of InBytes each. Streaming (outputs far
// beyond the cache): the results go to memory with non-temporal stores a few lines at a time,
// as soon as they are computed, so the core converts the next block while the
// write-combining buffers drain the last one. Converting a large piece and then copying it out
// serialises the two (the copy stalls once the few write-combining buffers are full, and
// converting waits for the copy): FP8 decode far beyond the cache went from 44–52 % to 70–77 %
// of memcpy on the machine in the README.
//
// A block is one 64-byte vector of input codes (64 FP8, 32 BF16 or 16 TF32 codes), which GCC
// turns into whole-register loads and widenings; other block sizes vectorised worse (16 FP8
// codes: 128-bit operations; 256: no better than the piece copy).
//
// Codes of 2 and 4 bytes are visited in the interleaved runs of interleaved_blocks.h, like the
// encoders' blocks: reads are a third to a half of their traffic, and one stream front to back
// keeps too few lines in flight. TF32 went from a median 76 % of memcpy to 107 %, BF16 from
// 29–33 to 33–36 GB/s (fpx bench, 2 threads, 1 GiB of FP32, the machine in the README). Byte
// codes go front to back: interleaved, FP8 measured slower (78 → 58 %), and so did the
// byte-plane table decoder of x86_hardware.cpp, whose reads are a fifth of its traffic.
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
// compares stay branches without AVX-512's masks): FP8 decoding ran at 0.7, BF16 at 2.0 G
// elements/s per core.
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
// current x86 cores than one load per element (measured: AVX-512 gathers 0.5 vs scalar 1.0 G
// elements/s).
template <typename In, OutputStores Stores>
[[gnu::optimize("no-tree-vectorize")]] void
scalarTableLoop(const std::uint32_t* __restrict__ table, std::uint32_t mask, const In* in,
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

template <typename In, OutputStores Stores>
void widenLoop(const WidenParams& params, const void* inBytes, std::uint32_t* __restrict__ out,
               std::size_t count) {
    const WidenParams p = params;
    const In* __restrict__ in = static_cast<const In*>(inBytes);
    const auto element = [&](std::size_t i) { return widenElement(p, in[i]); };
#if defined(__AVX2__) && !defined(__AVX512F__)
    // widenElement eight at a time; every magnitude is below 2^31.
    const __m256i codeMask = _mm256_set1_epi32(static_cast<int>(p.codeMask));
    const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(p.shift));
    const __m256i nan = _mm256_set1_epi32(static_cast<int>(p.nanBits[0]));
    const __m256i infinity = _mm256_set1_epi32(static_cast<int>(p.infinityBits[0]));
    const __m256i infinityBits = _mm256_set1_epi32(0x7f800000);
    const __m256i signBit = _mm256_set1_epi32(INT32_MIN);
    writeOutput8<Stores, sizeof(In)>(out, count, element, [&](std::size_t i) {
        const __m256i bits =
            _mm256_sll_epi32(_mm256_and_si256(loadCodes8(in + i), codeMask), shift);
        const __m256i magnitude = _mm256_andnot_si256(signBit, bits);
        const __m256i special =
            _mm256_blendv_epi8(infinity, nan, _mm256_cmpgt_epi32(magnitude, infinityBits));
        const __m256i value =
            _mm256_blendv_epi8(magnitude, special, atLeast(magnitude, 0x7f800000u));
        return _mm256_or_si256(value, _mm256_and_si256(bits, signBit));
    });
#else
    writeOutput<Stores, sizeof(In)>(out, count, element);
#endif
}

template <typename In, OutputStores Stores>
void floatDecodeLoop(const FloatDecodeParams& params, const void* inBytes,
                     std::uint32_t* __restrict__ out, std::size_t count) {
    const FloatDecodeParams p = params;
    const In* __restrict__ in = static_cast<const In*>(inBytes);
    const auto element = [&](std::size_t i) { return decodeFloatElement(p, in[i]); };
#if defined(__AVX2__) && !defined(__AVX512F__)
    if constexpr (sizeof(In) <= 2) {
        // decodeFloatElement eight at a time. Codes of at most 16 bits: every magnitude, and
        // minNormalMagnitude and specialMagnitude (at most the magnitude mask + 1), are below
        // 2^31; the "none" codes 0xffffffff of infinityMagnitude and negativeZeroNaN equal
        // no code.
        const auto broadcast = [](std::uint32_t v) {
            return _mm256_set1_epi32(static_cast<int>(v));
        };
        const __m256i codeMask = broadcast(p.codeMask), magnitudeMask = broadcast(p.magnitudeMask),
                      rebias = broadcast(p.rebias), magic = broadcast(p.subnormalMagicBits),
                      infinityMagnitude = broadcast(p.infinityMagnitude),
                      infinityBits = broadcast(p.infinityMagnitudeBits),
                      nanBits = broadcast(p.nanMagnitude),
                      negativeZeroNaN = broadcast(p.negativeZeroNaN),
                      negativeZeroNaNBits = broadcast(p.negativeZeroNaNBits);
        const __m128i fractionShift = _mm_cvtsi32_si128(static_cast<int>(p.fractionShift));
        const __m128i signShift = _mm_cvtsi32_si128(static_cast<int>(p.signShift));
        return writeOutput8<Stores, sizeof(In)>(out, count, element, [&](std::size_t i) {
            const __m256i code = _mm256_and_si256(loadCodes8(in + i), codeMask);
            const __m256i magnitude = _mm256_and_si256(code, magnitudeMask);
            const __m256i normal =
                _mm256_add_epi32(_mm256_sll_epi32(magnitude, fractionShift), rebias);
            const __m256i subnormal = _mm256_castps_si256(
                _mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(magic, magnitude)),
                              _mm256_castsi256_ps(magic)));
            __m256i value =
                _mm256_blendv_epi8(subnormal, normal, atLeast(magnitude, p.minNormalMagnitude));
            const __m256i special = _mm256_blendv_epi8(
                nanBits, infinityBits, _mm256_cmpeq_epi32(magnitude, infinityMagnitude));
            value = _mm256_blendv_epi8(value, special, atLeast(magnitude, p.specialMagnitude));
            value =
                _mm256_or_si256(value, _mm256_slli_epi32(_mm256_srl_epi32(code, signShift), 31));
            return _mm256_blendv_epi8(value, negativeZeroNaNBits,
                                      _mm256_cmpeq_epi32(code, negativeZeroNaN));
        });
    }
#endif
    writeOutput<Stores, sizeof(In)>(out, count, element);
}

template <RoundingMode Mode, EncodeKind Kind, bool Symmetric, OutputStores Stores>
constexpr void fillEncodeRow(LoopSet::EncodeLoop (&row)[3]) {
    row[0] = &encodeLoop<Mode, Kind, std::uint8_t, Symmetric, Stores>;
    row[1] = &encodeLoop<Mode, Kind, std::uint16_t, Symmetric, Stores>;
    row[2] = &encodeLoop<Mode, Kind, std::uint32_t, Symmetric, Stores>;
}

template <RoundingMode Mode, OutputStores Stores> constexpr void fillEncode(LoopSet& set) {
    const int stores = static_cast<int>(Stores);
    const int mode = static_cast<int>(Mode);
    fillEncodeRow<Mode, EncodeKind::BinaryFloat, false, Stores>(
        set.encode[stores][mode][static_cast<int>(EncodeKind::BinaryFloat)]);
    fillEncodeRow<Mode, EncodeKind::SignedInteger, false, Stores>(
        set.encode[stores][mode][static_cast<int>(EncodeKind::SignedInteger)]);
    fillEncodeRow<Mode, EncodeKind::BinaryFloat, true, Stores>(set.encodeSymmetric[stores][mode]);
}

template <OutputStores Stores> constexpr void fillEncodeModes(LoopSet& set) {
    fillEncode<RoundingMode::NearestEven, Stores>(set);
    fillEncode<RoundingMode::NearestAway, Stores>(set);
    fillEncode<RoundingMode::TowardZero, Stores>(set);
    fillEncode<RoundingMode::TowardPositive, Stores>(set);
    fillEncode<RoundingMode::TowardNegative, Stores>(set);
    fillEncode<RoundingMode::Stochastic, Stores>(set);
    fillEncode<RoundingMode::ToOdd, Stores>(set);
}

template <OutputStores Stores>
constexpr void fillDecode(LoopSet::FloatDecodeLoop (&floatDecode)[3],
                          LoopSet::WidenLoop (&widen)[2], LoopSet::TableLoop (&table)[2]) {
    table[0] = &tableLoop<std::uint8_t, Stores>;
    table[1] = &tableLoop<std::uint16_t, Stores>;
    floatDecode[0] = &floatDecodeLoop<std::uint8_t, Stores>;
    floatDecode[1] = &floatDecodeLoop<std::uint16_t, Stores>;
    floatDecode[2] = &floatDecodeLoop<std::uint32_t, Stores>;
    widen[0] = &widenLoop<std::uint16_t, Stores>;
    widen[1] = &widenLoop<std::uint32_t, Stores>;
}

bool nearestEvenBytesInIntrinsics([[maybe_unused]] const EncodeParams& p) {
#if defined(__AVX2__)
    if (p.kind == EncodeKind::SignedInteger)
        return NearestEvenIntegerByteEncoder::applies(p);
    return p.kind == EncodeKind::BinaryFloat &&
           (symmetricSpecials(p, RoundingMode::NearestEven) || unsignedZeroApplies(p));
#else
    return false;
#endif
}

LoopSet makeLoopSet(const char* name) {
    LoopSet set{};
    set.isaName = name;
    set.nearestEvenBytesInIntrinsics = &nearestEvenBytesInIntrinsics;
    fillEncodeModes<OutputStores::Cached>(set);
    fillEncodeModes<OutputStores::Streaming>(set);
    set.lookup[0][0] = &lookupLoop<std::uint8_t, OutputStores::Cached>;
    set.lookup[0][1] = &lookupLoop<std::uint16_t, OutputStores::Cached>;
    set.lookup[0][2] = &lookupLoop<std::uint32_t, OutputStores::Cached>;
    set.lookup[1][0] = &lookupLoop<std::uint8_t, OutputStores::Streaming>;
    set.lookup[1][1] = &lookupLoop<std::uint16_t, OutputStores::Streaming>;
    set.lookup[1][2] = &lookupLoop<std::uint32_t, OutputStores::Streaming>;
    fillDecode<OutputStores::Cached>(set.floatDecode[0], set.widen[0], set.table[0]);
    fillDecode<OutputStores::Streaming>(set.floatDecode[1], set.widen[1], set.table[1]);
    return set;
}

} // namespace
