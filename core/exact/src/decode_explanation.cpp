// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/decode_explanation.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/posit.h"

namespace fpx {

namespace {

std::string plainExact(const ExactValue& v) {
    return toDecimal(v, 40).text;
}

// The pieces of a posit's fields that the decode line and the field lines both say.
std::string runText(const PositFields& f) {
    return "a run of " + std::to_string(f.regimeRun) + (f.regimeOfOnes ? " one" : " zero") +
           (f.regimeRun == 1 ? "" : "s");
}

std::string regimeBits(const FormatSpec& spec, const PositFields& f, Code code) {
    return codeToBinary(code & spec.codeMask(), spec.positBits)
        .substr(1, static_cast<std::size_t>(f.regimeWidth));
}

// "01", "1 + 0 cut off", "(none) + 00 cut off": the exponent bits the code holds and those the
// regime left no room for, which read as 0.
std::string exponentBits(const FormatSpec& spec, const PositFields& f) {
    const int es = spec.positExponentBits;
    std::string text = f.exponentWidth > 0 ? codeToBinary(f.exponentField, f.exponentWidth)
                                           : std::string("(none)");
    if (f.exponentWidth < es)
        text +=
            " + " + std::string(static_cast<std::size_t>(es - f.exponentWidth), '0') + " cut off";
    return text;
}

// f as a fraction: "5/2^3", or "0" where the code holds no fraction bits.
std::string fractionValue(const PositFields& f) {
    if (f.fractionWidth == 0)
        return "0";
    return codeToDecimal(f.fractionField) + "/2^" + std::to_string(f.fractionWidth);
}

// "regime 110: a run of 2 ones, r = 1; exponent 01, e = 1; fraction 5/8:
//  2^(4 × 1 + 1) × (1 + 5/8) = 52", and for a negative code the standard's form with s = 1,
// "(−2 + f) × 2^−(4r + e + 1)", the negation of the value of the code's two's complement.
std::string explainPosit(const FormatSpec& spec, const DecodedCode& d, const std::string& value) {
    if (d.valueClass == ValueClass::Zero)
        return "every bit clear: zero, the only one";
    const auto f = positFields(spec, d.code);
    if (!f)
        return "sign set, every other bit clear: NaR (not a real), the only exception value";
    const int n = spec.positBits;
    std::string text = "regime " + regimeBits(spec, *f, d.code) + ": " + runText(*f) +
                       ", r = " + std::to_string(f->regime);
    const int es = spec.positExponentBits;
    if (es > 0)
        text += "; exponent " + exponentBits(spec, *f) + ", e = " + std::to_string(f->exponent);
    const std::string fraction = fractionValue(*f);
    text += "; fraction " + fraction + ": ";
    const std::string useed = std::to_string(1 << es);
    if (!f->sign)
        return text + "2^(" + useed + " × " + std::to_string(f->regime) + " + " +
               std::to_string(f->exponent) + ") × (1 + " + fraction + ") = " + value;
    return text + "sign 1: (−2 + " + fraction + ") × 2^−(" + useed + " × " +
           std::to_string(f->regime) + " + " + std::to_string(f->exponent) + " + 1) = " + value +
           ", the negation of its two's complement " +
           codeToHex((~d.code + 1) & spec.codeMask(), n);
}

} // namespace

std::vector<FieldLine> positFieldLines(const FormatSpec& spec, Code code) {
    if (spec.kind != FormatKind::Posit)
        return {};
    const auto f = positFields(spec, code);
    if (!f)
        return {};
    std::vector<FieldLine> lines;
    lines.push_back({"sign", f->sign ? "1 → negative" : "0 → positive"});
    lines.push_back({"regime", regimeBits(spec, *f, code) + ": " + runText(*f) +
                                   " → r = " + std::to_string(f->regime)});
    if (spec.positExponentBits > 0)
        lines.push_back(
            {"exponent", exponentBits(spec, *f) + " → e = " + std::to_string(f->exponent)});
    lines.push_back({"fraction", f->fractionWidth == 0
                                     ? std::string("(none) → f = 0")
                                     : codeToBinary(f->fractionField, f->fractionWidth) + " = " +
                                           fractionValue(*f)});
    return lines;
}

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
    case FormatKind::Posit:
        return explainPosit(spec, d, value);
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
