// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/master_weights.h"

#include "fpx/exact/code_details.h"

#include <array>

namespace fpx::gui {

namespace {

MasterWeightRow rowFor(const ExactValue& w, const ExactValue& delta, const FormatSpec& spec,
                       const RoundingOptions& options, std::uint64_t seed) {
    MasterWeightRow row;
    row.spec = spec;
    row.unsupported = arithmeticUnsupported(spec);
    if (row.unsupported)
        return row;
    // The two literals are stored first, as every expression's literals are; the literals
    // draw distinct random bits under stochastic rounding, the sum a third.
    RoundingOptions literal = options;
    literal.randomBits = stochasticBits(seed, 0);
    row.weight = roundToFormat(w, spec, literal);
    row.weightValue = decodeCode(spec, row.weight.code).value;
    literal.randomBits = stochasticBits(seed, 1);
    row.delta = roundToFormat(delta, spec, literal);
    row.deltaValue = decodeCode(spec, row.delta.code).value;
    RoundingOptions sumOptions = options;
    sumOptions.randomBits = stochasticBits(seed, 2);
    const std::array<ExactValue, 2> operands{row.weightValue, row.deltaValue};
    row.sum = applyOperation(Operation::Add, operands, spec, sumOptions);
    row.changed = row.sum->rounded.code != row.weight.code;

    const CodeDetails details = describeCode(spec, row.weight.code, options);
    row.ulp = details.ulp;
    if (options.mode == RoundingMode::Stochastic) {
        row.noThresholdReason = "under stochastic rounding any Δ may move w";
        return row;
    }
    if (!details.interval || !row.weightValue.isFinite()) {
        row.noThresholdReason = "w is not a finite number";
        return row;
    }
    // Everything in [low, high] rounds back to w (ends open or closed by the tie rule), so
    // w + Δ leaves w exactly while it stays inside: the first Δ that leaves is the distance
    // to the end on Δ's side.
    const RoundingInterval& interval = *details.interval;
    const bool downward = delta.isNegative() && !delta.isZero();
    const ExactValue& end = downward ? interval.low : interval.high;
    if (!end.isFinite()) {
        row.noThresholdReason = "w is at the end of the range"; // it saturates there
        return row;
    }
    row.threshold = downward ? row.weightValue - end : end - row.weightValue;
    row.thresholdReached = downward ? !interval.lowClosed : !interval.highClosed;
    return row;
}

} // namespace

std::vector<MasterWeightRow> masterWeightRows(const ExactValue& w, const ExactValue& delta,
                                              const std::vector<FormatSpec>& formats,
                                              const RoundingOptions& options, std::uint64_t seed) {
    std::vector<MasterWeightRow> rows;
    rows.reserve(formats.size());
    for (const FormatSpec& spec : formats)
        rows.push_back(rowFor(w, delta, spec, options, seed));
    return rows;
}

} // namespace fpx::gui
