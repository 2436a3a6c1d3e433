// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fpx {

// Counts shown as percentages that add up to exactly 100 %: one format's zones in the range
// view, where "100 %" normal beside "0.0042 %" overflow reads as more than everything.
//
// Each count gets a whole number of units of 10^−decimals percent (100 · 10^decimals units in
// all). A non-zero count whose exact quota is under one unit gets one unit, so a part that is
// there always shows; the others get their quota rounded down, and the units left go one each to
// the largest remainders (the earlier count first on a tie): the largest-remainder method, which
// puts the shares as close to the exact quotas as whole units allow. Where the one-unit floors
// take more than is left, the units come back from the largest shares. A count short of the
// total therefore never gets all the units: "100" means every value.
struct PercentShare {
    std::uint64_t units = 0;   // of 10^−decimals percent
    bool belowOneUnit = false; // non-zero but under one unit exactly: shown as "<0.01"
};
// Precondition: decimals ≤ 6 and the counts' sum below 2^63. All zero: every share is 0.
std::vector<PercentShare> percentShares(const std::vector<std::uint64_t>& counts, int decimals);

// "100", "99.99", "12.5", "0", "<0.01": the units with `decimals` places, trailing zeros cut.
std::string percentShareText(const PercentShare& share, int decimals);

} // namespace fpx
