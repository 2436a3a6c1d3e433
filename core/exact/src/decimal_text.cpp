// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/decimal_text.h"

#include <cmath>

namespace fpx {

namespace {

using boost::multiprecision::pow;

BigInt powerOfTen(std::int64_t k) {
    return pow(BigInt(10), static_cast<unsigned>(k));
}

// digits × 10^−fractionDigits, laid out plain or scientific; `digits` has no sign. Trailing
// zeros are dropped from exact values; a rounded value keeps them (they are significant).
std::string layout(bool negative, std::string digits, std::int64_t fractionDigits,
                   bool keepTrailingZeros = false, std::int64_t plainFrom = -6,
                   std::int64_t plainBelow = 40) {
    while (!keepTrailingZeros && digits.size() > 1 && digits.back() == '0' && fractionDigits > 0) {
        digits.pop_back();
        --fractionDigits;
    }
    const std::int64_t leadingExponent =
        static_cast<std::int64_t>(digits.size()) - 1 - fractionDigits;
    std::string out = negative ? "-" : "";
    if (digits == "0")
        return out + "0";
    if (leadingExponent >= plainFrom && leadingExponent < plainBelow) {
        if (fractionDigits <= 0) {
            out += digits;
            out.append(static_cast<std::size_t>(-fractionDigits), '0');
        } else if (static_cast<std::int64_t>(digits.size()) > fractionDigits) {
            const std::size_t point = digits.size() - static_cast<std::size_t>(fractionDigits);
            out += digits.substr(0, point) + "." + digits.substr(point);
        } else {
            out += "0.";
            out.append(static_cast<std::size_t>(fractionDigits) - digits.size(), '0');
            out += digits;
        }
        return out;
    }
    // Scientific: d.ddd e±X
    while (!keepTrailingZeros && digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
    out += digits.substr(0, 1);
    if (digits.size() > 1)
        out += "." + digits.substr(1);
    out += "e" + std::to_string(leadingExponent);
    return out;
}

std::optional<std::string> special(const ExactValue& v) {
    if (v.isNaN())
        return std::string("nan");
    if (v.isInfinity())
        return std::string(v.isNegative() ? "-inf" : "inf");
    if (v.isZero())
        return std::string(v.isNegative() ? "-0" : "0");
    return std::nullopt;
}

// |v| = A / B with A, B positive integers.
void asQuotient(const ExactValue& v, BigInt& a, BigInt& b) {
    a = v.numerator();
    b = v.denominator();
    if (v.exponent2() >= 0)
        a <<= static_cast<unsigned>(v.exponent2());
    else
        b <<= static_cast<unsigned>(-v.exponent2());
}

// floor(log10 |v|) for finite non-zero v.
std::int64_t floorLog10(const BigInt& a, const BigInt& b, std::int64_t floorLog2) {
    std::int64_t estimate =
        static_cast<std::int64_t>(std::floor(static_cast<double>(floorLog2) * 0.30102999566398120));
    auto atLeastPowerOfTen = [&](std::int64_t k) { // a / b ≥ 10^k ?
        return k >= 0 ? a >= b * powerOfTen(k) : a * powerOfTen(-k) >= b;
    };
    while (!atLeastPowerOfTen(estimate))
        --estimate;
    while (atLeastPowerOfTen(estimate + 1))
        ++estimate;
    return estimate;
}

enum class DigitRounding { NearestEven, Down, Up };

// |v| scaled to `digits` significant digits and rounded: returns the digit string and the
// number of those digits after the decimal point.
std::pair<std::string, std::int64_t> significantDigitsOf(const ExactValue& v, int digits,
                                                         DigitRounding rounding) {
    BigInt a, b;
    asQuotient(v, a, b);
    std::int64_t exponent10 = floorLog10(a, b, v.floorLog2());
    const std::int64_t shift =
        digits - 1 - exponent10; // scale so `digits` digits sit left of the point
    BigInt numerator = shift >= 0 ? BigInt(a * powerOfTen(shift)) : a;
    BigInt denominator = shift >= 0 ? b : BigInt(b * powerOfTen(-shift));
    BigInt q, r;
    boost::multiprecision::divide_qr(numerator, denominator, q, r);
    bool up = false;
    if (r != 0) {
        switch (rounding) {
        case DigitRounding::Down:
            break;
        case DigitRounding::Up:
            up = true;
            break;
        case DigitRounding::NearestEven: {
            const BigInt twice = r << 1;
            up = twice > denominator ||
                 (twice == denominator && boost::multiprecision::bit_test(q, 0));
            break;
        }
        }
    }
    if (up)
        q += 1;
    return {q.str(), shift};
}

} // namespace

std::optional<unsigned> powerOfFiveExponent(const BigInt& d) {
    if (d <= 0)
        return std::nullopt;
    if (d == 1)
        return 0u;
    // log2(5) ≈ 2.3219: estimate k from the bit length, then confirm with one power.
    const double bits = static_cast<double>(boost::multiprecision::msb(d)) + 1.0;
    const auto estimate = static_cast<long>(std::floor(bits / 2.321928094887362));
    for (long k = std::max(1L, estimate - 1); k <= estimate + 1; ++k)
        if (pow(BigInt(5), static_cast<unsigned>(k)) == d)
            return static_cast<unsigned>(k);
    return std::nullopt;
}

DecimalText toDecimal(const ExactValue& value, int significantDigits) {
    if (auto s = special(value))
        return DecimalText{*s, true};
    const auto fives = powerOfFiveExponent(value.denominator());
    if (!fives) {
        auto [digits, fraction] =
            significantDigitsOf(value, significantDigits, DigitRounding::NearestEven);
        return DecimalText{layout(value.isNegative(), digits, fraction, true), false};
    }
    // n / 5^j × 2^e  =  D / 10^k:
    //   e ≥ 0:  n·2^e·2^j / 10^j
    //   e < 0:  n·2^(k+e)·5^(k−j) / 10^k   with k = max(j, −e)
    const std::int64_t j = *fives;
    const std::int64_t e = value.exponent2();
    BigInt digits = value.numerator();
    std::int64_t k = 0;
    if (e >= 0) {
        digits <<= static_cast<unsigned>(e + j);
        k = j;
    } else {
        k = std::max(j, -e);
        digits <<= static_cast<unsigned>(k + e);
        digits *= pow(BigInt(5), static_cast<unsigned>(k - j));
    }
    return DecimalText{layout(value.isNegative(), digits.str(), k), true};
}

std::string toSignificantDigits(const ExactValue& value, int significantDigits) {
    if (auto s = special(value))
        return *s;
    auto [digits, fraction] =
        significantDigitsOf(value, significantDigits, DigitRounding::NearestEven);
    // Short forms stay plain only where no zero has to be padded in: 0.0001234, 65504,
    // but 3.40282e38 and 5.96046e-8.
    return layout(value.isNegative(), digits, fraction, false, -4, significantDigits);
}

bool ExactValue::hasTerminatingDecimal() const {
    return isFinite() && powerOfFiveExponent(denominator_).has_value();
}

RoundingMode shortestReadBackMode(RoundingMode mode) {
    return mode == RoundingMode::Stochastic ? RoundingMode::NearestEven : mode;
}

std::string shortestRoundTrip(const FormatSpec& spec, Code code, const RoundingOptions& options) {
    const DecodedCode decoded = decodeCode(spec, code);
    const ExactValue& v = decoded.value;
    if (auto s = special(v))
        return *s;
    const RoundingOptions readBack{shortestReadBackMode(options.mode), options.overflow, 0};
    // digits × 10^−fraction, with the value's sign; true when it rounds back to `code`.
    auto readsBack = [&](const std::string& digits, std::int64_t fraction, ExactValue& candidate) {
        candidate =
            fraction >= 0
                ? ExactValue::fraction(v.isNegative(), BigInt(digits), powerOfTen(fraction))
                : ExactValue::fraction(v.isNegative(), BigInt(digits) * powerOfTen(-fraction), 1);
        return roundToFormat(candidate, spec, readBack).code == code;
    };
    for (int digits = 1; digits <= 60; ++digits) {
        auto [downDigits, downFraction] = significantDigitsOf(v, digits, DigitRounding::Down);
        auto [upDigits, upFraction] = significantDigitsOf(v, digits, DigitRounding::Up);
        ExactValue down, up;
        const bool downOk = readsBack(downDigits, downFraction, down);
        const bool upOk = readsBack(upDigits, upFraction, up);
        if (downOk && upOk) {
            // Both read back: take the one nearer the value (the lower one on a tie).
            const int c = compare((v - down).abs(), (up - v).abs());
            return c <= 0 ? layout(v.isNegative(), downDigits, downFraction)
                          : layout(v.isNegative(), upDigits, upFraction);
        }
        if (downOk)
            return layout(v.isNegative(), downDigits, downFraction);
        if (upOk)
            return layout(v.isNegative(), upDigits, upFraction);
    }
    return toDecimal(v).text;
}

} // namespace fpx
