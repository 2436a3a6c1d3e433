// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_spec.h"

#include <string>

namespace fpx {

// The decode of one code written out with its actual numbers, for teaching:
//   "(−1)^0 × 2^(13 − 15) × (1 + 595/1024) = 0.395263671875"
//   "subnormal: (−1)^1 × 2^(1 − 15) × (0 + 3/1024) = …"
//   "exponent field all ones, mantissa 0: +∞"
std::string explainDecode(const FormatSpec& spec, const DecodedCode& decoded);

} // namespace fpx
