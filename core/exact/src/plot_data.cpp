// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/plot_data.h"

#include "fpx/exact/code_details.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/posit.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace fpx {

namespace {

// Nearest double (±inf beyond its range, ±0 below it).
double toDouble(const ExactValue& v) {
    if (v.isNaN())
        return std::nan("");
    const Code code = roundToFormat(v, fp64Spec()).code;
    const auto bits = static_cast<std::uint64_t>(code);
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

// The double next to v in the given direction (up: the smallest double ≥ v), for bounds.
double toDoubleToward(const ExactValue& v, bool up) {
    if (v.isNaN())
        return std::nan("");
    RoundingOptions directed;
    directed.mode = up ? RoundingMode::TowardPositive : RoundingMode::TowardNegative;
    const auto bits = static_cast<std::uint64_t>(roundToFormat(v, fp64Spec(), directed).code);
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

ExactValue fromDouble(double d) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof d);
    return decodeCode(fp64Spec(), bits).value;
}

// log2 |v| as a double, for values far beyond the range of double.
double log2Of(const ExactValue& v) {
    const std::int64_t e = v.abs().floorLog2();
    const double mantissa = toDouble(v.abs().timesPowerOfTwo(-e)); // in [1, 2)
    return static_cast<double>(e) + std::log2(mantissa);
}

// The gap of a posit around 2^s (−maxScale ≤ s < maxScale): from the largest value at or
// below 2^s, `start`, to the next. Where the regime cut exponent bits, start may lie binades
// below 2^s.
struct PositGap {
    ExactValue start;
    ExactValue gap;
};
PositGap positGapAt(const FormatSpec& spec, std::int64_t s) {
    RoundingOptions down;
    down.mode = RoundingMode::TowardNegative;
    const Code c = roundToFormat(ExactValue::dyadic(false, 1, s), spec, down).code;
    const ExactValue start = decodeCode(spec, c).value;
    return {start, decodeCode(spec, c + 1).value - start};
}

std::vector<ExactValue> sortedFiniteValues(const FormatSpec& spec) {
    std::vector<ExactValue> values;
    const Code count = Code(1) << spec.totalBits();
    for (Code code = 0; code < count; ++code) {
        const DecodedCode d = decodeCode(spec, code);
        if (d.value.isFinite())
            values.push_back(d.value.isZero() ? ExactValue::zero() : d.value);
    }
    std::sort(values.begin(), values.end(),
              [](const ExactValue& a, const ExactValue& b) { return compare(a, b) < 0; });
    values.erase(
        std::unique(values.begin(), values.end(),
                    [](const ExactValue& a, const ExactValue& b) { return compare(a, b) == 0; }),
        values.end());
    return values;
}

} // namespace

