// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/kernels/element_conversion.h"

#include <cstdint>
#include <optional>

namespace fpx::kernels {

// Formats encoded by their breakpoints (LookupParams: NF4 …) whose breakpoints fall at most
// one into each of 2 × 16 buckets of the FP32 line: bucket = the sign · 16 + |x|'s bits shifted
// right by `shift`, less `base`, clamped to 0 … 15 (so buckets 0 and 15 reach to 0 and to ∞).
// An element's code is then one of its bucket's two, by one compare with the bucket's
// breakpoint, instead of a bisection.
struct BucketedBreakpoints {
    std::uint32_t shift = 23;
    std::int32_t base = 0;
    // Per bucket: the ordered key (orderedKey) where its code changes, INT32_MAX if it does
    // not; the code below that key | the code from it on << 8.
    std::int32_t breakpoint[32] = {};
    std::uint32_t codes[32] = {};
    std::uint32_t nanCode[2] = {0, 0};
};

// The breakpoints in such buckets, where some bucket width and base put at most one breakpoint
// into each; nullopt where none does.
std::optional<BucketedBreakpoints> bucketBreakpoints(const LookupParams& p);

// One element by the buckets: lookupElement's answer (checked against it on made-up tables by
// tst_bulkconversion) in a shift, a clamp and one compare. The CUDA kernels run this; the
// AVX-512 loop does the same steps in registers, with the breakpoints rewritten as thresholds
// of |x| so that negative inputs need no key of their own (avx512_bucket_lookup.cpp).
//
//   bucket = sign · 16 + clamp((|x| >> shift) − base, 0, 15)
//   code   = key ≥ breakpoint[bucket] ? codes[bucket] >> 8 : codes[bucket] & 0xff
FPX_HOST_DEVICE static inline std::uint32_t bucketLookupElement(const BucketedBreakpoints& b,
                                                                std::uint32_t bits) {
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    const std::uint32_t negative = bits >> 31;
    const std::int32_t unit = static_cast<std::int32_t>(magnitude >> b.shift) - b.base;
    const std::uint32_t bucket =
        static_cast<std::uint32_t>(unit < 0 ? 0 : (unit > 15 ? 15 : unit)) | negative << 4;
    const std::int32_t key = orderedKey(bits);
    const std::uint32_t codes = b.codes[bucket];
    const std::uint32_t code = select(key >= b.breakpoint[bucket], codes >> 8, codes) & 0xffu;
    return select(magnitude > 0x7f800000u, bySign(b.nanCode, negative) & 0xffu, code);
}

} // namespace fpx::kernels
