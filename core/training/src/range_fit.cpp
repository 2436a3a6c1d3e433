// SPDX-License-Identifier: GPL-3.0-or-later
// Range fit: where each value of a tensor lands when it is scaled and rounded once into a
// format, and which power-of-two scales would fit it (docs/behaviour.md, "Range fit").
#include "fpx/training/range_fit.h"

#include "fpx/exact/code_details.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace fpx {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::int64_t kMinusInfinity = std::numeric_limits<std::int64_t>::min();

// The exact value rounded once to double (fp64's code is the double's bit pattern).
double roundToDouble(const ExactValue& value, RoundingMode mode) {
    RoundingOptions options;
    options.mode = mode;
    return nearestDouble(value, options);
}

std::size_t zoneIndex(RangeZone zone) {
    return static_cast<std::size_t>(zone);
}

// The definition every count follows: one exact rounding, read by its flags and code.
struct Classified {
    RangeZone zone = RangeZone::Zero;
    std::optional<ExactValue> rounded; // the value the code stands for (Subnormal, Normal)
};

Classified classifyExact(const ExactValue& scaled, const FormatSpec& format,
                         const RoundingOptions& rounding) {
    if (!scaled.isFinite())
        return {RangeZone::Overflow, std::nullopt};
    if (scaled.isZero())
        return {RangeZone::Zero, std::nullopt};
    const Conversion c = roundToFormat(scaled, format, rounding);
    if (c.flags.overflow)
        return {RangeZone::Overflow, std::nullopt};
    DecodedCode decoded = decodeCode(format, c.code);
    switch (decoded.valueClass) {
    case ValueClass::Zero:
        return {RangeZone::Flushed, std::nullopt};
    case ValueClass::Subnormal:
        return {RangeZone::Subnormal, std::move(decoded.value)};
    case ValueClass::Normal:
        // Integer and lookup levels decode as Normal, their zero level as Zero.
        if (decoded.value.isZero())
            return {RangeZone::Flushed, std::nullopt};
        return {RangeZone::Normal, std::move(decoded.value)};
    case ValueClass::Infinity:
    case ValueClass::NaN:
        break;
    }
    return {RangeZone::Overflow, std::nullopt};
}

// |q − v| / |v|, exact, rounded once to double.
double exactRelativeError(const ExactValue& rounded, const ExactValue& scaled) {
    return roundToDouble(((rounded - scaled) / scaled).abs(), RoundingMode::NearestEven);
}

// ---------------------------------------------------------------------------------------
// Zone edges, found by the exact core
// ---------------------------------------------------------------------------------------

// A boundary on one side's |v| axis: values above it lie in the upper zone, values below in
// the lower one, and the value itself where `inUpper` says.
struct Edge {
    ExactValue value;
    bool inUpper = true;
};

struct SideEdges {
    std::optional<Edge> flush;    // lower: Flushed; upper: not flushed
    std::optional<Edge> normal;   // lower: Subnormal; upper: Normal or beyond
    std::optional<Edge> overflow; // lower: representable; upper: Overflow
    // Negative values into an unsigned float: one zone whatever the magnitude (NaN, so
    // overflow; or, saturating, the lowest code), and no edges.
    std::optional<RangeZone> constantZone;
};

// The magnitudes around the edges of one side (positive or negative values) of a format.
struct SideLevels {
    std::optional<ExactValue> smallest;         // smallest non-zero magnitude (with a zero)
    std::optional<ExactValue> largestSubnormal; // with subnormal codes
    std::optional<ExactValue> minNormal;
    std::optional<ExactValue> largest;
    std::optional<ExactValue> beyond; // the next magnitude past `largest`, unbounded exponent
};

