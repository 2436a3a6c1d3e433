// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// The AVX2 nearest-even encoder of binary floats to codes of 1, 2 or 4 bytes.

#include "block_encoders.h"
#include "fpx/kernels/pack_in_order.h"

#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX2__) && !(defined(__AVX512BW__) && defined(__AVX512DQ__))
// encodeElementOf<NearestEven, BinaryFloat> for codes of 1, 2 or 4 bytes, as the AVX-512
// encoder (avx512_float_encoder.h) but for AVX2: no mask registers, no unsigned compares,
// 8 inputs per vector, so that the loop sets of AVX2 machines keep the shorter formula too.
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
#endif

} // namespace
