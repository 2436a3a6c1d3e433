// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/stochastic_rounding.h"

#include "fpx/exact/conversion.h"

namespace fpx {

namespace {

Neighbour roundedToward(const ExactValue& x, const FormatSpec& spec, RoundingMode mode,
                        OverflowPolicy overflow) {
    const Conversion c = roundToFormat(x, spec, RoundingOptions{mode, overflow, 0});
    return Neighbour{c.code, decodeCode(spec, c.code).value};
}

} // namespace

std::optional<StochasticOutcomes> stochasticOutcomes(const ExactValue& x, const FormatSpec& spec,
                                                     OverflowPolicy overflow) {
    if (!x.isFinite())
        return std::nullopt;
    // The neighbours are what the two directed roundings give.
    StochasticOutcomes outcomes{roundedToward(x, spec, RoundingMode::TowardNegative, overflow),
                                roundedToward(x, spec, RoundingMode::TowardPositive, overflow),
                                ExactValue::zero()};
    if (!outcomes.down.value.isFinite() || !outcomes.up.value.isFinite() ||
        outcomes.down.code == outcomes.up.code) {
        // Beyond the finite range (or on a value): one outcome, what rounding gives.
        const Neighbour only = roundedToward(x, spec, RoundingMode::Stochastic, overflow);
        return StochasticOutcomes{only, only, ExactValue::zero()};
    }
    outcomes.probabilityUp = (x - outcomes.down.value) / (outcomes.up.value - outcomes.down.value);
    return outcomes;
}

ExactValue observedFractionUp(const ExactValue& x, const FormatSpec& spec, OverflowPolicy overflow,
                              std::uint64_t seed, std::uint64_t draws) {
    const auto outcomes = stochasticOutcomes(x, spec, overflow);
    if (!outcomes || draws == 0 || outcomes->down.code == outcomes->up.code)
        return ExactValue::zero();
    std::uint64_t ups = 0;
    for (std::uint64_t i = 0; i < draws; ++i) {
        const RoundingOptions options{RoundingMode::Stochastic, overflow, stochasticBits(seed, i)};
        if (roundToFormat(x, spec, options).code == outcomes->up.code)
            ++ups;
    }
    return ExactValue::fraction(false, BigInt(ups), BigInt(draws));
}

} // namespace fpx
