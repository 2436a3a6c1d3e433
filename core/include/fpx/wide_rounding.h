// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact_value.h"
#include "fpx/format_spec.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace fpx {

// Arithmetic in a narrow binary format carried out in a wider hardware type (float or double)
// and rounded back with a bit trick. The proof that this equals the exact core's one rounding
// is in docs/design.md, "Accumulation and dot products"; in short:
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
template <class Wide> class WideRounder {
  public:
    static_assert(std::is_same_v<Wide, float> || std::is_same_v<Wide, double>);
    using Bits = std::conditional_t<std::is_same_v<Wide, float>, std::uint32_t, std::uint64_t>;
    static constexpr int kWidePrecision = std::numeric_limits<Wide>::digits;

    // `precision` p below the wide precision (sums need 2p + 2 ≤ it, see above; rounding one
    // wide value needs only p < P); `minNormal` and `maxFinite` the format's smallest normal
    // and largest finite values (both exact in Wide).
    WideRounder(int precision, Wide minNormal, Wide maxFinite)
        : drop_(kWidePrecision - precision), half_(Bits(1) << (drop_ - 1)),
          keep_(~((Bits(1) << drop_) - 1)), minNormal_(minNormal), maxFinite_(maxFinite) {}

    // Nearest-even at p bits, unbounded exponent, of a normal wide value (see above).
    Wide roundNormal(Wide s) const {
        Bits u = std::bit_cast<Bits>(s);
        const Bits lsb = (u >> drop_) & 1;
        u += half_ - 1 + lsb;
        u &= keep_;
        return std::bit_cast<Wide>(u);
    }

    // True, with r the format's round-to-nearest-even of s, when that is a normal finite
    // value of the format; false when the exact core must decide.
    bool round(Wide s, Wide& r) const {
        r = roundNormal(s);
        const Wide magnitude = std::fabs(r);
        return magnitude >= minNormal_ && magnitude <= maxFinite_;
    }

  private:
    int drop_;
    Bits half_;
    Bits keep_;
    Wide minNormal_;
    Wide maxFinite_;
};

// Whether every value of `spec` (finite, ±∞, NaN) is a float / a double.
bool valuesFitFloat(const FormatSpec& spec);
bool valuesFitDouble(const FormatSpec& spec);
// A binary float with the bits, bias and specials of IEEE binary64.
bool isBinary64(const FormatSpec& spec);

// The exact value of a double (NaN, ±∞ and −0 included).
ExactValue exactFromDouble(double x);
// The double that holds `v` exactly. Precondition: it exists (NaN, ±∞ and −0 included).
double doubleFromExact(const ExactValue& v);

} // namespace fpx
