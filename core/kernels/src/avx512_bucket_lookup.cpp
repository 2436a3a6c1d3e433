// SPDX-License-Identifier: GPL-3.0-or-later
// Breakpoint lookups (NF4 …) to one-byte codes through buckets of |x| (AVX-512F/BW/DQ).
#include "fpx/kernels/x86_hardware.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "fpx/kernels/pack_in_order.h"
#include "interleaved_blocks.h"
#include "nan_codes_by_sign.h"

#include <immintrin.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fpx::kernels {

namespace {

// The zero-masked forms of some intrinsics with every lane kept: the plain ones start from
// _mm512_undefined_epi32(), which GCC 12 reports as maybe uninitialised.
constexpr __mmask16 kAllLanes = 0xffff;

// avx512BucketLookup's tables in registers, rewritten so that one signed compare of |x| picks
// the code in both signs (bucketLookupElement compares orderedKey(x), which takes an XOR for
// negative x):
//
//   x ≥ 0:  key = |x|,  key ≥ b  ⇔  |x| > b − 1   threshold b − 1 (−1 for b ≤ 0: always),
//                                                  codes as they are (below | from << 8)
//   x < 0:  key = ~|x|, key ≥ b  ⇔  |x| ≤ ~b      threshold ~b, the two codes swapped:
//                                                  |x| > ~b picks the code below b
//
// A bucket without a breakpoint (b = INT32_MAX) gets INT32_MAX (x ≥ 0: |x| is never above it)
// or INT32_MIN (x < 0: |x| is always above it); either way the code below b.
struct BucketRegisters {
    __m512i thresholdsLow, thresholdsHigh, codesLow, codesHigh, shift, base;
    std::uint32_t nanCode[2];
};

// bucket = clamp((|x| >> shift) − base, 0, 15). With WordClamp (shift ≥ 15, so that the unit
// fits the low 16 bits, and base < 2^16) by a saturating word subtraction and a word minimum:
// the high words stay 0 − 0 = 0. Otherwise by a subtraction, a maximum and a minimum.
constexpr __mmask32 kAllLanesWords = 0xffffffffu;

template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq"), gnu::always_inline]] inline __m512i
bucketCodes16(const BucketRegisters& r, __m512i bits, __m512i magnitude) {
    const __m512i unit = _mm512_maskz_srlv_epi32(kAllLanes, magnitude, r.shift);
    __m512i bucket;
    if constexpr (WordClamp)
        bucket = _mm512_maskz_min_epu16(kAllLanesWords, _mm512_subs_epu16(unit, r.base),
                                        _mm512_set1_epi32(15));
    else
        bucket =
            _mm512_maskz_min_epi32(kAllLanes,
                                   _mm512_maskz_max_epi32(kAllLanes, _mm512_sub_epi32(unit, r.base),
                                                          _mm512_setzero_si512()),
                                   _mm512_set1_epi32(15));
    // The sign by vptestmd (port 5) rather than vpmovd2m: the shift, the clamp and the pick
    // below all need port 0.
    const __mmask16 negative = _mm512_test_epi32_mask(bits, _mm512_set1_epi32(INT32_MIN));
    const __m512i index = _mm512_mask_or_epi32(bucket, negative, bucket, _mm512_set1_epi32(16));
    const __m512i threshold = _mm512_permutex2var_epi32(r.thresholdsLow, index, r.thresholdsHigh);
    const __m512i code = _mm512_permutex2var_epi32(r.codesLow, index, r.codesHigh);
    // Below 2^16; bits 8–15 are the other code where no shift took them (cut when packing).
    return _mm512_mask_srli_epi32(code, _mm512_cmpgt_epi32_mask(magnitude, threshold), code, 8);
}

// 64 codes as one vector of bytes, in order (lanesInOrder), NaNs put in once per 64
// (putNaNCodesBySign).
template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq"), gnu::always_inline]] inline __m512i
bucketCodes64(const BucketRegisters& r, const std::uint32_t* in) {
    __m512i bits[4], magnitude[4], codes[4]; // unrolled, so that they stay in registers
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
        bits[v] = _mm512_loadu_si512(in + 16 * v);
        magnitude[v] = _mm512_and_si512(bits[v], _mm512_set1_epi32(0x7fffffff));
        codes[v] = bucketCodes16<WordClamp>(r, bits[v], magnitude[v]);
    }
    putNaNCodesBySign(bits, codes, _mm512_set1_epi32(static_cast<int>(r.nanCode[0])),
                      _mm512_set1_epi32(static_cast<int>(r.nanCode[1])));
    // Words keep the codes' two bytes (below 2^16: no saturation); the low byte of each is
    // the code.
    const __m512i lowBytes = _mm512_set1_epi16(0xff);
    return lanesInOrder(
        _mm512_packus_epi16(_mm512_and_si512(_mm512_packus_epi32(codes[0], codes[1]), lowBytes),
                            _mm512_and_si512(_mm512_packus_epi32(codes[2], codes[3]), lowBytes)));
}

