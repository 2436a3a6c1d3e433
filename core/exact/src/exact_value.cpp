// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/exact_value.h"

#include <boost/integer/common_factor_rt.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fpx {

namespace {

std::int64_t bitLength(const BigInt& x) {
    return x == 0 ? 0 : static_cast<std::int64_t>(boost::multiprecision::msb(x)) + 1;
}

} // namespace

// Boost's gcd of two big integers is binary (one subtraction and shift per bit), so it costs
// about bits² / 64 word operations whatever the operands: far too much for the 100000-bit
// numerators that a 15-byte input such as 3^66500/7^40000 produces. Most gcds fpx needs have a side
// of 1 (every value of a binary format is dyadic) or one small side (a format's significand), and
// for those one remainder leaves two small numbers.
BigInt commonDivisor(const BigInt& a, const BigInt& b) {
    if (a == 1 || b == 1)
        return 1;
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    const bool aLarger = bitLength(a) > bitLength(b);
    const BigInt& large = aLarger ? a : b;
    const BigInt& small = aLarger ? b : a;
    if (bitLength(large) > bitLength(small) + 64) {
        const BigInt rest = large % small;
        return rest == 0 ? small : BigInt(boost::multiprecision::gcd(small, rest));
    }
    return boost::multiprecision::gcd(a, b);
}

ExactValue ExactValue::zero(bool negative) {
    ExactValue v;
    v.negative_ = negative;
    return v;
}

ExactValue ExactValue::infinity(bool negative) {
    ExactValue v;
    v.kind_ = Kind::Infinity;
    v.negative_ = negative;
    return v;
}

ExactValue ExactValue::nan(bool negative) {
    ExactValue v;
    v.kind_ = Kind::NaN;
    v.negative_ = negative;
    return v;
}

ExactValue ExactValue::integer(const BigInt& value) {
    return dyadic(value < 0, value < 0 ? BigInt(-value) : value, 0);
}

ExactValue ExactValue::dyadic(bool negative, BigInt significand, std::int64_t exponent2) {
    ExactValue v;
    v.negative_ = negative;
    v.numerator_ = std::move(significand);
    v.exponent2_ = exponent2;
    v.normalize();
    return v;
}

ExactValue ExactValue::fraction(bool negative, BigInt numerator, BigInt denominator,
                                std::int64_t exponent2) {
    if (denominator == 0)
        throw std::invalid_argument("ExactValue::fraction: zero denominator");
    ExactValue v;
    v.negative_ = negative != ((numerator < 0) != (denominator < 0));
    v.numerator_ = numerator < 0 ? BigInt(-numerator) : std::move(numerator);
    v.denominator_ = denominator < 0 ? BigInt(-denominator) : std::move(denominator);
    v.exponent2_ = exponent2;
    v.normalize();
    return v;
}

void ExactValue::normalize() {
    removeFactorsOfTwo();
    if (denominator_ != 1) {
        const BigInt divisor = commonDivisor(numerator_, denominator_);
        if (divisor != 1) {
            numerator_ /= divisor;
            denominator_ /= divisor;
        }
    }
}

void ExactValue::removeFactorsOfTwo() {
    if (numerator_ == 0) {
        denominator_ = 1;
        exponent2_ = 0;
        return;
    }
    // Move every factor of two into exponent2_: numerator and denominator become odd.
    const auto numeratorZeros = boost::multiprecision::lsb(numerator_);
    if (numeratorZeros != 0) {
        numerator_ >>= numeratorZeros;
        exponent2_ += static_cast<std::int64_t>(numeratorZeros);
    }
    const auto denominatorZeros = boost::multiprecision::lsb(denominator_);
    if (denominatorZeros != 0) {
        denominator_ >>= denominatorZeros;
        exponent2_ -= static_cast<std::int64_t>(denominatorZeros);
    }
}

ExactValue ExactValue::coprimeFraction(bool negative, BigInt numerator, BigInt denominator,
                                       std::int64_t exponent2) {
    ExactValue v;
    v.negative_ = negative;
    v.numerator_ = std::move(numerator);
    v.denominator_ = std::move(denominator);
    v.exponent2_ = exponent2;
    v.removeFactorsOfTwo();
    return v;
}

std::int64_t ExactValue::floorLog2() const {
    // |x| = n/d × 2^e with bit lengths a = len(n), b = len(d):
    //   2^(a−1) ≤ n < 2^a and 2^(b−1) ≤ d < 2^b, so log2(n/d) lies in (a−b−1, a−b+1).
    // The floor is a−b unless n·2^(b−a) < d (compare after aligning the leading bits).
    const std::int64_t a = bitLength(numerator_);
    const std::int64_t b = bitLength(denominator_);
    std::int64_t result = a - b + exponent2_;
    const BigInt lhs = a < b ? BigInt(numerator_ << static_cast<unsigned>(b - a)) : numerator_;
    const BigInt rhs = a > b ? BigInt(denominator_ << static_cast<unsigned>(a - b)) : denominator_;
    if (lhs < rhs)
        --result;
    return result;
}

