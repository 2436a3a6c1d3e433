// SPDX-License-Identifier: GPL-3.0-or-later
// x·S rounded once into a format, for many elements: a table of the exact core's answers on
// the pieces of the magnitude axis, and the exact core for whatever the table cannot answer.
#include "scaled_cast.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace fpx::training {

namespace {

bool symmetricDeterministic(RoundingMode mode) {
    return mode == RoundingMode::NearestEven || mode == RoundingMode::NearestAway ||
           mode == RoundingMode::TowardZero || mode == RoundingMode::ToOdd;
}

bool tableApplies(const FormatSpec& format, const RoundingOptions& rounding) {
    return format.kind == FormatKind::BinaryFloat && format.isSigned &&
           format.exponentZeroIsSubnormal && !format.explicitIntegerBit &&
           format.totalBits() <= 16 && symmetricDeterministic(rounding.mode);
}

ScaledOutcome outcomeOf(const ExactValue& scaled, const FormatSpec& format,
                        const RoundingOptions& rounding) {
    const Conversion c = roundToFormat(scaled, format, rounding);
    return {rangeZoneOf(scaled, format, rounding), nearestDouble(decodeCode(format, c.code).value)};
}

} // namespace

std::optional<double> exactProduct(double x, double scale) {
    const double product = x * scale;
    // Above 2^−960 the product's rounding error is itself a double (its exponent stays above
    // the double's emin + 52), so the FMA returns it exactly: zero exactly when x·S is.
    if (!std::isfinite(product) || std::fabs(product) < 0x1p-960)
        return std::nullopt;
    if (std::fma(x, scale, -product) != 0)
        return std::nullopt;
    return product;
}

ScaledCast::ScaledCast(const FormatSpec& format, const RoundingOptions& rounding)
    : format_(format), rounding_(rounding) {
    negativeZero_ = format.hasNegativeZero();
    zero_[0] = outcomeOf(ExactValue::zero(false), format, rounding);
    zero_[1] = outcomeOf(ExactValue::zero(true), format, rounding);
    if (!tableApplies(format, rounding))
        return;
    // The positive finite values in order (codes with the sign bit clear ascend with their
    // values; NaN and ∞ codes are left out).
    std::vector<ExactValue> values;
    for (Code code = 1; code < format.signBit(); ++code) {
        const DecodedCode d = decodeCode(format, code);
        if (d.value.isFinite() && !d.value.isZero())
            values.push_back(d.value);
    }
    if (values.empty())
        return;
    const ExactValue& largest = values.back();
    const ExactValue pastLargest =
        largest + ExactValue::dyadic(false, 1, largest.floorLog2() - format.fractionBits);
    std::vector<ExactValue> cuts{ExactValue::zero()};
    for (const ExactValue& v : values) {
        cuts.push_back(midpoint(cuts.back(), v));
        cuts.push_back(v);
    }
    cuts.push_back(midpoint(largest, pastLargest));
    cuts.push_back(pastLargest);

    std::vector<double> points;
    std::vector<ScaledOutcome> atPoint, inInterval;
    for (std::size_t j = 0; j < cuts.size(); ++j) {
        const double point = nearestDouble(cuts[j]);
        if (!(exactFromDouble(point) == cuts[j]))
            return; // a cut that is not a double: no table, every element exact
        points.push_back(point);
        atPoint.push_back(outcomeOf(cuts[j], format, rounding));
        const ExactValue interior =
            j + 1 < cuts.size() ? midpoint(cuts[j], cuts[j + 1]) : cuts[j].timesPowerOfTwo(1);
        inInterval.push_back(outcomeOf(interior, format, rounding));
    }
    points_ = std::move(points);
    atPoint_ = std::move(atPoint);
    inInterval_ = std::move(inInterval);
    buildBuckets(format.fractionBits);
}

// Positive doubles order as their bit patterns do, so the top bits of a magnitude (exponent and
// the first fractionBits + 1 significand bits) name a bucket that holds at most a few cut
// points: a cut point in a lower bucket is below the magnitude, one in a higher bucket above
// it, and only the magnitude's own bucket needs a search.
//
//   bits of |x·S|:  [ exponent | f+1 leading significand bits | rest ]  >> shift = bucket key
void ScaledCast::buildBuckets(int fractionBits) {
    bucketShift_ = std::max(0, 52 - (fractionBits + 1));
    keyMin_ = keyOf(points_[1]);
    const std::uint64_t keyMax = keyOf(points_.back());
    if (keyMax - keyMin_ >= kMaxBuckets)
        return; // a binary search over every point instead
    bucketFirst_.assign(std::size_t(keyMax - keyMin_) + 2, std::uint32_t(points_.size()));
    // bucketFirst_[b]: the first point whose key is keyMin_ + b or more.
    std::size_t j = 1;
    for (std::size_t b = 0; b + 1 < bucketFirst_.size(); ++b) {
        while (j < points_.size() && keyOf(points_[j]) < keyMin_ + b)
            ++j;
        bucketFirst_[b] = std::uint32_t(j);
    }
}

std::uint64_t ScaledCast::keyOf(double magnitude) const {
    return std::bit_cast<std::uint64_t>(magnitude) >> bucketShift_;
}

std::size_t ScaledCast::lastPointAtOrBelow(double magnitude) const {
    // points_[0] = 0 < magnitude.
    auto first = points_.begin() + 1, last = points_.end();
    if (!bucketFirst_.empty()) {
        if (magnitude < points_[1])
            return 0;
        if (magnitude >= points_.back())
            return points_.size() - 1;
        const std::size_t b = std::size_t(keyOf(magnitude) - keyMin_);
        first = points_.begin() + bucketFirst_[b];
        last = points_.begin() + bucketFirst_[b + 1];
    }
    // Every point before `first` is below the magnitude, every point from `last` above it.
    return std::size_t(std::upper_bound(first, last, magnitude) - points_.begin()) - 1;
}

ScaledOutcome ScaledCast::exact(double x, double scale, std::size_t index) const {
    RoundingOptions rounding = rounding_;
    if (rounding.mode == RoundingMode::Stochastic)
        rounding.randomBits = stochasticBits(rounding_.randomBits, index);
    const ExactValue scaled = exactFromDouble(x) * exactFromDouble(scale);
    return outcomeOf(scaled, format_, rounding);
}

ScaledOutcome ScaledCast::operator()(double x, double scale, std::size_t index) const {
    if (x == 0) // ReLU outputs and padding: many zeros, answered once per sign
        return zero_[std::signbit(x) ? 1 : 0];
    if (!hasTable() || !std::isfinite(x))
        return exact(x, scale, index);
    // Two floats multiply exactly in double (48 significant bits, exponents far inside
    // the double's range): no FMA check needed, the common case of FP32 tensors.
    const bool floats = double(float(x)) == x && double(float(scale)) == scale;
    const auto product = floats ? std::optional<double>(x * scale) : exactProduct(x, scale);
    if (!product)
        return exact(x, scale, index);
    const double magnitude = std::fabs(*product);
    const std::size_t j = lastPointAtOrBelow(magnitude);
    ScaledOutcome outcome = points_[j] == magnitude ? atPoint_[j] : inInterval_[j];
    // Rounding is symmetric in these modes: −x lands where x does, negated (a flushed −x is
    // −0 where the format has one).
    if (*product < 0 && (outcome.value != 0 || negativeZero_))
        outcome.value = -outcome.value;
    return outcome;
}

} // namespace fpx::training