template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq")]] void
avx512BucketLookupCached(const BucketRegisters& r, const std::uint32_t* in, std::uint8_t* out,
                         std::size_t count) {
    std::size_t i = 0;
    for (; i + 64 <= count; i += 64)
        _mm512_storeu_si512(out + i, bucketCodes64<WordClamp>(r, in + i));
    if (i < count) {
        // The last < 64 inputs through a zero-padded copy.
        alignas(64) std::uint32_t tailIn[64] = {};
        alignas(64) std::uint8_t tailOut[64];
        std::memcpy(tailIn, in + i, (count - i) * sizeof(std::uint32_t));
        _mm512_store_si512(tailOut, bucketCodes64<WordClamp>(r, tailIn));
        std::memcpy(out + i, tailOut, count - i);
    }
}

template <bool WordClamp>
[[gnu::target("avx512f,avx512bw,avx512dq")]] void
avx512BucketLookupWith(const BucketRegisters& r, const std::uint32_t* in, std::uint8_t* out,
                       std::size_t count, OutputStores stores) {
    if (stores == OutputStores::Cached)
        return avx512BucketLookupCached<WordClamp>(r, in, out, count);
    streamInInterleavedBlocks<64>(
        in, out, count,
        [&](std::size_t first, std::size_t n) {
            avx512BucketLookupCached<WordClamp>(r, in + first, out + first, n);
        },
        [&](std::size_t first) __attribute__((target("avx512f,avx512bw,avx512dq"))) {
            _mm512_stream_si512(reinterpret_cast<__m512i*>(out + first),
                                bucketCodes64<WordClamp>(r, in + first));
        });
}

// The thresholds and codes of BucketRegisters from the buckets.
[[gnu::target("avx512f,avx512bw,avx512dq")]] BucketRegisters
bucketRegisters(const BucketedBreakpoints& buckets) {
    alignas(64) std::int32_t thresholds[32];
    alignas(64) std::uint32_t codes[32];
    for (int j = 0; j < 32; ++j) {
        const std::int32_t b = buckets.breakpoint[j];
        const std::uint32_t below = buckets.codes[j] & 0xffu, from = buckets.codes[j] >> 8 & 0xffu;
        if (j < 16) {
            thresholds[j] =
                b == std::numeric_limits<std::int32_t>::max() ? b : (b <= 0 ? -1 : b - 1);
            codes[j] = below | from << 8;
        } else {
            thresholds[j] = ~b;
            codes[j] = from | below << 8;
        }
    }
    BucketRegisters r;
    r.thresholdsLow = _mm512_load_si512(thresholds);
    r.thresholdsHigh = _mm512_load_si512(thresholds + 16);
    r.codesLow = _mm512_load_si512(codes);
    r.codesHigh = _mm512_load_si512(codes + 16);
    r.shift = _mm512_set1_epi32(static_cast<int>(buckets.shift));
    r.base = _mm512_set1_epi32(buckets.base);
    r.nanCode[0] = buckets.nanCode[0] & 0xffu;
    r.nanCode[1] = buckets.nanCode[1] & 0xffu;
    return r;
}

} // namespace

void avx512BucketLookup(const BucketedBreakpoints& buckets, const std::uint32_t* in,
                        std::uint8_t* out, std::size_t count, OutputStores stores) {
    const BucketRegisters r = bucketRegisters(buckets);
    if (buckets.shift >= 15 && buckets.base >= 0 && buckets.base <= 0xffff)
        avx512BucketLookupWith<true>(r, in, out, count, stores);
    else
        avx512BucketLookupWith<false>(r, in, out, count, stores);
}

} // namespace fpx::kernels

#endif
