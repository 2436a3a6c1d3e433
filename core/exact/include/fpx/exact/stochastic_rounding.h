// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code_details.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstdint>
#include <optional>

namespace fpx {

// What stochastic rounding does with one value: the two representable neighbours around it
// and the exact probability of each. A value of the format (or one beyond the finite range
// that overflows) has one outcome: down == up and probabilityUp is 0.
struct StochasticOutcomes {
    Neighbour down;           // the largest representable value ≤ x
    Neighbour up;             // the smallest representable value ≥ x
    ExactValue probabilityUp; // (x − down) / (up − down), exact
};

// nullopt for NaN and ±∞ (nothing random happens to them). `overflow` decides what lies beyond
// the largest finite value.
std::optional<StochasticOutcomes>
stochasticOutcomes(const ExactValue& x, const FormatSpec& spec,
                   OverflowPolicy overflow = OverflowPolicy::Ieee);

// The fraction of `draws` stochastic roundings of x (element i drawing stochasticBits(seed, i),
// as every converter does) that went up.
ExactValue observedFractionUp(const ExactValue& x, const FormatSpec& spec, OverflowPolicy overflow,
                              std::uint64_t seed, std::uint64_t draws);

} // namespace fpx
