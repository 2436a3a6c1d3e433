// SPDX-License-Identifier: GPL-3.0-or-later
// fpx show's renderers: the report as text (a decode for one format, a table for several) or
// JSON, and the --width view.
#include "presentation.h"
#include "show.h"

#include "fpx/exact/approximate_error.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/decode_explanation.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/nan_payload.h"
#include "fpx/exact/posit.h"
#include "fpx/exact/rounding_neighbourhood.h"

#include <cstdio>
#include <ostream>

namespace fpx::cli {

namespace {

// The error's decimal text: exact when it terminates and the input was taken exactly,
// otherwise 40 significant digits.
DecimalText errorText(const ExactValue& error, bool inputExact) {
    if (inputExact)
        return toDecimal(error);
    return DecimalText{toSignificantDigits(error, 40), error.isZero() || !error.isFinite()};
}

std::vector<std::string> flagList(const ConversionFlags& f) {
    std::vector<std::string> names;
    if (f.inexact)
        names.emplace_back("inexact");
    if (f.underflow)
        names.emplace_back("underflow");
    if (f.overflow)
        names.emplace_back("overflow");
    if (f.invalid)
        names.emplace_back("invalid");
    return names;
}

// Which rounding the shortest decimal reads back under, where it is not the default.
std::string shortestNote(RoundingMode mode) {
    if (mode == RoundingMode::NearestEven)
        return {};
    if (mode == RoundingMode::Stochastic)
        return "  (reads back under rne: under sr only the exact value reads back for certain)";
    return "  (reads back as this code under " + std::string(roundingModeId(mode)) + ")";
}

std::string intervalText(const RoundingInterval& r) {
    return std::string(r.lowClosed ? "[" : "(") + toDecimal(r.low).text + ", " +
           toDecimal(r.high).text + (r.highClosed ? "]" : ")");
}

// One end of the number line: its code and value, or the value past the range it stands for.
std::string endText(const NumberLineEnd& end, int bits) {
    return end.code ? codeToHex(*end.code, bits) + "  " + toDecimal(end.value).text
                    : toDecimal(end.value).text + " (one step past the range: no code)";
}

// The input's place between the format's values, as the Explorer's number line draws it.
Json numberLineJson(const FormatSpec& spec, const ConversionReport& r,
                    const RoundingOptions& options) {
    const auto n = roundingNeighbourhood(r.input, spec, options);
    if (!n)
        return nullptr;
    const int bits = spec.totalBits();
    auto bitsOrNull = [&](const std::optional<Code>& code) {
        return code ? Json(codeToHex(*code, bits)) : Json(nullptr);
    };
    Json json;
    json["low"] = toDecimal(n->low.value).text;
    json["low_bits"] = bitsOrNull(n->low.code);
    json["high"] = toDecimal(n->high.value).text;
    json["high_bits"] = bitsOrNull(n->high.code);
    json["midpoint"] = toDecimal(n->midpoint).text;
    json["midpoint_bits"] =
        bitsOrNull(n->midpointResult ? std::optional(n->midpointResult->code) : std::nullopt);
    const DecimalText position = toDecimal(numberLinePosition(*n, n->input));
    json["input_position"] = position.text;
    json["input_position_exact"] = position.exact;
    return json;
}

Json resultJson(const FormatSpec& spec, const ConversionReport& r, const RoundingOptions& options,
                bool inputExact) {
    const DecodedCode& d = r.details.decoded;
    const int bits = spec.totalBits();
    const bool isFloat = spec.kind == FormatKind::BinaryFloat;
    const DecimalText value = toDecimal(d.value);
    const DecimalText error = errorText(r.error, inputExact);
    Json json;
    json["format"] = spec.id;
    json["name"] = spec.displayName;
    json["bits"] = codeToHex(d.code, bits);
    json["binary"] = binaryByField(spec, d.code);
    json["sign"] = d.sign ? 1 : 0;
    if (isFloat) {
        json["exponent"] = integerOrDigits(d.exponentField);
        json["mantissa"] = integerOrDigits(d.significandField);
        if (d.valueClass == ValueClass::Normal || d.valueClass == ValueClass::Subnormal)
            json["unbiased_exponent"] = d.unbiasedExponent;
        else
            json["unbiased_exponent"] = nullptr;
    } else if (spec.kind == FormatKind::Posit) {
        json["exponent"] = nullptr;
        json["mantissa"] = nullptr;
        // The fields the code's bits hold (none for zero and NaR): value =
        // ((1 − 3·sign) + fraction / 2^fraction_bits) × 2^scale.
        if (const auto f = positFields(spec, d.code))
            json["posit"] = {{"regime_run", f->regimeRun},
                             {"regime_bits", f->regimeWidth},
                             {"regime", f->regime},
                             {"exponent_bits", f->exponentWidth},
                             {"exponent", f->exponent},
                             {"fraction_bits", f->fractionWidth},
                             {"fraction", integerOrDigits(f->fractionField)},
                             {"scale", f->scale}};
        else
            json["posit"] = nullptr;
    } else {
        json["exponent"] = nullptr;
        json["mantissa"] = nullptr;
        json["level"] = d.level;
        json["scale"] = toDecimal(spec.scale).text;
    }
    json["class"] = valueClassName(d.valueClass);
    if (d.valueClass == ValueClass::NaN)
        json["nan_kind"] = nanKindName(nanKind(spec, d.code));
    json["value"] = value.text;
    json["value_exact"] = value.exact;
    json["shortest"] = shortestRoundTrip(spec, d.code, options);
    json["shortest_round"] = roundingModeId(shortestReadBackMode(options.mode));
    if (r.error.isNaN()) {
        json["error"] = nullptr;
        json["error_exact"] = true;
    } else {
        json["error"] = error.text;
        json["error_exact"] = error.exact;
    }
    // Against a stand-in for the input (beyond 10^±20000): the GUI marks these with ≈.
    json["error_approximate"] = errorIsApproximate(inputExact, r.error);
    json["exact"] = value.exact && (r.error.isNaN() || error.exact);
    json["rel_error"] = decimalOrNull(r.relativeError);
    json["ulp_error"] = decimalOrNull(r.ulpError);
    json["ulp"] = decimalOrNull(r.details.ulp);
    const auto& up = r.details.nextUp;
    const auto& down = r.details.nextDown;
    json["next_up"] = decimalOrNull(up ? std::optional(up->value) : std::nullopt);
    json["next_up_bits"] = up ? Json(codeToHex(up->code, bits)) : Json(nullptr);
    json["next_down"] = decimalOrNull(down ? std::optional(down->value) : std::nullopt);
    json["next_down_bits"] = down ? Json(codeToHex(down->code, bits)) : Json(nullptr);
    if (const auto& interval = r.details.interval)
        json["interval"] = {{"low", toDecimal(interval->low).text},
                            {"high", toDecimal(interval->high).text},
                            {"low_closed", interval->lowClosed},
                            {"high_closed", interval->highClosed}};
    else
        json["interval"] = nullptr;
    json["number_line"] = numberLineJson(spec, r, options);
    json["flags"] = flagList(r.conversion.flags);
    json["decode"] = explainDecode(spec, d);
    return json;
}

Json stochasticJson(const FormatSpec& spec, const StochasticView& view, std::uint64_t draws) {
    if (!view.outcomes)
        return nullptr;
    const StochasticOutcomes& o = *view.outcomes;
    const int bits = spec.totalBits();
    Json json;
    json["down"] = decimalOrNull(o.down.value);
    json["down_bits"] = codeToHex(o.down.code, bits);
    json["up"] = decimalOrNull(o.up.value);
    json["up_bits"] = codeToHex(o.up.code, bits);
    json["p_up"] = toDecimal(o.probabilityUp).text;
    json["p_up_exact"] = toDecimal(o.probabilityUp).exact;
    // What all the random bits would give: differs under sr:N by less than 2^−N.
    json["p_up_ideal"] = toDecimal(o.idealProbabilityUp).text;
    json["p_up_ideal_exact"] = toDecimal(o.idealProbabilityUp).exact;
    if (draws > 0) {
        json["draws"] = draws;
        json["observed_p_up"] = view.observed ? Json(toDecimal(*view.observed).text) : Json(0);
    }
    return json;
}

std::string signedShort(const ExactValue& v, int digits) {
    if (v.isNaN())
        return "-";
    const std::string text = toSignificantDigits(v, digits);
    return (v.isNegative() || v.isZero() || text == "inf") ? text : "+" + text;
}

void printDetail(std::ostream& out, const FormatSpec& spec, const ShowInput& input,
                 const ConversionReport& r, const RoundingOptions& options,
                 const TerminalStyle& style, bool full, const StochasticView& stochastic,
                 std::uint64_t draws) {
    const DecodedCode& d = r.details.decoded;
    const int bits = spec.totalBits();
    auto line = [&](std::string_view label, const std::string& text) {
        std::string padded(label);
        padded.resize(12, ' ');
        out << "  " << style.dim(padded) << text << '\n';
    };
    out << style.bold(spec.id) << " — " << spec.displayName << '\n';
    line("input", input.text + (input.fromFormat.empty() ? "" : " (" + input.fromFormat + ")"));
    const DecimalText exactInput = toDecimal(input.value);
    if (!input.exact)
        line("stands for",
             elide(toSignificantDigits(input.value, 40), full, 120) +
                 "  (too long or far to hold exactly: rounds the same into every binary float)");
    else if (exactInput.text != input.text)
        line("exactly", elide(exactInput.text, full, 120) + (exactInput.exact ? "" : "…"));
    line("rounding", roundingChoiceName(options) + ", overflow " +
                         std::string(overflowPolicyId(options.overflow)));
    line("bits", colouredBits(spec, d.code, style) + "  " + codeToHex(d.code, bits));
    if (spec.kind == FormatKind::BinaryFloat) {
        if (spec.isSigned)
            line("sign", std::string(d.sign ? "1 → negative" : "0 → positive"));
        line("exponent", codeToBinary(d.exponentField, spec.exponentBits) + " = " +
                             codeToDecimal(d.exponentField) + " (bias " +
                             std::to_string(spec.bias) + ")");
        if (spec.storedSignificandBits() > 0)
            line("mantissa", codeToBinary(d.significandField, spec.storedSignificandBits()) +
                                 " = " + codeToDecimal(d.significandField));
    } else if (spec.kind == FormatKind::Posit) {
        for (const FieldLine& field : positFieldLines(spec, d.code))
            line(field.name, field.text);
    } else {
        line("level", std::to_string(d.level) + " (scale " + toDecimal(spec.scale).text + ")");
    }
    line("decode", explainDecode(spec, d));
    line("class", codeClassName(spec, d.code));
    const DecimalText value = toDecimal(d.value);
    line("value", elide(value.text, full, 120) + (value.exact ? "" : "… (does not terminate)"));
    line("shortest", shortestRoundTrip(spec, d.code, options) + shortestNote(options.mode));
    if (!r.error.isNaN()) {
        const DecimalText error = errorText(r.error, input.exact);
        const bool approximate = errorIsApproximate(input.exact, r.error);
        line("error",
             markApproximate(elide(error.text, full, 120) + (error.exact ? "" : "…"), approximate) +
                 (approximate ? "  (against the stand-in for the input)" : ""));
        line("rel error", markApproximate(toSignificantDigits(r.relativeError, 6),
                                          errorIsApproximate(input.exact, r.relativeError)));
        if (r.details.ulp)
            line("ulp error", markApproximate(toSignificantDigits(r.ulpError, 6),
                                              errorIsApproximate(input.exact, r.ulpError)) +
                                  " ulp");
    }
    if (r.details.ulp)
        line("ulp", humanValue(*r.details.ulp, 12));
    line("next up", r.details.nextUp ? codeToHex(r.details.nextUp->code, bits) + "  " +
                                           toDecimal(r.details.nextUp->value).text
                                     : "none");
    line("next down", r.details.nextDown ? codeToHex(r.details.nextDown->code, bits) + "  " +
                                               toDecimal(r.details.nextDown->value).text
                                         : "none");
    if (r.details.interval)
        line("rounds here", intervalText(*r.details.interval));
    // An input the format does not hold: the two values around it and the tie point.
    if (const auto n = roundingNeighbourhood(r.input, spec, options);
        n && compare(n->low.value, r.input) < 0 && compare(r.input, n->high.value) < 0) {
        line("between", endText(n->low, bits) + "  and  " + endText(n->high, bits));
        const bool nearest =
            options.mode == RoundingMode::NearestEven || options.mode == RoundingMode::NearestAway;
        line("half-way", toDecimal(n->midpoint).text +
                             (n->midpointResult
                                  ? std::string(nearest ? "  (a tie rounds to " : "  (rounds to ") +
                                        codeToHex(n->midpointResult->code, bits) + ")"
                                  : ""));
    }
    const std::string flags = flagsToString(r.conversion.flags);
    line("flags", flags.empty() ? "none (exact)" : flags);
    if (stochastic.outcomes) {
        const StochasticOutcomes& o = *stochastic.outcomes;
        const DecimalText p = toDecimal(o.probabilityUp);
        line("sr down", codeToHex(o.down.code, bits) + "  " + toDecimal(o.down.value).text);
        line("sr up", codeToHex(o.up.code, bits) + "  " + toDecimal(o.up.value).text);
        if (options.stochastic.count == 0) {
            line("p(up)",
                 p.text + (p.exact ? "" : "…") + "  (exact: the distance to down over the gap)");
        } else {
            const DecimalText ideal = toDecimal(o.idealProbabilityUp);
            line("p(up)", p.text + (p.exact ? "" : "…") + "  (exact, with " +
                              std::to_string(options.stochastic.count) + " random bits)");
            line("ideal", ideal.text + (ideal.exact ? "" : "…") +
                              "  (the distance to down over the gap: all bits)");
        }
        if (stochastic.observed)
            line("observed", toSignificantDigits(*stochastic.observed, 8) + " of " +
                                 std::to_string(draws) + " seeded draws went up");
    }
}

void printTable(std::ostream& out, const ShowReport& report, const TerminalStyle& style,
                bool full) {
    const ShowInput& input = report.input;
    const RoundingOptions& options = report.rounding;
    const DecimalText exactInput = toDecimal(input.value);
    out << style.bold("input") << "  " << input.text;
    if (!input.fromFormat.empty())
        out << " (" << input.fromFormat << ")";
    if (exactInput.text != input.text)
        out << " = " << elide(exactInput.text, full, 60) << (exactInput.exact ? "" : "…");
    out << "   "
        << style.dim(std::string("round ") + roundingChoiceId(options) + ", overflow " +
                     std::string(overflowPolicyId(options.overflow)))
        << "\n\n";
    TextTable table(
        {"format", "hex", "value", "error", "rel error", "ulp error", "class", "flags", "bits"});
    for (std::size_t i = 0; i < report.formats.size(); ++i) {
        const FormatSpec& spec = report.formats[i];
        const ConversionReport& r = report.results[i];
        const DecimalText value = toDecimal(r.details.decoded.value);
        auto error = [&](const ExactValue& e, int digits) {
            return markApproximate(signedShort(e, digits), errorIsApproximate(input.exact, e));
        };
        table.addRow({style.bold(spec.id), codeToHex(r.conversion.code, spec.totalBits()),
                      elide(value.text, full) + (value.exact ? "" : "…"), error(r.error, 6),
                      error(r.relativeError, 4), error(r.ulpError, 4),
                      codeClassName(spec, r.conversion.code), flagsToString(r.conversion.flags),
                      colouredBits(spec, r.conversion.code, style)});
    }
    table.print(out, style.enabled);
}

} // namespace

void renderShowText(const ShowReport& report, const TerminalStyle& style, bool full,
                    std::ostream& out) {
    if (report.formats.size() == 1)
        printDetail(out, report.formats.front(), report.input, report.results.front(),
                    report.rounding, style, full,
                    report.stochastic.empty() ? StochasticView{} : report.stochastic.front(),
                    report.draws);
    else
        printTable(out, report, style, full);
    if (const auto& a = report.seedAudit) {
        char z[32];
        std::snprintf(z, sizeof z, "%.2f", a->zScore); // fpx never sets LC_NUMERIC: a point
        out << "\n"
            << style.dim("seed audit") << "  seeds " << a->seed << " and " << a->neighbour << ": "
            << a->agreeingBits << " of " << a->comparedBits
            << " random bits agree (chance: " << toDecimal(a->expectedAgreeing).text
            << ", z = " << z
            << "): " << (a->independent() ? "independent" : "CORRELATED beyond chance") << '\n';
    }
}

void renderShowJson(const ShowReport& report, std::ostream& out) {
    const ShowInput& input = report.input;
    const RoundingOptions& options = report.rounding;
    Json json;
    json["input"] = input.text;
    if (!input.fromFormat.empty())
        json["input_format"] = input.fromFormat;
    const DecimalText exactInput = toDecimal(input.value);
    json["input_value"] = exactInput.text;
    json["input_exact"] = exactInput.exact && input.exact;
    json["round"] = roundingChoiceId(options);
    json["overflow"] = overflowPolicyId(options.overflow);
    if (options.mode == RoundingMode::Stochastic)
        json["seed"] = report.seed;
    Json results = Json::array();
    for (std::size_t i = 0; i < report.formats.size(); ++i) {
        results.push_back(resultJson(report.formats[i], report.results[i], options, input.exact));
        if (!report.stochastic.empty())
            results.back()["stochastic"] =
                stochasticJson(report.formats[i], report.stochastic[i], report.draws);
    }
    json["results"] = std::move(results);
    if (const auto& a = report.seedAudit)
        json["seed_audit"] = {{"seed", a->seed},
                              {"neighbour_seed", a->neighbour},
                              {"bits_per_draw", a->bitCount},
                              {"compared_bits", a->comparedBits},
                              {"agreeing_bits", a->agreeingBits},
                              {"expected_agreeing", toDecimal(a->expectedAgreeing).text},
                              {"z", a->zScore},
                              {"independent", a->independent()}};
    printJson(out, json);
}

void renderSameBitsText(const SameBitsReport& report, const TerminalStyle& style, bool full,
                        std::ostream& out) {
    out << style.bold("bits") << "  " << codeToHex(report.code, report.bits) << " = "
        << codeToBinary(report.code, report.bits) << "   "
        << style.dim("read in every " + report.widthText + "-bit format") << "\n\n";
    TextTable table({"format", "fields", "class", "value"});
    for (const SameBitsRow& row : report.rows) {
        const DecimalText value = toDecimal(row.decoded.value);
        table.addRow({style.bold(row.spec.id), colouredBits(row.spec, row.decoded.code, style),
                      row.className, elide(value.text, full, 60) + (value.exact ? "" : "…")});
    }
    table.print(out, style.enabled);
}

void renderSameBitsJson(const SameBitsReport& report, std::ostream& out) {
    Json json;
    json["bits"] = codeToHex(report.code, report.bits);
    json["binary"] = codeToBinary(report.code, report.bits);
    json["width"] = report.bits;
    Json results = Json::array();
    for (const SameBitsRow& row : report.rows)
        results.push_back({{"format", row.spec.id},
                           {"fields", binaryByField(row.spec, row.decoded.code)},
                           {"class", row.className},
                           {"value", toDecimal(row.decoded.value).text}});
    json["results"] = std::move(results);
    printJson(out, json);
}

} // namespace fpx::cli