// ---------------------------------------------------------------------------------------
// Pieces of the error, and its exact bounds over an interval
// ---------------------------------------------------------------------------------------
//
// Rounding cuts the real line into cells between neighbouring values a < b. Inside one open
// cell it stores a up to a boundary m and b beyond, so the error is linear with slope −1 on
// each of the two pieces:
//
//     stored − x                             round to nearest: m = (a + b) / 2
//    +g/2 ┤            |\                    directed, to odd: m = a or m = b (one piece)
//         │            |  \                  g = b − a
//       0 ┼──a\────────┼────\──b──▶ x
//         │     \      |
//    −g/2 ┤        \   |
//                      m
//
// Past the largest value comes one more cell (max, max + ulp), which rounds to max or
// overflows at its midpoint, and then a ray on which every x rounds alike (±∞, NaN or ±max);
// mirrored below the lowest value. Unsigned formats have a ray below 0 instead.
//
// On one piece storing r, clipped to an interval [L, H]:
//   - r − x falls as x grows: its supremum is r − L and its infimum r − H (limits where the
//     piece is open: a bound holds whether or not the ends are attained);
//   - |r − x| / |x| = |r/x − 1|, and r/x − 1 is monotonic on each side of 0, so the supremum
//     of its absolute value is at L or at H as well; at an end x = 0 it is 1 when r = 0 and
//     unbounded otherwise.
// The bounds over a sample's interval [s, t] are the largest and smallest of these end values
// over the pieces that meet (s, t), together with e(s), e(t) and e(0) themselves.
//
// Wide formats have far too many pieces in one interval to visit, and need not:
//   - binary floats: the gap g is the same across a binade and doubles from one binade to the
//     next (the subnormals share the gap of the smallest normal binade): it never shrinks
//     away from 0. Every one-sided limit of the error at a piece end is a multiple of its
//     cell's g (0, ±g/2, ±g) fixed by the mode, the side of 0 and the parity of the cell's
//     codes (ties to even, round to odd); the parity alternates from cell to cell.
//     The error: the cells farthest from 0 have the widest gaps, so its extremes lie in the
//     cell cut by s or t or the two whole cells next to it (one of each parity).
//     The relative error: the same multiples over a larger |x| are smaller, so within each
//     binade it is largest in the two cells nearest 0; and it is the same at the start of
//     every normal binade (x and g both double there). So the cells next to 0, next to s and
//     t, and after the first power of two past s (before the last one short of t, for x < 0)
//     hold every extreme;
//   - integers: one gap, the scale, everywhere: the same cells hold the extremes;
//   - lookup tables (NF4) have irregular gaps and few values: every cell is visited.
// The cells beyond ±max lie next to s or t whenever they meet [s, t]. The brute-force test in
// tests/core/tst_plotdata.cpp checks all of this against every value of the small formats.
//
// Stochastic rounding may store either neighbour of an inexact x, and both count: the
// rounding with all random bits 0 stores the one away from 0, with all bits 1 the one toward
// 0 (except within 2^−64 of a gap from the far end, below the resolution of a double).

namespace {

// One open stretch of x, (low, high), on which rounding stores one value. low and high may be
// ±∞ (a ray); stored may be ±∞ or NaN.
struct Piece {
    ExactValue low;
    ExactValue high;
    ExactValue stored;
};

// The open cell (low, high) between neighbouring breakpoints (either may be infinite).
struct Cell {
    ExactValue low;
    ExactValue high;
};

const ExactValue& minOf(const ExactValue& a, const ExactValue& b) {
    return compare(a, b) <= 0 ? a : b;
}
const ExactValue& maxOf(const ExactValue& a, const ExactValue& b) {
    return compare(a, b) >= 0 ? a : b;
}

// Bounds of the error over one sample's interval, built up piece by piece.
class ErrorBounds {
  public:
    // One value x of the interval (an end, or 0) stored as r.
    void addPoint(const ExactValue& x, const ExactValue& r) {
        if (r.isNaN()) {
            undefined_ = true;
            return;
        }
        addError(r - x);
        if (!x.isZero())
            addRelative(x, r);
    }

    // The piece (low, high) → r, clipped to (s, t).
    void addPiece(const Piece& piece, const ExactValue& s, const ExactValue& t) {
        const ExactValue& lo = maxOf(piece.low, s);
        const ExactValue& hi = minOf(piece.high, t);
        if (compare(lo, hi) >= 0)
            return; // no x of (s, t) in this piece
        const ExactValue& r = piece.stored;
        if (r.isNaN()) {
            undefined_ = true;
            return;
        }
        addError(r - lo); // the largest: the slope is −1
        addError(r - hi); // the smallest
        addRelative(lo, r);
        addRelative(hi, r);
        if (lo.isNegative() && !lo.isZero() && !hi.isNegative() && !hi.isZero())
            addRelativeNextToZero(r);
    }

    bool undefined() const { return undefined_; }
    const ExactValue& upper() const { return upper_; }
    const ExactValue& lower() const { return lower_; }
    const ExactValue& relative() const { return relative_; }

