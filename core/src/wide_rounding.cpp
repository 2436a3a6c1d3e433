// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/wide_rounding.h"

#include "fpx/format_limits.h"

#include <cmath>
#include <limits>

namespace fpx {

namespace {

// Every value of a binary float with subnormals fits a hardware type of precision `digits`
// whose exponents run down to minSubnormalExponent and up to maxExponent when its significands
// fit, its largest binade fits and its smallest subnormal is one of the hardware type's values.
bool valuesFit(const FormatSpec& spec, int digits, int minSubnormalExponent, int maxExponent) {
    if (spec.kind != FormatKind::BinaryFloat || !spec.exponentZeroIsSubnormal ||
        spec.explicitIntegerBit || spec.precision() > digits)
        return false;
    const FormatLimits limits = deriveLimits(spec);
    return limits.maxExponent <= maxExponent &&
           spec.minExponent() - spec.fractionBits >= minSubnormalExponent;
}

} // namespace

bool valuesFitFloat(const FormatSpec& spec) {
    return valuesFit(spec, 24, -149, 127);
}

bool valuesFitDouble(const FormatSpec& spec) {
    return valuesFit(spec, 53, -1074, 1023);
}

bool isBinary64(const FormatSpec& spec) {
    return spec.kind == FormatKind::BinaryFloat && spec.exponentBits == 11 &&
           spec.fractionBits == 52 && spec.bias == 1023 && !spec.explicitIntegerBit &&
           spec.specials == SpecialEncoding::Ieee && spec.isSigned && spec.exponentZeroIsSubnormal;
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
