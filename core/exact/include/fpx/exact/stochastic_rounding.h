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
// that overflows) has one outcome: down == up and both probabilities are 0.
struct StochasticOutcomes {
    Neighbour down;                // the largest representable value ≤ x
    Neighbour up;                  // the smallest representable value ≥ x
    ExactValue probabilityUp;      // exact, under the random-bit rule: a multiple of 2^−N
    ExactValue idealProbabilityUp; // (x − down) / (up − down), exact: what all bits give
};

// nullopt for NaN and ±∞ (nothing random happens to them). `overflow` decides what lies beyond
// the largest finite value; `rule` how many random bits decide (all 64 by default).
std::optional<StochasticOutcomes> stochasticOutcomes(const ExactValue& x, const FormatSpec& spec,
                                                     OverflowPolicy overflow = OverflowPolicy::Ieee,
                                                     const RandomBitRule& rule = {});

// The fraction of `draws` stochastic roundings of x (element i drawing stochasticBits(seed, i),
// as every converter does) that went up.
ExactValue observedFractionUp(const ExactValue& x, const FormatSpec& spec, OverflowPolicy overflow,
                              std::uint64_t seed, std::uint64_t draws,
                              const RandomBitRule& rule = {});

// Whether the random bits of a seed are independent of its neighbour's: the top `bitCount` bits
// of stochasticBits(seed, i) and stochasticBits(seed + 1, i), compared bit by bit for
// i < draws. Independent streams agree on half the bits, give or take √(compared) / 2.
struct SeedAudit {
    std::uint64_t seed = 0;
    std::uint64_t neighbour = 0; // seed + 1 (wrapping)
    std::uint64_t draws = 0;
    int bitCount = 64;
    std::uint64_t comparedBits = 0; // draws × bitCount
    std::uint64_t agreeingBits = 0;
    ExactValue expectedAgreeing; // comparedBits / 2
    double zScore = 0;           // (agreeing − expected) / (√compared / 2)
    bool independent() const { return zScore > -kAuditZLimit && zScore < kAuditZLimit; }
    // Beyond five standard deviations: chance once in about 1.7 million audits.
    static constexpr double kAuditZLimit = 5.0;
};

// bitCount: 1 … 64 (a rule's N, or 64 for plain sr).
SeedAudit auditNeighbouringSeeds(std::uint64_t seed, std::uint64_t draws, int bitCount);

} // namespace fpx