  private:
    void addError(const ExactValue& e) {
        if (compare(e, upper_) > 0)
            upper_ = e;
        if (compare(e, lower_) < 0)
            lower_ = e;
    }
    void addRelative(const ExactValue& x, const ExactValue& r) {
        if (x.isZero()) {
            addRelativeNextToZero(r);
            return;
        }
        const ExactValue rel = r.isInfinity() ? r.abs() : (r - x).abs() / x.abs();
        if (compare(rel, relative_) > 0)
            relative_ = rel;
    }
    // The limit of |r − x| / |x| as x → 0 inside a piece.
    void addRelativeNextToZero(const ExactValue& r) {
        const ExactValue rel = r.isZero() ? ExactValue::integer(1) : ExactValue::infinity(false);
        if (compare(rel, relative_) > 0)
            relative_ = rel;
    }

    bool undefined_ = false;
    ExactValue upper_ = ExactValue::infinity(true);
    ExactValue lower_ = ExactValue::infinity(false);
    ExactValue relative_ = ExactValue::zero();
};

// The cells of a format under one rounding mode and overflow policy.
class CellMap {
  public:
    CellMap(const FormatSpec& spec, const RoundingOptions& options)
        : spec_(spec), limits_(deriveLimits(spec)) {
        if (options.mode == RoundingMode::Stochastic) {
            // The random bits that round away most and least often: all 64 compare R < ν·2^64,
            // so R = 0 goes away from any ν > 0; N of them add R to the residue, so the
            // largest R does (docs/behaviour.md, "Stochastic rounding with N random bits").
            const bool sixtyFour = options.stochastic.count == 0;
            RoundingOptions away = options;
            away.randomBits = sixtyFour ? 0 : ~std::uint64_t(0);
            RoundingOptions towardZero = options;
            towardZero.randomBits = sixtyFour ? ~std::uint64_t(0) : 0;
            outcomes_ = {away, towardZero};
        } else {
            outcomes_ = {options};
        }
        beyondMax_ = limits_.max + *unitInLastPlace(spec, limits_.maxCode);
        if (spec.isSigned)
            beyondLowest_ = limits_.lowest - *unitInLastPlace(spec, limits_.lowestCode);
        if (spec.kind == FormatKind::Lookup) {
            const std::vector<ExactValue> values = sortedFiniteValues(spec);
            smallestGap_ = values.back() - values.front();
            for (std::size_t i = 1; i < values.size(); ++i)
                smallestGap_ = minOf(smallestGap_, values[i] - values[i - 1]);
        }
    }

    const FormatSpec& spec() const { return spec_; }
    const FormatLimits& limits() const { return limits_; }

    // Every value rounding may store for x.
    std::vector<ExactValue> storedAt(const ExactValue& x) const {
        std::vector<ExactValue> stored;
        for (const RoundingOptions& o : outcomes_)
            stored.push_back(valueOf(roundToFormat(x, spec_, o).code));
        return stored;
    }

    // The cell (low, high) with low ≤ x < high.
    Cell above(const ExactValue& x) const {
        if (auto edge = edgeCellAbove(x))
            return *edge;
        const ExactValue low = roundSaturating(x, RoundingMode::TowardNegative);
        const ExactValue high = compare(low, x) == 0
                                    ? roundSaturating(x + tinyStep(x), RoundingMode::TowardPositive)
                                    : roundSaturating(x, RoundingMode::TowardPositive);
        return {low, high};
    }

    // The cell (low, high) with low < x ≤ high.
    Cell below(const ExactValue& x) const {
        if (auto edge = edgeCellBelow(x))
            return *edge;
        const ExactValue high = roundSaturating(x, RoundingMode::TowardPositive);
        const ExactValue low = compare(high, x) == 0
                                   ? roundSaturating(x - tinyStep(x), RoundingMode::TowardNegative)
                                   : roundSaturating(x, RoundingMode::TowardNegative);
        return {low, high};
    }

