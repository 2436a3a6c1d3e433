// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/code.h"

#include <algorithm>

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

// Digits of 2^radixBits each (digit separators _ ' and space skipped), at most `bits` wide.
std::optional<Code> parseDigits(std::string_view text, int radixBits, int bits) {
    if (text.empty())
        return std::nullopt;
    Code value = 0;
    int significantBits = 0;
    for (char c : text) {
        if (c == '_' || c == '\'' || c == ' ')
            continue; // digit separators: 0b0_01101_1001010011
        int digit = -1;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        if (digit < 0 || digit >= (1 << radixBits))
            return std::nullopt;
        if (significantBits > 0 || digit != 0)
            significantBits += radixBits;
        if (significantBits > 128)
            return std::nullopt;
        value = (value << radixBits) | static_cast<Code>(digit);
    }
    if (bits < 128 && (value >> bits) != 0)
        return std::nullopt;
    return value;
}

} // namespace

std::optional<Code> parseCode(std::string_view text, int bits) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        return parseDigits(text.substr(2), 4, bits);
    // "0b…" is binary when binary digits follow; otherwise ("0b", "0b3f") it can only be hex.
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B'))
        if (auto binary = parseDigits(text.substr(2), 1, bits))
            return binary;
    return parseDigits(text, 4, bits);
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