SideLevels sideLevels(const FormatSpec& format, bool negative) {
    SideLevels levels;
    if (negative && !format.isSigned) {
        // An unsigned integer clamps a negative level to 0: below the rounding boundary
        // between the levels 0 and −1 it flushes, from there on it is clipped.
        if (format.kind == FormatKind::Integer) {
            levels.smallest = format.scale;
            levels.largest = ExactValue::zero();
            levels.beyond = format.scale;
        }
        return levels;
    }
    switch (format.kind) {
    case FormatKind::BinaryFloat: {
        const FormatLimits limits = deriveLimits(format);
        if (format.hasZero())
            levels.smallest = limits.minPositive;
        if (format.exponentZeroIsSubnormal && format.fractionBits > 0 && limits.minNormal &&
            limits.minSubnormal) {
            levels.minNormal = *limits.minNormal;
            levels.largestSubnormal = *limits.minNormal - *limits.minSubnormal;
        }
        levels.largest = limits.max;
        levels.beyond =
            limits.max + ExactValue::dyadic(false, 1, limits.max.floorLog2() - format.fractionBits);
        break;
    }
    case FormatKind::Posit: {
        // No flush (nothing nonzero rounds to 0) and no subnormals; past maxpos it saturates.
        const FormatLimits limits = deriveLimits(format);
        levels.largest = limits.max;
        levels.beyond = virtualBeyond(format, limits.max);
        break;
    }
    case FormatKind::Integer: {
        const BigInt top = format.isSigned
                               ? (BigInt(1) << (format.integerBits - 1)) - (negative ? 0 : 1)
                               : (BigInt(1) << format.integerBits) - 1;
        if (top < 1)
            return levels;
        levels.smallest = format.scale;
        levels.largest = ExactValue::integer(top) * format.scale;
        levels.beyond = ExactValue::integer(top + 1) * format.scale;
        break;
    }
    case FormatKind::Lookup: {
        bool hasZero = false;
        for (const ExactValue& entry : format.table) {
            if (entry.isZero()) {
                hasZero = true;
                continue;
            }
            if (!entry.isFinite() || entry.isNegative() != negative)
                continue;
            const ExactValue magnitude = entry.abs() * format.scale;
            if (!levels.smallest || compare(magnitude, *levels.smallest) < 0)
                levels.smallest = magnitude;
            if (!levels.largest || compare(magnitude, *levels.largest) > 0)
                levels.largest = magnitude;
        }
        if (!levels.largest)
            return {};
        if (!hasZero)
            levels.smallest.reset();
        levels.beyond = levels.largest->timesPowerOfTwo(1);
        break;
    }
    }
    return levels;
}

// The boundary between two neighbouring magnitudes a < b where the zone changes, for a
// deterministic rounding. Values strictly between a and b round to a or b: all to one (the
// directed modes, round-to-odd) or split at the midpoint, the tie going one way (nearest
// modes). Three probes, each one exact rounding, tell which.
template <typename Upper> Edge findEdge(const ExactValue& a, const ExactValue& b, Upper upper) {
    const ExactValue step = (b - a).timesPowerOfTwo(-32);
    if (upper(a + step))
        return {a, false};
    if (!upper(b - step))
        return {b, true};
    const ExactValue middle = midpoint(a, b);
    return {middle, upper(middle)};
}

SideEdges sideEdges(const FormatSpec& format, const RoundingOptions& rounding, bool negative) {
    const SideLevels levels = sideLevels(format, negative);
    // Stochastic rounding: where a zone becomes possible. Truncation decides the lower edges
    // (a value below a level may round down past it) and rounding away from zero the overflow
    // edge (a value above max may round up past it).
    RoundingOptions lower = rounding;
    RoundingOptions upper = rounding;
    if (rounding.mode == RoundingMode::Stochastic) {
        lower.mode = RoundingMode::TowardZero;
        upper.mode = negative ? RoundingMode::TowardNegative : RoundingMode::TowardPositive;
    }
    auto zoneAt = [&](const ExactValue& magnitude, const RoundingOptions& options) {
        return classifyExact(negative ? magnitude.negated() : magnitude, format, options).zone;
    };
    SideEdges edges;
    if (negative && !format.isSigned && format.kind == FormatKind::BinaryFloat) {
        edges.constantZone = zoneAt(ExactValue::integer(1), rounding);
        return edges;
    }
    if (levels.smallest)
        edges.flush = findEdge(ExactValue::zero(), *levels.smallest, [&](const ExactValue& v) {
            return zoneAt(v, lower) != RangeZone::Flushed;
        });
    if (levels.largestSubnormal)
        edges.normal =
            findEdge(*levels.largestSubnormal, *levels.minNormal, [&](const ExactValue& v) {
                const RangeZone zone = zoneAt(v, lower);
                return zone == RangeZone::Normal || zone == RangeZone::Overflow;
            });
    if (levels.largest)
        edges.overflow = findEdge(*levels.largest, *levels.beyond, [&](const ExactValue& v) {
            return zoneAt(v, upper) == RangeZone::Overflow;
        });
    return edges;
}