    // The pieces of a cell, for each possible outcome of rounding.
    std::vector<Piece> pieces(const Cell& cell) const {
        std::vector<Piece> result;
        for (const RoundingOptions& o : outcomes_) {
            auto stored = [&](const ExactValue& x) {
                return valueOf(roundToFormat(x, spec_, o).code);
            };
            if (cell.low.isInfinity() || cell.high.isInfinity()) {
                // A ray: every x on it rounds alike.
                const ExactValue inside =
                    cell.low.isInfinity() ? cell.high - (cell.high.abs() + ExactValue::integer(1))
                                          : cell.low + (cell.low.abs() + ExactValue::integer(1));
                result.push_back({cell.low, cell.high, stored(inside)});
                continue;
            }
            // Probed on either side of where the nearest modes change (a posit's tie lies off
            // the middle), the only place inside a cell where what is stored can change.
            const ExactValue tie = tiePoint(cell);
            const ExactValue left = stored(midpoint(cell.low, tie));
            const ExactValue right = stored(midpoint(tie, cell.high));
            if (left.isIdenticalTo(right) || (left.isNaN() && right.isNaN())) {
                result.push_back({cell.low, cell.high, left});
            } else {
                result.push_back({cell.low, tie, left});
                result.push_back({tie, cell.high, right});
            }
        }
        return result;
    }

  private:
    ExactValue valueOf(Code code) const { return decodeCode(spec_, code).value; }

    // The nearest modes' tie point of a finite cell between two neighbouring values; its
    // middle where an end is no value of the format (past the range).
    ExactValue tiePoint(const Cell& cell) const {
        if (spec_.kind != FormatKind::Posit) // the midpoint: no codes to look up per cell
            return midpoint(cell.low, cell.high);
        const Code low = roundToFormat(cell.low, spec_).code;
        const Code high = roundToFormat(cell.high, spec_).code;
        if (!(valueOf(low) == cell.low) || !(valueOf(high) == cell.high))
            return midpoint(cell.low, cell.high);
        return nearestBoundary(spec_, Neighbour{low, cell.low}, Neighbour{high, cell.high});
    }

    ExactValue roundSaturating(const ExactValue& x, RoundingMode mode) const {
        RoundingOptions o;
        o.mode = mode;
        o.overflow = OverflowPolicy::Saturate;
        return valueOf(roundToFormat(x, spec_, o).code);
    }

    // Less than half of every gap next to x: x ± it lies in the cell next to x.
    ExactValue tinyStep(const ExactValue& x) const {
        switch (spec_.kind) {
        case FormatKind::BinaryFloat: {
            std::int64_t binade = spec_.minExponent();
            if (!x.isZero())
                binade = std::max(binade, x.floorLog2());
            return ExactValue::dyadic(false, 1, binade - spec_.fractionBits - 2);
        }
        case FormatKind::Integer:
            return spec_.scale.abs().timesPowerOfTwo(-2);
        case FormatKind::Lookup:
            return smallestGap_.timesPowerOfTwo(-2);
        case FormatKind::Posit: {
            // Gaps shrink toward 0: a quarter of the one on x's side nearer 0 is small enough.
            RoundingOptions toZero;
            toZero.mode = RoundingMode::TowardZero;
            const Code c = roundToFormat(x, spec_, toZero).code;
            const auto inward = x.isNegative() ? nextUp(spec_, c) : nextDown(spec_, c);
            if (x.isZero() || !inward || inward->value.isZero() || c == 0)
                return limits_.minPositive.timesPowerOfTwo(-2);
            return (valueOf(c) - inward->value).abs().timesPowerOfTwo(-2);
        }
        }
        return ExactValue::integer(1);
    }

