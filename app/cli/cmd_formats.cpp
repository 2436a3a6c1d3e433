// SPDX-License-Identifier: GPL-3.0-or-later
// fpx formats: the catalogue with limits derived from each FormatSpec. The options, the
// catalogue as listed, and its text and JSON renderers.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "text_table.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"

#include <charconv>
#include <cstdio>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage = "usage: fpx formats [--json] [--color|--no-color]\n";

struct FormatsOptions {
    bool json = false;
    ColorChoice color = ColorChoice::Auto;
};

FormatsOptions parseFormatsOptions(const Arguments& args) {
    return {args.has("json"), readColorChoice(args)};
}

// One format as listed: integer formats at scale 1, so that their limits are levels (int8 is
// [−128, 127]); the scale the catalogue gives them stays beside, for JSON.
struct ListedFormat {
    FormatSpec spec;
    FormatLimits limits;     // of spec
    ExactValue defaultScale; // the catalogue's scale (a lookup format's absmax)
};

struct FormatsReport {
    std::vector<ListedFormat> formats; // the built-ins, in catalogue order
};

// The options choose only the form, so the catalogue is the same for every command line.
FormatsReport computeFormats() {
    FormatsReport report;
    for (const FormatSpec& catalogued : builtinFormats()) {
        FormatSpec spec = catalogued;
        if (spec.kind == FormatKind::Integer)
            spec.scale = ExactValue::integer(1);
        const FormatLimits limits = deriveLimits(spec);
        report.formats.push_back({std::move(spec), limits, catalogued.scale});
    }
    return report;
}

std::string_view kindName(FormatKind kind) {
    switch (kind) {
    case FormatKind::BinaryFloat:
        return "float";
    case FormatKind::Integer:
        return "integer";
    case FormatKind::Lookup:
        return "lookup";
    case FormatKind::Posit:
        return "posit";
    }
    return "?";
}

std::string_view encodingName(const FormatSpec& spec) {
    if (spec.kind != FormatKind::BinaryFloat)
        return "none";
    if (spec.infinityAtTop)
        return spec.isSigned ? "p3109-signed-extended" : "p3109-unsigned-extended";
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

// p·log10(2) to four decimals, as it has always been listed: an approximate figure, not
// exact like the limits.
double fourDecimals(double value) {
    char text[64];
    const auto printed =
        std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, 4);
    double rounded = value;
    std::from_chars(text, printed.ptr, rounded);
    return rounded;
}

Json formatJson(const ListedFormat& listed) {
    const FormatSpec& spec = listed.spec;
    const FormatLimits& l = listed.limits;
    const bool isFloat = spec.kind == FormatKind::BinaryFloat;
    Json json;
    json["id"] = spec.id;
    json["name"] = spec.displayName;
    json["aliases"] = spec.aliases;
    json["kind"] = kindName(spec.kind);
    json["bits"] = spec.totalBits();
    if (isFloat) {
        json["exponent_bits"] = spec.exponentBits;
        json["mantissa_bits"] = spec.storedSignificandBits();
        json["fraction_bits"] = spec.fractionBits;
        json["bias"] = spec.bias;
        json["precision"] = spec.precision();
    } else {
        for (const char* name :
             {"exponent_bits", "mantissa_bits", "fraction_bits", "bias", "precision"})
            json[name] = nullptr;
    }
    json["signed"] = spec.isSigned;
    json["explicit_integer_bit"] = spec.explicitIntegerBit;
    json["special_encoding"] = encodingName(spec);
    json["has_inf"] = spec.hasInfinity();
    json["has_nan"] = spec.hasNaN();
    json["has_negative_zero"] = spec.hasNegativeZero();
    json["has_subnormals"] = isFloat && l.minSubnormal.has_value();
    json["max"] = decimalOrNull(l.max);
    json["min"] = decimalOrNull(l.lowest);
    json["min_normal"] = decimalOrNull(isFloat ? l.minNormal : std::optional(l.minPositive));
    json["min_subnormal"] = decimalOrNull(l.minSubnormal);
    json["epsilon"] = decimalOrNull(l.epsilon);
    json["max_bits"] = codeToHex(l.maxCode, spec.totalBits());
    json["min_bits"] = codeToHex(l.lowestCode, spec.totalBits());
    json["decimal_digits"] = fourDecimals(l.decimalDigits);
    json["codes"] = integerOrDigits(l.codeCount);
    json["finite_codes"] = integerOrDigits(l.finiteCount);
    json["nan_codes"] = integerOrDigits(l.nanCount);
    json["inf_codes"] = integerOrDigits(l.infinityCount);
    json["zero_codes"] = integerOrDigits(l.zeroCount);
    if (spec.isScaled()) {
        json[spec.kind == FormatKind::Lookup ? "default_absmax" : "default_scale"] =
            toDecimal(listed.defaultScale).text;
        if (spec.kind == FormatKind::Integer)
            json["default_scale_fraction"] =
                "1/" + toDecimal(ExactValue::integer(1) / listed.defaultScale).text;
    }
    json["description"] = spec.description;
    return json;
}

void renderFormatsJson(const FormatsReport& report, std::ostream& out) {
    Json list = Json::array();
    for (const ListedFormat& listed : report.formats)
        list.push_back(formatJson(listed));
    printJson(out, Json{{"formats", std::move(list)}});
}

// s/e/m for a float; what stands in for it otherwise.
std::string layoutText(const FormatSpec& spec) {
    switch (spec.kind) {
    case FormatKind::BinaryFloat:
        return std::to_string(spec.isSigned ? 1 : 0) + "/" + std::to_string(spec.exponentBits) +
               "/" + std::to_string(spec.storedSignificandBits());
    case FormatKind::Integer:
        return spec.isSigned ? "int" : "uint";
    case FormatKind::Lookup:
        return "table";
    case FormatKind::Posit:
        return "posit";
    }
    return "-";
}

void renderFormatsText(const FormatsReport& report, const TerminalStyle& style, std::ostream& out) {
    TextTable table({"id", "bits", "s/e/m", "bias", "max", "min normal", "min subnormal", "epsilon",
                     "digits", "inf", "nan", "aliases"});
    for (const auto& [spec, l, defaultScale] : report.formats) {
        const bool isFloat = spec.kind == FormatKind::BinaryFloat;
        std::string aliases; // the first four: the column stays narrow
        for (std::size_t i = 0; i < spec.aliases.size() && i < 4; ++i)
            aliases += (i ? ", " : "") + spec.aliases[i];
        char digits[16];
        std::snprintf(digits, sizeof digits, "%.2f", l.decimalDigits);
        table.addRow({style.bold(spec.id), std::to_string(spec.totalBits()), layoutText(spec),
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
    table.print(out, style.enabled);
    out << "\nInteger formats show levels; their values are level × scale (default 1/qmax)."
        << "\nCustom formats: e<E>m<M>[b<bias>][fn|fnuz|fnu|f], int<N>, uint<N>, and IEEE "
           "P3109's binary<K>p<P><s|u><e|f>, posits posit<n> and posit<n,es> (see fpx --help).\n";
}

} // namespace

int runFormats(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {}, {"json", "color", "no-color"});
    if (const auto stop = checkOptionsOnly(args, io, "formats", kUsage))
        return *stop;
    const FormatsOptions options = parseFormatsOptions(args);
    const FormatsReport report = computeFormats();
    if (options.json)
        renderFormatsJson(report, io.out);
    else
        renderFormatsText(report, TerminalStyle::forChoice(options.color, io.outIsTerminal),
                          io.out);
    return kExitOk;
}

} // namespace fpx::cli
