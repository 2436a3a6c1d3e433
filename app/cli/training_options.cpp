// SPDX-License-Identifier: GPL-3.0-or-later
// Options and number forms shared by the training commands.
#include "training_options.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace fpx::cli {

namespace {

// The text of a positive option, exactly: nullopt with `error` when it is not a number or not
// positive and finite.
std::optional<ExactValue> positiveValue(const std::string& option, const std::string& text,
                                        std::string& error) {
    const ParsedValue parsed = parseValue(text);
    if (!parsed) {
        error = option + ": '" + text + "': " + parsed.error.message;
        return std::nullopt;
    }
    if (!parsed.value->isFinite() || parsed.value->isNegative() || parsed.value->isZero()) {
        error = option + ": '" + text + "' must be a positive finite number";
        return std::nullopt;
    }
    return *parsed.value;
}

} // namespace

std::optional<double> parsePositiveDouble(const std::string& option, const std::string& text,
                                          std::string& error) {
    const std::optional<ExactValue> exact = positiveValue(option, text, error);
    if (!exact)
        return std::nullopt;
    const double value = nearestDouble(*exact);
    if (!std::isfinite(value) || value == 0) {
        error = option + ": '" + text + "' is outside a double's range";
        return std::nullopt;
    }
    return value;
}

std::optional<float> parsePositiveFp32(const std::string& option, const std::string& text,
                                       std::string& error) {
    const std::optional<ExactValue> exact = positiveValue(option, text, error);
    if (!exact)
        return std::nullopt;
    const Conversion c = roundToFormat(*exact, fp32Spec());
    const float value = std::bit_cast<float>(static_cast<std::uint32_t>(c.code));
    if (!std::isfinite(value) || value == 0) {
        error = option + ": '" + text + "' is outside FP32's range (2^-149 to 3.40282347e38)";
        return std::nullopt;
    }
    return value;
}

std::optional<std::size_t> parseCountOption(const std::string& option, const std::string& text,
                                            std::size_t limit, std::string& error) {
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value == 0 ||
        value > limit) {
        error = option + ": expected a count from 1 to " + std::to_string(limit) + ", got '" +
                text + "'";
        return std::nullopt;
    }
    return value;
}

std::optional<std::uint64_t> parseSeedOption(const std::string& text, std::string& error) {
    std::uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        error = "--seed: expected an unsigned 64-bit integer, got '" + text + "'";
        return std::nullopt;
    }
    return seed;
}

std::string exactDecimal(double value) {
    return toDecimal(exactFromDouble(value)).text;
}

Json jsonNumber(double value) {
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value < 0 ? "-inf" : "inf";
    return value;
}

std::string percentText(double fraction) {
    if (fraction == 0)
        return "0%";
    if (fraction < 1e-4)
        return "<0.01%";
    char text[32];
    std::snprintf(text, sizeof text, "%.2f%%", fraction * 100);
    return text;
}

std::string shortNumber(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

} // namespace fpx::cli
