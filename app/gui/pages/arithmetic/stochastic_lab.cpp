// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/stochastic_lab.h"

#include "fpx/exact/arithmetic.h"

#include <algorithm>

namespace fpx::gui {

StochasticDrawSummary summarizeStochasticDraws(const ExactValue& value, const FormatSpec& spec,
                                               OverflowPolicy overflow, std::uint64_t seed,
                                               std::uint64_t draws, const RandomBitRule& rule) {
    StochasticDrawSummary summary;
    summary.spec = spec;
    summary.value = value;
    summary.draws = std::min(draws, kMaxStochasticDraws);
    draws = summary.draws;
    summary.rule = rule;
    summary.seedAudit = auditNeighbouringSeeds(seed, draws, rule.count == 0 ? 64 : rule.count);
    summary.outcomes = stochasticOutcomes(value, spec, overflow, rule);
    if (!summary.outcomes) {
        summary.problem = "nothing random happens to " + std::string(value.isNaN() ? "NaN" : "∞");
        return summary;
    }
    const ExactValue& pUp = summary.outcomes->probabilityUp;
    summary.probabilityDown = ExactValue::integer(1) - pUp;
    summary.expectedUp = pUp * ExactValue::integer(draws);
    if (draws == 0)
        return summary;
    summary.observedFractionUp = observedFractionUp(value, spec, overflow, seed, draws, rule);
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

SmallTermSums sumSmallTerms(const ExactValue& term, std::size_t count, const FormatSpec& spec,
                            OverflowPolicy overflow, std::uint64_t seed, StochasticVariant variant,
                            std::size_t tracePoints) {
    SmallTermSums sums;
    sums.count = count;
    if (const auto why = arithmeticUnsupported(spec)) {
        sums.problem = *why;
        return sums;
    }
    TermDistribution constant;
    constant.kind = TermDistribution::Kind::Constant;
    constant.constant = term;
    std::string error;
    const std::optional<TermSequence> terms = makeTerms(constant, count, spec, seed, error);
    if (!terms) {
        sums.problem = error;
        return sums;
    }
    sums.term = terms->at(0);
    AccumulationOptions options;
    options.element = spec;
    options.accumulator = spec;
    options.rounding.overflow = overflow;
    options.seed = seed;
    options.traceEvery = std::max<std::size_t>(1, count / std::max<std::size_t>(1, tracePoints));
    sums.nearest = accumulate(*terms, options);
    options.rounding.mode = RoundingMode::Stochastic;
    sums.stochastic = accumulate(*terms, options);
    for (int bits : kSmallTermRandomBits) {
        options.rounding.stochastic = RandomBitRule{bits, variant};
        sums.fewBits.push_back(FewBitSum{options.rounding.stochastic, accumulate(*terms, options)});
    }
    return sums;
}

} // namespace fpx::gui
