// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/value_parser.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <cstdlib>

namespace fpx {

namespace {

constexpr std::size_t kMaxDigits = 100000;
constexpr std::int64_t kMaxExponent = 100000;
constexpr std::int64_t kMaxBinaryMagnitude = 1000000;
constexpr std::size_t kMaxStorageBits = 4000000;

struct Failure {
    ParseError error;
};

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text) {}

    ExactValue parseAll() {
        skipBlanks();
        if (pos_ == text_.size())
            throw fail("empty value: expected a number such as 0.3952, 1/3, 2^-24 or 0x1.8p-3");
        if (auto special = parseSpecial())
            return finish(*special);
        ExactValue value = parseExpression();
        return finish(value);
    }

  private:
    Failure fail(std::string message) const {
        return Failure{ParseError{pos_, std::move(message)}};
    }
    Failure failAt(std::size_t position, std::string message) const {
        return Failure{ParseError{position, std::move(message)}};
    }

    bool atEnd() const { return pos_ >= text_.size(); }
    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    static char lower(char c) {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    static int hexDigit(char c) {
        if (isDigit(c))
            return c - '0';
        c = lower(c);
        return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    }

    void skipBlanks() {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\r' || peek() == '\n'))
            ++pos_;
    }

    bool matchWord(std::string_view word) {
        if (text_.size() - pos_ < word.size())
            return false;
        for (std::size_t i = 0; i < word.size(); ++i)
            if (lower(text_[pos_ + i]) != word[i])
                return false;
        pos_ += word.size();
        return true;
    }

    // "+", "-" or the Unicode minus sign U+2212; returns true for negative.
    std::optional<bool> parseSign() {
        if (peek() == '+') {
            ++pos_;
            return false;
        }
        if (peek() == '-') {
            ++pos_;
            return true;
        }
        if (text_.substr(pos_).starts_with("\xE2\x88\x92")) {
            pos_ += 3;
            return true;
        }
        return std::nullopt;
    }

    ExactValue finish(const ExactValue& value) {
        skipBlanks();
        if (!atEnd())
            throw fail(describeUnexpected());
        return value;
    }

    std::string describeUnexpected() const {
        const unsigned char c = static_cast<unsigned char>(peek());
        if (c >= 0x20 && c < 0x7f)
            return std::string("unexpected character '") + static_cast<char>(c) + "'";
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "0x%02x", c);
        return std::string("unexpected byte ") + buffer;
    }

    std::optional<ExactValue> parseSpecial() {
        const std::size_t start = pos_;
        const bool negative = parseSign().value_or(false);
        skipBlanks();
        if (matchWord("infinity") || matchWord("inf"))
            return ExactValue::infinity(negative);
        if (matchWord("nan") || matchWord("qnan") || matchWord("snan"))
            return ExactValue::nan(negative);
        pos_ = start;
        return std::nullopt;
    }

    ExactValue parseExpression() {
        ExactValue value = parseUnary();
        for (;;) {
            skipBlanks();
            const std::size_t opPos = pos_;
            char op = 0;
            if (peek() == '*' && peek(1) != '*') {
                op = '*';
                ++pos_;
            } else if (peek() == '/') {
                op = '/';
                ++pos_;
            } else if (text_.substr(pos_).starts_with("\xC3\x97")) { // ×
                op = '*';
                pos_ += 2;
            } else {
                return value;
            }
            skipBlanks();
            const std::size_t operandPos = pos_;
            const ExactValue operand = parseUnary();
            if (op == '/' && operand.isZero())
                throw failAt(operandPos, "division by zero");
            value = op == '*' ? value * operand : value / operand;
            checkSize(value, opPos);
        }
    }

    ExactValue parseUnary() {
        const bool negative = parseSign().value_or(false);
        skipBlanks();
        ExactValue value = parsePower();
        return negative ? value.negated() : value;
    }

