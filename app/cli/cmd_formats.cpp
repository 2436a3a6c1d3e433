// SPDX-License-Identifier: GPL-3.0-or-later
// fpx formats: the catalogue with limits derived from each FormatSpec.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"

#include "fpx/decimal_text.h"
#include "fpx/format_catalogue.h"
#include "fpx/format_limits.h"

#include <cstdio>
#include <ostream>

namespace fpx::cli {

namespace {

std::string_view kindName(FormatKind kind) {
    switch (kind) {
    case FormatKind::BinaryFloat:
        return "float";
    case FormatKind::Integer:
        return "integer";
    case FormatKind::Lookup:
        return "lookup";
    }
    return "?";
}

std::string_view encodingName(const FormatSpec& spec) {
    if (spec.kind != FormatKind::BinaryFloat)
        return "none";
    switch (spec.specials) {
    case SpecialEncoding::Ieee:
        return "ieee";
    case SpecialEncoding::NanAtAllOnes:
        return spec.isSigned ? "fn" : "fnu";
    case SpecialEncoding::NanAtNegativeZero:
        return "fnuz";
    case SpecialEncoding::None:
        return "finite";
    }
    return "?";
}

// Integer formats list their levels (scale 1): int8 is [−128, 127].
FormatSpec unscaled(FormatSpec spec) {
    if (spec.kind == FormatKind::Integer)
        spec.scale = ExactValue::integer(1);
    return spec;
}

void writeFormatJson(JsonWriter& json, const FormatSpec& original) {
    const FormatSpec spec = unscaled(original);
    const FormatLimits l = deriveLimits(spec);
    const bool isFloat = spec.kind == FormatKind::BinaryFloat;
    json.beginObject();
    json.field("id", spec.id);
    json.field("name", spec.displayName);
    json.key("aliases");
    json.beginArray();
    for (const auto& alias : spec.aliases)
        json.string(alias);
    json.endArray();
    json.field("kind", kindName(spec.kind));
    json.fieldNumber("bits", std::to_string(spec.totalBits()));
    if (isFloat) {
        json.fieldNumber("exponent_bits", std::to_string(spec.exponentBits));
        json.fieldNumber("mantissa_bits", std::to_string(spec.storedSignificandBits()));
        json.fieldNumber("fraction_bits", std::to_string(spec.fractionBits));
        json.fieldNumber("bias", std::to_string(spec.bias));
        json.fieldNumber("precision", std::to_string(spec.precision()));
    } else {
        json.fieldNull("exponent_bits");
        json.fieldNull("mantissa_bits");
        json.fieldNull("fraction_bits");
        json.fieldNull("bias");
        json.fieldNull("precision");
    }
    json.fieldBool("signed", spec.isSigned);
    json.fieldBool("explicit_integer_bit", spec.explicitIntegerBit);
    json.field("special_encoding", encodingName(spec));
    json.fieldBool("has_inf", spec.hasInfinity());
    json.fieldBool("has_nan", spec.hasNaN());
    json.fieldBool("has_negative_zero", spec.hasNegativeZero());
    json.fieldBool("has_subnormals", isFloat && l.minSubnormal.has_value());
    writeDecimalField(json, "max", l.max);
    writeDecimalField(json, "min", l.lowest);
    writeDecimalField(json, "min_normal", isFloat ? l.minNormal : std::optional(l.minPositive));
    writeDecimalField(json, "min_subnormal", l.minSubnormal);
    writeDecimalField(json, "epsilon", l.epsilon);
    json.field("max_bits", codeToHex(l.maxCode, spec.totalBits()));
    json.field("min_bits", codeToHex(l.lowestCode, spec.totalBits()));
    char digits[32];
    std::snprintf(digits, sizeof digits, "%.4f", l.decimalDigits);
    json.fieldNumber("decimal_digits", digits);
    json.fieldNumber("codes", l.codeCount.str());
    json.fieldNumber("finite_codes", l.finiteCount.str());
    json.fieldNumber("nan_codes", l.nanCount.str());
    json.fieldNumber("inf_codes", l.infinityCount.str());
    json.fieldNumber("zero_codes", l.zeroCount.str());
    if (spec.isScaled()) {
        const DecimalText scale = toDecimal(original.scale);
        json.field(spec.kind == FormatKind::Lookup ? "default_absmax" : "default_scale",
                   scale.text);
        if (spec.kind == FormatKind::Integer)
            json.field("default_scale_fraction",
                       "1/" + toDecimal(ExactValue::integer(1) / original.scale).text);
    }
    json.field("description", spec.description);
    json.endObject();
}

} // namespace

int runFormats(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs, {}, {"json", "color", "no-color"});
    const char* usage = "usage: fpx formats [--json] [--color|--no-color]\n";
    if (args.ok() && args.helpRequested())
        return printHelp(io, usage);
    if (!args.ok() || !args.positionals().empty()) {
        io.err << "fpx formats: "
               << (args.ok() ? "unexpected argument '" + args.positionals().front() + "'"
                             : args.error())
               << '\n'
               << usage;
        return kExitUsage;
    }
    const auto& formats = builtinFormats();
    if (args.has("json")) {
        JsonWriter json(io.out);
        json.beginObject();
        json.key("formats");
        json.beginArray();
        for (const FormatSpec& spec : formats)
            writeFormatJson(json, spec);
        json.endArray();
        json.endObject();
        return kExitOk;
    }
    TerminalStyle style{(io.outIsTerminal && !args.has("no-color")) || args.has("color")};
    TextTable table({"id", "bits", "s/e/m", "bias", "max", "min normal", "min subnormal", "epsilon",
                     "digits", "inf", "nan", "aliases"});
    for (const FormatSpec& original : formats) {
        const FormatSpec spec = unscaled(original);
        const FormatLimits l = deriveLimits(spec);
        const bool isFloat = spec.kind == FormatKind::BinaryFloat;
        std::string layout = "-";
        if (isFloat)
            layout = std::to_string(spec.isSigned ? 1 : 0) + "/" +
                     std::to_string(spec.exponentBits) + "/" +
                     std::to_string(spec.storedSignificandBits());
        else if (spec.kind == FormatKind::Integer)
            layout = spec.isSigned ? "int" : "uint";
        else
            layout = "table";
        std::string aliases;
        for (std::size_t i = 0; i < spec.aliases.size() && i < 4; ++i)
            aliases += (i ? ", " : "") + spec.aliases[i];
        char digits[16];
        std::snprintf(digits, sizeof digits, "%.2f", l.decimalDigits);
        table.addRow({style.bold(spec.id), std::to_string(spec.totalBits()), layout,
                      isFloat ? std::to_string(spec.bias) : "-", humanValue(l.max),
                      isFloat ? humanValue(*l.minNormal) : humanValue(l.minPositive),
                      l.minSubnormal ? humanValue(*l.minSubnormal) : "-",
                      l.epsilon ? humanValue(*l.epsilon) : "-", digits,
                      spec.hasInfinity() ? "yes" : "no",
                      !l.nanCode ? "no"
                                 : (spec.specials == SpecialEncoding::Ieee
                                        ? "ieee"
                                        : codeToHex(*l.nanCode, spec.totalBits())),
                      aliases});
    }
    table.print(io.out, style.enabled);
    io.out << "\nInteger formats show levels; their values are level × scale (default 1/qmax)."
           << "\nCustom formats: e<E>m<M>[b<bias>][fn|fnuz|fnu|f], int<N>, uint<N> (see fpx "
              "--help).\n";
    return kExitOk;
}

} // namespace fpx::cli
