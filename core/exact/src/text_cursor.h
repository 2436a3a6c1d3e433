// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace fpx {

// The cursor both grammars read their text with: the value grammar and its number lexer
// (value_parser.cpp) and the expression grammar (expression.cpp). Positions are byte offsets;
// messages quote a printable character, or the byte in hex.
class TextCursor {
  public:
    TextCursor(std::string_view text, std::size_t position) : text_(text), pos_(position) {}

    std::size_t position() const { return pos_; }

  protected:
    bool atEnd() const { return pos_ >= text_.size(); }
    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    bool startsWith(std::string_view prefix) const {
        return text_.substr(pos_).starts_with(prefix);
    }
    static char lower(char c) {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    void skipBlanks() {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\r' || peek() == '\n'))
            ++pos_;
    }
    // Takes `word` (lower case) when the text continues with it, in any case.
    bool matchWord(std::string_view word) {
        if (text_.size() - pos_ < word.size())
            return false;
        for (std::size_t i = 0; i < word.size(); ++i)
            if (lower(text_[pos_ + i]) != word[i])
                return false;
        pos_ += word.size();
        return true;
    }
    // "unexpected character 'x'", "unexpected byte 0xe2" or "unexpected end".
    std::string describeUnexpected() const {
        if (atEnd())
            return "unexpected end";
        const unsigned char c = static_cast<unsigned char>(peek());
        if (c >= 0x20 && c < 0x7f)
            return std::string("unexpected character '") + static_cast<char>(c) + "'";
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "0x%02x", c);
        return std::string("unexpected byte ") + buffer;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

} // namespace fpx