    // The cells past the largest and below the lowest value, and below the smallest value
    // of an unsigned format; nothing when x lies among the values.
    std::optional<Cell> edgeCellAbove(const ExactValue& x) const {
        const ExactValue plusInf = ExactValue::infinity(false);
        const ExactValue minusInf = ExactValue::infinity(true);
        if (compare(x, beyondMax_) >= 0)
            return Cell{beyondMax_, plusInf};
        if (compare(x, limits_.max) >= 0)
            return Cell{limits_.max, beyondMax_};
        if (spec_.isSigned) {
            if (compare(x, *beyondLowest_) < 0)
                return Cell{minusInf, *beyondLowest_};
            if (compare(x, limits_.lowest) < 0)
                return Cell{*beyondLowest_, limits_.lowest};
        } else {
            if (x.isNegative() && !x.isZero())
                return Cell{minusInf, ExactValue::zero()};
            if (compare(x, limits_.lowest) < 0)
                return Cell{ExactValue::zero(), limits_.lowest}; // no zero (E8M0)
        }
        return std::nullopt;
    }
    std::optional<Cell> edgeCellBelow(const ExactValue& x) const {
        const ExactValue plusInf = ExactValue::infinity(false);
        const ExactValue minusInf = ExactValue::infinity(true);
        if (compare(x, beyondMax_) > 0)
            return Cell{beyondMax_, plusInf};
        if (compare(x, limits_.max) > 0)
            return Cell{limits_.max, beyondMax_};
        if (spec_.isSigned) {
            if (compare(x, *beyondLowest_) <= 0)
                return Cell{minusInf, *beyondLowest_};
            if (compare(x, limits_.lowest) <= 0)
                return Cell{*beyondLowest_, limits_.lowest};
        } else {
            if (x.isNegative() || x.isZero())
                return Cell{minusInf, ExactValue::zero()};
            if (compare(x, limits_.lowest) <= 0)
                return Cell{ExactValue::zero(), limits_.lowest}; // no zero (E8M0)
        }
        return std::nullopt;
    }

