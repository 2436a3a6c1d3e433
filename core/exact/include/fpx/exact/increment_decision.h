// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"
#include "fpx/exact/rounding.h"

namespace fpx {

// Whether rounding adds one unit in the last place to a truncated magnitude, by mode: `t` is
// what the cut kept and dropped, `odd` whether the kept code is odd (ties to even, to odd),
// `negative` the value's sign (the directed modes). Stochastic rounding goes away with the
// dropped fraction's probability, through the random-bit rule (stochastic_decision.h). Floats,
// integers and posits cut their magnitudes differently and all decide here.
bool incrementsKept(const Truncation& t, bool negative, const RoundingOptions& options, bool odd);

} // namespace fpx
