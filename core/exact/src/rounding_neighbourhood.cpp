// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/rounding_neighbourhood.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/stochastic_decision.h"

namespace fpx {

namespace {

// What `x` rounds to in `mode`; none for NaN (overflow in a format without ∞).
std::optional<Neighbour> roundedToward(const ExactValue& x, const FormatSpec& spec,
                                       RoundingMode mode) {
    const Code code = roundToFormat(x, spec, RoundingOptions{mode, OverflowPolicy::Ieee, 0}).code;
    ExactValue value = decodeCode(spec, code).value;
    if (value.isNaN())
        return std::nullopt;
    return Neighbour{code, std::move(value)};
}

bool isFinite(const std::optional<Neighbour>& n) {
    return n && n->value.isFinite();
}

NumberLineEnd endAt(const Neighbour& n) {
    return NumberLineEnd{n.value, n.code};
}

NumberLineEnd beyond(const FormatSpec& spec, const ExactValue& extreme) {
    return NumberLineEnd{virtualBeyond(spec, extreme), std::nullopt};
}

// The stretch around a value the format holds: its own neighbours, the step past the finite
// range where there is none, the value itself where nothing lies beyond (0 of an unsigned
// format).
std::pair<NumberLineEnd, NumberLineEnd> around(const FormatSpec& spec, const Neighbour& centre) {
    const auto down = nextDown(spec, centre.code);
    const auto up = nextUp(spec, centre.code);
    const FormatLimits limits = deriveLimits(spec);
    NumberLineEnd low = endAt(centre);
    NumberLineEnd high = endAt(centre);
    if (isFinite(down))
        low = endAt(*down);
    else if (down || (spec.isSigned && centre.code == limits.lowestCode))
        low = beyond(spec, centre.value);
    if (isFinite(up))
        high = endAt(*up);
    else if (up || centre.code == limits.maxCode)
        high = beyond(spec, centre.value);
    return {low, high};
}

} // namespace

std::optional<RoundingNeighbourhood> roundingNeighbourhood(const ExactValue& input,
                                                           const FormatSpec& spec,
                                                           const RoundingOptions& options) {
    if (input.isNaN())
        return std::nullopt;
    RoundingNeighbourhood n;
    n.input = input;
    const Code code = roundToFormat(input, spec, options).code;
    n.result = Neighbour{code, decodeCode(spec, code).value};
    if (n.result.value.isNaN())
        return std::nullopt;
    // The directed roundings, where they land on the right side of the input: past the range
    // of a format without ∞ they give NaN or come back to the extreme, which is then the
    // neighbour on the other side.
    const FormatLimits limits = deriveLimits(spec);
    n.below = roundedToward(input, spec, RoundingMode::TowardNegative);
    n.above = roundedToward(input, spec, RoundingMode::TowardPositive);
    if (n.below && compare(n.below->value, input) > 0)
        n.below.reset();
    if (n.above && compare(n.above->value, input) < 0)
        n.above.reset();
    if (!n.below && compare(input, limits.max) > 0)
        n.below = Neighbour{limits.maxCode, limits.max};
    if (!n.above && compare(input, limits.lowest) < 0)
        n.above = Neighbour{limits.lowestCode, limits.lowest};

    if (isFinite(n.below) && isFinite(n.above) && compare(n.below->value, n.above->value) < 0) {
        n.low = endAt(*n.below);
        n.high = endAt(*n.above);
    } else if (isFinite(n.below) && isFinite(n.above)) {
        std::tie(n.low, n.high) = around(spec, *n.below); // the input is representable
    } else if (isFinite(n.below)) {
        n.low = endAt(*n.below); // past the largest finite value
        n.high = beyond(spec, n.below->value);
    } else if (isFinite(n.above)) {
        n.low = beyond(spec, n.above->value); // below the lowest finite value
        n.high = endAt(*n.above);
    } else {
        // ±∞: the extreme finite value on that side and the step past it.
        const Code extreme = input.isNegative() ? limits.lowestCode : limits.maxCode;
        const Neighbour e{extreme, decodeCode(spec, extreme).value};
        n.low = input.isNegative() ? beyond(spec, e.value) : endAt(e);
        n.high = input.isNegative() ? endAt(e) : beyond(spec, e.value);
    }
    if (compare(n.low.value, n.high.value) >= 0)
        return std::nullopt;

    // Between two neighbouring codes the nearest modes' tie point (a posit's lies off the
    // midpoint where exponent bits are cut); elsewhere the middle of the stretch drawn.
    const bool adjacent =
        n.low.code && n.high.code && ((*n.low.code + 1) & spec.codeMask()) == *n.high.code;
    n.midpoint = adjacent ? nearestBoundary(spec, Neighbour{*n.low.code, n.low.value},
                                            Neighbour{*n.high.code, n.high.value})
                          : midpoint(n.low.value, n.high.value);
    if (options.mode != RoundingMode::Stochastic) {
        const Code tie = roundToFormat(n.midpoint, spec, options).code;
        n.midpointResult = Neighbour{tie, decodeCode(spec, tie).value};
    } else if (isFinite(n.below) && isFinite(n.above) &&
               compare(n.below->value, n.above->value) < 0) {
        n.probabilityUp = probabilityUp(input, n.below->value, n.above->value, options.stochastic);
    }
    if (const auto interval = describeCode(spec, code, options).interval)
        n.interval = *interval;
    return n;
}

ExactValue numberLinePosition(const RoundingNeighbourhood& n, const ExactValue& v) {
    if (v.isInfinity() || v.isNaN())
        return v;
    return (v - n.low.value) / (n.high.value - n.low.value);
}

} // namespace fpx
