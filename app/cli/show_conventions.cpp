// SPDX-License-Identifier: GPL-3.0-or-later
// fpx show --conventions: VALUE cast as each convention casts it, and the E8M0 scale of each MX
// scale rule for |VALUE| as a block's amax. The conventions and the scale rules are the core's
// (cast_conventions.h, block_quantization.h); this file only lays them side by side
// (docs/behaviour.md, "Conversion conventions").
#include "presentation.h"
#include "show.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/nan_payload.h"

#include <map>
#include <ostream>

namespace fpx::cli {

namespace {

std::string valueText(const ExactValue& v) {
    const DecimalText text = toDecimal(v);
    return elide(text.text, false, 40) + (text.exact ? "" : "…");
}

std::string powerOfTwoText(std::int64_t exponent) {
    return "2^" + std::to_string(exponent);
}

ScaleRuleResult scaleFor(const BlockFormat& format, const ScaleConvention& rule,
                         const ExactValue& amax) {
    ScaleRuleResult r;
    r.rule = &rule;
    r.scale = mxBlockScale(format, amax);
    r.elementValue = decodeCode(format.element, r.scale.elementCode).value;
    if (r.scale.nonFinite)
        return r;
    const ExactValue scale = ExactValue::dyadic(false, 1, r.scale.exponent);
    r.quotient = amax / scale;
    if (r.scale.clipped)
        r.clippedBy = amax - r.elementValue * scale;
    return r;
}

// What happened to the input in one row, for the note column.
std::string castNote(const ExactValue& input, const FormatSpec& spec, const DecodedCode& d,
                     const ConversionFlags& flags) {
    const std::string infinity = d.value.isNegative() ? "−∞" : "∞";
    const bool saturated =
        flags.overflow && d.valueClass != ValueClass::NaN && d.valueClass != ValueClass::Infinity;
    if (input.isInfinity())
        return d.valueClass == ValueClass::NaN        ? "∞ → NaN"
               : d.valueClass == ValueClass::Infinity ? infinity
                                                      : "∞ → max, saturated";
    if (d.valueClass == ValueClass::NaN)
        return flags.overflow ? "overflow → NaN" : "NaN";
    if (d.valueClass == ValueClass::Infinity)
        return flags.overflow ? "overflow → " + infinity : infinity;
    if (saturated)
        return "saturated";
    if (flags.invalid)
        return "NaN: " + spec.id + " has none";
    return "";
}

std::string joinNotes(std::initializer_list<std::string> parts) {
    std::string text;
    for (const std::string& part : parts)
        if (!part.empty())
            text += (text.empty() ? "" : ", ") + part;
    return text;
}

} // namespace

ConventionsReport computeConventions(const ShowOptions& options) {
    ConventionsReport report;
    report.input = options.input;
    report.rounding = options.rounding;
    const ExactValue& x = report.input.value;
    report.amax = x.abs();
    if (x.isFinite())
        report.inputIsFp32 = roundedInto(x, fp32Spec()) == x;
    for (const FormatSpec& spec : options.formats) {
        ConventionsForFormat view;
        view.spec = spec;
        const Conversion own = roundToFormat(x, spec, options.rounding);
        view.fpx = decodeCode(spec, own.code);
        view.fpxFlags = own.flags;
        for (const CastConvention& convention : castConventions()) {
            if (!conventionCovers(convention, spec))
                continue;
            ConventionResult r;
            r.convention = &convention;
            r.cast = castWithConvention(x, spec, convention);
            r.decoded = decodeCode(spec, r.cast.conversion.code);
            r.agreesWithDefault = r.cast.conversion.code == own.code;
            if (!view.results.empty() &&
                r.cast.conversion.code != view.results.front().cast.conversion.code)
                view.allAgree = false;
            view.results.push_back(r);
        }
        report.formats.push_back(std::move(view));
    }
    for (const FormatSpec& spec : options.formats) {
        ScalesForElement scales;
        scales.element = spec;
        scales.elementMax = deriveLimits(spec).max;
        for (const ScaleConvention& rule : scaleConventions()) {
            const std::optional<BlockFormat> format = mxFormatForElement(spec, rule.rule);
            if (!format)
                break;
            scales.blockFormat = format->id;
            scales.rules.push_back(scaleFor(*format, rule, report.amax));
        }
        if (!scales.rules.empty())
            report.scales.push_back(std::move(scales));
    }
    return report;
}

void renderConventionsText(const ConventionsReport& report, const TerminalStyle& style,
                           std::ostream& out) {
    const ShowInput& input = report.input;
    const DecimalText exactInput = toDecimal(input.value);
    out << style.bold("input") << "  " << input.text;
    if (!input.fromFormat.empty())
        out << " (" << input.fromFormat << ")";
    if (exactInput.text != input.text)
        out << " = " << elide(exactInput.text, false, 60) << (exactInput.exact ? "" : "…");
    out << "   "
        << style.dim("fpx: round " + roundingChoiceId(report.rounding) + ", overflow " +
                     std::string(overflowPolicyId(report.rounding.overflow)))
        << '\n';
    if (!report.inputIsFp32)
        out << style.dim("not an FP32 value: implementations that cast from FP32 round it to "
                         "FP32 first; shown is one exact rounding")
            << '\n';

    for (const ConventionsForFormat& view : report.formats) {
        const FormatSpec& spec = view.spec;
        const FormatLimits limits = deriveLimits(spec);
        const int bits = spec.totalBits();
        out << '\n'
            << style.bold(spec.id) << " — " << spec.displayName << ", max "
            << toDecimal(limits.max).text << '\n';
        TextTable table({"convention", "bits", "hex", "value", "note"});
        table.addRow({"fpx (" + roundingChoiceId(report.rounding) + ", " +
                          std::string(overflowPolicyId(report.rounding.overflow)) + ")",
                      colouredBits(spec, view.fpx.code, style), codeToHex(view.fpx.code, bits),
                      valueText(view.fpx.value),
                      castNote(input.value, spec, view.fpx, view.fpxFlags)});
        for (const ConventionResult& r : view.results)
            table.addRow(
                {r.convention->id, colouredBits(spec, r.decoded.code, style),
                 codeToHex(r.decoded.code, bits), valueText(r.decoded.value),
                 joinNotes({castNote(input.value, spec, r.decoded, r.cast.conversion.flags),
                            r.agreesWithDefault ? "= fpx" : "≠ fpx"})});
        table.print(out, style.enabled);
        if (view.allAgree) {
            out << "  every convention gives " << codeToHex(view.results.front().decoded.code, bits)
                << '\n';
            continue;
        }
        // Which conventions share each code, codes in ascending order.
        std::map<Code, std::string> byCode;
        for (const ConventionResult& r : view.results) {
            std::string& ids = byCode[r.decoded.code];
            ids += (ids.empty() ? "" : ", ") + r.convention->id;
        }
        std::string differ;
        for (const auto& [code, ids] : byCode)
            differ += (differ.empty() ? "" : "; ") + codeToHex(code, bits) + " " + ids;
        out << "  " << style.bold("the conventions differ:") << ' ' << differ << '\n';
    }

    if (report.scales.empty())
        return;
    out << '\n'
        << style.bold("E8M0 block scales") << "  amax " << valueText(report.amax) << "  "
        << style.dim("(|VALUE| as the amax of a one-value MX block)") << '\n';
    TextTable table(
        {"element", "block", "rule", "scale", "code", "amax/scale", "element value", "clips"});
    for (const ScalesForElement& scales : report.scales) {
        const int bits = scales.element.totalBits();
        bool first = true;
        for (const ScaleRuleResult& r : scales.rules) {
            const std::string element = first ? style.bold(scales.element.id) : "";
            const std::string block = first ? scales.blockFormat : "";
            first = false;
            const std::string code = codeToHex(r.scale.scaleCode, 8);
            if (r.scale.nonFinite) {
                table.addRow({element, block, std::string(scaleRuleId(r.rule->rule)), "NaN", code,
                              "-", codeToHex(r.scale.elementCode, bits) + " (+0)",
                              "a NaN or ±∞ makes the scale NaN"});
                continue;
            }
            const std::string clips = r.scale.clipped
                                          ? "yes: " + valueText(r.elementValue) + " × " +
                                                powerOfTwoText(r.scale.exponent) + ", " +
                                                valueText(r.clippedBy) + " lost"
                                          : "no";
            table.addRow({element, block, std::string(scaleRuleId(r.rule->rule)),
                          powerOfTwoText(r.scale.exponent), code, valueText(r.quotient),
                          valueText(r.elementValue), clips});
        }
    }
    table.print(out, style.enabled);
    out << style.dim("max of the elements: ");
    bool firstMax = true;
    for (const ScalesForElement& scales : report.scales) {
        out << (firstMax ? "" : ", ") << scales.element.id << ' ' << valueText(scales.elementMax);
        firstMax = false;
    }
    out << '\n';
}

void renderConventionsJson(const ConventionsReport& report, std::ostream& out) {
    const ShowInput& input = report.input;
    Json json;
    json["input"] = input.text;
    if (!input.fromFormat.empty())
        json["input_format"] = input.fromFormat;
    const DecimalText exactInput = toDecimal(input.value);
    json["input_value"] = exactInput.text;
    json["input_exact"] = exactInput.exact && input.exact;
    json["input_is_fp32"] = report.inputIsFp32;
    json["round"] = roundingChoiceId(report.rounding);
    json["overflow"] = overflowPolicyId(report.rounding.overflow);

    Json conventions = Json::array();
    for (const ConventionsForFormat& view : report.formats) {
        const FormatSpec& spec = view.spec;
        const FormatLimits limits = deriveLimits(spec);
        const int bits = spec.totalBits();
        Json format;
        format["format"] = spec.id;
        format["name"] = spec.displayName;
        format["max"] = toDecimal(limits.max).text;
        format["default"] = {{"bits", binaryByField(spec, view.fpx.code)},
                             {"hex", codeToHex(view.fpx.code, bits)},
                             {"value", toDecimal(view.fpx.value).text},
                             {"class", codeClassName(spec, view.fpx.code)},
                             {"flags", flagsToString(view.fpxFlags)}};
        format["all_agree"] = view.allAgree;
        Json results = Json::array();
        for (const ConventionResult& r : view.results) {
            const CastConvention& c = *r.convention;
            const Conversion& conversion = r.cast.conversion;
            results.push_back({
                {"id", c.id},
                {"name", c.name},
                {"source", c.source},
                {"round", roundingChoiceId(c.rounding)},
                {"overflow_policy", overflowPolicyId(c.rounding.overflow)},
                {"overflow", overflowResultId(r.cast.overflow)},
                {"nan_rule", nanRuleId(c.nan)},
                {"bits", binaryByField(spec, conversion.code)},
                {"hex", codeToHex(conversion.code, bits)},
                {"value", toDecimal(r.decoded.value).text},
                {"class", codeClassName(spec, conversion.code)},
                {"flags", flagsToString(conversion.flags)},
                {"agrees_with_default", r.agreesWithDefault},
                {"note", c.note},
            });
        }
        format["results"] = std::move(results);
        conventions.push_back(std::move(format));
    }
    json["conventions"] = std::move(conventions);

    Json scales = Json::array();
    for (const ScalesForElement& element : report.scales) {
        const int bits = element.element.totalBits();
        Json rules = Json::array();
        for (const ScaleRuleResult& r : element.rules) {
            const bool finite = !r.scale.nonFinite;
            rules.push_back({
                {"rule", scaleRuleId(r.rule->rule)},
                {"name", r.rule->name},
                {"source", r.rule->source},
                {"exponent", finite ? Json(r.scale.exponent) : Json(nullptr)},
                {"code", codeToHex(r.scale.scaleCode, 8)},
                {"scale", finite ? decimalOrNull(ExactValue::dyadic(false, 1, r.scale.exponent))
                                 : Json(nullptr)},
                {"quotient", finite ? decimalOrNull(r.quotient) : Json(nullptr)},
                {"element_hex", codeToHex(r.scale.elementCode, bits)},
                {"element_value", decimalOrNull(r.elementValue)},
                {"clipped", r.scale.clipped},
                {"clipped_by", r.scale.clipped ? decimalOrNull(r.clippedBy) : Json(nullptr)},
            });
        }
        scales.push_back({{"format", element.element.id},
                          {"block_format", element.blockFormat},
                          {"element_max", toDecimal(element.elementMax).text},
                          {"amax", decimalOrNull(report.amax)},
                          {"rules", std::move(rules)}});
    }
    json["scales"] = std::move(scales);
    printJson(out, json);
}

} // namespace fpx::cli
