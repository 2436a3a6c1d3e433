// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/value_parser.h"

#include "fpx/exact/work_budget.h"
#include "text_cursor.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <cstdlib>

namespace fpx {

namespace {

// Significant digits kept exactly. Beyond them only a sticky "something non-zero follows"
// digit is kept: every rounding boundary of every format (at most ~23100 significant digits,
// for custom formats with bias ±32768) lies on the grid of the 40000th digit, so the rounded
// result is the same as for the full input in every mode.
constexpr std::size_t kKeptDigits = 40000;
// Beyond 10^±20000 a value overflows, or rounds like any tiny value, in every format (the
// widest custom range is about 2^±65600 ≈ 10^±19750): it is replaced by 10^±20001.
constexpr std::int64_t kMaxDecimalExponent = 20000;
constexpr std::int64_t kMaxBinaryExponent = 66500;
// Powers and products may not build numbers larger than this (about 10^±75000).
constexpr std::size_t kMaxStorageBits = 250000;

struct Failure {
    ParseError error;
};

// A parsed number and whether it is exactly the text (false after sticky truncation of a
// very long decimal or the replacement of an out-of-range one).
struct Operand {
    ExactValue value;
    bool exact = true;
};

// The lexer of one number: decimal, hex float, inf / nan, each with an optional power suffix
// (2^-24, 10**3). Both grammars read their numbers through it: the value grammar below
// (parseValue) and the expression grammar of expression.cpp (through readNumberLiteral).
class Scanner : public TextCursor {
  public:
    using TextCursor::TextCursor;

    // number := special | (hex | decimal) power?     special := inf | infinity | nan | …
    Operand readNumber(bool acceptSpecials) {
        if (acceptSpecials)
            if (auto special = matchSpecial())
                return Operand{*special, true};
        const std::size_t basePos = pos_;
        const Operand base = parseNumber();
        return readPowerSuffix(base, basePos);
    }

