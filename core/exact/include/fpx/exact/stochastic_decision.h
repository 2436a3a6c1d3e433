// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"
#include "fpx/exact/rounding.h"

#include <cstdint>

namespace fpx {

// One stochastic rounding's decision, in one place for every format kind. The residue
// ν = remainder / divisor (0 ≤ ν < 1) is the part of |x| below the kept last place, in units of
// that place; the decision is whether |x| goes away from zero (docs/behaviour.md, "Stochastic
// rounding with N random bits").

// How many of the 2^N values of the random integer R round ν away under `rule` (N = rule.count
// ≥ 1): A counts ⌊ν·2^N⌋, B ⌊(⌊ν·2^(N+1)⌋ + 1) / 2⌋, C RNITE(ν·2^N). The rule's test
// "… + R ≥ 2^N" is then R ≥ 2^N − count.
BigInt stochasticAwayCount(const BigInt& remainder, const BigInt& divisor,
                           const RandomBitRule& rule);

// The decision for 64 random bits: with rule.count = 0 all of them, away when
// randomBits / 2^64 < ν; else R = their top N bits.
bool stochasticRoundsAway(const BigInt& remainder, const BigInt& divisor, std::uint64_t randomBits,
                          const RandomBitRule& rule);
// The same for a residue held as an exact value (0 ≤ residue < 1).
bool stochasticRoundsAway(const ExactValue& residue, std::uint64_t randomBits,
                          const RandomBitRule& rule);

// Its exact probability over uniformly random bits: ν itself for rule.count = 0 (the ideal; the
// 64-bit test differs from it by less than 2^−64), else count / 2^N, a multiple of 2^−N.
// Precondition: 0 ≤ residue < 1.
ExactValue stochasticProbabilityAway(const ExactValue& residue, const RandomBitRule& rule);

// The exact probability that stochastic rounding takes x (down < x < up, its two neighbours) to
// `up`: the rule decides on the magnitude, so for a negative x, whose neighbour nearer zero is
// `up`, it is 1 − P(away).
ExactValue probabilityUp(const ExactValue& x, const ExactValue& down, const ExactValue& up,
                         const RandomBitRule& rule);

} // namespace fpx
