// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fpx {

// Arithmetic in a narrow binary format carried out in a wider hardware type (float or double)
// and rounded back with a bit trick. The proof that this equals the exact core's one rounding
// is in docs/proofs.md, "Sums in a hardware type"; in short:
//
//  1. a, b have at most p significant bits and the wide type has P ≥ 2p + 2 bits. Then the
//     wide sum s = RN_P(a + b) rounded to nearest-even at p bits equals RN_p(a + b): double
//     rounding of a sum is innocuous when P ≥ 2p + 1 (Figueroa, "When is double rounding
//     innocuous?", 1995), and 2p + 2 also covers ×, ÷ and √.
//  2. roundNormal() below rounds a *normal* wide value to p bits with an unbounded exponent.
//  3. That is the format's rounding exactly when the result is a normal value of the format
//     no larger than its largest finite value. Anything else (zero, a subnormal result, an
//     overflow, ±∞, NaN) is refused, and the caller asks the exact core.
//
// The trick, on the bits of a positive or negative normal wide value (sign-magnitude, so the
// sign bit is never touched by it), keeping p − 1 fraction bits and dropping d = P − p:
//
//      sign  exponent   fraction (P − 1 bits)
//      [s]   [eeeeeee]  [ kept: p − 1 bits  | dropped: d bits ]
//                                       ^ lsb  D = dropped value
//
//      u += 2^(d−1) − 1 + lsb;  u &= ~(2^d − 1)
//
//  D > 2^(d−1):  D + 2^(d−1) − 1 + lsb ≥ 2^d       carries into the kept bits: rounds up
//  D < 2^(d−1):  D + 2^(d−1) − 1 + lsb ≤ 2^d − 1   no carry: truncates
//  D = 2^(d−1):  carries exactly when lsb = 1      ties go to the even neighbour
//
// A carry out of an all-ones fraction increments the exponent field and leaves the fraction
// 0: 1.11…1 × 2^e rounds up to 1.0 × 2^(e+1), exactly what the bits then say. A NaN or ∞ wide
// value never passes the range check (its masked bits stay ∞, NaN, or wrap to ±0), nor does a
// subnormal one (its result is below the format's smallest normal value).
//
// With SSE2 the trick runs in the vector register the sum already occupies: a trip through a
// general-purpose register would sit on the dependency chain of a sequential sum, twice.
template <class Wide> class WideRounder {
  public:
    static_assert(std::is_same_v<Wide, float> || std::is_same_v<Wide, double>);
    using Bits = std::conditional_t<std::is_same_v<Wide, float>, std::uint32_t, std::uint64_t>;
    static constexpr int kWidePrecision = std::numeric_limits<Wide>::digits;

    // `precision` p below the wide precision (sums need 2p + 2 ≤ it, see above; rounding one
    // wide value needs only p < P); `minNormal` and `maxFinite` the format's smallest normal
    // and largest finite values (both exact in Wide).
    WideRounder(int precision, Wide minNormal, Wide maxFinite)
        : precision_(precision), drop_(kWidePrecision - precision),
          halfMinusOne_((Bits(1) << (drop_ - 1)) - 1), keep_(~((Bits(1) << drop_) - 1)),
          minNormal_(minNormal), maxFinite_(maxFinite),
          magicFactor_(std::ldexp(Wide(3), kWidePrecision - precision - 1)),
          marginFactor_(std::ldexp(Wide(1), -precision - 2)) {}

    // Nearest-even at p bits, unbounded exponent, of a normal wide value (see above).
    Wide roundNormal(Wide s) const {
        Wide r;
        (void)round(s, r);
        return r;
    }

    // True, with r the format's round-to-nearest-even of s, when that is a normal finite
    // value of the format; false when the exact core must decide.
    bool round(Wide s, Wide& r) const {
#if defined(__SSE2__)
        // r stays in the vector register, and the range check reads it there.
        if constexpr (std::is_same_v<Wide, float>) {
            const __m128i u = _mm_castps_si128(_mm_set1_ps(s));
            const __m128i lsb =
                _mm_and_si128(_mm_srl_epi32(u, _mm_cvtsi32_si128(drop_)), _mm_cvtsi32_si128(1));
            const __m128i up = _mm_add_epi32(u, _mm_cvtsi32_si128(int(halfMinusOne_)));
            const __m128i rounded =
                _mm_and_si128(_mm_add_epi32(up, lsb), _mm_cvtsi32_si128(static_cast<int>(keep_)));
            r = _mm_cvtss_f32(_mm_castsi128_ps(rounded));
        } else {
            const __m128i u = _mm_castpd_si128(_mm_set1_pd(s));
            const __m128i lsb =
                _mm_and_si128(_mm_srl_epi64(u, _mm_cvtsi32_si128(drop_)), _mm_cvtsi64_si128(1));
            const __m128i up =
                _mm_add_epi64(u, _mm_cvtsi64_si128(static_cast<long long>(halfMinusOne_)));
            const __m128i rounded = _mm_and_si128(_mm_add_epi64(up, lsb),
                                                  _mm_cvtsi64_si128(static_cast<long long>(keep_)));
            r = _mm_cvtsd_f64(_mm_castsi128_pd(rounded));
        }
#else
        const Bits u = std::bit_cast<Bits>(s);
        r = std::bit_cast<Wide>((u + halfMinusOne_ + ((u >> drop_) & 1)) & keep_);
#endif
        const Wide magnitude = std::fabs(r);
        return magnitude >= minNormal_ && magnitude <= maxFinite_;
    }

    // Sums that stay inside one binade [2^e, 2^(e+1)) of the format, one wide addition a term
    // (docs/proofs.md, "Sums in a hardware type"). Let q = 2^(e+1−p), the format's
    // spacing there, P ≥ 2p + 2 the wide precision, and
    //
    //     C = 3 · 2^k,  k = e − p + P − 1:   C ∈ [2^(k+1), 2^(k+2)), where Wide's spacing is
    //                                        2^(k+2−P) = q; C / q = 3 · 2^(P−2) is even.
    //
    // Keep the running sum s biased, B = C + s: exact, as s is a multiple of q and
    // |s| ≤ 2^(e+1) ≤ 2^k keeps C + s in C's binade. Then for a term t the one wide addition
    //
    //     B' = fl(B + t) = C + RN_q(s + t)      while C + s + t stays in C's binade,
    //
    // rounds s + t once onto the grid of multiples of q, ties to the even multiple (the even
    // multiples of q are the even wide significands there, as C / q is even). That is the
    // format's rounding of s + t when s + t lies in [2^e, 2^(e+1)), and also when it lies
    // just outside, as long as r = B' − C says so:
    //
    //   2^e < |r| < 2^(e+1)   RN_q moves a value by at most q/2 and the ends are multiples of
    //                         q, so s + t was inside.
    //   |r| = 2^(e+1)         s + t ∈ [2^(e+1) − q/2, 2^(e+1) + q/2); above 2^(e+1) the grid is
    //                         2q and rounds [2^(e+1), 2^(e+1) + q) to 2^(e+1) as well.
    //   |r| = 2^e             right when |s + t| ≥ 2^e − q/4: below 2^e the grid is q/2 (or q,
    //                         below the smallest normal), and [2^e − q/4, 2^e) rounds to 2^e
    //                         there too (the tie to the even 2^e). Checked as
    //                         |fl(s + t)| ≥ 2^e − q/8 in Wide: with Wide's spacing there at
    //                         most q/8 (P ≥ p + 2), that implies |s + t| > 2^e − q/4. A sum
    //                         stuck at a power of two (4096 ones in FP16) stays on this path.
    //
    // A sum that left C's binade gives |r| ≥ 2^k > 2^(e+1) (P ≥ p + 3 here), and NaN fails
    // every comparison: both go back to the caller, as does anything else. The dependency
    // chain of a sequential sum is then one addition a term, as in a plain float loop; the
    // checks hang off it.
    struct Binade {
        Wide low;       // 2^e
        Wide high;      // 2^(e+1)
        Wide lowMargin; // 2^e − q/8
        Wide magic;     // C
    };

    // The binade of a value s of the format, when it is a normal binade below the format's top
    // one (so 2^(e+1) ≤ maxFinite: no result in it overflows) and C is finite.
    std::optional<Binade> binadeOf(Wide s) const {
        const Wide magnitude = std::fabs(s);
        if (!(magnitude >= minNormal_ && magnitude <= maxFinite_))
            return std::nullopt;
        // Clearing the fraction bits of a normal value leaves 2^e.
        const Wide low = std::bit_cast<Wide>(std::bit_cast<Bits>(magnitude) & kExponentMask);
        const Wide high = 2 * low;
        const Wide magic = low * magicFactor_; // 3 · 2^(P−p−1) · 2^e, exact unless it overflows
        if (high > maxFinite_ || !(magic <= std::numeric_limits<Wide>::max()))
            return std::nullopt;
        return Binade{low, high, low - low * marginFactor_, magic};
    }

    // One step of the biased sum: from B = C + s to B' = fl(B + t), with r = B' − C. True when r
    // is the format's rounding of s + t (see above).
    static bool addBiased(Wide biased, Wide s, Wide t, const Binade& binade, Wide& next, Wide& r) {
        next = biased + t;
        r = next - binade.magic;
        const Wide magnitude = std::fabs(r);
        if (magnitude > binade.low && magnitude <= binade.high) [[likely]]
            return true;
        return magnitude == binade.low && std::fabs(s + t) >= binade.lowMargin;
    }

  private:
    static constexpr Bits kExponentMask =
        (~Bits(0) >> 1) & ~((Bits(1) << (kWidePrecision - 1)) - 1);

    int precision_;
    int drop_;
    Bits halfMinusOne_;
    Bits keep_;
    Wide minNormal_;
    Wide maxFinite_;
    Wide magicFactor_;
    Wide marginFactor_;
};

// Whether every value of `spec` (finite, ±∞, NaN) is a float / a double.
bool valuesFitFloat(const FormatSpec& spec);
bool valuesFitDouble(const FormatSpec& spec);
// A binary float with the bits, bias and specials of IEEE binary64.
bool isBinary64(const FormatSpec& spec);

} // namespace fpx