    ExactValue parsePower() {
        const std::size_t basePos = pos_;
        ExactValue base = parseNumber();
        skipBlanks();
        if (peek() == '^')
            ++pos_;
        else if (peek() == '*' && peek(1) == '*')
            pos_ += 2;
        else
            return base;
        skipBlanks();
        const std::size_t exponentPos = pos_;
        const bool negative = parseSign().value_or(false);
        if (!isDigit(peek()))
            throw fail("expected an integer exponent after '^'");
        const std::int64_t magnitude = parseExponentDigits();
        if (magnitude > kMaxExponent)
            throw failAt(exponentPos,
                         "exponent too large (at most " + std::to_string(kMaxExponent) + ")");
        return power(base, negative ? -magnitude : magnitude, basePos);
    }

    ExactValue power(const ExactValue& base, std::int64_t exponent, std::size_t position) {
        if (exponent == 0)
            return ExactValue::integer(1);
        if (base.isZero()) {
            if (exponent < 0)
                throw failAt(position, "division by zero (0 to a negative power)");
            return ExactValue::zero(base.isNegative() && (exponent % 2 != 0));
        }
        const std::int64_t magnitude = exponent < 0 ? -exponent : exponent;
        // Estimated size of the result: refuse before computing something enormous.
        const double bits =
            static_cast<double>(base.storageBits()) * static_cast<double>(magnitude);
        const double binary =
            std::abs(static_cast<double>(base.exponent2())) * static_cast<double>(magnitude);
        if (bits > kMaxStorageBits || binary > kMaxBinaryMagnitude)
            throw failAt(position, "power too large to compute exactly");
        const auto e = static_cast<unsigned>(magnitude);
        const BigInt num = boost::multiprecision::pow(base.numerator(), e);
        const BigInt den = boost::multiprecision::pow(base.denominator(), e);
        const bool negative = base.isNegative() && (magnitude % 2 != 0);
        const ExactValue result =
            ExactValue::fraction(negative, num, den, base.exponent2() * magnitude);
        return exponent < 0 ? ExactValue::integer(1) / result : result;
    }

    std::int64_t parseExponentDigits() {
        std::int64_t value = 0;
        bool any = false;
        while (isDigit(peek()) || (any && peek() == '_' && isDigit(peek(1)))) {
            if (peek() != '_') {
                if (value <= kMaxExponent * 10)
                    value = value * 10 + (peek() - '0');
                any = true;
            }
            ++pos_;
        }
        return value;
    }

    ExactValue parseNumber() {
        if (peek() == '0' && lower(peek(1)) == 'x')
            return parseHex();
        return parseDecimal();
    }

    // Reads a run of digits (with '_' separators between digits) into `digits`, 18 at a time
    // through a machine word so that long inputs stay linear in the number of big-integer
    // multiplications.
    std::size_t readDigits(int base, BigInt& digits, std::size_t& significant) {
        std::size_t count = 0;
        std::uint64_t chunk = 0;
        std::uint64_t chunkScale = 1;
        auto flush = [&] {
            if (chunkScale != 1)
                digits = digits * chunkScale + chunk;
            chunk = 0;
            chunkScale = 1;
        };
        for (;;) {
            const char c = peek();
            if (c == '_' && count > 0) {
                const int next = base == 16 ? hexDigit(peek(1)) : (isDigit(peek(1)) ? 0 : -1);
                if (next < 0)
                    throw failAt(pos_, "a digit separator '_' must stand between digits");
                ++pos_;
                continue;
            }
            const int d = base == 16 ? hexDigit(c) : (isDigit(c) ? c - '0' : -1);
            if (d < 0) {
                flush();
                return count;
            }
            if (significant > 0 || d != 0) {
                if (++significant > kMaxDigits)
                    throw failAt(pos_,
                                 "too many digits (at most " + std::to_string(kMaxDigits) + ")");
            }
            chunk = chunk * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
            chunkScale *= static_cast<std::uint64_t>(base);
            if (chunkScale >= (std::uint64_t{1} << 59))
                flush();
            ++count;
            ++pos_;
        }
    }

