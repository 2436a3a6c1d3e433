// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpx::gui {

// One format's answer to "does w + Δ change w?", the question behind FP32 master weights:
// a weight kept in BF16 ignores every update smaller than half its ULP.
struct MasterWeightRow {
    FormatSpec spec;
    std::optional<std::string> unsupported; // the format has no arithmetic (NF4, E8M0)
    Conversion weight;                      // w rounded into the format
    ExactValue weightValue;
    Conversion delta; // Δ rounded into the format: the update a machine of this format adds
    ExactValue deltaValue;
    std::optional<OperationResult> sum; // w + Δ, one rounding
    bool changed = false;               // the sum's code differs from w's
    // The smallest stored |Δ| (of Δ's sign) that moves w: the distance from w to the end of the
    // interval of values that round to w. `thresholdReached` says whether a Δ of exactly that
    // size already moves w (the interval's end is open: a tie that goes away from w) or only
    // any larger one does (closed: the tie stays at w). nullopt when nothing moves w that way
    // (w is ±∞ or NaN, or saturates) or under stochastic rounding, where it is a probability.
    std::optional<ExactValue> threshold;
    bool thresholdReached = false;
    std::string noThresholdReason; // when threshold is nullopt
    std::optional<ExactValue> ulp; // of w
};

// Under stochastic rounding w, Δ and the sum draw stochasticBits(seed, 0, 1, 2), in the order
// an expression evaluates them.
// The threshold is derived from describeCode's rounding interval of w, so that it follows
// the rounding mode, the tie rule and the format's edges without a second definition.
std::vector<MasterWeightRow> masterWeightRows(const ExactValue& w, const ExactValue& delta,
                                              const std::vector<FormatSpec>& formats,
                                              const RoundingOptions& options,
                                              std::uint64_t seed = 0);

} // namespace fpx::gui
