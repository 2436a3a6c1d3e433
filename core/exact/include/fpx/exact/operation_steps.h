// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/expression.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <string>
#include <vector>

namespace fpx {

// The teaching text of one operation performed in a format, as a lecturer writes it on the
// board: plain text lines (no colour), every bit derived from the exact values.
//   binary floats   the operands as sign, binary significand and exponent; for + and − the
//                   alignment of the exponents (the shifted significand), the exact sum in
//                   binary and its normalization; for × ÷ fma √ the exact result in binary;
//                   then the guard, round and sticky bits, the rounding decision with its reason
//                   ("G=1, R|S=1 → round up", "tie → to even") and overflow or underflow
//   integer formats the operands' levels and the scale, the exact result in levels, the
//                   rounding to a level and the clamp to the range
// Formats without arithmetic (NF4, E8M0) get one line that says so.
std::vector<std::string> explainOperation(const FormatSpec& spec, const ExpressionStep& step,
                                          const RoundingOptions& options);

} // namespace fpx
