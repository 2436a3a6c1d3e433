// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fpx::gui {

// A decimal as the exact core writes it (toDecimal, toSignificantDigits), taken apart so that a
// narrow cell can lay it out again without changing a digit.
struct DecimalParts {
    enum class Kind { Finite, Zero, Infinity, NaN };
    Kind kind = Kind::Zero;
    bool negative = false;
    std::string digits;        // Finite: the significant digits, no leading or trailing zeros
    std::int64_t exponent = 0; // Finite: the power of ten of the first digit
};

// "-0.00123", "65504", "9.99e-9", "1e40", "inf", "-0", "nan"; nullopt for anything else.
std::optional<DecimalParts> decimalParts(std::string_view text);

// How a column of numbers is written: every row of a view the same way (docs/pages.md,
// "Explorer").
enum class Notation { Plain, Scientific };

// Whether `parts` written plainly in `chars` characters still says its magnitude: its first
// significant digit no further right than the fourth decimal place (0.000123…), and its whole
// integer part, with the sign and a "…", inside the room. Zero, infinities and NaN always do.
bool readsPlain(const DecimalParts& parts, int chars);

// `parts` in `notation` in at most `chars` characters (unless even the sign, one digit and the
// exponent need more): digits that do not fit are cut from the end, never rounded, and a "…"
// stands where they were; in scientific notation it stands before the exponent, which is always
// kept ("9.99999993922529…e-9"). `goesOn`: the digits are a rounded prefix of an expansion that
// does not end, so a "…" follows them even where all fit.
QString fittedDecimal(const DecimalParts& parts, Notation notation, int chars, bool goesOn = false);

} // namespace fpx::gui
