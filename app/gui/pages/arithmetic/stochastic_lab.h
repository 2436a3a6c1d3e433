// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/stochastic_rounding.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
    RandomBitRule rule;            // how many random bits decided (0: all 64)
    SeedAudit seedAudit;           // the seed's bits against its neighbour's, over the draws
};

// Limits the work of one summary; the lab's field says so.
inline constexpr std::uint64_t kMaxStochasticDraws = 1'000'000;

// More draws than kMaxStochasticDraws are cut to it.
StochasticDrawSummary summarizeStochasticDraws(const ExactValue& value, const FormatSpec& spec,
                                               OverflowPolicy overflow, std::uint64_t seed,
                                               std::uint64_t draws, const RandomBitRule& rule = {});

// The sum of many equal small terms in one format, once rounding to nearest and once rounding
// stochastically (sequential, every addition rounded into the format): to nearest the sum
// stops growing once half its ULP exceeds the term; stochastically it keeps the right value on
// average, as long as enough random bits decide: with N of them truncating the residue, a term
// below 2^−N of the ULP never moves the sum (docs/behaviour.md, "Stochastic rounding with N
// random bits").
struct FewBitSum {
    RandomBitRule rule;
    AccumulationResult result;
};

// The random-bit counts the lab sums with beside all 64: where the bias shows.
inline constexpr int kSmallTermRandomBits[] = {8, 4, 2};

struct SmallTermSums {
    ExactValue term; // the term rounded into the format (round to nearest)
    std::size_t count = 0;
    std::optional<std::string> problem;
    AccumulationResult nearest;     // round to nearest, ties to even
    AccumulationResult stochastic;  // seeded stochastic rounding, all 64 bits
    std::vector<FewBitSum> fewBits; // the same seed with each of kSmallTermRandomBits
};

// Bounds the work done on the GUI thread (the stochastic sum goes through the exact core).
inline constexpr std::size_t kMaxSmallTerms = 100'000;

// Precondition: count ≤ kMaxSmallTerms.
SmallTermSums sumSmallTerms(const ExactValue& term, std::size_t count, const FormatSpec& spec,
                            OverflowPolicy overflow, std::uint64_t seed,
                            StochasticVariant variant = StochasticVariant::A,
                            std::size_t tracePoints = 400);

} // namespace fpx::gui
