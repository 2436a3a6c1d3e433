// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// FP8 E5M2 (and its bias-16 variant) encoded through FP16 rounded to odd (AVX-512).

#include "avx512_float_encoder.h"
#include "block_encoders.h"
#include "fpx/kernels/pack_in_order.h"

#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX512BW__) && defined(__AVX512DQ__)
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
// 64): about 8 instead of the dword encoder's 13 and a half. The proof and its exhaustive test
// are in docs/proofs.md, "Fast paths and how they are proved".
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
#elif defined(__AVX2__)
// AVX2 has no FP16 route (HalfTopByteEncoder): its vcvtps2ph takes 8 inputs.
template <bool UnsignedZero, OutputStores Stores, typename Out>
bool encodeThroughHalf(const EncodeParams&, const std::uint32_t*, Out*, std::size_t) {
    return false;
}
#endif

} // namespace
