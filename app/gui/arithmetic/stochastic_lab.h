// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact_value.h"
#include "fpx/format_spec.h"
#include "fpx/rounding.h"
#include "fpx/stochastic_rounding.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fpx::gui {

// What stochastic rounding does with one value in one format: its two neighbours with their
// exact probabilities, and what `draws` seeded roundings did, to set beside them.
struct StochasticDrawSummary {
    FormatSpec spec;
    ExactValue value;
    std::optional<std::string> problem; // why there is nothing to draw (NaN, ∞, no arithmetic)
    std::optional<StochasticOutcomes> outcomes;
    ExactValue probabilityDown; // 1 − p_up
    std::uint64_t draws = 0;
    std::uint64_t drawsUp = 0;     // how many of the draws rounded up
    ExactValue expectedUp;         // draws × p_up, exact (need not be an integer)
    ExactValue observedFractionUp; // drawsUp / draws
};

// Limits the work of one summary; the lab's field says so.
inline constexpr std::uint64_t kMaxStochasticDraws = 10'000'000;

// Precondition: draws ≤ kMaxStochasticDraws.
StochasticDrawSummary summarizeStochasticDraws(const ExactValue& value, const FormatSpec& spec,
                                               OverflowPolicy overflow, std::uint64_t seed,
                                               std::uint64_t draws);

} // namespace fpx::gui
