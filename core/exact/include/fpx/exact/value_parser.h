// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"

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
    // False when the value stands in for the text: a decimal longer than 40000 significant
    // digits (kept to 40000 plus a sticky digit) or beyond 10^±20000 (replaced by 10^±20001).
    // Either way it rounds exactly like the text into every binary float format, in every
    // mode (see acceptsStandInInput); errors computed against it are approximate.
    bool exact = true;
    // The big-integer work the text's arithmetic cost (in bit products, see work_budget.h),
    // also when it was refused: a stream charges it to its StreamBudget.
    double work = 0;
    explicit operator bool() const { return value.has_value(); }
};

// Parses a value exactly. Accepted forms (surrounding blanks ignored, case-insensitive):
//   decimal      0.3952   -1.5e-7   .5   123456789012345678901234567890.5   1_000
//   hex float    0x1.8p-3   -0x1p-149   0xff (an integer)
//   special      inf  -inf  infinity  nan  -nan  -0
//   power        2^-24   10^-3   2**10
//   arithmetic   1/3   3*2^-4   -22/7   (2-2^-52)*2^1023   1+2^-11   (+ − × ÷, parentheses)
// Any length and any exponent is accepted (see ParsedValue::exact). Powers and products are
// refused, with a clear error, when their exact result would need more than 250000 bits.
ParsedValue parseValue(std::string_view text);

// A parameter that must be a finite number (a distribution's mean, a constant term), parsed
// exactly; nullopt with `error` saying "WHAT: 'TEXT': message at column N" or "WHAT: 'TEXT' is
// not a finite number".
std::optional<ExactValue> parseFiniteParameter(std::string_view text, const std::string& what,
                                               std::string& error);

// One number literal read from text[position…], as both grammars read their numbers (the
// value grammar of parseValue and the expression grammar of expression.h): a decimal, a hex
// float or an integer, with an optional power suffix that makes the whole power ONE exact
// number (2^-24, 10^-3, 2**10); with `acceptSpecials` also inf, infinity and nan. No sign:
// the grammars read signs themselves. `end` is one past the literal's last byte (or, on an
// error, the error's position); `exact` as in ParsedValue.
struct NumberLiteral {
    std::optional<ExactValue> value;
    bool exact = true;
    std::size_t end = 0;
    ParseError error;
    explicit operator bool() const { return value.has_value(); }
};
NumberLiteral readNumberLiteral(std::string_view text, std::size_t position, bool acceptSpecials);

} // namespace fpx