// The smallest double d ≥ 0 that lies in the edge's upper zone: |v| is in the upper zone
// exactly when |v| ≥ threshold (for a double v), whether or not the edge is a double.
double doubleThreshold(const Edge& edge) {
    double d = roundToDouble(edge.value, RoundingMode::TowardPositive);
    if (!edge.inUpper && exactFromDouble(d) == edge.value)
        d = std::nextafter(d, kInfinity);
    return d;
}

// An edge for the scale search: m·2^j (1 ≤ m < 2) lies in the upper zone exactly when
// j > log2, or j = log2 and m ≥ mantissa. A zero edge (nothing below it) has no log2.
struct ScaleEdge {
    std::int64_t log2 = 0;
    double mantissa = 1;
};

std::optional<ScaleEdge> scaleEdge(const Edge& edge) {
    if (edge.value.isZero())
        return std::nullopt;
    const std::int64_t log2 = edge.value.floorLog2();
    return ScaleEdge{log2, doubleThreshold({edge.value.timesPowerOfTwo(-log2), edge.inUpper})};
}

// The exponent of 2^k at which m·2^(e+k) first reaches the upper zone.
std::int64_t firstUpperK(const ScaleEdge& edge, double m, std::int64_t e) {
    return m >= edge.mantissa ? edge.log2 - e : edge.log2 - e + 1;
}

// 2^k as a double, built from its bits for the normal range; 0 or ∞ beyond it.
double powerOfTwo(int k) {
    if (k < -1022)
        return 0;
    if (k > 1023)
        return kInfinity;
    return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
}

// ⌊log2 x⌋ of a positive finite double: the exponent field, or ilogb for a subnormal.
int binadeOf(double x) {
    const int field = static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ff);
    return field != 0 ? field - 1023 : std::ilogb(x);
}

bool isDeterministic(RoundingMode mode) {
    return mode != RoundingMode::Stochastic;
}

} // namespace

std::string_view rangeZoneId(RangeZone zone) {
    switch (zone) {
    case RangeZone::Zero:
        return "zero";
    case RangeZone::Flushed:
        return "flushed";
    case RangeZone::Subnormal:
        return "subnormal";
    case RangeZone::Normal:
        return "normal";
    case RangeZone::Overflow:
        return "overflow";
    }
    return "zero";
}

std::size_t RangeFit::total() const {
    std::size_t sum = nonFinite;
    for (const std::size_t c : counts)
        sum += c;
    return sum;
}

double RangeFit::fraction(RangeZone zone) const {
    const std::size_t all = total();
    return all == 0 ? 0.0 : double(count(zone)) / double(all);
}

RangeZone rangeZoneOf(const ExactValue& scaled, const FormatSpec& format,
                      const RoundingOptions& rounding) {
    return classifyExact(scaled, format, rounding).zone;
}

RangeZoneEdges rangeZoneEdges(const FormatSpec& format, const RoundingOptions& rounding) {
    const SideEdges side = sideEdges(format, rounding, false);
    RangeZoneEdges edges;
    if (side.flush) {
        edges.flushEdge = side.flush->value;
        edges.flushInclusive = !side.flush->inUpper;
    }
    if (side.normal) {
        edges.normalEdge = side.normal->value;
        edges.normalInclusive = side.normal->inUpper;
    }
    if (side.overflow) {
        edges.overflowEdge = side.overflow->value;
        edges.overflowInclusive = side.overflow->inUpper;
    }
    return edges;
}