    const FormatSpec& spec_;
    FormatLimits limits_;
    std::vector<RoundingOptions> outcomes_;
    ExactValue beyondMax_;
    std::optional<ExactValue> beyondLowest_;
    ExactValue smallestGap_;
};

// The cells of [s, t] that hold the bounds (see the comment above), each once.
std::vector<Cell> cellsToVisit(const CellMap& map, const ExactValue& s, const ExactValue& t) {
    std::vector<Cell> cells;
    auto add = [&](const Cell& c) {
        if (compare(c.low, t) >= 0 || compare(c.high, s) <= 0)
            return false; // outside [s, t]
        for (const Cell& known : cells)
            if (compare(known.low, c.low) == 0 && compare(known.high, c.high) == 0)
                return true;
        cells.push_back(c);
        return true;
    };
    // From x upward (or downward), `count` cells.
    auto walkUp = [&](const ExactValue& x, int count) {
        Cell c = map.above(x);
        for (int i = 0; i < count && add(c) && !c.high.isInfinity(); ++i)
            c = map.above(c.high);
    };
    auto walkDown = [&](const ExactValue& x, int count) {
        Cell c = map.below(x);
        for (int i = 0; i < count && add(c) && !c.low.isInfinity(); ++i)
            c = map.below(c.low);
    };
    const FormatSpec& spec = map.spec();
    if (spec.kind == FormatKind::Lookup) {
        walkUp(s, std::numeric_limits<int>::max());
        return cells;
    }
    // The cell cut by s and the two after it, the cell cut by t and the two before it.
    walkUp(s, 3);
    walkDown(t, 3);
    // The two cells on either side of 0.
    if (s.isNegative() && !s.isZero() && !t.isNegative() && !t.isZero()) {
        walkUp(ExactValue::zero(), 2);
        walkDown(ExactValue::zero(), 2);
    }
    if (spec.kind == FormatKind::BinaryFloat) {
        // Where the gap doubles (at ±2^e, e > emin): the two cells after the first such power
        // of two past s for x > 0, and, mirrored, the two cells below the one nearest 0
        // short of t for x < 0.
        const std::int64_t lowest = spec.minExponent() + 1;
        const FormatLimits& limits = map.limits();
        if (!t.isNegative() && !t.isZero()) {
            const std::int64_t e =
                s.isNegative() || s.isZero() ? lowest : std::max(lowest, s.floorLog2() + 1);
            const ExactValue start = ExactValue::dyadic(false, 1, e);
            if (e <= limits.maxExponent && compare(start, t) < 0)
                walkUp(start, 2);
        }
        if (spec.isSigned && s.isNegative() && !s.isZero()) {
            const std::int64_t e =
                !t.isNegative() || t.isZero() ? lowest : std::max(lowest, t.floorLog2() + 1);
            const ExactValue start = ExactValue::dyadic(true, 1, e);
            if (e <= limits.maxExponent && compare(start, s) > 0)
                walkDown(start, 2);
        }
    }
    return cells;
}

// The x positions of the envelope: `samples` equal steps on the chosen axis, from and to
// exactly at the ends, never decreasing.
std::vector<double> sampleEdges(double from, double to, bool logarithmic, int samples) {
    std::vector<double> edges;
    const bool useLog = logarithmic && from > 0;
    for (int i = 0; i <= samples; ++i) {
        const double t = static_cast<double>(i) / samples;
        // Weighted means of the ends, whose differences and ratios may overflow.
        double x = useLog ? std::exp2(std::log2(from) * (1 - t) + std::log2(to) * t)
                          : from * (1 - t) + to * t;
        if (i == 0)
            x = from;
        if (i == samples)
            x = to;
        edges.push_back(edges.empty() ? x : std::clamp(x, edges.back(), to));
    }
    return edges;
}

// The sawtooth itself: every piece of every cell that meets [a, b], by its two ends; at a
// jump both one-sided limits share one x, so the line runs straight up or down there. Where
// rounding gives ±∞ or NaN the line breaks (a NaN point) rather than bridge the gap.
void addSawtooth(ErrorCurve& curve, const CellMap& map, const ExactValue& a, const ExactValue& b) {
    auto add = [&](const ExactValue& x, const ExactValue& stored) {
        const double xd = toDouble(x);
        if (!stored.isFinite()) {
            if (!curve.absolute.empty() && !std::isnan(curve.absolute.back().y)) {
                curve.absolute.push_back({xd, std::nan("")});
                curve.relative.push_back({xd, std::nan("")});
            }
            return;
        }
        const ExactValue error = stored - x;
        const PlotPoint p{xd, toDouble(error)};
        if (curve.absolute.empty() || curve.absolute.back().x != p.x ||
            curve.absolute.back().y != p.y)
            curve.absolute.push_back(p);
        // Relative error at the peaks only: the zeros in between would be −∞ on a log axis.
        if (!x.isZero() && !error.isZero()) {
            const PlotPoint r{xd, toDouble(error.abs() / x.abs())};
            if (curve.relative.empty() || curve.relative.back().x != r.x ||
                curve.relative.back().y != r.y)
                curve.relative.push_back(r);
        }
    };
    add(a, map.storedAt(a).front());
    for (Cell cell = map.above(a);; cell = map.above(cell.high)) {
        for (const Piece& piece : map.pieces(cell)) {
            const ExactValue& lo = maxOf(piece.low, a);
            const ExactValue& hi = minOf(piece.high, b);
            if (compare(lo, hi) >= 0)
                continue;
            add(lo, piece.stored);
            add(hi, piece.stored);
        }
        if (cell.high.isInfinity() || compare(cell.high, b) >= 0)
            break;
    }
    add(b, map.storedAt(b).front());
}

void addEnvelope(ErrorCurve& curve, const FormatSpec& spec, const RoundingOptions& options,
                 double from, double to, bool logarithmic, int samples) {
    curve.exact = false;
    const CellMap map(spec, options);
    const std::vector<double> edges = sampleEdges(from, to, logarithmic, std::max(samples, 1));
    const double nan = std::nan("");
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        if (!(edges[i] < edges[i + 1]))
            continue;
        const ExactValue s = fromDouble(edges[i]);
        const ExactValue t = fromDouble(edges[i + 1]);
        ErrorBounds bounds;
        std::vector<ExactValue> points = {s, t};
        if (s.isNegative() && !s.isZero() && !t.isNegative() && !t.isZero())
            points.push_back(ExactValue::zero());
        for (const ExactValue& x : points)
            for (const ExactValue& r : map.storedAt(x))
                bounds.addPoint(x, r);
        for (const Cell& cell : cellsToVisit(map, s, t))
            for (const Piece& piece : map.pieces(cell))
                bounds.addPiece(piece, s, t);
        // Bounds round outward, so that the plotted line is never inside the true one.
        const bool undefined = bounds.undefined();
        const double upper = undefined ? nan : toDoubleToward(bounds.upper(), true);
        const double lower = undefined ? nan : toDoubleToward(bounds.lower(), false);
        const double relative = undefined ? nan : toDoubleToward(bounds.relative(), true);
        for (double x : {edges[i], edges[i + 1]}) {
            curve.absolute.push_back({x, upper});
            curve.absoluteLower.push_back({x, lower});
            curve.relative.push_back({x, relative});
        }
    }
}

