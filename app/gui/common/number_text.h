// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <QString>

#include <string>

namespace fpx::gui {

// How the Arithmetic page writes numbers: exact decimals in full (tooltips, copies, CSV), a
// short form in cells, the code in hex as `fpx show` does.
QString fullDecimal(const ExactValue& value);
// At most `digits` significant digits; "≈" in front when that dropped digits.
QString shortDecimal(const ExactValue& value, int digits = 12);
QString codeHex(const FormatSpec& spec, Code code);
// "2^-8" when |value| is a power of two, otherwise empty.
QString powerOfTwoText(const ExactValue& value);
// An exact value as text the value parser reads back: a decimal, or n/d×2^k.
QString exactExpression(const ExactValue& value);

} // namespace fpx::gui

namespace fpx {
struct ParseError;
}

namespace fpx::gui {

// "Column 4: expected a digit", the column counted in characters as the explorer's value
// field does; `utf8` is the text that was parsed.
QString parseErrorText(const std::string& utf8, const ParseError& error);

} // namespace fpx::gui
