// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/json_writer.h"

#include <cstdio>

namespace fpx {

void JsonWriter::newline() {
    out_ << '\n';
    for (std::size_t i = 0; i < stack_.size(); ++i)
        out_ << "  ";
}

void JsonWriter::beforeValue() {
    if (afterKey_) {
        afterKey_ = false;
        return;
    }
    if (!stack_.empty()) {
        if (!stack_.back().empty)
            out_ << ',';
        stack_.back().empty = false;
        newline();
    }
}

void JsonWriter::beginObject() {
    beforeValue();
    out_ << '{';
    stack_.push_back({true});
}

void JsonWriter::endObject() {
    const bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty)
        newline();
    out_ << '}';
    if (stack_.empty())
        out_ << '\n';
}

void JsonWriter::beginArray() {
    beforeValue();
    out_ << '[';
    stack_.push_back({false});
}

void JsonWriter::endArray() {
    const bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty)
        newline();
    out_ << ']';
    if (stack_.empty())
        out_ << '\n';
}

void JsonWriter::key(std::string_view name) {
    beforeValue();
    out_ << escape(name) << ": ";
    afterKey_ = true;
}

void JsonWriter::string(std::string_view text) {
    beforeValue();
    out_ << escape(text);
}

void JsonWriter::number(std::string_view digits) {
    beforeValue();
    out_ << digits;
}

void JsonWriter::boolean(bool value) {
    beforeValue();
    out_ << (value ? "true" : "false");
}

void JsonWriter::null() {
    beforeValue();
    out_ << "null";
}

std::string JsonWriter::escape(std::string_view text) {
    std::string out = "\"";
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = bytes[i];
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
            ++i;
        } else if (c < 0x20 || c == 0x7f) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else {
            // Copy a well-formed UTF-8 sequence; replace anything else with U+FFFD.
            std::size_t length = (c >= 0xc2 && c <= 0xdf)   ? 2
                                 : (c >= 0xe0 && c <= 0xef) ? 3
                                 : (c >= 0xf0 && c <= 0xf4) ? 4
                                                            : 0;
            bool valid = length != 0 && i + length <= n;
            for (std::size_t k = 1; valid && k < length; ++k)
                valid = (bytes[i + k] & 0xc0) == 0x80;
            if (valid && length == 3) {
                const unsigned char c1 = bytes[i + 1];
                valid = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);
            }
            if (valid && length == 4) {
                const unsigned char c1 = bytes[i + 1];
                valid = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
            }
            if (valid) {
                out.append(text.substr(i, length));
                i += length;
            } else {
                out += "\xEF\xBF\xBD";
                ++i;
            }
        }
    }
    out += '"';
    return out;
}

} // namespace fpx
