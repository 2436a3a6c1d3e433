// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/bit_layout.h"

#include "fpx/exact/posit.h"

namespace fpx {

namespace {

std::vector<BitField> positLayout(const FormatSpec& spec, Code code) {
    std::vector<BitField> fields{{BitFieldKind::Sign, 1}};
    const auto f = positFields(spec, code);
    if (!f) {
        fields.push_back({BitFieldKind::Regime, spec.positBits - 1});
        return fields;
    }
    fields.push_back({BitFieldKind::Regime, f->regimeWidth});
    if (f->exponentWidth > 0)
        fields.push_back({BitFieldKind::Exponent, f->exponentWidth});
    if (f->fractionWidth > 0)
        fields.push_back({BitFieldKind::Fraction, f->fractionWidth});
    return fields;
}

} // namespace

std::vector<BitField> bitLayout(const FormatSpec& spec, Code code) {
    if (spec.kind == FormatKind::Posit)
        return positLayout(spec, code);
    std::vector<BitField> fields;
    if (spec.kind != FormatKind::BinaryFloat) {
        fields.push_back({BitFieldKind::Level, spec.totalBits()});
        return fields;
    }
    if (spec.isSigned)
        fields.push_back({BitFieldKind::Sign, 1});
    fields.push_back({BitFieldKind::Exponent, spec.exponentBits});
    if (spec.explicitIntegerBit)
        fields.push_back({BitFieldKind::IntegerBit, 1});
    if (spec.fractionBits > 0)
        fields.push_back({BitFieldKind::Fraction, spec.fractionBits});
    return fields;
}

std::string binaryByField(const FormatSpec& spec, Code code, const FieldPainter& paint) {
    const std::string bits = codeToBinary(code, spec.totalBits());
    std::string out;
    std::size_t pos = 0;
    for (const BitField& field : bitLayout(spec, code)) {
        if (!out.empty())
            out += ' ';
        const std::string_view group =
            std::string_view(bits).substr(pos, static_cast<std::size_t>(field.width));
        out += paint ? paint(group, field.kind) : std::string(group);
        pos += static_cast<std::size_t>(field.width);
    }
    return out;
}

} // namespace fpx
