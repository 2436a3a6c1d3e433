// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/wide_rounding.h"

#include "fpx/exact/format_limits.h"

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

} // namespace fpx
