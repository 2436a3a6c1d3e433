// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// The AVX-512 nearest-even encoder of binary floats to codes of 1, 2 or 4 bytes.

#include "block_encoders.h"

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX512BW__) && defined(__AVX512DQ__)
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
#endif

} // namespace
