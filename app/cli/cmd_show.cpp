// SPDX-License-Identifier: GPL-3.0-or-later
// fpx show: one value in every selected format, with everything the explorer shows.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"

#include "fpx/exact/approximate_error.h"
#include "fpx/exact/code_details.h"
#include "fpx/exact/code_parser.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/decode_explanation.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/nan_payload.h"
#include "fpx/exact/same_bits.h"
#include "fpx/exact/stochastic_rounding.h"
#include "fpx/exact/value_parser.h"

#include <algorithm>
#include <charconv>
#include <ostream>

namespace fpx::cli {

namespace {

struct ShowInput {
    ExactValue value;
    std::string text;                   // as typed
    std::string fromFormat;             // with --bits: the format the code belongs to
    std::optional<FormatSpec> fromSpec; // with --bits: that format and the code itself
    Code code = 0;
    bool exact = true; // false when the value stands in for a very long or far input
};

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

std::string intervalText(const RoundingInterval& r) {
    return std::string(r.lowClosed ? "[" : "(") + toDecimal(r.low).text + ", " +
           toDecimal(r.high).text + (r.highClosed ? "]" : ")");
}

Json resultJson(const FormatSpec& spec, const ConversionReport& r, bool inputExact) {
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
    json["shortest"] = shortestRoundTrip(spec, d.code);
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
    json["flags"] = flagList(r.conversion.flags);
    json["decode"] = explainDecode(spec, d);
    return json;
}

// The most stochastic roundings --draws may ask for: each is one exact rounding.
constexpr std::uint64_t kMaxDraws = 10'000'000;

// Stochastic rounding of the input: the two neighbours, the exact probability of going up and,
// with draws, the fraction of that many seeded roundings that went up.
struct StochasticView {
    std::optional<StochasticOutcomes> outcomes;
    std::optional<ExactValue> observed;
};

StochasticView stochasticView(const ExactValue& x, const FormatSpec& spec,
                              const RoundingOptions& options, std::uint64_t seed,
                              std::uint64_t draws) {
    StochasticView view;
    view.outcomes = stochasticOutcomes(x, spec, options.overflow);
    if (view.outcomes && draws > 0)
        view.observed = observedFractionUp(x, spec, options.overflow, seed, draws);
    return view;
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
    if (draws > 0) {
        json["draws"] = draws;
        json["observed_p_up"] = view.observed ? Json(toDecimal(*view.observed).text) : Json(0);
    }
    return json;
}

std::string elide(const std::string& text, bool full, std::size_t limit = 42) {
    if (full || text.size() <= limit)
        return text;
    return text.substr(0, limit - 1) + "…";
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
    line("rounding", std::string(roundingModeName(options.mode)) + ", overflow " +
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
    } else {
        line("level", std::to_string(d.level) + " (scale " + toDecimal(spec.scale).text + ")");
    }
    line("decode", explainDecode(spec, d));
    line("class", codeClassName(spec, d.code));
    const DecimalText value = toDecimal(d.value);
    line("value", elide(value.text, full, 120) + (value.exact ? "" : "… (does not terminate)"));
    line("shortest", shortestRoundTrip(spec, d.code));
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
    const std::string flags = flagsToString(r.conversion.flags);
    line("flags", flags.empty() ? "none (exact)" : flags);
    if (stochastic.outcomes) {
        const StochasticOutcomes& o = *stochastic.outcomes;
        const DecimalText p = toDecimal(o.probabilityUp);
        line("sr down", codeToHex(o.down.code, bits) + "  " + toDecimal(o.down.value).text);
        line("sr up", codeToHex(o.up.code, bits) + "  " + toDecimal(o.up.value).text);
        line("p(up)",
             p.text + (p.exact ? "" : "…") + "  (exact: the distance to down over the gap)");
        if (stochastic.observed)
            line("observed", toSignificantDigits(*stochastic.observed, 8) + " of " +
                                 std::to_string(draws) + " seeded draws went up");
    }
}

// fpx show --bits CODE --width N: the code read in every format of that width, the rows of
// the explorer's "Same bits in every format" view (the built-ins and the --formats).
int showSameBits(const Arguments& args, const std::vector<FormatSpec>& extra, Streams& io) {
    const std::string widthText(*args.value("width"));
    int bits = 0;
    const auto [ptr, ec] =
        std::from_chars(widthText.data(), widthText.data() + widthText.size(), bits);
    const std::vector<int> widths = formatWidths(extra);
    if (ec != std::errc() || ptr != widthText.data() + widthText.size() ||
        std::find(widths.begin(), widths.end(), bits) == widths.end()) {
        std::string list;
        for (int w : widths)
            list += (list.empty() ? "" : ", ") + std::to_string(w);
        return usageError(io, "show",
                          "--width '" + widthText + "': no format has that many bits (" + list +
                              ", or add one with --formats)");
    }
    const ParsedCode parsed = readCode(*args.value("bits"), bits);
    if (!parsed) {
        io.err << "fpx show: --bits '" << *args.value("bits") << "', column "
               << parsed.errorPosition + 1 << ": " << parsed.error << " (a code of " << bits
               << " bits is hex, 0x…, or binary, 0b…)\n";
        return kExitDataError;
    }
    const Code code = *parsed.code;
    const std::vector<SameBitsRow> rows = readInEveryFormat(code, bits, extra);
    if (args.has("json")) {
        Json json;
        json["bits"] = codeToHex(code, bits);
        json["binary"] = codeToBinary(code, bits);
        json["width"] = bits;
        Json results = Json::array();
        for (const SameBitsRow& row : rows)
            results.push_back({{"format", row.spec.id},
                               {"fields", binaryByField(row.spec, row.decoded.code)},
                               {"class", row.className},
                               {"value", toDecimal(row.decoded.value).text}});
        json["results"] = std::move(results);
        printJson(io.out, json);
        return kExitOk;
    }
    const TerminalStyle style{(io.outIsTerminal && !args.has("no-color")) || args.has("color")};
    io.out << style.bold("bits") << "  " << codeToHex(code, bits) << " = "
           << codeToBinary(code, bits) << "   "
           << style.dim("read in every " + widthText + "-bit format") << "\n\n";
    TextTable table({"format", "fields", "class", "value"});
    for (const SameBitsRow& row : rows) {
        const DecimalText value = toDecimal(row.decoded.value);
        table.addRow({style.bold(row.spec.id), colouredBits(row.spec, row.decoded.code, style),
                      row.className,
                      elide(value.text, args.has("full"), 60) + (value.exact ? "" : "…")});
    }
    table.print(io.out, style.enabled);
    return kExitOk;
}

} // namespace

int runShow(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(
        rawArgs, {"formats", "round", "overflow", "seed", "scale", "bits", "as", "draws", "width"},
        {"json", "full", "color", "no-color"});
    const char* usage =
        "usage: fpx show VALUE [--formats ID,...] [--round MODE] [--overflow POLICY] [--json]\n"
        "                      [--round sr [--seed N] [--draws N]]\n"
        "       fpx show --bits CODE --as FORMAT [...]\n"
        "       fpx show --bits CODE --width N [--formats ID,...] [--json]\n";
    if (!args.ok())
        return usageError(io, "show", args.error());
    if (args.helpRequested())
        return printHelp(io, usage);
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return usageError(io, "show", setup.error);

    std::uint64_t draws = 0;
    if (auto text = args.value("draws")) {
        const char* end = text->data() + text->size();
        const auto [ptr, ec] = std::from_chars(text->data(), end, draws);
        if (ec != std::errc() || ptr != end || draws == 0 || draws > kMaxDraws)
            return usageError(io, "show",
                              "--draws: expected a count from 1 to " + std::to_string(kMaxDraws) +
                                  ", got '" + *text + "'");
        if (setup.rounding.mode != RoundingMode::Stochastic)
            return usageError(io, "show", "--draws needs --round sr");
    }

    std::vector<FormatSpec> formats;
    if (auto list = args.value("formats")) {
        FormatListLookup lookup = findFormats(*list);
        if (!lookup.error.empty())
            return usageError(io, "show", std::string("--formats: ") + lookup.error);
        formats = std::move(lookup.specs);
    } else {
        formats = builtinFormats();
    }
    for (FormatSpec& spec : formats)
        setup.applyScale(spec);

    if (args.has("width")) {
        if (!args.has("bits") || args.has("as") || !args.positionals().empty())
            return usageError(io, "show",
                              "--width N reads --bits CODE in every N-bit format; it takes no "
                              "--as and no VALUE");
        // Only the formats named with --formats join the built-ins.
        return showSameBits(args, args.has("formats") ? formats : std::vector<FormatSpec>{}, io);
    }

    int status = kExitOk;
    ShowInput input;
    if (args.has("bits")) {
        if (!args.positionals().empty() || !args.has("as"))
            return usageError(io, "show", "--bits CODE needs --as FORMAT and no VALUE");
        FormatLookup from = findFormat(*args.value("as"));
        if (!from)
            return usageError(io, "show", std::string("--as: ") + from.error);
        setup.applyScale(*from.spec);
        const ParsedCode parsed = readCode(*args.value("bits"), from.spec->totalBits());
        if (!parsed) {
            io.err << "fpx show: --bits '" << *args.value("bits") << "', column "
                   << parsed.errorPosition + 1 << ": " << parsed.error << " (a code of "
                   << from.spec->totalBits() << " bits for " << from.spec->id
                   << " is hex, 0x…, or binary, 0b…)\n";
            return kExitDataError;
        }
        input.value = decodeCode(*from.spec, *parsed.code).value;
        input.text = codeToHex(*parsed.code, from.spec->totalBits());
        input.fromFormat = from.spec->id;
        input.fromSpec = *from.spec;
        input.code = *parsed.code;
    } else {
        if (args.positionals().size() != 1)
            return usageError(
                io, "show",
                std::string("expected one VALUE") +
                    (args.positionals().empty() ? "" : " (quote values with spaces)"));
        input.text = args.positionals().front();
        const ParsedValue parsed = parseValue(input.text);
        if (!parsed) {
            io.err << "fpx show: cannot read VALUE '" << input.text << "' at column "
                   << parsed.error.position + 1 << ": " << parsed.error.message << '\n';
            return kExitDataError;
        }
        input.value = *parsed.value;
        input.exact = parsed.exact;
    }

    // Scaled formats cannot take a stand-in for a very long or far-out input exactly.
    if (!input.exact) {
        std::vector<FormatSpec> kept;
        for (FormatSpec& spec : formats) {
            if (acceptsStandInInput(spec, input.value)) {
                kept.push_back(std::move(spec));
                continue;
            }
            io.err << "fpx show: " << spec.id
                   << " skipped: a value longer than 40000 digits or beyond 10^±20000 cannot be "
                      "rounded exactly into a scaled format\n";
            if (args.has("formats"))
                status = kExitDataError;
        }
        formats = std::move(kept);
        if (formats.empty())
            return kExitDataError;
    }
    const RoundingOptions options = setup.forElement(0);
    std::vector<ConversionReport> reports;
    reports.reserve(formats.size());
    for (const FormatSpec& spec : formats) {
        reports.push_back(convertAndDescribe(input.value, spec, options));
        if (!input.fromSpec || !input.value.isNaN())
            continue;
        // A NaN code keeps its payload where a format can hold it (docs/behaviour.md,
        // "NaN payloads"); its own format shows the code as typed.
        if (sameEncoding(spec, *input.fromSpec)) {
            reports.back().conversion = Conversion{input.code, {}};
            reports.back().details = describeCode(spec, input.code, options);
        } else {
            keepNaNPayload(reports.back(), *input.fromSpec, input.code, spec, options);
        }
    }
    const bool stochastic = options.mode == RoundingMode::Stochastic;
    std::vector<StochasticView> stochasticViews(formats.size());
    for (std::size_t i = 0; stochastic && i < formats.size(); ++i)
        stochasticViews[i] = stochasticView(input.value, formats[i], options, setup.seed, draws);

    if (args.has("json")) {
        Json json;
        json["input"] = input.text;
        if (!input.fromFormat.empty())
            json["input_format"] = input.fromFormat;
        const DecimalText exactInput = toDecimal(input.value);
        json["input_value"] = exactInput.text;
        json["input_exact"] = exactInput.exact && input.exact;
        json["round"] = roundingModeId(options.mode);
        json["overflow"] = overflowPolicyId(options.overflow);
        if (options.mode == RoundingMode::Stochastic)
            json["seed"] = setup.seed;
        Json results = Json::array();
        for (std::size_t i = 0; i < formats.size(); ++i) {
            results.push_back(resultJson(formats[i], reports[i], input.exact));
            if (stochastic)
                results.back()["stochastic"] =
                    stochasticJson(formats[i], stochasticViews[i], draws);
        }
        json["results"] = std::move(results);
        printJson(io.out, json);
        return status;
    }

    const TerminalStyle style{(io.outIsTerminal && !args.has("no-color")) || args.has("color")};
    if (formats.size() == 1) {
        printDetail(io.out, formats.front(), input, reports.front(), options, style,
                    args.has("full"), stochasticViews.front(), draws);
        return status;
    }
    const DecimalText exactInput = toDecimal(input.value);
    io.out << style.bold("input") << "  " << input.text;
    if (!input.fromFormat.empty())
        io.out << " (" << input.fromFormat << ")";
    if (exactInput.text != input.text)
        io.out << " = " << elide(exactInput.text, args.has("full"), 60)
               << (exactInput.exact ? "" : "…");
    io.out << "   "
           << style.dim(std::string("round ") + std::string(roundingModeId(options.mode)) +
                        ", overflow " + std::string(overflowPolicyId(options.overflow)))
           << "\n\n";
    TextTable table(
        {"format", "hex", "value", "error", "rel error", "ulp error", "class", "flags", "bits"});
    const bool full = args.has("full");
    for (std::size_t i = 0; i < formats.size(); ++i) {
        const FormatSpec& spec = formats[i];
        const ConversionReport& r = reports[i];
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
    table.print(io.out, style.enabled);
    return status;
}

} // namespace fpx::cli
