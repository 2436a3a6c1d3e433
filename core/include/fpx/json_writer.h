// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// A small streaming JSON writer: objects, arrays, strings (always valid UTF-8 out, whatever
// bytes come in), raw numbers and literals. Indents two spaces per level.
class JsonWriter {
  public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    void key(std::string_view name);
    void string(std::string_view text);
    void number(std::string_view digits); // already a valid JSON number
    void boolean(bool value);
    void null();

    // Shorthands for "name": value.
    void field(std::string_view name, std::string_view text) {
        key(name);
        string(text);
    }
    void fieldNumber(std::string_view name, std::string_view digits) {
        key(name);
        number(digits);
    }
    void fieldBool(std::string_view name, bool value) {
        key(name);
        boolean(value);
    }
    void fieldNull(std::string_view name) {
        key(name);
        null();
    }

    static std::string escape(std::string_view text);

  private:
    void beforeValue();
    void newline();

    std::ostream& out_;
    struct Level {
        bool isObject;
        bool empty = true;
    };
    std::vector<Level> stack_;
    bool afterKey_ = false;
};

} // namespace fpx
