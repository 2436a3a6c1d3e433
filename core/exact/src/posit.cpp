// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/posit.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/increment_decision.h"
#include "fpx/exact/stochastic_decision.h"

namespace fpx {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

ExactValue positValue(const FormatSpec& spec, Code code) {
    return decodePosit(spec, code).value;
}

// The positive code (bits after the sign) nearest |x| from below in the bit string, with what
// the cut dropped: |x| = 2^s × (1 + g), s = 2^es × k + e, 0 ≤ e < 2^es, 0 ≤ g < 1, lies in the
// regime of k, written
//
//      k ≥ 0:  1 1 … 1 0  (k + 1 ones)      k < 0:  0 0 … 0 1  (−k zeros)
//
// followed by e's es bits and g's bits without end; the n − 1 bits after the sign keep the
// regime whole (minpos < |x| < maxpos) and as many of the rest as fit.
struct PositCut {
    Code body = 0;
    Truncation dropped;
};

PositCut cutPosit(const ExactValue& magnitude, const FormatSpec& spec) {
    const int es = spec.positExponentBits;
    const int bodyBits = spec.positBits - 1;
    const std::int64_t s = magnitude.floorLog2();
    const std::int64_t k = floorDiv(s, std::int64_t(1) << es);
    const std::int64_t e = s - (k << es);
    const int regimeWidth = static_cast<int>(k >= 0 ? k + 2 : -k + 1);
    const Code regime = k >= 0 ? (lowBitsMask(static_cast<int>(k) + 1) << 1) : Code(1);
    const int room = bodyBits - regimeWidth;
    // e + g as a binary number with es integer bits, cut after `room` bits of e and g.
    const ExactValue rest =
        ExactValue::integer(e) + magnitude.timesPowerOfTwo(-s) - ExactValue::integer(1);
    PositCut cut;
    cut.dropped = truncateAt(rest, es - room);
    cut.body = (regime << room) + static_cast<Code>(cut.dropped.kept);
    return cut;
}

bool bodyIncrements(const PositCut& cut, const ExactValue& magnitude, const FormatSpec& spec,
                    bool negative, const RoundingOptions& options) {
    if (options.mode != RoundingMode::Stochastic || !cut.dropped.inexact())
        return incrementsKept(cut.dropped, negative, options, (cut.body & 1) != 0);
    // In proportion to the distance in value, not in the bit string: unbiased in value.
    const ExactValue low = positValue(spec, cut.body);
    const ExactValue high = positValue(spec, cut.body + 1);
    return stochasticRoundsAway((magnitude - low) / (high - low), options.randomBits,
                                options.stochastic);
}

Code negatedCode(const FormatSpec& spec, Code code) {
    return (~code + 1) & spec.codeMask();
}

} // namespace

Code positNaRCode(const FormatSpec& spec) {
    return Code(1) << (spec.positBits - 1);
}

std::int64_t positMaxScale(const FormatSpec& spec) {
    return static_cast<std::int64_t>(spec.positBits - 2) << spec.positExponentBits;
}

std::optional<PositFields> positFields(const FormatSpec& spec, Code code) {
    const int n = spec.positBits;
    const int es = spec.positExponentBits;
    code &= spec.codeMask();
    if (code == 0 || code == positNaRCode(spec))
        return std::nullopt;
    PositFields f;
    f.sign = (code >> (n - 1)) & 1;
    const int bodyBits = n - 1;
    const bool first = (code >> (bodyBits - 1)) & 1;
    f.regimeOfOnes = first;
    while (f.regimeRun < bodyBits && (((code >> (bodyBits - 1 - f.regimeRun)) & 1) != 0) == first)
        ++f.regimeRun;
    f.regimeWidth = std::min(f.regimeRun + 1, bodyBits);
    f.regime = first ? f.regimeRun - 1 : -f.regimeRun;
    const int left = bodyBits - f.regimeWidth;
    f.exponentWidth = std::min(es, left);
    f.fractionWidth = left - f.exponentWidth;
    f.fractionField = code & lowBitsMask(f.fractionWidth);
    f.exponentField = (code >> f.fractionWidth) & lowBitsMask(f.exponentWidth);
    f.exponent = static_cast<int>(f.exponentField << (es - f.exponentWidth));
    const std::int64_t magnitudeScale =
        (static_cast<std::int64_t>(f.regime) << es) + f.exponent + (f.sign ? 1 : 0);
    f.scale = f.sign ? -magnitudeScale : magnitudeScale;
    return f;
}

DecodedCode decodePosit(const FormatSpec& spec, Code code) {
    DecodedCode d;
    d.code = code & spec.codeMask();
    const auto f = positFields(spec, d.code);
    if (!f) {
        const bool nar = d.code != 0;
        d.valueClass = nar ? ValueClass::NaN : ValueClass::Zero;
        d.value = nar ? ExactValue::nan() : ExactValue::zero();
        d.sign = nar;
        return d;
    }
    // ((1 − 3s) + f) × 2^scale with f = field / 2^w: ((1 − 3s) × 2^w + field) × 2^(scale − w),
    // whose magnitude is 2^w + field for s = 0 and 2^(w+1) − field for s = 1.
    const BigInt field(f->fractionField);
    const BigInt magnitude = f->sign ? (BigInt(1) << (f->fractionWidth + 1)) - field
                                     : (BigInt(1) << f->fractionWidth) + field;
    d.valueClass = ValueClass::Normal;
    d.sign = f->sign;
    d.exponentField = f->exponentField;
    d.significandField = f->fractionField;
    d.value = ExactValue::dyadic(f->sign, magnitude, f->scale - f->fractionWidth);
    d.unbiasedExponent = static_cast<int>(d.value.floorLog2());
    return d;
}

ExactValue positTiePoint(const FormatSpec& spec, Code lower) {
    lower &= spec.codeMask();
    if (lower == 0 || lower == spec.codeMask())
        return ExactValue::zero();
    FormatSpec wider = spec;
    wider.positBits = spec.positBits + 1;
    return decodePosit(wider, ((lower << 1) | 1) & wider.codeMask()).value;
}

Conversion roundPosit(const ExactValue& x, const FormatSpec& spec, const RoundingOptions& options) {
    ConversionFlags flags;
    if (!x.isFinite()) {
        flags.invalid = true;
        return Conversion{positNaRCode(spec), flags};
    }
    if (x.isZero())
        return Conversion{0, flags};
    const bool negative = x.isNegative();
    const ExactValue magnitude = x.abs();
    const std::int64_t top = positMaxScale(spec);
    const Code maxpos = lowBitsMask(spec.positBits - 1);
    Code body = 0;
    if (compare(magnitude, ExactValue::dyadic(false, 1, top)) >= 0) {
        body = maxpos;
        flags.overflow = compare(magnitude, ExactValue::dyadic(false, 1, top)) > 0;
        flags.inexact = flags.overflow;
    } else if (compare(magnitude, ExactValue::dyadic(false, 1, -top)) <= 0) {
        body = 1;
        flags.inexact = compare(magnitude, ExactValue::dyadic(false, 1, -top)) < 0;
        flags.underflow = flags.inexact;
    } else {
        const PositCut cut = cutPosit(magnitude, spec);
        flags.inexact = cut.dropped.inexact();
        body = cut.body + (bodyIncrements(cut, magnitude, spec, negative, options) ? 1 : 0);
    }
    return Conversion{negative ? negatedCode(spec, body) : body, flags};
}

} // namespace fpx
