// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fpx {

// A code read from text, or where and why the text is not one.
struct ParsedCode {
    std::optional<Code> code;
    std::size_t errorPosition = 0; // byte offset into the text where the problem is
    std::string error;             // what was wrong, e.g. "expected a hex digit"
    explicit operator bool() const { return code.has_value(); }
};

// The one parser of codes, behind parseCode and every front end that reads a code. Reads hex
// with or without "0x", or "0b…" binary where only binary digits and separators follow ("0b"
// and "0b3f" are hex). Digit separators _ ' and space may stand among the digits, but a code
// needs at least one digit: "_", "0x___" and "0b_" are refused, not read as 0. Surrounding
// blanks are ignored. Refused too: any other character, and codes wider than `bits`.
ParsedCode readCode(std::string_view text, int bits);

} // namespace fpx
