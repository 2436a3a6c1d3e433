// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/decode_explanation.h"

#include "fpx/exact/decimal_text.h"

namespace fpx {

namespace {

std::string plainExact(const ExactValue& v) {
    return toDecimal(v, 40).text;
}

} // namespace

std::string explainDecode(const FormatSpec& spec, const DecodedCode& d) {
    const std::string value = plainExact(d.value);
    switch (spec.kind) {
    case FormatKind::Integer: {
        std::string text = "level " + std::to_string(d.level) + " × scale " +
                           toSignificantDigits(spec.scale, 12) + " = " + value;
        return text;
    }
    case FormatKind::Lookup:
        return "table[" + std::to_string(d.level) +
               "] = " + plainExact(spec.table.at(static_cast<std::size_t>(d.level))) +
               ", × absmax " + toSignificantDigits(spec.scale, 12) + " = " + value;
    case FormatKind::BinaryFloat:
        break;
    }
    const std::string sign = spec.isSigned ? "(-1)^" + std::string(d.sign ? "1" : "0") + " × " : "";
    const std::string field = codeToDecimal(d.exponentField);
    const std::string bias = std::to_string(spec.bias);
    const std::string fraction = codeToDecimal(d.significandField & spec.fractionMask());
    const std::string scale = "2^" + std::to_string(spec.fractionBits);
    switch (d.valueClass) {
    case ValueClass::NaN:
        if (!d.canonical)
            return "non-canonical x87 encoding (integer bit disagrees with the exponent): "
                   "an invalid operand, treated as NaN";
        switch (spec.specials) {
        case SpecialEncoding::NanAtAllOnes:
            return spec.infinityAtTop
                       ? "every bit set: the only NaN (∞ is the code just below)"
                       : "all exponent and mantissa bits set: NaN (this format has no infinity)";
        case SpecialEncoding::NanAtNegativeZero:
            return "sign set, everything else clear: the only NaN (no -0 in this format)";
        default:
            return "exponent field all ones, mantissa " + fraction + " ≠ 0: NaN";
        }
    case ValueClass::Infinity:
        if (spec.infinityAtTop)
            return "the largest code of its sign: " + value + " (P3109 extended format)";
        return "exponent field all ones, mantissa 0: " + value;
    case ValueClass::Zero:
        return "exponent field 0, mantissa 0: " + value;
    case ValueClass::Subnormal:
        return "subnormal: " + sign + "2^(1 - " + bias + ") × (0 + " + fraction + "/" + scale +
               ") = " + value;
    case ValueClass::Normal:
        break;
    }
    if (spec.explicitIntegerBit && d.exponentField == 0)
        return "pseudo-denormal (integer bit set, exponent field 0): " + sign + "2^(1 - " + bias +
               ") × (1 + " + fraction + "/" + scale + ") = " + value;
    if (spec.fractionBits == 0)
        return sign + "2^(" + field + " - " + bias + ") = " + value;
    return sign + "2^(" + field + " - " + bias + ") × (1 + " + fraction + "/" + scale +
           ") = " + value;
}

} // namespace fpx