// ---------------------------------------------------------------------------------------
// RangeClassifier
// ---------------------------------------------------------------------------------------

struct RangeClassifier::State {
    FormatSpec format;
    RangeFitOptions options;
    std::array<SideEdges, 2> edges; // [0] positive values, [1] negative values

    // The double path (docs/proofs.md, "The range-fit double path"): S = 2^scaleLog2, thresholds
    // per side.
    bool fast = false;
    double scaleUp = 1, scaleDown = 1; // S and 1/S, both normal doubles
    std::array<double, 2> flushAt{}, normalAt{}, overflowAt{};
    bool hasSubnormals = false;
    int precision = 0;
    int minExponent = 0;

    Outcome exact(double x, std::uint64_t index) const {
        const ExactValue scaled = exactFromDouble(x) * options.scale;
        RoundingOptions rounding = options.rounding;
        if (rounding.mode == RoundingMode::Stochastic)
            rounding.randomBits = stochasticBits(options.rounding.randomBits, index);
        Classified c = classifyExact(scaled, format, rounding);
        Outcome outcome{c.zone, std::nullopt, false};
        if (c.rounded)
            outcome.relativeError = exactRelativeError(*c.rounded, scaled);
        return outcome;
    }

    // q = |v| rounded to the format's grid, in double: |v| = t·2^quantum with the quantum of
    // |v|'s binade (or of the subnormals), t rounded to an integer by the mode. Only called
    // for values that neither flush nor overflow, so the grid is the format's own. nullopt
    // where a scaling would not be exact (formats far wider than a double).
    std::optional<double> roundMagnitude(double magnitude, bool negative) const {
        const int quantum = std::max(binadeOf(magnitude), minExponent) - (precision - 1);
        const double down = powerOfTwo(-quantum);
        const double up = powerOfTwo(quantum);
        const double t = magnitude * down; // < 2^precision
        if (t * up != magnitude || down == 0 || up == 0)
            return std::nullopt; // t lost bits
        const double whole = std::floor(t);
        const double fraction = t - whole; // exact: a double's fractional part is a double
        // Every double from 2^53 on is even; below, the integer holds it exactly.
        const bool odd = whole < 0x1p53 && (static_cast<std::uint64_t>(whole) & 1) != 0;
        bool increment = false;
        switch (options.rounding.mode) {
        case RoundingMode::NearestEven:
            increment = fraction > 0.5 || (fraction == 0.5 && odd);
            break;
        case RoundingMode::NearestAway:
            increment = fraction >= 0.5;
            break;
        case RoundingMode::TowardZero:
            break;
        case RoundingMode::TowardPositive:
            increment = fraction > 0 && !negative;
            break;
        case RoundingMode::TowardNegative:
            increment = fraction > 0 && negative;
            break;
        case RoundingMode::ToOdd:
            increment = fraction > 0 && !odd;
            break;
        case RoundingMode::Stochastic:
            break;
        }
        const double q = (whole + (increment ? 1.0 : 0.0)) * up;
        if (!std::isfinite(q))
            return std::nullopt;
        return q;
    }

