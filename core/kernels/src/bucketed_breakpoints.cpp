// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/kernels/bucketed_breakpoints.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>

namespace fpx::kernels {

// Bucket j of a sign holds the |x| bits whose top bits (>> shift) are base + j; bucket 0
// reaches down to 0 and bucket 15 up to ∞. Widths from a binade down to 2^−10 of one are tried,
// each with the bases that put some breakpoint into some bucket (found once per encoder; NF4: 21
// and the bucket of 0.75 − 15, quarter binades from 2^−4 up).
std::optional<BucketedBreakpoints> bucketBreakpoints(const LookupParams& p) {
    const std::int32_t* const first = p.breakpoints;
    const std::int32_t* const last = p.breakpoints + p.count;
    const auto atOrBelow = [&](std::int64_t key) {
        return static_cast<std::uint32_t>(std::upper_bound(first, last, key) - first);
    };
    const auto tryBuckets = [&](std::uint32_t shift,
                                std::int64_t base) -> std::optional<BucketedBreakpoints> {
        BucketedBreakpoints b;
        b.shift = shift;
        b.base = static_cast<std::int32_t>(base);
        std::copy(std::begin(p.nanCode), std::end(p.nanCode), b.nanCode);
        const std::int64_t topUnit = std::int64_t{0x7f800000} >> shift; // ∞'s bucket unit
        for (int negative = 0; negative < 2; ++negative)
            for (std::int64_t j = 0; j < 16; ++j) {
                const std::int64_t lowUnit = j == 0 ? 0 : base + j;
                const std::int64_t highUnit = j == 15 ? topUnit : base + j;
                const int index = negative * 16 + static_cast<int>(j);
                b.breakpoint[index] = INT32_MAX;
                if (lowUnit > topUnit || highUnit < lowUnit)
                    continue; // no FP32 magnitude (NaNs aside) falls here
                const std::int64_t lowMagnitude = lowUnit << shift;
                const std::int64_t highMagnitude =
                    std::min<std::int64_t>(((highUnit + 1) << shift) - 1, 0x7f800000);
                // orderedKey: negative magnitudes m map to −m − 1.
                const std::int64_t lowKey = negative ? -highMagnitude - 1 : lowMagnitude;
                const std::int64_t highKey = negative ? -lowMagnitude - 1 : highMagnitude;
                const std::uint32_t below = atOrBelow(lowKey);
                const std::uint32_t above = atOrBelow(highKey);
                if (above > below + 1 || p.codes[below] > 0xff || p.codes[above] > 0xff)
                    return std::nullopt;
                if (above > below)
                    b.breakpoint[index] = p.breakpoints[below];
                b.codes[index] = p.codes[below] | p.codes[above] << 8;
            }
        return b;
    };
    for (std::uint32_t shift = 23; shift >= 13; --shift)
        for (const std::int32_t* key = first; key != last; ++key) {
            const std::int64_t magnitude = *key < 0 ? -std::int64_t{*key} - 1 : *key;
            const std::int64_t unit = magnitude >> shift;
            for (std::int64_t base = std::max<std::int64_t>(unit - 15, 0); base <= unit; ++base)
                if (auto b = tryBuckets(shift, base))
                    return b;
        }
    return p.count == 0 ? tryBuckets(23, 0) : std::nullopt;
}

} // namespace fpx::kernels
