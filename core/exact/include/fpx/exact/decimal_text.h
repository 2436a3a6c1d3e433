// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <optional>
#include <string>

namespace fpx {

struct DecimalText {
    std::string text;
    bool exact = true; // false when the expansion does not terminate and was rounded
};

// Layout: plain ("0.395263671875", "65504") while the leading digit's decimal exponent is in
// [−6, 40), scientific otherwise ("5.9604644775390625e-8"); "inf", "-inf", "nan"; "-0".

// The exact decimal expansion when it terminates (every binary format's value does), however
// long; otherwise rounded to nearest-even at `significantDigits` digits and marked inexact.
DecimalText toDecimal(const ExactValue& value, int significantDigits = 40);

// Always rounded to at most `significantDigits` digits (trailing zeros dropped); for display.
std::string toSignificantDigits(const ExactValue& value, int significantDigits);

// The shortest decimal that rounds back to `code` in `spec` under `options` (mode and overflow
// policy): the round-trip form, like the shortest repr of a float in Python or JavaScript
// (which read back nearest-even). Of two such decimals the nearer to the value, the one toward
// zero on a tie. Under stochastic rounding nothing but the value itself reads back for certain,
// so the read-back is nearest-even instead (shortestReadBackMode says which mode was used).
std::string shortestRoundTrip(const FormatSpec& spec, Code code,
                              const RoundingOptions& options = {});
// The mode shortestRoundTrip reads back under for `mode`: `mode` itself, nearest-even for
// stochastic rounding.
RoundingMode shortestReadBackMode(RoundingMode mode);

// k when d = 5^k, nullopt otherwise.
std::optional<unsigned> powerOfFiveExponent(const BigInt& d);

} // namespace fpx
