// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_spec.h"

#include <string>
#include <vector>

namespace fpx {

// The decode of one code written out with its actual numbers, for teaching:
//   "(−1)^0 × 2^(13 − 15) × (1 + 595/1024) = 0.395263671875"
//   "subnormal: (−1)^1 × 2^(1 − 15) × (0 + 3/1024) = …"
//   "exponent field all ones, mantissa 0: +∞"
std::string explainDecode(const FormatSpec& spec, const DecodedCode& decoded);

// A posit code's fields, one line each, as `fpx show` and the explorer's details list them:
//   {"sign", "0 → positive"}, {"regime", "110: a run of 2 ones → r = 1"},
//   {"exponent", "01 → e = 1"}, {"fraction", "01 = 1/2^2"}
// Empty for zero and NaR, and for other formats.
struct FieldLine {
    std::string name;
    std::string text;
};
std::vector<FieldLine> positFieldLines(const FormatSpec& spec, Code code);

} // namespace fpx
