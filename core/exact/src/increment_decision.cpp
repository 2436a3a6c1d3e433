// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/increment_decision.h"

#include "fpx/exact/stochastic_decision.h"

namespace fpx {

bool incrementsKept(const Truncation& t, bool negative, const RoundingOptions& options, bool odd) {
    if (!t.inexact())
        return false;
    switch (options.mode) {
    case RoundingMode::NearestEven: {
        const int c = t.compareHalf();
        return c > 0 || (c == 0 && odd);
    }
    case RoundingMode::NearestAway:
        return t.compareHalf() >= 0;
    case RoundingMode::TowardZero:
        return false;
    case RoundingMode::TowardPositive:
        return !negative;
    case RoundingMode::TowardNegative:
        return negative;
    case RoundingMode::ToOdd:
        return !odd;
    case RoundingMode::Stochastic:
        return stochasticRoundsAway(t.remainder, t.divisor, options.randomBits, options.stochastic);
    }
    return false;
}

} // namespace fpx