// More values than this in the range: the sawtooth would be too dense to see, the envelope.
constexpr std::ptrdiff_t kMostSawtoothValues = 20000;

} // namespace

ErrorCurve roundingErrorCurve(const FormatSpec& spec, const RoundingOptions& options, double from,
                              double to, bool logarithmic, int samples, ErrorCurveShape shape) {
    ErrorCurve curve;
    const FormatLimits limits = deriveLimits(spec);
    curve.unitRoundoff =
        spec.kind == FormatKind::BinaryFloat ? std::ldexp(1.0, -spec.precision()) : 0;
    if (spec.kind == FormatKind::BinaryFloat)
        curve.minNormal = toDouble(limits.minNormal ? *limits.minNormal : limits.minPositive);
    curve.max = toDouble(limits.max);
    curve.lowest = toDouble(limits.lowest);
    if (!(from < to) || !std::isfinite(from) || !std::isfinite(to))
        return curve;
    const ExactValue a = fromDouble(from);
    const ExactValue b = fromDouble(to);

    // Small formats: the sawtooth, where it has few enough pieces in [from, to] to draw.
    // Stochastic rounding has no one sawtooth (either neighbour may be stored): an envelope.
    if (shape == ErrorCurveShape::Automatic && spec.totalBits() <= 16 &&
        options.mode != RoundingMode::Stochastic) {
        const std::vector<ExactValue> values = sortedFiniteValues(spec);
        const auto first = std::lower_bound(
            values.begin(), values.end(), a,
            [](const ExactValue& v, const ExactValue& x) { return compare(v, x) < 0; });
        const auto last = std::upper_bound(
            values.begin(), values.end(), b,
            [](const ExactValue& x, const ExactValue& v) { return compare(x, v) < 0; });
        if (std::distance(first, last) <= kMostSawtoothValues) {
            addSawtooth(curve, CellMap(spec, options), a, b);
            return curve;
        }
    }

    addEnvelope(curve, spec, options, from, to, logarithmic, samples);
    return curve;
}