  protected:
    Failure fail(std::string message) const {
        return Failure{ParseError{pos_, std::move(message)}};
    }
    Failure failAt(std::size_t position, std::string message) const {
        return Failure{ParseError{position, std::move(message)}};
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    static int digitValue(char c, int base) {
        int d = -1;
        if (isDigit(c))
            d = c - '0';
        else if (base == 16 && lower(c) >= 'a' && lower(c) <= 'f')
            d = lower(c) - 'a' + 10;
        return d;
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
        if (startsWith("\xE2\x88\x92")) {
            pos_ += 3;
            return true;
        }
        return std::nullopt;
    }

    std::optional<ExactValue> matchSpecial() {
        if (matchWord("infinity") || matchWord("inf"))
            return ExactValue::infinity(false);
        if (matchWord("nan") || matchWord("qnan") || matchWord("snan"))
            return ExactValue::nan(false);
        return std::nullopt;
    }

    void requireExact(const Operand& operand, std::size_t position) const {
        if (!operand.exact)
            throw failAt(position, "a number that long or that far out of range cannot be "
                                   "combined with * / or ^ (use it on its own)");
    }

    // power := base (('^' | '**') sign? integer)?: the whole power is one exact number.
    Operand readPowerSuffix(const Operand& base, std::size_t basePos) {
        const std::size_t afterBase = pos_;
        skipBlanks();
        if (peek() == '^')
            ++pos_;
        else if (peek() == '*' && peek(1) == '*')
            pos_ += 2;
        else {
            pos_ = afterBase;
            return base;
        }
        requireExact(base, basePos);
        skipBlanks();
        const std::size_t exponentPos = pos_;
        const bool negative = parseSign().value_or(false);
        if (!isDigit(peek()))
            throw fail("expected an integer exponent after '^'");
        const std::int64_t magnitude = parseExponentDigits();
        if (magnitude > kMaxBinaryExponent)
            throw failAt(exponentPos,
                         "exponent too large (at most " + std::to_string(kMaxBinaryExponent) + ")");
        return Operand{power(base.value, negative ? -magnitude : magnitude, basePos), true};
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
        if (bits > kMaxStorageBits || binary > kMaxBinaryExponent)
            throw failAt(position, "power too large to compute exactly");
        const auto e = static_cast<unsigned>(magnitude);
        const BigInt num = boost::multiprecision::pow(base.numerator(), e);
        const BigInt den = boost::multiprecision::pow(base.denominator(), e);
        const bool negative = base.isNegative() && (magnitude % 2 != 0);
        const ExactValue result =
            ExactValue::fraction(negative, num, den, base.exponent2() * magnitude);
        return exponent < 0 ? ExactValue::integer(1) / result : result;
    }

    // Decimal digits of an exponent, saturating far beyond any accepted range.
    std::int64_t parseExponentDigits() {
        std::int64_t value = 0;
        bool any = false;
        while (isDigit(peek()) || (any && peek() == '_' && isDigit(peek(1)))) {
            if (peek() != '_') {
                if (value < 1'000'000'000)
                    value = value * 10 + (peek() - '0');
                any = true;
            }
            ++pos_;
        }
        return value;
    }

    Operand parseNumber() {
        if (peek() == '0' && lower(peek(1)) == 'x')
            return parseHex();
        return parseDecimal();
    }

    // A run of digits ('_' allowed between digits). The first kKeptDigits significant ones
    // accumulate in `digits`, 18 at a time through a machine word; later ones are counted
    // in `dropped` and remembered in `sticky` when non-zero.
    struct DigitRun {
        std::size_t total = 0;   // digits read
        std::size_t kept = 0;    // digits appended to the accumulator (leading zeros included)
        std::size_t dropped = 0; // significant digits beyond kKeptDigits
    };

    DigitRun readDigits(int base, BigInt& digits, std::size_t& significant, bool& sticky) {
        DigitRun run;
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
            if (c == '_' && run.total > 0) {
                if (digitValue(peek(1), base) < 0)
                    throw failAt(pos_, "a digit separator '_' must stand between digits");
                ++pos_;
                continue;
            }
            const int d = digitValue(c, base);
            if (d < 0) {
                flush();
                return run;
            }
            ++run.total;
            ++pos_;
            if (significant >= kKeptDigits) {
                ++run.dropped;
                sticky = sticky || d != 0;
                continue;
            }
            if (significant > 0 || d != 0)
                ++significant;
            ++run.kept;
            chunk = chunk * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
            chunkScale *= static_cast<std::uint64_t>(base);
            if (chunkScale >= (std::uint64_t{1} << 59))
                flush();
        }
    }

    // `digits` × base^exponent, with the sticky digit appended when digits were dropped.
    static void appendSticky(BigInt& digits, std::size_t& significant, std::int64_t& exponent,
                             int base) {
        digits = digits * base + 1;
        ++significant;
        --exponent;
    }

    Operand parseDecimal() {
        const std::size_t start = pos_;
        BigInt digits = 0;
        std::size_t significant = 0;
        bool sticky = false;
        const DigitRun integer = readDigits(10, digits, significant, sticky);
        DigitRun fraction;
        if (peek() == '.') {
            ++pos_;
            fraction = readDigits(10, digits, significant, sticky);
        }
        if (integer.total + fraction.total == 0) {
            pos_ = start;
            if (atEnd())
                throw fail("expected a number");
            throw fail("expected a number, found " + describeUnexpected().substr(11));
        }
        std::int64_t exponent = 0;
        if (lower(peek()) == 'e') {
            ++pos_;
            const bool negative = parseSign().value_or(false);
            if (!isDigit(peek()))
                throw fail("expected digits in the exponent after 'e'");
            const std::int64_t magnitude = parseExponentDigits();
            exponent = negative ? -magnitude : magnitude;
        }
        if (digits == 0 && !sticky)
            return Operand{ExactValue::zero(), true};
        // value = digits × 10^exponent
        exponent +=
            static_cast<std::int64_t>(integer.dropped) - static_cast<std::int64_t>(fraction.kept);
        const bool exact = !sticky;
        if (sticky)
            appendSticky(digits, significant, exponent, 10);
        const std::int64_t leading = exponent + static_cast<std::int64_t>(significant) - 1;
        if (leading > kMaxDecimalExponent || leading < -kMaxDecimalExponent) {
            const std::int64_t replacement =
                leading > 0 ? kMaxDecimalExponent + 1 : -(kMaxDecimalExponent + 1);
            return Operand{decimal(BigInt(1), replacement), false};
        }
        return Operand{decimal(digits, exponent), exact};
    }

    // digits × 10^k = digits × 5^k × 2^k
    static ExactValue decimal(const BigInt& digits, std::int64_t k) {
        const BigInt five =
            boost::multiprecision::pow(BigInt(5), static_cast<unsigned>(k < 0 ? -k : k));
        if (k >= 0)
            return ExactValue::dyadic(false, digits * five, k);
        return ExactValue::fraction(false, digits, five, k);
    }

    Operand parseHex() {
        const std::size_t start = pos_;
        pos_ += 2;
        BigInt digits = 0;
        std::size_t significant = 0;
        bool sticky = false;
        const DigitRun integer = readDigits(16, digits, significant, sticky);
        DigitRun fraction;
        if (peek() == '.') {
            ++pos_;
            fraction = readDigits(16, digits, significant, sticky);
        }
        if (integer.total + fraction.total == 0)
            throw failAt(start, "expected hex digits after '0x'");
        std::int64_t exponent = 0;
        if (lower(peek()) == 'p') {
            ++pos_;
            const bool negative = parseSign().value_or(false);
            if (!isDigit(peek()))
                throw fail("expected a decimal binary exponent after 'p'");
            const std::int64_t magnitude = parseExponentDigits();
            exponent = negative ? -magnitude : magnitude;
        }
        if (digits == 0 && !sticky)
            return Operand{ExactValue::zero(), true};
        // 0x h.hhh p e  =  hhhh × 2^(e − 4·fraction digits)
        std::int64_t hexExponent =
            static_cast<std::int64_t>(integer.dropped) - static_cast<std::int64_t>(fraction.kept);
        const bool exact = !sticky;
        if (sticky)
            appendSticky(digits, significant, hexExponent, 16);
        exponent += 4 * hexExponent;
        const ExactValue value = ExactValue::dyadic(false, digits, exponent);
        const std::int64_t leading = value.floorLog2();
        if (leading > kMaxBinaryExponent || leading < -kMaxBinaryExponent)
            return Operand{ExactValue::dyadic(false, 1,
                                              leading > 0 ? kMaxBinaryExponent + 1
                                                          : -(kMaxBinaryExponent + 1)),
                           false};
        return Operand{value, exact};
    }
};

// The value grammar of parseValue: exact arithmetic on numbers while reading.
class Parser : public Scanner {
  public:
    explicit Parser(std::string_view text) : Scanner(text, 0) {}

