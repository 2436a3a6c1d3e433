// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/stochastic_rounding.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/stochastic_decision.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace fpx {

namespace {

Neighbour roundedToward(const ExactValue& x, const FormatSpec& spec, RoundingMode mode,
                        OverflowPolicy overflow) {
    const Conversion c = roundToFormat(x, spec, RoundingOptions{mode, overflow, 0, {}});
    return Neighbour{c.code, decodeCode(spec, c.code).value};
}

} // namespace

std::optional<StochasticOutcomes> stochasticOutcomes(const ExactValue& x, const FormatSpec& spec,
                                                     OverflowPolicy overflow,
                                                     const RandomBitRule& rule) {
    if (!x.isFinite())
        return std::nullopt;
    // The neighbours are what the two directed roundings give.
    StochasticOutcomes outcomes{roundedToward(x, spec, RoundingMode::TowardNegative, overflow),
                                roundedToward(x, spec, RoundingMode::TowardPositive, overflow),
                                ExactValue::zero(), ExactValue::zero()};
    if (!outcomes.down.value.isFinite() || !outcomes.up.value.isFinite() ||
        outcomes.down.code == outcomes.up.code) {
        // Beyond the finite range (or on a value): one outcome, what rounding gives.
        const Neighbour only = roundedToward(x, spec, RoundingMode::Stochastic, overflow);
        return StochasticOutcomes{only, only, ExactValue::zero(), ExactValue::zero()};
    }
    outcomes.idealProbabilityUp =
        probabilityUp(x, outcomes.down.value, outcomes.up.value, RandomBitRule{});
    outcomes.probabilityUp = probabilityUp(x, outcomes.down.value, outcomes.up.value, rule);
    return outcomes;
}

ExactValue observedFractionUp(const ExactValue& x, const FormatSpec& spec, OverflowPolicy overflow,
                              std::uint64_t seed, std::uint64_t draws, const RandomBitRule& rule) {
    const auto outcomes = stochasticOutcomes(x, spec, overflow, rule);
    if (!outcomes || draws == 0 || outcomes->down.code == outcomes->up.code)
        return ExactValue::zero();
    std::uint64_t ups = 0;
    for (std::uint64_t i = 0; i < draws; ++i) {
        const RoundingOptions options{RoundingMode::Stochastic, overflow, stochasticBits(seed, i),
                                      rule};
        if (roundToFormat(x, spec, options).code == outcomes->up.code)
            ++ups;
    }
    return ExactValue::fraction(false, BigInt(ups), BigInt(draws));
}

SeedAudit auditNeighbouringSeeds(std::uint64_t seed, std::uint64_t draws, int bitCount) {
    SeedAudit audit;
    audit.seed = seed;
    audit.neighbour = seed + 1;
    audit.draws = draws;
    audit.bitCount = std::clamp(bitCount, 1, 64);
    const int drop = 64 - audit.bitCount;
    for (std::uint64_t i = 0; i < draws; ++i) {
        const std::uint64_t differing =
            (stochasticBits(audit.seed, i) ^ stochasticBits(audit.neighbour, i)) >> drop;
        audit.agreeingBits += static_cast<std::uint64_t>(audit.bitCount - std::popcount(differing));
    }
    audit.comparedBits = draws * static_cast<std::uint64_t>(audit.bitCount);
    audit.expectedAgreeing = ExactValue::fraction(false, BigInt(audit.comparedBits), BigInt(2));
    if (audit.comparedBits > 0)
        audit.zScore = (static_cast<double>(audit.agreeingBits) -
                        static_cast<double>(audit.comparedBits) / 2) /
                       (std::sqrt(static_cast<double>(audit.comparedBits)) / 2);
    return audit;
}

} // namespace fpx
