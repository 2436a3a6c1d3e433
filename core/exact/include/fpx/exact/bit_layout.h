// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/format_spec.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

enum class BitFieldKind { Sign, Exponent, IntegerBit, Fraction, Level, Regime };

struct BitField {
    BitFieldKind kind;
    int width;
};

// The fields of a code, most significant first: S | E | (explicit integer bit) | M for floats,
// one Level field for integers and lookup tables, the same for every code; a posit's
// S | regime | E | F move with the regime's run (posit.h), and 0 and NaR are S | regime.
std::vector<BitField> bitLayout(const FormatSpec& spec, Code code);

// How a field's bits are written: as they are, or decorated (the command line colours them).
using FieldPainter = std::function<std::string(std::string_view bits, BitFieldKind kind)>;

// The code's bits grouped by field, separated by spaces: "0 01101 1001010011"; each group
// through `paint` when one is given.
std::string binaryByField(const FormatSpec& spec, Code code, const FieldPainter& paint = {});

} // namespace fpx
