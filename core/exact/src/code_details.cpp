// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/code_details.h"

#include "fpx/exact/float_geometry.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/posit.h"

#include <algorithm>

namespace fpx {

namespace {

// A positive amount smaller than a quarter of the smallest gap between two values of the
// format: value ± tiny, rounded up or down, lands on the neighbour.
ExactValue tinyStep(const FormatSpec& spec) {
    switch (spec.kind) {
    case FormatKind::BinaryFloat:
        return ExactValue::dyadic(false, 1, spec.minExponent() - spec.fractionBits - 2);
    case FormatKind::Integer:
        return spec.scale.abs().timesPowerOfTwo(-2);
    case FormatKind::Posit:
        return decodePosit(spec, 1).value.timesPowerOfTwo(-2);
    case FormatKind::Lookup: {
        std::vector<ExactValue> sorted = spec.table;
        std::sort(sorted.begin(), sorted.end(),
                  [](const ExactValue& a, const ExactValue& b) { return compare(a, b) < 0; });
        ExactValue smallest = ExactValue::integer(1);
        for (std::size_t i = 1; i < sorted.size(); ++i) {
            const ExactValue gap = sorted[i] - sorted[i - 1];
            if (!gap.isZero() && compare(gap, smallest) < 0)
                smallest = gap;
        }
        return (smallest * spec.scale.abs()).timesPowerOfTwo(-2);
    }
    }
    return ExactValue::integer(1);
}

// Posit codes ascend as two's complement integers from NaR + 1 (−maxpos) to NaR − 1 (maxpos).
std::optional<Neighbour> positStep(const FormatSpec& spec, Code code, bool upward) {
    const Code nar = positNaRCode(spec);
    if (code == nar || code == (upward ? nar - 1 : nar + 1))
        return std::nullopt;
    const Code next = (upward ? code + 1 : code - 1) & spec.codeMask();
    return Neighbour{next, decodePosit(spec, next).value};
}

std::optional<Neighbour> step(const FormatSpec& spec, Code code, bool upward) {
    if (spec.kind == FormatKind::Posit)
        return positStep(spec, code & spec.codeMask(), upward);
    const DecodedCode d = decodeCode(spec, code);
    if (d.value.isNaN())
        return std::nullopt;
    RoundingOptions directed;
    directed.mode = upward ? RoundingMode::TowardPositive : RoundingMode::TowardNegative;
    ExactValue start = d.value;
    if (d.value.isInfinity()) {
        if (d.value.isNegative() != upward)
            return std::nullopt; // nothing beyond ±∞
        // From ∓∞ the next value inward is the most extreme finite one.
        const FormatLimits limits = deriveLimits(spec);
        const Code extreme = upward ? limits.lowestCode : limits.maxCode;
        return Neighbour{extreme, decodeCode(spec, extreme).value};
    }
    const ExactValue tiny = tinyStep(spec);
    const ExactValue target = upward ? start + tiny : start - tiny;
    const Conversion c = roundToFormat(target, spec, directed);
    const DecodedCode next = decodeCode(spec, c.code);
    if (next.value.isNaN() || c.code == code || compare(next.value, d.value) == 0)
        return std::nullopt;
    return Neighbour{c.code, next.value};
}

} // namespace

std::optional<Neighbour> nextUp(const FormatSpec& spec, Code code) {
    return step(spec, code, true);
}

std::optional<Neighbour> nextDown(const FormatSpec& spec, Code code) {
    return step(spec, code, false);
}

std::optional<ExactValue> unitInLastPlace(const FormatSpec& spec, Code code) {
    const DecodedCode d = decodeCode(spec, code);
    if (!d.value.isFinite())
        return std::nullopt;
    switch (spec.kind) {
    case FormatKind::BinaryFloat: {
        std::int64_t binade = spec.minExponent();
        if (!d.value.isZero())
            binade = std::max<std::int64_t>(binade, d.value.floorLog2());
        return ExactValue::dyadic(false, 1, binade - spec.fractionBits);
    }
    case FormatKind::Integer:
        return spec.scale.abs();
    case FormatKind::Posit:
    case FormatKind::Lookup: {
        const auto up = nextUp(spec, code);
        const auto down = nextDown(spec, code);
        const bool awayIsUp = !d.value.isNegative();
        if (awayIsUp && up)
            return up->value - d.value;
        if (!awayIsUp && down)
            return d.value - down->value;
        if (up)
            return up->value - d.value;
        if (down)
            return d.value - down->value;
        return std::nullopt;
    }
    }
    return std::nullopt;
}

ExactValue nearestBoundary(const FormatSpec& spec, const Neighbour& lower, const Neighbour& upper) {
    if (spec.kind == FormatKind::Posit)
        return positTiePoint(spec, lower.code);
    return midpoint(lower.value, upper.value);
}

ExactValue virtualBeyond(const FormatSpec& spec, const ExactValue& extreme) {
    // A posit's regime goes on: the next value out is the extreme times useed = 2^(2^es).
    if (spec.kind == FormatKind::Posit)
        return extreme.timesPowerOfTwo(std::int64_t(1) << spec.positExponentBits);
    if (spec.kind == FormatKind::BinaryFloat) {
        const FloatGeometry g(spec);
        const ExactValue quantum = ExactValue::dyadic(false, 1, g.maxExponent - spec.fractionBits);
        return extreme.isNegative() ? extreme - quantum : extreme + quantum;
    }
    const ExactValue gap =
        spec.kind == FormatKind::Integer ? spec.scale.abs() : tinyStep(spec).timesPowerOfTwo(2);
    return extreme.isNegative() ? extreme - gap : extreme + gap;
}

namespace {

std::optional<RoundingInterval> roundingInterval(const FormatSpec& spec, const CodeDetails& d,
                                                 const RoundingOptions& options) {
    const ExactValue& v = d.decoded.value;
    if (v.isNaN())
        return std::nullopt;
    auto roundsHere = [&](const ExactValue& x) {
        return roundToFormat(x, spec, options).code == d.decoded.code;
    };

    // Neighbouring values on each side (real, or virtual past the finite range).
    std::optional<ExactValue> down = d.nextDown ? std::optional(d.nextDown->value) : std::nullopt;
    std::optional<ExactValue> up = d.nextUp ? std::optional(d.nextUp->value) : std::nullopt;
    if (v.isFinite()) {
        // Past the largest finite value the boundary is half a quantum further (overflow is
        // decided after rounding with an unbounded exponent), unless everything saturates here.
        if (up && up->isInfinity())
            up.reset();
        if (down && down->isInfinity())
            down.reset();
        // A finite value far past the extreme tells whether overflow lands here (saturation,
        // or a mode that rounds toward zero): then the interval runs on to ±∞.
        if (!up) {
            const ExactValue beyond = virtualBeyond(spec, v.isZero() ? deriveLimits(spec).max : v);
            if (!roundsHere(beyond.timesPowerOfTwo(2)))
                up = beyond;
        }
        if (!down && spec.isSigned) {
            const ExactValue beyond = virtualBeyond(spec, v);
            if (!roundsHere(beyond.timesPowerOfTwo(2)))
                down = beyond;
        }
    }
    const ExactValue minusInf = ExactValue::infinity(true);
    const ExactValue plusInf = ExactValue::infinity(false);

    RoundingInterval r;
    ExactValue low = down ? *down : (spec.isSigned ? minusInf : ExactValue::zero());
    ExactValue high = up ? *up : plusInf;
    const bool nearest =
        options.mode == RoundingMode::NearestEven || options.mode == RoundingMode::NearestAway;
    if (v.isInfinity()) {
        // ±∞ takes everything past the overflow threshold of the extreme finite value.
        const ExactValue extreme = v.isNegative() ? *up : *down;
        const bool roundsOutward = options.mode == RoundingMode::Stochastic ||
                                   options.mode == (v.isNegative() ? RoundingMode::TowardNegative
                                                                   : RoundingMode::TowardPositive);
        ExactValue boundary = v;
        if (nearest)
            boundary = midpoint(extreme, virtualBeyond(spec, extreme));
        else if (roundsOutward)
            boundary = extreme;
        r.low = v.isNegative() ? v : boundary;
        r.high = v.isNegative() ? boundary : v;
    } else {
        switch (options.mode) {
        case RoundingMode::NearestEven:
        case RoundingMode::NearestAway: {
            // Past the finite range (virtual neighbours) the boundary is the midpoint.
            const Neighbour here{d.decoded.code, v};
            const auto real = [](const std::optional<Neighbour>& n) {
                return n && n->value.isFinite();
            };
            if (down && down->isFinite())
                low = real(d.nextDown) ? nearestBoundary(spec, *d.nextDown, here)
                                       : midpoint(*down, v);
            if (up && up->isFinite())
                high = real(d.nextUp) ? nearestBoundary(spec, here, *d.nextUp) : midpoint(v, *up);
            break;
        }
        // Directed rounding takes the gap on one side only where something lies there: past
        // the extreme of a saturating format every value rounds back to the extreme.
        case RoundingMode::TowardNegative:
            if (down)
                low = v;
            break;
        case RoundingMode::TowardPositive:
            if (up)
                high = v;
            break;
        case RoundingMode::TowardZero:
            if (v.isZero() ? !v.isNegative() && spec.hasNegativeZero() : !v.isNegative())
                low = v;
            else if (!v.isZero() || spec.hasNegativeZero())
                high = v;
            break;
        case RoundingMode::ToOdd:
            // Only an exact input gives an even code: anything inexact sets the last bit. With
            // no fraction bits (E8M0) every significand is odd and the mode truncates.
            if (spec.kind == FormatKind::BinaryFloat && spec.fractionBits == 0)
                low = v;
            else if ((d.decoded.code & 1) == 0) {
                // Past an even extreme (saturating, or overflow kept finite) it takes the rest.
                if (down)
                    low = v;
                if (up)
                    high = v;
            }
            break;
        case RoundingMode::Stochastic:
            break;
        }
        // Without a zero (E8M0) the smallest value also takes everything below it.
        if (!d.nextDown && !spec.hasZero() && roundsHere(tinyStep(spec)))
            low = ExactValue::zero();
        // Signed zeros split the interval at 0: +0 takes [0, …], −0 takes […, −0].
        if (v.isZero() && spec.hasNegativeZero()) {
            if (v.isNegative())
                high = v;
            else
                low = v;
        }
        r.low = low;
        r.high = high;
    }
    if (options.mode == RoundingMode::Stochastic) {
        r.lowClosed = r.low.isIdenticalTo(v) || (r.low.isInfinity());
        r.highClosed = r.high.isIdenticalTo(v) || (r.high.isInfinity());
        if (v.isZero()) {
            r.lowClosed = r.lowClosed || r.low.isZero();
            r.highClosed = r.highClosed || r.high.isZero();
        }
        // 0 in a format without it (E8M0) goes where the overflow policy sends it.
        if (!spec.hasZero() && r.low.isZero())
            r.lowClosed = roundsHere(r.low);
    } else {
        r.lowClosed = roundsHere(r.low);
        r.highClosed = roundsHere(r.high);
    }
    return r;
}

} // namespace

CodeDetails describeCode(const FormatSpec& spec, Code code, const RoundingOptions& options) {
    CodeDetails d;
    d.decoded = decodeCode(spec, code);
    d.nextUp = nextUp(spec, code);
    d.nextDown = nextDown(spec, code);
    d.ulp = unitInLastPlace(spec, code);
    d.interval = roundingInterval(spec, d, options);
    return d;
}

ConversionReport convertAndDescribe(const ExactValue& input, const FormatSpec& spec,
                                    const RoundingOptions& options) {
    ConversionReport r;
    r.input = input;
    r.conversion = roundToFormat(input, spec, options);
    r.details = describeCode(spec, r.conversion.code, options);
    const ExactValue& value = r.details.decoded.value;
    if (value.isInfinity() && input.isInfinity() && value.isNegative() == input.isNegative())
        r.error = ExactValue::zero();
    else
        r.error = value - input;
    if (r.error.isZero())
        r.relativeError = ExactValue::zero();
    else if (value.isFinite() && input.isFinite() && !input.isZero())
        // (v − x) / x = v / x − 1, the same exact number; v is a short dyadic value, so this
        // needs no gcd between the long numerators of the error and the input.
        r.relativeError = value / input - ExactValue::integer(1);
    else
        r.relativeError = r.error / input;
    if (r.details.ulp && r.error.isFinite())
        r.ulpError = r.error / *r.details.ulp;
    else
        r.ulpError = r.error.isZero() ? ExactValue::zero() : ExactValue::nan();
    return r;
}

} // namespace fpx
