// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/decimal_layout.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace fpx::gui {

namespace {

const QChar kEllipsis(0x2026);

bool isDigit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// The integer and fraction digits of `parts` written plainly, without a sign.
std::pair<std::string, std::string> plainDigits(const DecimalParts& parts) {
    const std::string& d = parts.digits;
    const auto n = static_cast<std::int64_t>(d.size());
    const std::int64_t e = parts.exponent;
    if (e < 0)
        return {"0", std::string(static_cast<std::size_t>(-e - 1), '0') + d};
    if (n <= e + 1)
        return {d + std::string(static_cast<std::size_t>(e + 1 - n), '0'), {}};
    return {d.substr(0, static_cast<std::size_t>(e + 1)),
            d.substr(static_cast<std::size_t>(e + 1))};
}

QString special(const DecimalParts& parts) {
    switch (parts.kind) {
    case DecimalParts::Kind::Zero:
        return parts.negative ? QStringLiteral("-0") : QStringLiteral("0");
    case DecimalParts::Kind::Infinity:
        return parts.negative ? QStringLiteral("-inf") : QStringLiteral("inf");
    case DecimalParts::Kind::NaN:
        return QStringLiteral("nan");
    case DecimalParts::Kind::Finite:
        break;
    }
    return {};
}

QString plain(const DecimalParts& parts, int chars, bool goesOn) {
    const auto [whole, fraction] = plainDigits(parts);
    const QString sign = parts.negative ? QStringLiteral("-") : QString();
    QString text = sign + QString::fromStdString(whole);
    if (!fraction.empty())
        text += '.' + QString::fromStdString(fraction);
    if (text.size() <= chars && !goesOn)
        return text;
    if (text.size() + 1 <= chars)
        return text + kEllipsis;
    // Cut inside the fraction (readsPlain keeps the integer part whole); a point left last
    // says nothing.
    text.truncate(
        std::max<qsizetype>(sign.size() + static_cast<qsizetype>(whole.size()), chars - 1));
    if (text.endsWith('.'))
        text.chop(1);
    return text + kEllipsis;
}

QString scientific(const DecimalParts& parts, int chars, bool goesOn) {
    const QString sign = parts.negative ? QStringLiteral("-") : QString();
    const QString exponent = QStringLiteral("e") + QString::number(parts.exponent);
    const QString first = QString(QChar::fromLatin1(parts.digits.front()));
    const QString rest = QString::fromStdString(parts.digits.substr(1));
    const QString whole = sign + first + (rest.isEmpty() ? QString() : '.' + rest) + exponent;
    if (whole.size() <= chars && !goesOn)
        return whole;
    // Room for the digits after the point once the sign, the first digit, the point, the "…"
    // and the exponent are placed.
    const qsizetype room = chars - sign.size() - 1 - 1 - 1 - exponent.size();
    if (room < 1 || rest.isEmpty())
        return sign + first + kEllipsis + exponent;
    return sign + first + '.' + rest.left(room) + kEllipsis + exponent;
}

} // namespace

std::optional<DecimalParts> decimalParts(std::string_view text) {
    DecimalParts parts;
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        parts.negative = text.front() == '-';
        text.remove_prefix(1);
    }
    if (text == "inf") {
        parts.kind = DecimalParts::Kind::Infinity;
        return parts;
    }
    if (text == "nan") {
        parts.kind = DecimalParts::Kind::NaN;
        parts.negative = false;
        return parts;
    }
    std::int64_t tenPower = 0; // of the character before the point, or of the last digit
    const std::size_t e = text.find_first_of("eE");
    if (e != std::string_view::npos) {
        std::string_view power = text.substr(e + 1);
        if (!power.empty() && power.front() == '+')
            power.remove_prefix(1);
        const auto [end, error] =
            std::from_chars(power.data(), power.data() + power.size(), tenPower);
        if (error != std::errc() || end != power.data() + power.size())
            return std::nullopt;
        text = text.substr(0, e);
    }
    std::string digits;
    std::int64_t pointAt = -1; // how many digits come before the point
    for (char c : text) {
        if (c == '.' && pointAt < 0)
            pointAt = static_cast<std::int64_t>(digits.size());
        else if (isDigit(c))
            digits += c;
        else
            return std::nullopt;
    }
    if (digits.empty())
        return std::nullopt;
    if (pointAt < 0)
        pointAt = static_cast<std::int64_t>(digits.size());
    const std::size_t firstNonZero = digits.find_first_not_of('0');
    if (firstNonZero == std::string::npos) {
        parts.kind = DecimalParts::Kind::Zero;
        return parts;
    }
    parts.kind = DecimalParts::Kind::Finite;
    parts.exponent = tenPower + pointAt - 1 - static_cast<std::int64_t>(firstNonZero);
    digits.erase(0, firstNonZero);
    digits.erase(digits.find_last_not_of('0') + 1);
    parts.digits = std::move(digits);
    return parts;
}

bool readsPlain(const DecimalParts& parts, int chars) {
    if (parts.kind != DecimalParts::Kind::Finite)
        return true;
    if (parts.exponent < -4)
        return false;
    const std::int64_t whole = parts.exponent >= 0 ? parts.exponent + 1 : 1;
    const auto [integer, fraction] = plainDigits(parts);
    const std::int64_t length =
        (parts.negative ? 1 : 0) + static_cast<std::int64_t>(integer.size()) +
        (fraction.empty() ? 0 : 1 + static_cast<std::int64_t>(fraction.size()));
    return length <= chars || (parts.negative ? 1 : 0) + whole + 1 <= chars;
}

QString fittedDecimal(const DecimalParts& parts, Notation notation, int chars, bool goesOn) {
    if (parts.kind != DecimalParts::Kind::Finite)
        return special(parts);
    return notation == Notation::Plain ? plain(parts, chars, goesOn)
                                       : scientific(parts, chars, goesOn);
}

} // namespace fpx::gui
