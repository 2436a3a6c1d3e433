// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_view.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace fpx {

// Where a value lands when it is scaled by S and rounded once into a format: the question
// behind loss scaling ("how many gradients does FP16 lose?").
//   Zero       the input itself is ±0
//   Flushed    a non-zero input whose rounding is ±0
//   Subnormal  rounds to a non-zero subnormal code (fewer significant bits than normal)
//   Normal     rounds to a normal code (or any non-zero level of a format without subnormals)
//   Overflow   rounds to ±∞ or NaN, or, under OverflowPolicy::Saturate, lies beyond the
//              format's rounding boundary (it would round to ±∞ under IEEE) and is clipped
// Inputs that are NaN or ±∞ are counted apart (nonFinite), in no zone.
enum class RangeZone { Zero, Flushed, Subnormal, Normal, Overflow };
inline constexpr std::size_t kRangeZoneCount = 5;
std::string_view
rangeZoneId(RangeZone zone); // "zero", "flushed", "subnormal", "normal", "overflow"

struct RangeFitOptions {
    ExactValue scale = ExactValue::integer(1); // S, any finite non-zero exact value
    RoundingOptions rounding;                  // mode and overflow policy of the one rounding
    // Under stochastic rounding, element i rounds with stochasticBits(rounding.randomBits, i):
    // randomBits is then the seed of the whole tensor.
};

struct RangeFit {
    FormatSpec format;
    ExactValue scale;
    std::array<std::size_t, kRangeZoneCount> counts{}; // indexed by RangeZone
    std::size_t nonFinite = 0;                         // NaN and ±∞ inputs
    std::size_t total() const;                         // every input, nonFinite included
    double fraction(RangeZone zone) const;             // counts / total (0 when total is 0)
    std::size_t count(RangeZone zone) const { return counts[static_cast<std::size_t>(zone)]; }
    // |q − x·S| / |x·S| over the values that land in Subnormal or Normal (each term exact,
    // rounded once to double); nullopt when there are none.
    std::optional<double> maxRelativeError;
    std::optional<double> meanRelativeError;
    // The exponents k, lowest and highest, of the power-of-two scales 2^k (applied to the
    // input instead of S) that overflow no value and, among those, flush the fewest. nullopt
    // when the input has no non-zero finite value, or no k avoids overflow (a negative value
    // into an unsigned float that makes it NaN), or no value bounds k (every value negative
    // into a saturating unsigned float, which takes them all to its lowest code). The lowest is
    // std::numeric_limits<std::int64_t>::min() when the range is unbounded below: no value flushes
    // however small 2^k is (round-to-odd, rounding toward +∞ without negative values), or every
    // value flushes at every k that is safe.
    std::optional<std::array<std::int64_t, 2>> bestScales;
};

// The overflow zone is the conversion's overflow flag: the value rounded with an unbounded
// exponent exceeds the format's largest finite value, whatever the policy and mode then make
// of it (±∞; NaN where there is no ∞; ±max under Saturate, toward zero, to odd, and on the
// side a directed mode rounds away from). A NaN from a finite input (a negative value into an
// unsigned float) counts as overflow too.
//
// Every zone is decided by one exact rounding of x·S (roundToFormat's rules): never through a
// double product unless it is exact. Formats without arithmetic (NF4, E8M0) are allowed: a
// rounding is defined for every format.
RangeFit fitRange(const TensorView& values, const FormatSpec& format,
                  const RangeFitOptions& options = {});

// The zone of one exact value already scaled (x·S): the definition fitRange counts by, for the
// GUI's zone bands and for tests.
RangeZone rangeZoneOf(const ExactValue& scaled, const FormatSpec& format,
                      const RoundingOptions& rounding = {});

// The zone boundaries of a format on the |x·S| axis, as exact values, for drawing the zones
// under a histogram and for tests. They follow rangeZoneOf (a value exactly on an edge goes
// where the rounding sends it, as the *Inclusive flags say); nullopt where the format has no
// such edge (no subnormals: normalFrom is the smallest non-zero level's rounding boundary).
struct RangeZoneEdges {
    std::optional<ExactValue> flushEdge;  // |v| < edge flushes; = edge when flushInclusive
    bool flushInclusive = true;           // RNE: the tie at 2^(emin−p) goes to the even 0
    std::optional<ExactValue> normalEdge; // |v| ≥ edge rounds to a normal (or the tie rule)
    bool normalInclusive = true;
    std::optional<ExactValue> overflowEdge; // |v| > edge overflows; = edge when inclusive
    bool overflowInclusive = true;          // RNE into FP16: 65520 itself overflows
};
// The edges of the positive axis (the directed modes and NF4's uneven levels give the negative
// axis edges of its own; fitRange uses both). Under stochastic rounding the edges say where a
// zone becomes possible: a value below flushEdge may flush (below the smallest non-zero
// level), one beyond overflowEdge may overflow (beyond the largest finite value).
RangeZoneEdges rangeZoneEdges(const FormatSpec& format, const RoundingOptions& rounding = {});

// One value's zone and relative error, as fitRange finds them: built once for a format and
// options, then asked about each element. Where S is a positive power of two and the mode
// deterministic, a binary float is classified by comparing |x·S| (an exact double, checked)
// with the zone edges turned into double thresholds, and its rounding error is computed in
// double where that is provably exact; every other value goes through rangeZoneOf's exact
// rounding (docs/proofs.md, "The range-fit double path").
class RangeClassifier {
  public:
    RangeClassifier(const FormatSpec& format, const RangeFitOptions& options);
    ~RangeClassifier();
    RangeClassifier(RangeClassifier&&) noexcept;
    RangeClassifier& operator=(RangeClassifier&&) noexcept;

    struct Outcome {
        RangeZone zone = RangeZone::Zero;
        std::optional<double> relativeError; // Subnormal and Normal only
        bool fast = false;                   // decided without the exact core
    };
    // Precondition: x is finite. `index` chooses the random bits under stochastic rounding.
    Outcome classify(double x, std::uint64_t index = 0) const;
    // Whether classify takes the double path for the values it can (else every value is exact).
    bool hasFastPath() const;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace fpx