    // The big-integer work charged so far (see chargeWork).
    double work() const { return work_; }

    Operand parseAll() {
        skipBlanks();
        if (pos_ == text_.size())
            throw fail("empty value: expected a number such as 0.3952, 1/3, 2^-24 or 0x1.8p-3");
        if (auto special = parseSpecial())
            return finish(Operand{*special, true});
        return finish(parseExpression());
    }

  private:
    // A lone ±inf or ±nan: the whole text (never inside arithmetic).
    std::optional<ExactValue> parseSpecial() {
        const std::size_t start = pos_;
        const bool negative = parseSign().value_or(false);
        skipBlanks();
        if (auto special = matchSpecial())
            return special->withSign(negative);
        pos_ = start;
        return std::nullopt;
    }

    Operand finish(const Operand& operand) {
        skipBlanks();
        if (!atEnd())
            throw fail(describeUnexpected());
        return operand;
    }

    // sum := product (('+' | '-') product)*
    Operand parseExpression() {
        const std::size_t firstPos = pos_;
        Operand result = parseProduct();
        for (;;) {
            skipBlanks();
            const std::size_t opPos = pos_;
            const std::optional<bool> minus = parseSign();
            if (!minus)
                return result;
            requireExact(result, firstPos);
            skipBlanks();
            const std::size_t operandPos = pos_;
            const Operand operand = parseProduct();
            requireExact(operand, operandPos);
            chargeWork(result.value, operand.value, opPos);
            result.value = *minus ? result.value - operand.value : result.value + operand.value;
            checkSize(result.value, opPos);
        }
    }

