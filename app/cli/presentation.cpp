// SPDX-License-Identifier: GPL-3.0-or-later
#include "presentation.h"

#include "fpx/exact/decimal_text.h"

#include <cstdint>
#include <limits>

namespace fpx::cli {

std::optional<std::int64_t> powerOfTwoExponent(const ExactValue& v) {
    if (!v.isFinite() || v.isZero() || v.numerator() != 1 || v.denominator() != 1)
        return std::nullopt;
    return v.exponent2();
}

std::string humanValue(const ExactValue& v, int digits) {
    const std::string text = toSignificantDigits(v, digits);
    if (const auto k = powerOfTwoExponent(v); k && (*k < -4 || *k > 16))
        return text + " (2^" + std::to_string(*k) + ")";
    return text;
}

std::string elide(const std::string& text, bool full, std::size_t limit) {
    if (full || text.size() <= limit)
        return text;
    return text.substr(0, limit - 1) + "…";
}

Json decimalOrNull(const std::optional<ExactValue>& v) {
    if (!v || v->isNaN())
        return nullptr;
    return toDecimal(*v).text;
}

Json integerOrDigits(Code n) {
    if (n <= std::numeric_limits<std::uint64_t>::max())
        return static_cast<std::uint64_t>(n);
    return codeToDecimal(n);
}

Json integerOrDigits(const BigInt& n) {
    if (n <= std::numeric_limits<std::uint64_t>::max())
        return n.convert_to<std::uint64_t>();
    return n.str();
}

void printJson(std::ostream& out, const Json& document) {
    out << document.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void printJsonLine(std::ostream& out, const Json& document) {
    out << document.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
}

std::string_view fieldColour(BitFieldKind kind) {
    switch (kind) {
    case BitFieldKind::Sign:
        return "34";
    case BitFieldKind::Exponent:
        return "32";
    case BitFieldKind::IntegerBit:
        return "33";
    case BitFieldKind::Fraction:
        return "31";
    case BitFieldKind::Level:
        return "36";
    case BitFieldKind::Regime:
        return "35";
    }
    return "0";
}

std::string colouredBits(const FormatSpec& spec, Code code, const TerminalStyle& style) {
    return binaryByField(spec, code, [&style](std::string_view bits, BitFieldKind kind) {
        return style.paint(bits, fieldColour(kind));
    });
}

std::string csvField(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(text);
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

} // namespace fpx::cli
