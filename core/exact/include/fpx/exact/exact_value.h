// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>

namespace fpx {

using BigInt = boost::multiprecision::cpp_int;

// An exact real number, ±∞ or NaN.
//
// Finite values are kept as  (−1)^negative × numerator / denominator × 2^exponent2  with
//   - numerator odd (or zero), so powers of two live in exponent2 only,
//   - denominator odd and positive, coprime to the numerator.
// Every value of a binary format is dyadic (denominator 1), and every decimal input is
// n / 5^k × 2^j, so the common cases never need a gcd and the decimal expansion of a
// value terminates exactly when its denominator is a power of five.
class ExactValue {
  public:
    enum class Kind { Finite, Infinity, NaN };

    ExactValue() = default; // +0

    static ExactValue zero(bool negative = false);
    static ExactValue infinity(bool negative);
    static ExactValue nan(bool negative = false);
    static ExactValue integer(const BigInt& value);
    // (−1)^negative × significand × 2^exponent2
    static ExactValue dyadic(bool negative, BigInt significand, std::int64_t exponent2);
    // (−1)^negative × numerator / denominator × 2^exponent2; denominator must not be zero.
    static ExactValue fraction(bool negative, BigInt numerator, BigInt denominator,
                               std::int64_t exponent2 = 0);

    Kind kind() const { return kind_; }
    bool isFinite() const { return kind_ == Kind::Finite; }
    bool isInfinity() const { return kind_ == Kind::Infinity; }
    bool isNaN() const { return kind_ == Kind::NaN; }
    bool isZero() const { return kind_ == Kind::Finite && numerator_ == 0; }
    bool isNegative() const { return negative_; }

    const BigInt& numerator() const { return numerator_; }
    const BigInt& denominator() const { return denominator_; }
    std::int64_t exponent2() const { return exponent2_; }

    bool isDyadic() const { return denominator_ == 1; }
    // True when the decimal expansion terminates (the denominator is a power of 5).
    bool hasTerminatingDecimal() const;
    // floor(log2 |x|); the value must be finite and non-zero.
    std::int64_t floorLog2() const;
    // Bits needed by numerator and denominator together: a measure of how costly the value is.
    std::size_t storageBits() const;

    ExactValue abs() const;
    ExactValue negated() const;
    ExactValue withSign(bool negative) const;
    // x × 2^k, exact.
    ExactValue timesPowerOfTwo(std::int64_t k) const;

    // Arithmetic on finite values (infinities and NaN follow IEEE rules; 0/0 and ∞−∞ give NaN).
    friend ExactValue operator+(const ExactValue& a, const ExactValue& b);
    friend ExactValue operator-(const ExactValue& a, const ExactValue& b);
    friend ExactValue operator*(const ExactValue& a, const ExactValue& b);
    // Division by zero gives ±∞ (or NaN for 0/0); callers that must reject it check first.
    friend ExactValue operator/(const ExactValue& a, const ExactValue& b);

    // Total order on non-NaN values (−0 == +0); returns <0, 0 or >0. NaN compares as unordered
    // (returns 0 only with itself), so callers check isNaN() first.
    friend int compare(const ExactValue& a, const ExactValue& b);
    friend bool operator==(const ExactValue& a, const ExactValue& b) { return compare(a, b) == 0; }
    // Same value and same sign of zero (distinguishes −0 from +0).
    bool isIdenticalTo(const ExactValue& other) const;

  private:
    // numerator / denominator must already be coprime apart from factors of two: only those
    // are moved into the exponent (no gcd).
    static ExactValue coprimeFraction(bool negative, BigInt numerator, BigInt denominator,
                                      std::int64_t exponent2);
    void normalize();
    void removeFactorsOfTwo();

    Kind kind_ = Kind::Finite;
    bool negative_ = false;
    BigInt numerator_ = 0;
    BigInt denominator_ = 1;
    std::int64_t exponent2_ = 0;
};

// gcd of two non-negative integers, cheap where one side is 1 or much shorter than the other.
BigInt commonDivisor(const BigInt& a, const BigInt& b);

// The exact value of a double (NaN, ±∞ and −0 included).
ExactValue exactFromDouble(double x);
// The double that holds `v` exactly. Precondition: it exists (NaN, ±∞ and −0 included).
double doubleFromExact(const ExactValue& v);

// Midpoint (a + b) / 2 of two finite values.
ExactValue midpoint(const ExactValue& a, const ExactValue& b);

// |x| / 2^quantumExponent split into the kept integer and the discarded fraction:
//
//      |x| / 2^q  =  kept  +  remainder / divisor,     0 ≤ remainder < divisor
//
// Rounding keeps `kept` (the truncated magnitude in units of 2^q) and decides by the discarded
// fraction; square roots and the teaching text read bits off it the same way.
struct Truncation {
    BigInt kept;
    BigInt remainder;
    BigInt divisor = 1;

    bool inexact() const { return remainder != 0; }
    // Sign of (discarded fraction − 1/2).
    int compareHalf() const {
        const BigInt twice = remainder << 1;
        return twice < divisor ? -1 : (twice > divisor ? 1 : 0);
    }
};
// Precondition: x is finite.
Truncation truncateAt(const ExactValue& x, std::int64_t quantumExponent);

} // namespace fpx