std::size_t ExactValue::storageBits() const {
    return static_cast<std::size_t>(bitLength(numerator_) + bitLength(denominator_));
}

ExactValue ExactValue::abs() const {
    return withSign(false);
}

ExactValue ExactValue::negated() const {
    return withSign(!negative_);
}

ExactValue ExactValue::withSign(bool negative) const {
    ExactValue v = *this;
    v.negative_ = negative;
    return v;
}

ExactValue ExactValue::timesPowerOfTwo(std::int64_t k) const {
    ExactValue v = *this;
    if (v.isFinite() && !v.isZero())
        v.exponent2_ += k;
    return v;
}

namespace {

// Signed numerators of a and b over the common denominator a.d × b.d and the common
// exponent min(a.e, b.e):  a = A / D × 2^e,  b = B / D × 2^e.
struct Aligned {
    BigInt a;
    BigInt b;
    BigInt denominator;
    std::int64_t exponent2;
};

Aligned align(const ExactValue& a, const ExactValue& b) {
    Aligned r;
    r.exponent2 = std::min(a.exponent2(), b.exponent2());
    r.a = a.numerator() * b.denominator();
    r.b = b.numerator() * a.denominator();
    r.a <<= static_cast<unsigned>(a.exponent2() - r.exponent2);
    r.b <<= static_cast<unsigned>(b.exponent2() - r.exponent2);
    if (a.isNegative())
        r.a = -r.a;
    if (b.isNegative())
        r.b = -r.b;
    r.denominator = a.denominator() * b.denominator();
    return r;
}

} // namespace

ExactValue operator+(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return ExactValue::nan();
    if (a.isInfinity() || b.isInfinity()) {
        if (a.isInfinity() && b.isInfinity() && a.isNegative() != b.isNegative())
            return ExactValue::nan();
        return a.isInfinity() ? a : b;
    }
    if (a.isZero() && b.isZero())
        return ExactValue::zero(a.isNegative() && b.isNegative());
    if (a.isZero())
        return b;
    if (b.isZero())
        return a;
    // Knuth's rational sum (TAOCP 4.5.1), on odd denominators D1, D2 with g = gcd(D1, D2):
    //   t = A·(D2/g)·2^(ea−e) ± B·(D1/g)·2^(eb−e),   e = min(ea, eb)
    // No prime outside g can divide both t and the denominator, so with g2 = gcd(t, g)
    //   a + b = (t / g2) / ((D1/g)·(D2/g2)) · 2^e   is reduced.
    // A dyadic operand (D = 1) makes g = 1: no gcd at all.
    const BigInt g = commonDivisor(a.denominator(), b.denominator());
    const BigInt aScale = g == 1 ? b.denominator() : BigInt(b.denominator() / g);
    const BigInt bScale = g == 1 ? a.denominator() : BigInt(a.denominator() / g);
    const std::int64_t exponent2 = std::min(a.exponent2(), b.exponent2());
    BigInt termA = a.numerator() * aScale;
    BigInt termB = b.numerator() * bScale;
    termA <<= static_cast<unsigned>(a.exponent2() - exponent2);
    termB <<= static_cast<unsigned>(b.exponent2() - exponent2);
    if (a.isNegative())
        termA = -termA;
    if (b.isNegative())
        termB = -termB;
    BigInt sum = termA + termB;
    if (sum == 0)
        return ExactValue::zero();
    const bool negative = sum < 0;
    if (negative)
        sum = -sum;
    if (g == 1)
        return ExactValue::coprimeFraction(negative, std::move(sum), bScale * b.denominator(),
                                           exponent2);
    const BigInt g2 = commonDivisor(sum, g);
    return ExactValue::coprimeFraction(negative, sum / g2, bScale * (b.denominator() / g2),
                                       exponent2);
}

ExactValue operator-(const ExactValue& a, const ExactValue& b) {
    return a + b.negated();
}

ExactValue operator*(const ExactValue& a, const ExactValue& b) {
    const bool negative = a.isNegative() != b.isNegative();
    if (a.isNaN() || b.isNaN())
        return ExactValue::nan();
    if (a.isInfinity() || b.isInfinity()) {
        if (a.isZero() || b.isZero())
            return ExactValue::nan();
        return ExactValue::infinity(negative);
    }
    if (a.isZero() || b.isZero())
        return ExactValue::zero(negative);
    // A/D1 × B/D2 with A, D1 and B, D2 coprime: only A and D2, B and D1 can share factors.
    const BigInt g1 = commonDivisor(a.numerator(), b.denominator());
    const BigInt g2 = commonDivisor(b.numerator(), a.denominator());
    if (g1 == 1 && g2 == 1) // always so for dyadic values: no division
        return ExactValue::coprimeFraction(negative, a.numerator() * b.numerator(),
                                           a.denominator() * b.denominator(),
                                           a.exponent2() + b.exponent2());
    return ExactValue::coprimeFraction(negative, (a.numerator() / g1) * (b.numerator() / g2),
                                       (a.denominator() / g2) * (b.denominator() / g1),
                                       a.exponent2() + b.exponent2());
}

