// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/format_limits.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/float_geometry.h"
#include "fpx/exact/posit.h"

#include <algorithm>
#include <cmath>

namespace fpx {

namespace {

FormatLimits floatLimits(const FormatSpec& spec) {
    const FloatGeometry g(spec);
    FormatLimits l;
    l.maxCode = g.maxCode;
    l.lowestCode = g.lowestCode;
    if (spec.hasNaN())
        l.nanCode = g.nanCode(false);
    if (spec.hasInfinity())
        l.infinityCode = g.infinityCode(false);
    l.max = decodeCode(spec, g.maxCode).value;
    l.lowest = decodeCode(spec, g.lowestCode).value;
    l.maxExponent = static_cast<int>(g.maxExponent);
    l.minNormal = ExactValue::dyadic(false, 1, g.minExponent);
    if (spec.exponentZeroIsSubnormal && spec.fractionBits > 0)
        l.minSubnormal = ExactValue::dyadic(false, 1, g.minExponent - spec.fractionBits);
    l.minPositive = l.minSubnormal ? *l.minSubnormal : *l.minNormal;
    l.epsilon = ExactValue::dyadic(false, 1, -spec.fractionBits);
    l.decimalDigits = spec.precision() * std::log10(2.0);

    // Code counts by encoding.
    const int signs = spec.isSigned ? 2 : 1;
    const int stored = spec.storedSignificandBits();
    l.codeCount = BigInt(1) << spec.totalBits();
    switch (spec.specials) {
    case SpecialEncoding::Ieee:
        l.infinityCount = signs;
        // Every other code with the all-ones exponent; on x87 also the unnormals
        // (integer bit clear, exponent neither 0 nor all ones), which are invalid operands.
        l.nanCount = BigInt(signs) * ((BigInt(1) << stored) - 1);
        if (spec.explicitIntegerBit)
            l.nanCount += BigInt(signs) * (BigInt(spec.exponentFieldMax()) - 1) *
                          (BigInt(1) << spec.fractionBits);
        break;
    case SpecialEncoding::NanAtAllOnes:
        l.nanCount = signs;
        break;
    case SpecialEncoding::NanAtNegativeZero:
        l.nanCount = 1;
        break;
    case SpecialEncoding::None:
        break;
    }
    if (spec.infinityAtTop)
        l.infinityCount = signs;
    l.zeroCount = spec.hasZero() ? (spec.hasNegativeZero() ? 2 : 1) : 0;
    l.finiteCount = l.codeCount - l.nanCount - l.infinityCount;
    return l;
}

FormatLimits integerLimits(const FormatSpec& spec) {
    FormatLimits l;
    const int bits = spec.integerBits;
    const BigInt qmax = spec.isSigned ? (BigInt(1) << (bits - 1)) - 1 : (BigInt(1) << bits) - 1;
    const BigInt qmin = spec.isSigned ? -(BigInt(1) << (bits - 1)) : BigInt(0);
    l.max = ExactValue::integer(qmax) * spec.scale;
    l.lowest = ExactValue::integer(qmin) * spec.scale;
    l.maxCode = static_cast<Code>(qmax);
    l.lowestCode = spec.isSigned ? (Code(1) << (bits - 1)) : Code(0);
    l.minPositive = spec.scale;
    l.epsilon = spec.scale;
    l.decimalDigits = std::log10(static_cast<double>(qmax) + 1.0);
    l.codeCount = BigInt(1) << bits;
    l.finiteCount = l.codeCount;
    l.zeroCount = 1;
    return l;
}

FormatLimits lookupLimits(const FormatSpec& spec) {
    FormatLimits l;
    l.codeCount = spec.table.size();
    l.finiteCount = l.codeCount;
    bool first = true;
    for (std::size_t code = 0; code < spec.table.size(); ++code) {
        const ExactValue v = spec.table[code] * spec.scale;
        if (first || compare(v, l.max) > 0) {
            l.max = v;
            l.maxCode = code;
        }
        if (first || compare(v, l.lowest) < 0) {
            l.lowest = v;
            l.lowestCode = code;
        }
        if (!v.isZero() && !v.isNegative() &&
            (l.minPositive.isZero() || compare(v, l.minPositive) < 0))
            l.minPositive = v;
        if (v.isZero())
            l.zeroCount += 1;
        first = false;
    }
    l.decimalDigits = std::log10(static_cast<double>(spec.table.size()));
    return l;
}

// Posits: ±maxpos and ±minpos at the ends of the code circle, every other code a real number but
// NaR. Precision tapers: most fraction bits next to 1, none at the ends, so the digits given are
// those at 1, and epsilon is 1's gap (the next code up is 1 + 2^−(n − 3 − es)).
FormatLimits positLimits(const FormatSpec& spec) {
    FormatLimits l;
    const Code maxposCode = lowBitsMask(spec.positBits - 1);
    l.maxCode = maxposCode;
    l.lowestCode = positNaRCode(spec) + 1;
    l.nanCode = positNaRCode(spec);
    l.max = decodePosit(spec, l.maxCode).value;
    l.lowest = decodePosit(spec, l.lowestCode).value;
    l.minPositive = decodePosit(spec, 1).value;
    l.maxExponent = static_cast<int>(positMaxScale(spec));
    const Code one = Code(1) << (spec.positBits - 2);
    l.epsilon = decodePosit(spec, one + 1).value - ExactValue::integer(1);
    const auto atOne = positFields(spec, one);
    l.decimalDigits = (atOne->fractionWidth + 1) * std::log10(2.0);
    l.codeCount = BigInt(1) << spec.positBits;
    l.nanCount = 1;
    l.zeroCount = 1;
    l.finiteCount = l.codeCount - 1;
    return l;
}

} // namespace

FormatLimits deriveLimits(const FormatSpec& spec) {
    switch (spec.kind) {
    case FormatKind::BinaryFloat:
        return floatLimits(spec);
    case FormatKind::Integer:
        return integerLimits(spec);
    case FormatKind::Lookup:
        return lookupLimits(spec);
    case FormatKind::Posit:
        return positLimits(spec);
    }
    return {};
}

} // namespace fpx
