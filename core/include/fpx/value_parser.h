// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact_value.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fpx {

struct ParseError {
    std::size_t position = 0; // byte offset into the text where the problem is
    std::string message;      // what was wrong, e.g. "expected a digit"
};

struct ParsedValue {
    std::optional<ExactValue> value;
    ParseError error;
    explicit operator bool() const { return value.has_value(); }
};

// Parses a value exactly. Accepted forms (surrounding blanks ignored, case-insensitive):
//   decimal      0.3952   -1.5e-7   .5   123456789012345678901234567890.5   1_000
//   hex float    0x1.8p-3   -0x1p-149   0xff (an integer)
//   special      inf  -inf  infinity  nan  -nan  -0
//   power        2^-24   10^-3   2**10
//   product and quotient of those, left to right: 1/3   3*2^-4   -22/7   1.5/0x10
// Limits (each a clear error, never a hang): at most 100000 significant digits, decimal
// and power exponents at most 100000 in magnitude, and no intermediate value beyond
// 2^±1000000.
ParsedValue parseValue(std::string_view text);

} // namespace fpx