ExactValue operator/(const ExactValue& a, const ExactValue& b) {
    const bool negative = a.isNegative() != b.isNegative();
    if (a.isNaN() || b.isNaN())
        return ExactValue::nan();
    if (a.isInfinity())
        return b.isInfinity() ? ExactValue::nan() : ExactValue::infinity(negative);
    if (b.isInfinity())
        return ExactValue::zero(negative);
    if (b.isZero())
        return a.isZero() ? ExactValue::nan() : ExactValue::infinity(negative);
    if (a.isZero())
        return ExactValue::zero(negative);
    // A/D1 ÷ B/D2 = A·D2 / (D1·B): only A and B, D1 and D2 can share factors.
    const BigInt g1 = commonDivisor(a.numerator(), b.numerator());
    const BigInt g2 = commonDivisor(a.denominator(), b.denominator());
    if (g1 == 1 && g2 == 1)
        return ExactValue::coprimeFraction(negative, a.numerator() * b.denominator(),
                                           a.denominator() * b.numerator(),
                                           a.exponent2() - b.exponent2());
    return ExactValue::coprimeFraction(negative, (a.numerator() / g1) * (b.denominator() / g2),
                                       (a.denominator() / g2) * (b.numerator() / g1),
                                       a.exponent2() - b.exponent2());
}

int compare(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return (a.isNaN() && b.isNaN()) ? 0 : 1;
    auto rank = [](const ExactValue& v) {
        if (v.isInfinity())
            return v.isNegative() ? -2 : 2;
        if (v.isZero())
            return 0;
        return v.isNegative() ? -1 : 1;
    };
    const int ra = rank(a);
    const int rb = rank(b);
    if (ra != rb || ra == 0 || ra == 2 || ra == -2)
        return ra < rb ? -1 : (ra > rb ? 1 : 0);
    // Same sign, both finite and non-zero: compare magnitudes, cheaply by binade first.
    const std::int64_t la = a.floorLog2();
    const std::int64_t lb = b.floorLog2();
    int magnitude = 0;
    if (la != lb) {
        magnitude = la < lb ? -1 : 1;
    } else {
        const Aligned s = align(a.abs(), b.abs());
        magnitude = s.a < s.b ? -1 : (s.a > s.b ? 1 : 0);
    }
    return ra > 0 ? magnitude : -magnitude;
}

bool ExactValue::isIdenticalTo(const ExactValue& other) const {
    if (kind_ != other.kind_ || negative_ != other.negative_)
        return false;
    return kind_ != Kind::Finite ||
           (numerator_ == other.numerator_ && denominator_ == other.denominator_ &&
            exponent2_ == other.exponent2_);
}

ExactValue midpoint(const ExactValue& a, const ExactValue& b) {
    return (a + b).timesPowerOfTwo(-1);
}

// The sign lives apart from numerator, denominator and exponent, so |x| needs no copy.
Truncation truncateAt(const ExactValue& magnitude, std::int64_t quantumExponent) {
    Truncation t;
    const std::int64_t shift = magnitude.exponent2() - quantumExponent;
    if (shift >= 0) {
        const BigInt scaled = magnitude.numerator() << static_cast<unsigned>(shift);
        boost::multiprecision::divide_qr(scaled, magnitude.denominator(), t.kept, t.remainder);
        t.divisor = magnitude.denominator();
    } else if (magnitude.denominator() == 1) {
        // Dyadic fast path: a shift and a mask.
        //   numerator = [ kept | discarded (−shift bits) ]
        const auto drop = static_cast<unsigned>(-shift);
        t.kept = magnitude.numerator() >> drop;
        t.divisor = BigInt(1) << drop;
        t.remainder = magnitude.numerator() & (t.divisor - 1);
    } else {
        t.divisor = magnitude.denominator() << static_cast<unsigned>(-shift);
        boost::multiprecision::divide_qr(magnitude.numerator(), t.divisor, t.kept, t.remainder);
    }
    return t;
}

ExactValue exactFromDouble(double x) {
    if (std::isnan(x))
        return ExactValue::nan(std::signbit(x));
    if (std::isinf(x))
        return ExactValue::infinity(x < 0);
    if (x == 0)
        return ExactValue::zero(std::signbit(x));
    int exponent = 0;
    const double fraction = std::frexp(std::fabs(x), &exponent); // [0.5, 1)
    const auto significand = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
    return ExactValue::dyadic(x < 0, BigInt(significand), exponent - 53);
}

double doubleFromExact(const ExactValue& v) {
    if (v.isNaN())
        return std::numeric_limits<double>::quiet_NaN();
    if (v.isInfinity())
        return v.isNegative() ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity();
    if (v.isZero())
        return v.isNegative() ? -0.0 : 0.0;
    // The numerator is odd and below 2^53 for a value of a double, so ldexp is exact (it
    // rounds only when the result is not a double).
    const double significand = static_cast<double>(v.numerator().convert_to<std::uint64_t>());
    const double result = std::ldexp(significand, static_cast<int>(v.exponent2()));
    return v.isNegative() ? -result : result;
}

} // namespace fpx