    Outcome classify(double x, std::uint64_t index) const {
        if (x == 0)
            return {RangeZone::Zero, std::nullopt, true};
        if (!fast)
            return exact(x, index);
        // x·S exact: a power-of-two scaling loses nothing short of overflow, or of a subnormal
        // result when scaling down, which the exact scaling back up cannot restore to x.
        const double v = x * scaleUp;
        if (!std::isfinite(v) || v * scaleDown != x)
            return exact(x, index);
        const bool negative = std::signbit(v);
        const std::size_t side = negative ? 1 : 0;
        const double magnitude = std::fabs(v);
        if (magnitude < flushAt[side])
            return {RangeZone::Flushed, std::nullopt, true};
        if (magnitude >= overflowAt[side])
            return {RangeZone::Overflow, std::nullopt, true};
        const RangeZone zone =
            hasSubnormals && magnitude < normalAt[side] ? RangeZone::Subnormal : RangeZone::Normal;
        // The error q − |v| by TwoSum (Knuth): `difference` is the double nearest to it and
        // `residual` what that rounding lost, so residual == 0 proves the difference exact and
        // the one division below the only rounding.
        if (const auto rounded = roundMagnitude(magnitude, negative)) {
            const double q = *rounded;
            const double difference = q - magnitude;
            const double qPart = difference + magnitude;
            const double vPart = difference - qPart;
            const double residual = (q - qPart) + (-magnitude - vPart);
            if (residual == 0)
                return {zone, std::fabs(difference) / magnitude, true};
        }
        Outcome outcome = exact(x, index);
        outcome.fast = false;
        return outcome;
    }
};

RangeClassifier::RangeClassifier(const FormatSpec& format, const RangeFitOptions& options)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.format = format;
    s.options = options;
    s.edges = {sideEdges(format, options.rounding, false),
               sideEdges(format, options.rounding, true)};

    const ExactValue& scale = options.scale;
    const bool isPowerOfTwo = scale.isFinite() && !scale.isZero() && !scale.isNegative() &&
                              scale == ExactValue::dyadic(false, 1, scale.floorLog2());
    // S and 1/S as normal doubles; beyond, nearly every product leaves a double's range anyway.
    s.fast = isPowerOfTwo && std::llabs(scale.floorLog2()) <= 1022 &&
             isDeterministic(options.rounding.mode) && format.kind == FormatKind::BinaryFloat &&
             format.isSigned && format.hasZero();
    for (const SideEdges& side : s.edges)
        s.fast = s.fast && side.flush && side.overflow;
    if (!s.fast)
        return;
    s.scaleUp = powerOfTwo(static_cast<int>(scale.floorLog2()));
    s.scaleDown = powerOfTwo(static_cast<int>(-scale.floorLog2()));
    s.hasSubnormals = s.edges[0].normal.has_value();
    s.precision = format.precision();
    s.minExponent = format.minExponent();
    for (std::size_t side = 0; side < 2; ++side) {
        s.flushAt[side] = doubleThreshold(*s.edges[side].flush);
        s.overflowAt[side] = doubleThreshold(*s.edges[side].overflow);
        s.normalAt[side] =
            s.edges[side].normal ? doubleThreshold(*s.edges[side].normal) : s.flushAt[side];
    }
}

RangeClassifier::~RangeClassifier() = default;
RangeClassifier::RangeClassifier(RangeClassifier&&) noexcept = default;
RangeClassifier& RangeClassifier::operator=(RangeClassifier&&) noexcept = default;

RangeClassifier::Outcome RangeClassifier::classify(double x, std::uint64_t index) const {
    return state_->classify(x, index);
}

bool RangeClassifier::hasFastPath() const {
    return state_->fast;
}

