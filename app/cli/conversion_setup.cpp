// SPDX-License-Identifier: GPL-3.0-or-later
#include "conversion_setup.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <charconv>

namespace fpx::cli {

RoundingOptions ConversionSetup::forElement(std::uint64_t index) const {
    RoundingOptions options = rounding;
    if (options.mode == RoundingMode::Stochastic)
        options.randomBits = stochasticBits(seed, index);
    return options;
}

void ConversionSetup::applyScale(FormatSpec& spec) const {
    if (scale && spec.isScaled())
        spec.scale = *scale;
}

ConversionSetup readConversionSetup(const Arguments& args) {
    ConversionSetup setup;
    if (auto mode = args.value("round")) {
        const ParsedRounding parsed = parseRoundingChoice(*mode);
        if (!parsed.choice) {
            setup.error = "--round: " + parsed.error;
            return setup;
        }
        setup.rounding.mode = parsed.choice->mode;
        setup.rounding.stochastic = parsed.choice->stochastic;
    }
    if (auto policy = args.value("overflow")) {
        const auto parsed = parseOverflowPolicy(*policy);
        if (!parsed) {
            setup.error = "--overflow: unknown policy '" + *policy +
                          "' (use ieee, saturate, satpropagate or satnone)";
            return setup;
        }
        setup.rounding.overflow = *parsed;
    }
    if (auto seed = args.value("seed")) {
        const char* begin = seed->data();
        const char* end = begin + seed->size();
        const auto [ptr, ec] = std::from_chars(begin, end, setup.seed);
        if (ec != std::errc() || ptr != end) {
            setup.error = "--seed: expected an unsigned 64-bit integer, got '" + *seed + "'";
            return setup;
        }
    }
    if (auto scale = args.value("scale")) {
        const ParsedValue parsed = parseValue(*scale);
        if (!parsed) {
            setup.error = "--scale '" + *scale + "': column " +
                          std::to_string(parsed.error.position + 1) + ": " + parsed.error.message;
            return setup;
        }
        if (!parsed.exact) {
            setup.error = "--scale must be exact: at most 40000 digits, within 10^±20000";
            return setup;
        }
        if (!parsed.value->isFinite() || parsed.value->isZero() || parsed.value->isNegative()) {
            setup.error = "--scale must be a finite positive number, got '" + *scale + "'";
            return setup;
        }
        setup.scale = *parsed.value;
    }
    return setup;
}

Outcome<FormatSpec> readArithmeticFormat(std::string_view option, std::string_view id,
                                         const ConversionSetup& setup, ArithmeticErrorForm form) {
    const std::string name = "--" + std::string(option);
    const FormatLookup lookup = findFormat(id);
    if (!lookup)
        return CommandError{name + ": " + lookup.error};
    FormatSpec spec = *lookup.spec;
    setup.applyScale(spec);
    if (auto why = arithmeticUnsupported(spec))
        return CommandError{name + (form == ArithmeticErrorForm::OptionAndId ? " " + spec.id : "") +
                            ": " + *why};
    return spec;
}

} // namespace fpx::cli
