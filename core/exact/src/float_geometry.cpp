// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/float_geometry.h"

namespace fpx {

namespace {

// The largest exponent field and fraction of a finite value, read off the special encoding:
//   Ieee          the all-ones exponent is ∞/NaN         → exponent ≤ all-ones − 1
//   otherwise     the magnitude codes count down from all ones past the specials at the top:
//                 NanAtAllOnes's NaN (11…11), then P3109's ∞ (11…10 unsigned, 011…1 signed);
//                 a borrow out of the fraction takes the exponent down (E8M0: 1111 1110)
void largestFiniteFields(const FormatSpec& spec, Code& exponentField, Code& fraction) {
    const int stored = spec.storedSignificandBits();
    if (spec.specials == SpecialEncoding::Ieee) {
        exponentField = spec.exponentFieldMax() - 1;
        fraction = spec.fractionMask();
        return;
    }
    Code magnitude = lowBitsMask(spec.exponentBits + stored);
    if (spec.specials == SpecialEncoding::NanAtAllOnes)
        magnitude -= 1;
    if (spec.infinityAtTop)
        magnitude -= 1;
    exponentField = magnitude >> stored;
    fraction = magnitude & spec.fractionMask();
}

} // namespace

FloatGeometry::FloatGeometry(const FormatSpec& s) : spec(s) {
    minExponent = spec.minExponent();
    Code fraction = 0;
    largestFiniteFields(spec, maxExponentField, fraction);
    maxExponent = static_cast<std::int64_t>(maxExponentField) - spec.bias;
    hiddenBit = Code(1) << spec.fractionBits;
    maxSignificand = hiddenBit | fraction;
    carrySignificand = BigInt(1) << (spec.fractionBits + 1);
    const Code storedSignificand = spec.explicitIntegerBit ? maxSignificand : fraction;
    maxCode = (maxExponentField << spec.storedSignificandBits()) | storedSignificand;
    lowestCode = spec.isSigned ? (spec.signBit() | maxCode) : Code(0);
}

Code FloatGeometry::zeroCode(bool negative) const {
    return spec.hasNegativeZero() ? signBitIf(negative) : Code(0);
}

Code FloatGeometry::infinityCode(bool negative) const {
    if (spec.infinityAtTop)
        return signBitIf(negative) | (maxCode + 1);
    const Code integerBit = spec.explicitIntegerBit ? hiddenBit : Code(0);
    return signBitIf(negative) | (spec.exponentFieldMax() << spec.storedSignificandBits()) |
           integerBit;
}

Code FloatGeometry::nanCode(bool negative) const {
    switch (spec.specials) {
    case SpecialEncoding::Ieee:
        // Canonical quiet NaN: all-ones exponent, top fraction bit set (x87: C000…0).
        return infinityCode(negative) | (Code(1) << (spec.fractionBits - 1));
    case SpecialEncoding::NanAtAllOnes:
        return signBitIf(negative) | lowBitsMask(spec.totalBits() - (spec.isSigned ? 1 : 0));
    case SpecialEncoding::NanAtNegativeZero:
        return spec.signBit();
    case SpecialEncoding::None:
        break;
    }
    return 0;
}

Code FloatGeometry::infinityOrNaNOrMax(bool negative) const {
    if (spec.hasInfinity())
        return infinityCode(negative);
    if (spec.hasNaN())
        return nanCode(negative);
    return signedMaxCode(negative);
}

} // namespace fpx
