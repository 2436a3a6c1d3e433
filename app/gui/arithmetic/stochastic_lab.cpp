// SPDX-License-Identifier: GPL-3.0-or-later
#include "arithmetic/stochastic_lab.h"

#include "fpx/arithmetic.h"

namespace fpx::gui {

StochasticDrawSummary summarizeStochasticDraws(const ExactValue& value, const FormatSpec& spec,
                                               OverflowPolicy overflow, std::uint64_t seed,
                                               std::uint64_t draws) {
    StochasticDrawSummary summary;
    summary.spec = spec;
    summary.value = value;
    summary.draws = draws;
    summary.outcomes = stochasticOutcomes(value, spec, overflow);
    if (!summary.outcomes) {
        summary.problem = "nothing random happens to " + std::string(value.isNaN() ? "NaN" : "∞");
        return summary;
    }
    const ExactValue& pUp = summary.outcomes->probabilityUp;
    summary.probabilityDown = ExactValue::integer(1) - pUp;
    summary.expectedUp = pUp * ExactValue::integer(draws);
    if (draws == 0)
        return summary;
    summary.observedFractionUp = observedFractionUp(value, spec, overflow, seed, draws);
    // fraction × draws is the count itself: an integer, read off exactly.
    const ExactValue count = summary.observedFractionUp * ExactValue::integer(draws);
    BigInt n = count.numerator();
    if (count.exponent2() >= 0)
        n <<= static_cast<unsigned>(count.exponent2());
    else
        n >>= static_cast<unsigned>(-count.exponent2());
    summary.drawsUp = static_cast<std::uint64_t>(n / count.denominator());
    return summary;
}

} // namespace fpx::gui
