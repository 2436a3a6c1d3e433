// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/nan_payload.h"

#include "fpx/exact/conversion.h"

namespace fpx {

namespace {

bool hasPayload(const FormatSpec& spec) {
    return spec.kind == FormatKind::BinaryFloat && spec.specials == SpecialEncoding::Ieee &&
           spec.fractionBits >= 1;
}

Code quietBit(const FormatSpec& spec) {
    return Code(1) << (spec.fractionBits - 1);
}

} // namespace

NaNKind nanKind(const FormatSpec& spec, Code code) {
    const DecodedCode d = decodeCode(spec, code & spec.codeMask());
    if (d.valueClass != ValueClass::NaN)
        return NaNKind::NotNaN;
    if (!hasPayload(spec))
        return NaNKind::Single;
    return (code & quietBit(spec)) != 0 ? NaNKind::Quiet : NaNKind::Signaling;
}

std::string_view nanKindName(NaNKind kind) {
    switch (kind) {
    case NaNKind::Quiet:
        return "qNaN";
    case NaNKind::Signaling:
        return "sNaN";
    case NaNKind::Single:
        return "nan";
    case NaNKind::NotNaN:
        break;
    }
    return "";
}

std::string codeClassName(const FormatSpec& spec, Code code) {
    const NaNKind kind = nanKind(spec, code);
    if (kind != NaNKind::NotNaN)
        return spec.kind == FormatKind::Posit ? "NaR" : std::string(nanKindName(kind));
    return std::string(valueClassName(decodeCode(spec, code & spec.codeMask()).valueClass));
}

std::optional<Conversion> convertNaNCode(const FormatSpec& from, Code code, const FormatSpec& to) {
    code &= from.codeMask();
    const NaNKind kind = nanKind(from, code);
    if (kind != NaNKind::Quiet && kind != NaNKind::Signaling)
        return std::nullopt;
    if (!hasPayload(to))
        return std::nullopt;
    const Code fraction = code & from.fractionMask();
    const Code aligned = to.fractionBits >= from.fractionBits
                             ? fraction << (to.fractionBits - from.fractionBits)
                             : fraction >> (from.fractionBits - to.fractionBits);
    const bool negative = from.isSigned && (code & from.signBit()) != 0;
    Code result = (to.exponentFieldMax() << to.storedSignificandBits()) | aligned | quietBit(to);
    if (to.explicitIntegerBit)
        result |= Code(1) << to.fractionBits;
    if (negative && to.isSigned)
        result |= to.signBit();
    Conversion conversion;
    conversion.code = result;
    conversion.flags.invalid = kind == NaNKind::Signaling;
    return conversion;
}

bool keepNaNPayload(ConversionReport& report, const FormatSpec& from, Code code,
                    const FormatSpec& to, const RoundingOptions& options) {
    const std::optional<Conversion> conversion = convertNaNCode(from, code, to);
    if (!conversion) {
        // No payload to keep; a signaling NaN still signals (IEEE 754, 7.2).
        if (nanKind(from, code) != NaNKind::Signaling || report.conversion.flags.invalid)
            return false;
        report.conversion.flags.invalid = true;
        return true;
    }
    report.conversion = *conversion;
    report.details = describeCode(to, conversion->code, options);
    return true;
}

} // namespace fpx
