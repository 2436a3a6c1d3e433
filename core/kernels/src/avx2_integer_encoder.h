// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// The AVX2 nearest-even encoder of integers (INT8, INT4) to byte codes.

#include "block_encoders.h"
#include "fpx/kernels/pack_in_order.h"

#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX2__) && !(defined(__AVX512BW__) && defined(__AVX512DQ__))
// encodeElementOf<NearestEven, SignedInteger> for byte codes, as the AVX-512 encoder
// (avx512_integer_encoder.h) but with the clamp by vmaxpd/vminpd and the rounding by vcvtpd2dq,
// whose nearest-even is that of the AVX-512 encoder's FMA (both round as MXCSR says, which nothing
// here changes):
//
//   x → FP64, clamped to ±2^30 / (K · 2^−k)  (a NaN becomes −clamp: replaced below)
//   round(x · K · 2^−k) by vcvtpd2dq; the product is exact in a double
//   vpmaxsd/vpminsd to the code range, NaN lanes → the NaN code, packed by vpackss*, masked
//
// Written out because GCC leaves the element code's FP64 path scalar without AVX-512.
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
#endif

} // namespace