    ExactValue parseDecimal() {
        const std::size_t start = pos_;
        BigInt digits = 0;
        std::size_t significant = 0;
        const std::size_t integerDigits = readDigits(10, digits, significant);
        std::size_t fractionDigits = 0;
        if (peek() == '.') {
            ++pos_;
            fractionDigits = readDigits(10, digits, significant);
        }
        if (integerDigits + fractionDigits == 0) {
            pos_ = start;
            if (atEnd())
                throw fail("expected a number");
            throw fail("expected a number, found " + describeUnexpected().substr(11));
        }
        std::int64_t exponent = 0;
        if (lower(peek()) == 'e') {
            const std::size_t exponentPos = pos_;
            ++pos_;
            const bool negative = parseSign().value_or(false);
            if (!isDigit(peek()))
                throw fail("expected digits in the exponent after 'e'");
            const std::int64_t magnitude = parseExponentDigits();
            if (digits != 0 && magnitude > kMaxExponent + static_cast<std::int64_t>(kMaxDigits))
                throw failAt(exponentPos, "exponent out of range");
            exponent = negative ? -magnitude : magnitude;
        }
        if (digits == 0)
            return ExactValue::zero();
        exponent -= static_cast<std::int64_t>(fractionDigits);
        // Decimal exponent of the leading digit, bounded so 10^k stays cheap to compute.
        const std::int64_t leading = exponent + static_cast<std::int64_t>(significant) - 1;
        if (leading > kMaxExponent || leading < -kMaxExponent)
            throw failAt(start, "value out of range: decimal exponent beyond ±" +
                                    std::to_string(kMaxExponent));
        // digits × 10^k = digits × 5^k × 2^k
        if (exponent >= 0) {
            const BigInt five =
                boost::multiprecision::pow(BigInt(5), static_cast<unsigned>(exponent));
            return ExactValue::dyadic(false, digits * five, exponent);
        }
        const BigInt five = boost::multiprecision::pow(BigInt(5), static_cast<unsigned>(-exponent));
        return ExactValue::fraction(false, digits, five, exponent);
    }

    ExactValue parseHex() {
        const std::size_t start = pos_;
        pos_ += 2;
        BigInt digits = 0;
        std::size_t significant = 0;
        const std::size_t integerDigits = readDigits(16, digits, significant);
        std::size_t fractionDigits = 0;
        if (peek() == '.') {
            ++pos_;
            fractionDigits = readDigits(16, digits, significant);
        }
        if (integerDigits + fractionDigits == 0)
            throw failAt(start, "expected hex digits after '0x'");
        std::int64_t exponent = 0;
        if (lower(peek()) == 'p') {
            ++pos_;
            const bool negative = parseSign().value_or(false);
            if (!isDigit(peek()))
                throw fail("expected a decimal binary exponent after 'p'");
            const std::int64_t magnitude = parseExponentDigits();
            if (magnitude > kMaxBinaryMagnitude)
                throw failAt(start, "binary exponent out of range (at most ±" +
                                        std::to_string(kMaxBinaryMagnitude) + ")");
            exponent = negative ? -magnitude : magnitude;
        }
        // 0x h.hhh p e  =  hhhh × 2^(e − 4·fraction digits)
        return ExactValue::dyadic(false, digits,
                                  exponent - 4 * static_cast<std::int64_t>(fractionDigits));
    }

    void checkSize(const ExactValue& value, std::size_t position) const {
        if (!value.isFinite() || value.isZero())
            return;
        const std::int64_t e = value.exponent2();
        if (value.storageBits() > kMaxStorageBits || e > kMaxBinaryMagnitude ||
            e < -kMaxBinaryMagnitude)
            throw failAt(position, "value too large to compute exactly");
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

} // namespace

ParsedValue parseValue(std::string_view text) {
    try {
        Parser parser(text);
        return ParsedValue{parser.parseAll(), {}};
    } catch (const Failure& failure) {
        return ParsedValue{std::nullopt, failure.error};
    }
}

} // namespace fpx
