// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/stochastic_decision.h"

namespace fpx {

BigInt stochasticAwayCount(const BigInt& remainder, const BigInt& divisor,
                           const RandomBitRule& rule) {
    const unsigned n = static_cast<unsigned>(rule.count);
    switch (rule.variant) {
    case StochasticVariant::A:
        return (remainder << n) / divisor;
    case StochasticVariant::B:
        // ⌊ν·2^(N+1)⌋ + 2R + 1 ≥ 2^(N+1)  ⇔  R ≥ 2^N − ⌊(⌊ν·2^(N+1)⌋ + 1) / 2⌋.
        return ((remainder << (n + 1)) / divisor + 1) / 2;
    case StochasticVariant::C: {
        const BigInt scaled = remainder << n;
        BigInt count = scaled / divisor;
        const BigInt twiceRest = (scaled % divisor) << 1;
        if (twiceRest > divisor ||
            (twiceRest == divisor && boost::multiprecision::bit_test(count, 0)))
            ++count;
        return count;
    }
    }
    return 0;
}

bool stochasticRoundsAway(const BigInt& remainder, const BigInt& divisor, std::uint64_t randomBits,
                          const RandomBitRule& rule) {
    if (rule.count == 0)
        return BigInt(randomBits) * divisor < (remainder << 64);
    const std::uint64_t r = randomBits >> (64 - rule.count);
    return BigInt(r) + stochasticAwayCount(remainder, divisor, rule) >= (BigInt(1) << rule.count);
}

bool stochasticRoundsAway(const ExactValue& residue, std::uint64_t randomBits,
                          const RandomBitRule& rule) {
    // The residue as remainder / divisor, the form the cut of every format kind gives.
    const Truncation t = truncateAt(residue, 0);
    return stochasticRoundsAway(t.remainder, t.divisor, randomBits, rule);
}

ExactValue stochasticProbabilityAway(const ExactValue& residue, const RandomBitRule& rule) {
    if (rule.count == 0)
        return residue;
    const Truncation t = truncateAt(residue, 0);
    return ExactValue::dyadic(false, stochasticAwayCount(t.remainder, t.divisor, rule),
                              -rule.count);
}

ExactValue probabilityUp(const ExactValue& x, const ExactValue& down, const ExactValue& up,
                         const RandomBitRule& rule) {
    const ExactValue ideal = (x - down) / (up - down);
    if (rule.count == 0)
        return ideal;
    const ExactValue one = ExactValue::integer(1);
    const bool upIsAway = compare(up.abs(), down.abs()) > 0;
    const ExactValue away = stochasticProbabilityAway(upIsAway ? ideal : one - ideal, rule);
    return upIsAway ? away : one - away;
}

} // namespace fpx