namespace {

// The exponents k of 2^k that overflow no value and, among those, flush the fewest. Each
// value's overflow starts at one k and its flushing ends at one k (both zones are monotone in
// |x|·2^k). The safe k are those up to K, the least of the values' last safe k; the count
// flushed only falls as k grows, so K flushes the fewest, and so does every k from the last
// value's flush end at or below K (the largest such end) up to K.
// Each element as a double, by a loop per element type.
template <typename Visit> void forEachValue(const TensorView& values, Visit visit) {
    if (values.isDouble()) {
        for (std::size_t i = 0; i < values.doubles.size(); ++i)
            visit(i, values.doubles[i]);
    } else {
        for (std::size_t i = 0; i < values.floats.size(); ++i)
            visit(i, double(values.floats[i]));
    }
}

std::optional<std::array<std::int64_t, 2>> bestScales(const TensorView& values,
                                                      const std::array<SideEdges, 2>& edges) {
    std::array<std::optional<ScaleEdge>, 2> flush, overflow;
    for (std::size_t side = 0; side < 2; ++side) {
        if (edges[side].flush)
            flush[side] = scaleEdge(*edges[side].flush);
        if (edges[side].overflow)
            overflow[side] = scaleEdge(*edges[side].overflow);
    }
    // A value's flush end is log2 − e or log2 − e + 1 with e, a double's binade, from −1074 to
    // 1023: which ends occur is a bitmap per side, offset by the lowest possible end.
    constexpr std::int64_t kLowestBinade = -1074, kHighestBinade = 1023;
    constexpr std::size_t kEnds = kHighestBinade - kLowestBinade + 2;
    std::array<std::vector<bool>, 2> endSeen{std::vector<bool>(kEnds), std::vector<bool>(kEnds)};
    auto endOffset = [&](std::size_t side) { return flush[side]->log2 - kHighestBinade; };
    bool any = false;
    bool unsafe = false;
    std::int64_t highest = std::numeric_limits<std::int64_t>::max();
    forEachValue(values, [&](std::size_t, double x) {
        if (!std::isfinite(x) || x == 0)
            return;
        any = true;
        const std::size_t side = std::signbit(x) ? 1 : 0;
        if (edges[side].constantZone) {
            // A negative value into an unsigned float: it overflows at every k, or its zone
            // (and so the count flushed) never changes with k and it bounds nothing.
            unsafe = unsafe || *edges[side].constantZone == RangeZone::Overflow;
            return;
        }
        if (!overflow[side]) {
            unsafe = true;
            return;
        }
        int e2 = 0;
        const double m = 2 * std::frexp(std::fabs(x), &e2); // |x| = m·2^e, 1 ≤ m < 2
        const std::int64_t e = e2 - 1;
        highest = std::min(highest, firstUpperK(*overflow[side], m, e) - 1);
        // A value on a side without a flush edge flushes at no k: it never raises the lowest.
        if (flush[side])
            endSeen[side]
                   [static_cast<std::size_t>(firstUpperK(*flush[side], m, e) - endOffset(side))] =
                       true;
    });
    if (!any || unsafe || highest == std::numeric_limits<std::int64_t>::max())
        return std::nullopt;
    std::int64_t lowest = kMinusInfinity;
    for (std::size_t side = 0; side < 2; ++side)
        for (std::size_t i = 0; i < kEnds && flush[side]; ++i)
            if (endSeen[side][i]) {
                const std::int64_t end = std::int64_t(i) + endOffset(side);
                if (end <= highest)
                    lowest = std::max(lowest, end);
            }
    return std::array<std::int64_t, 2>{lowest, highest};
}

// A sum of many small positive terms, compensated (Neumaier) so the mean does not drift with
// the tensor's size.
struct CompensatedSum {
    double sum = 0, compensation = 0;
    void add(double term) {
        const double t = sum + term;
        compensation += std::fabs(sum) >= std::fabs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    double value() const { return sum + compensation; }
};

} // namespace

RangeFit fitRange(const TensorView& values, const FormatSpec& format,
                  const RangeFitOptions& options) {
    RangeFit fit;
    fit.format = format;
    fit.scale = options.scale;
    const RangeClassifier classifier(format, options);
    std::optional<double> maxError;
    CompensatedSum errorSum;
    std::size_t errorCount = 0;
    forEachValue(values, [&](std::size_t i, double x) {
        if (!std::isfinite(x)) {
            ++fit.nonFinite;
            return;
        }
        const RangeClassifier::Outcome outcome = classifier.classify(x, i);
        ++fit.counts[zoneIndex(outcome.zone)];
        if (outcome.relativeError) {
            maxError = std::max(maxError.value_or(0.0), *outcome.relativeError);
            errorSum.add(*outcome.relativeError);
            ++errorCount;
        }
    });
    fit.maxRelativeError = maxError;
    if (errorCount > 0)
        fit.meanRelativeError = errorSum.value() / double(errorCount);
    fit.bestScales = bestScales(values, {sideEdges(format, options.rounding, false),
                                         sideEdges(format, options.rounding, true)});
    return fit;
}

} // namespace fpx
