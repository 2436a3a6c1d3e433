// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/training/range_fit.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fpx::training {

// One element x·S rounded once into a format: where it lands (range fit's zone) and the value
// it becomes (±∞ or NaN when it overflows under the IEEE policy).
struct ScaledOutcome {
    RangeZone zone = RangeZone::Zero;
    double value = 0;
};

// Casts x·S for many elements of one format and rounding, each answer the exact core's
// (roundToFormat and rangeZoneOf on the exact product); docs/proofs.md, "The scaled-cast table",
// gives the proof of the table below.
//
// The fast path, for signed binary floats of at most 16 bits with subnormals and a rounding
// that is symmetric in the sign and deterministic (rne, rna, rtz, rto): the magnitude axis
// is cut at every representable value, every midpoint between neighbours and the first value
// past the largest (max + ulp). On each cut point, and on each open interval between two of
// them, rounding and zone are constant, so the core's answer at the point and at one
// interior point (the interval's midpoint) is the answer for the whole piece:
//
//      0     m0    v1     m1     v2   …   vN     mN    vN+1
//      |--·--|--·--|--·---|--·---|         |--·--|--·--|--·--→  (· = interior sample)
//
// An element is then one exact double product x·S (checked with an FMA: its error must be
// zero, which the FMA computes exactly when the product is above 2^−960) and a binary search
// among the cut points. Anything else (an inexact product, other modes or formats) goes
// through the exact core.
class ScaledCast {
  public:
    ScaledCast(const FormatSpec& format, const RoundingOptions& rounding);

    // x and S finite, S > 0. `index` picks the element's random bits under stochastic
    // rounding (stochasticBits of the options' bits as the seed, and the index).
    ScaledOutcome operator()(double x, double scale, std::size_t index = 0) const;
    // The exact core on x·S, whatever the table could answer: the reference the table is
    // tested against.
    ScaledOutcome exact(double x, double scale, std::size_t index = 0) const;
    bool hasTable() const { return !points_.empty(); }

  private:
    FormatSpec format_;
    RoundingOptions rounding_;
    ScaledOutcome zero_[2]; // the answers for +0 and −0
    bool negativeZero_ = true;
    void buildBuckets(int fractionBits);
    std::uint64_t keyOf(double magnitude) const;
    std::size_t lastPointAtOrBelow(double magnitude) const;

    static constexpr std::uint64_t kMaxBuckets = std::uint64_t(1) << 22;
    int bucketShift_ = 0;
    std::uint64_t keyMin_ = 0;               // the key of points_[1]
    std::vector<std::uint32_t> bucketFirst_; // per key from keyMin_: its first point
    std::vector<double> points_;             // the cut points, ascending, points_[0] = 0
    std::vector<ScaledOutcome> atPoint_;     // answer on points_[j]
    std::vector<ScaledOutcome> inInterval_;  // answer on (points_[j], points_[j + 1]), and
                                             // past the last point at the back
};

// x·S when the double product is exact, else nullopt.
std::optional<double> exactProduct(double x, double scale);

} // namespace fpx::training