std::vector<PlotPoint> ulpStaircase(const FormatSpec& spec) {
    std::vector<PlotPoint> points;
    const FormatLimits limits = deriveLimits(spec);
    auto step = [&](double x0, double x1, double ulp) {
        points.push_back({x0, ulp});
        points.push_back({x1, ulp});
    };
    switch (spec.kind) {
    case FormatKind::BinaryFloat: {
        const double maxLog2 = log2Of(limits.max);
        const int emin = spec.minExponent();
        const int emax = limits.maxExponent;
        if (limits.minSubnormal)
            step(log2Of(*limits.minSubnormal), emin, emin - spec.fractionBits);
        for (int e = emin; e <= emax; ++e)
            step(e, std::min<double>(e + 1, maxLog2), e - spec.fractionBits);
        break;
    }
    case FormatKind::Integer:
        step(log2Of(limits.minPositive), log2Of(limits.max), log2Of(spec.scale.abs()));
        break;
    case FormatKind::Posit: {
        // Within a binade [2^s, 2^(s+1)) a posit's regime and exponent are fixed, so its gap is
        // too: one step per binade from minpos to maxpos, the gap after the largest value at
        // or below 2^s. Where the regime has cut exponent bits, 2^s may be no value, and the
        // gap around it spans several binades.
        const std::int64_t top = positMaxScale(spec);
        for (std::int64_t s = -top; s < top; ++s) {
            const PositGap g = positGapAt(spec, s);
            step(static_cast<double>(s), static_cast<double>(s + 1), log2Of(g.gap));
        }
        break;
    }
    case FormatKind::Lookup: {
        const std::vector<ExactValue> values = sortedFiniteValues(spec);
        for (std::size_t i = 0; i + 1 < values.size(); ++i) {
            if (!values[i + 1].isNegative() && !values[i + 1].isZero() && !values[i].isNegative())
                step(values[i].isZero() ? log2Of(values[i + 1]) - 1 : log2Of(values[i]),
                     log2Of(values[i + 1]), log2Of(values[i + 1] - values[i]));
        }
        break;
    }
    }
    return points;
}

std::vector<PlotPoint> precisionStaircase(const FormatSpec& spec) {
    std::vector<PlotPoint> points;
    if (spec.kind == FormatKind::Posit) {
        // Measured from the value that starts the gap (a power of two where exponent bits are
        // cut), so a gap across several binades is one level, not a sawtooth.
        const std::int64_t top = positMaxScale(spec);
        for (std::int64_t s = -top; s < top; ++s) {
            const PositGap g = positGapAt(spec, s);
            const double bits = static_cast<double>(g.start.floorLog2()) - log2Of(g.gap) + 1;
            points.push_back({static_cast<double>(s), bits});
            points.push_back({static_cast<double>(s + 1), bits});
        }
        return points;
    }
    const std::vector<PlotPoint> gaps = ulpStaircase(spec);
    for (std::size_t i = 0; i + 1 < gaps.size(); i += 2) {
        const double x0 = gaps[i].x;
        const double x1 = gaps[i + 1].x;
        const double gap = gaps[i].y;
        // One step for each binade the ulp step covers (a float's subnormals share one gap).
        for (double b = std::floor(x0); b < x1; b += 1) {
            const double bits = b - gap + 1;
            points.push_back({std::max(b, x0), bits});
            points.push_back({std::min(b + 1, x1), bits});
        }
    }
    return points;
}

RangeBar rangeBar(const FormatSpec& spec) {
    const FormatLimits limits = deriveLimits(spec);
    RangeBar bar;
    bar.id = spec.id;
    bar.log2Max = log2Of(limits.max);
    bar.log2MinNormal = log2Of(limits.minNormal ? *limits.minNormal : limits.minPositive);
    bar.log2MinSubnormal = limits.minSubnormal ? log2Of(*limits.minSubnormal) : bar.log2MinNormal;
    bar.decimalDigits = limits.decimalDigits;
    return bar;
}

std::vector<double> finiteValues(const FormatSpec& spec) {
    std::vector<double> values;
    if (spec.totalBits() > 16)
        return values;
    for (const ExactValue& v : sortedFiniteValues(spec))
        values.push_back(toDouble(v));
    return values;
}

std::vector<int> codeClassMap(const FormatSpec& spec) {
    std::vector<int> classes;
    if (spec.totalBits() > 8)
        return classes;
    for (Code code = 0; code < (Code(1) << spec.totalBits()); ++code)
        classes.push_back(static_cast<int>(decodeCode(spec, code).valueClass));
    return classes;
}

} // namespace fpx