    // product := unary (('*' | '/' | '×') unary)*
    Operand parseProduct() {
        const std::size_t firstPos = pos_;
        Operand result = parseUnary();
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
                return result;
            }
            requireExact(result, firstPos);
            skipBlanks();
            const std::size_t operandPos = pos_;
            const Operand operand = parseUnary();
            requireExact(operand, operandPos);
            if (op == '/' && operand.value.isZero())
                throw failAt(operandPos, "division by zero");
            chargeWork(result.value, operand.value, opPos);
            result.value = op == '*' ? result.value * operand.value : result.value / operand.value;
            checkSize(result.value, opPos);
        }
    }

    Operand parseUnary() {
        const bool negative = parseSign().value_or(false);
        skipBlanks();
        Operand operand = parsePower();
        if (negative)
            operand.value = operand.value.negated();
        return operand;
    }

    // power := primary (('^' | '**') sign? integer)?     primary := number | '(' sum ')'
    Operand parsePower() {
        const std::size_t basePos = pos_;
        const Operand base = parsePrimary();
        return readPowerSuffix(base, basePos);
    }

    Operand parsePrimary() {
        if (peek() != '(')
            return parseNumber();
        const std::size_t open = pos_;
        if (++depth_ > kMaxNesting)
            throw fail("parentheses nested too deeply");
        ++pos_;
        skipBlanks();
        Operand inner = parseExpression();
        skipBlanks();
        if (peek() != ')')
            throw atEnd() ? failAt(open, "unclosed '('")
                          : fail(describeUnexpected() + ", expected ')'");
        ++pos_;
        --depth_;
        return inner;
    }

    // Exact arithmetic costs about bits(a)·bits(b) for the products, plus (bits)^2 for the gcd
    // that keeps a fraction reduced when a denominator is not 1; a line may hold thousands of
    // operations, so their total is budgeted.
    void chargeWork(const ExactValue& a, const ExactValue& b, std::size_t position) {
        const double bitsA = static_cast<double>(a.storageBits()) + 64.0;
        const double bitsB = static_cast<double>(b.storageBits()) + 64.0;
        work_ += bitsA * bitsB;
        if (!a.isDyadic() || !b.isDyadic())
            work_ += (bitsA + bitsB) * (bitsA + bitsB);
        if (work_ > kWorkBudget)
            throw failAt(position, "expression too costly to compute exactly (simplify it)");
    }

    void checkSize(const ExactValue& value, std::size_t position) const {
        if (!value.isFinite() || value.isZero())
            return;
        const std::int64_t e = value.exponent2();
        if (value.storageBits() > kMaxStorageBits || e > kMaxBinaryExponent ||
            e < -kMaxBinaryExponent)
            throw failAt(position, "value too large to compute exactly");
    }

    static constexpr int kMaxNesting = 200;
    static constexpr double kWorkBudget = kValueWork;
    double work_ = 0;
    int depth_ = 0;
};

} // namespace

NumberLiteral readNumberLiteral(std::string_view text, std::size_t position, bool acceptSpecials) {
    try {
        Scanner scanner(text, position);
        const Operand operand = scanner.readNumber(acceptSpecials);
        return NumberLiteral{operand.value, operand.exact, scanner.position(), {}};
    } catch (const Failure& failure) {
        return NumberLiteral{std::nullopt, true, failure.error.position, failure.error};
    }
}

ParsedValue parseValue(std::string_view text) {
    Parser parser(text);
    try {
        const Operand operand = parser.parseAll();
        return ParsedValue{operand.value, {}, operand.exact, parser.work()};
    } catch (const Failure& failure) {
        return ParsedValue{std::nullopt, failure.error, true, parser.work()};
    }
}

std::optional<ExactValue> parseFiniteParameter(std::string_view text, const std::string& what,
                                               std::string& error) {
    const ParsedValue parsed = parseValue(text);
    if (!parsed) {
        error = what + ": '" + std::string(text) + "': " + parsed.error.message + " at column " +
                std::to_string(parsed.error.position + 1);
        return std::nullopt;
    }
    if (!parsed.value->isFinite()) {
        error = what + ": '" + std::string(text) + "' is not a finite number";
        return std::nullopt;
    }
    return parsed.value;
}

} // namespace fpx
