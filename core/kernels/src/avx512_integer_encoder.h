// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// The AVX-512 nearest-even encoder of integers (INT8, INT4) to byte codes.

#include "block_encoders.h"
#include "fpx/kernels/pack_in_order.h"

#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX512BW__) && defined(__AVX512DQ__)
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
#endif

} // namespace
