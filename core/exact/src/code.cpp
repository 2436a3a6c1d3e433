// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/code.h"
#include "fpx/exact/code_parser.h"

#include <algorithm>
#include <utility>

namespace fpx {

std::string codeToHex(Code code, int bits) {
    const int digits = std::max(1, (bits + 3) / 4);
    std::string text(static_cast<std::size_t>(digits), '0');
    for (int i = digits - 1; i >= 0; --i) {
        text[static_cast<std::size_t>(i)] = "0123456789abcdef"[static_cast<unsigned>(code & 0xf)];
        code >>= 4;
    }
    return "0x" + text;
}

std::string codeToBinary(Code code, int bits) {
    std::string text;
    text.reserve(static_cast<std::size_t>(bits));
    for (int i = bits - 1; i >= 0; --i)
        text.push_back(((code >> i) & 1) ? '1' : '0');
    return text;
}

namespace {

bool isDigitSeparator(char c) {
    return c == '_' || c == '\'' || c == ' ';
}

// The value of a hex digit, or -1.
int hexDigitValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

ParsedCode refuse(std::size_t position, std::string message) {
    ParsedCode result;
    result.errorPosition = position;
    result.error = std::move(message);
    return result;
}

// Digits of 2^radixBits each in text[begin…] (digit separators _ ' and space skipped), at
// least one of them, at most `bits` wide. Positions in errors are offsets into `text`.
ParsedCode parseDigits(std::string_view text, std::size_t begin, int radixBits, int bits) {
    const char* digitName = radixBits == 1 ? "binary digit" : "hex digit";
    Code value = 0;
    int significantBits = 0;
    bool anyDigit = false;
    for (std::size_t i = begin; i < text.size(); ++i) {
        const char c = text[i];
        if (isDigitSeparator(c))
            continue; // digit separators: 0b0_01101_1001010011
        const int digit = hexDigitValue(c);
        if (digit < 0 || digit >= (1 << radixBits))
            return refuse(i, c > ' ' && c <= '~'
                                 ? "'" + std::string(1, c) + "' is not a " + digitName
                                 : std::string("expected a ") + digitName);
        anyDigit = true;
        if (significantBits > 0 || digit != 0)
            significantBits += radixBits;
        if (significantBits > 128)
            return refuse(begin, "wider than " + std::to_string(std::min(bits, 128)) + " bits");
        value = (value << radixBits) | static_cast<Code>(digit);
    }
    // Separators alone are no code: "_" or "0x___" must not read as 0.
    if (!anyDigit)
        return refuse(begin, std::string("expected a ") + digitName);
    if (bits < 128 && (value >> bits) != 0)
        return refuse(begin, "wider than " + std::to_string(bits) + " bits");
    ParsedCode result;
    result.code = value;
    return result;
}

// True when something follows text[begin] and all of it is binary digits and separators.
bool binaryFollows(std::string_view text, std::size_t begin) {
    if (begin >= text.size())
        return false;
    for (std::size_t i = begin; i < text.size(); ++i)
        if (text[i] != '0' && text[i] != '1' && !isDigitSeparator(text[i]))
            return false;
    return true;
}

} // namespace

ParsedCode readCode(std::string_view text, int bits) {
    std::size_t begin = 0;
    std::size_t end = text.size();
    while (begin < end && (text[begin] == ' ' || text[begin] == '\t'))
        ++begin;
    while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r'))
        --end;
    const std::string_view code = text.substr(0, end); // offsets stay those of `text`
    if (begin == end)
        return refuse(begin, "expected a hex (0x…) or binary (0b…) code");
    const bool prefixed = end - begin >= 2 && code[begin] == '0';
    if (prefixed && (code[begin + 1] == 'x' || code[begin + 1] == 'X'))
        return parseDigits(code, begin + 2, 4, bits);
    // "0b…" is binary when only binary digits and separators follow ("0b_" is binary without
    // digits, refused); otherwise ("0b", "0b3f") it can only be hex.
    if (prefixed && (code[begin + 1] == 'b' || code[begin + 1] == 'B') &&
        binaryFollows(code, begin + 2))
        return parseDigits(code, begin + 2, 1, bits);
    return parseDigits(code, begin, 4, bits);
}

std::optional<Code> parseCode(std::string_view text, int bits) {
    return readCode(text, bits).code;
}

std::string codeToDecimal(Code code) {
    if (code == 0)
        return "0";
    std::string text;
    while (code != 0) {
        text.push_back(static_cast<char>('0' + static_cast<int>(code % 10)));
        code /= 10;
    }
    std::reverse(text.begin(), text.end());
    return text;
}

} // namespace fpx
