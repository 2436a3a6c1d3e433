// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/format_spec.h"

#include <string>
#include <vector>

namespace fpx {

enum class BitFieldKind { Sign, Exponent, IntegerBit, Fraction, Level };

struct BitField {
    BitFieldKind kind;
    int width;
};

// The fields of a code, most significant first: S | E | (explicit integer bit) | M for floats,
// one Level field for integers and lookup tables.
std::vector<BitField> bitLayout(const FormatSpec& spec);

// The code's bits grouped by field, separated by spaces: "0 01101 1001010011".
std::string binaryByField(const FormatSpec& spec, Code code);

} // namespace fpx
