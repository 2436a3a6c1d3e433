// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The block quantizers' loops (block_quant_loops.h), included by one file per instruction set
// and compiled with its flags: everything here has internal linkage, so the copies never mix.
// The loops are written as plain element code over arrays for the compiler to vectorise (with
// -O3, 16 lanes of AVX-512 or 8 of AVX2); the reasoning behind each step is in comments and in
// docs/proofs.md, "Block quantizers".

#include "block_quant_loops.h"
#include "scale_grid.h"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include "fpx/kernels/pack_in_order.h"

#include <immintrin.h>
#endif

namespace {

using namespace fpx;
using namespace fpx::kernels;

float asFloat(std::uint32_t bits) {
    return std::bit_cast<float>(bits);
}
std::uint32_t bitsOf(float value) {
    return std::bit_cast<std::uint32_t>(value);
}

// Largest |x| bits over a run: the magnitude bits of non-negative FP32 numbers order like
// their values, and NaN and ±∞ lie above every finite value.
[[gnu::always_inline]] inline std::uint32_t maxMagnitudeOf(const std::uint32_t* in,
                                                           std::size_t count) {
    std::uint32_t largest = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t magnitude = in[i] & 0x7fffffffu;
        largest = magnitude > largest ? magnitude : largest;
    }
    return largest;
}

// Asks for the input a few KiB ahead of the block about to be read. Each thread streams its
// own chunk, and one core alone keeps too few cache misses in flight to fill the memory bus
// (the hardware prefetcher stops at each 4 KiB page); a prefetch past the end of the input
// is harmless (it never faults). Changes no value.
constexpr std::size_t kPrefetchBytes = 4096;

[[gnu::always_inline]] inline void prefetchAhead(const std::uint32_t* block, std::size_t size) {
    const char* ahead = reinterpret_cast<const char*>(block) + kPrefetchBytes;
    for (std::size_t line = 0; line < size * sizeof(std::uint32_t); line += 64)
        __builtin_prefetch(ahead + line);
}

// The tensor's amax (NVFP4's first pass, and integers per tensor): a pure read, shaped to run
// at the memory's pace rather than at one maximum's: runs of 64 elements keep a vector's worth
// of independent maxima per 16 of them (no chain through a single register), and each run
// asks for the input ahead like the block loops.
constexpr std::size_t kMaxRun = 64;

std::uint32_t maxMagnitude(const std::uint32_t* in, std::size_t count) {
    std::uint32_t lanes[kMaxRun] = {};
    std::size_t i = 0;
    for (; i + kMaxRun <= count; i += kMaxRun) {
        prefetchAhead(in + i, kMaxRun);
        for (std::size_t j = 0; j < kMaxRun; ++j) {
            const std::uint32_t magnitude = in[i + j] & 0x7fffffffu;
            lanes[j] = magnitude > lanes[j] ? magnitude : lanes[j];
        }
    }
    const std::uint32_t rest = maxMagnitudeOf(in + i, count - i);
    const std::uint32_t largest = maxMagnitudeOf(lanes, kMaxRun);
    return rest > largest ? rest : largest;
}

constexpr std::uint32_t kInfinityBits = 0x7f800000u;

#if defined(__AVX512F__) && defined(__AVX512BW__)
// The zero-masked and masked forms of some intrinsics (permutes, narrowing stores, shifts) are
// used with every lane kept: the plain forms start from an undefined vector, which GCC 12
// reports as maybe uninitialised.
constexpr __mmask16 kAllLanes = 0xffff;

[[gnu::always_inline]] inline std::uint32_t countOf(__mmask16 mask) {
    return static_cast<std::uint32_t>(std::popcount(static_cast<unsigned>(mask)));
}
#endif

// Calls loop(size) with the common block sizes as compile-time constants, so that their
// inner loops are unrolled and vectorised whole, and any other size as a plain number.
template <typename Loop>
[[gnu::always_inline]] inline decltype(auto) withBlockSize(std::size_t blockSize, Loop&& loop) {
    switch (blockSize) {
    case 16:
        return loop(std::integral_constant<std::size_t, 16>{});
    case 32:
        return loop(std::integral_constant<std::size_t, 32>{});
    case 64:
        return loop(std::integral_constant<std::size_t, 64>{});
    case 128:
        return loop(std::integral_constant<std::size_t, 128>{});
    default:
        return loop(blockSize);
    }
}

// NVFP4's first pass: the tensor's amax, and each block's on the way (the second pass reads
// those instead of the blocks), a pure read with a store per block.
std::uint32_t blockMaxima(const std::uint32_t* in, std::size_t count, std::size_t blockSize,
                          std::uint32_t* maxima) {
    const auto blocksOf = [&](auto size) {
        std::uint32_t largest = 0;
        std::size_t first = 0, b = 0;
        for (; first + size <= count; first += size, ++b) {
            prefetchAhead(in + first, size);
            const std::uint32_t amax = maxMagnitudeOf(in + first, size);
            maxima[b] = amax;
            largest = amax > largest ? amax : largest;
        }
        if (first < count) { // the ragged last block
            const std::uint32_t amax = maxMagnitudeOf(in + first, count - first);
            maxima[b] = amax;
            largest = amax > largest ? amax : largest;
        }
        return largest;
    };
    return withBlockSize(blockSize, blocksOf);
}

// floor(log2 |x|) of a finite non-zero FP32 magnitude: its exponent field, or, for a subnormal
// (m · 2^−149), the position of its top bit.
int floorLog2(std::uint32_t magnitude) {
    const int field = static_cast<int>(magnitude >> 23);
    return field != 0 ? field - 127 : static_cast<int>(std::bit_width(magnitude)) - 1 - 149;
}

// The MX scale exponent k (scale 2^k) of a block whose largest magnitude is `amax`, by the
// format's scale rule, clamped to E8M0's range [−127, 127]; an all-zero block gets −127.
[[gnu::always_inline]] inline int mxScaleExponent(const BlockQuantParams& p, std::uint32_t amax) {
    if (amax == 0)
        return -127;
    int e = floorLog2(amax);
    if (p.scaleRule == 2) {
        // Even: amax rounded to evenPrecision significant bits first; the rounding carries
        // into the next binade exactly when the kept bits are all ones and round up.
        //   amax = [1][ kept (p − 1) | dropped ]  →  [1][ 000 … 0 ] · 2 when the carry runs out
        const std::uint32_t significand = (amax >> 23) != 0 ? (amax & 0x7fffffu) | 0x800000u : amax;
        const int width = static_cast<int>(std::bit_width(significand));
        const int drop = width - p.evenPrecision;
        if (drop > 0) {
            const std::uint32_t rounded = roundShiftRight<RoundingMode::NearestEven>(
                significand, static_cast<std::uint32_t>(drop), 0, 0);
            if (static_cast<int>(std::bit_width(rounded)) > width - drop)
                ++e;
        }
    }
    int k = e - p.elementEmax;
    if (p.scaleRule == 1) {
        // Ceil: the smallest k with amax ≤ elementMax · 2^k. The floor rule's k0 puts
        // elementMax · 2^k0 in amax's binade [2^e, 2^(e+1)), so k is k0 or k0 + 1; the
        // product is exact in a double (a few significant bits, exponent ≥ −149 − 15).
        k += static_cast<int>(static_cast<double>(asFloat(amax)) > p.elementMax * powerOfTwo(k));
    }
    return k < -127 ? -127 : (k > 127 ? 127 : k);
}

// 2^−k as FP32 bits for k in [−127, 127]: exponent field 127 − k, or 2^−127's subnormal bits.
std::uint32_t inverseScaleBits(int k) {
    return k == 127 ? 0x00400000u : static_cast<std::uint32_t>(127 - k) << 23;
}

// MX elements of one block, float element formats. x · 2^−k in FP32 is exact wherever the
// element can be non-zero: |x| ≤ amax < 2^(e+1) keeps the product below 2^(emax + 2) (no
// overflow), and a product below 2^−126 (where FP32 would round it) is far below half the
// element's smallest subnormal, so the element is ±0 either way (the product keeps its sign).
// clipped: beyond the largest magnitude code after rounding, before saturation (the exact
// core's overflow flag, decided with an unbounded exponent).
#if defined(__AVX512F__) && defined(__AVX512BW__)
// 16 elements of a saturating symmetric format (mxSaturatingCodes), finite inputs (the block
// loop stops at a NaN or ±∞): encodeElementOf<NearestEven, BinaryFloat, Symmetric> written out
// as the bulk encoder does (avx512_float_encoder.h), its NaN and ±∞ selects left out, and its
// overflow answer, the largest magnitude code, taken by one unsigned minimum:
//   rounded = (|s| + addend + lsb) >> (23 − M)  where |s| ≥ the smallest normal,
//             (|s| + c) − c in FP32              below it (the shift's mask merges them)
//   code    = min(rounded, max) ^ (sign mask & sign bit)
// The counts use `rounded` itself: clipped ⇔ rounded > max; flushed ⇔ x ≠ 0 and rounded = 0.
struct MxLanes {
    __m512 factor;
    __m512i addend, fractionShift, magicBits, minNormal, maxMagnitude, signBit;

    MxLanes(const EncodeParams& e, float scaleFactor)
        : factor(_mm512_set1_ps(scaleFactor)),
          addend(_mm512_set1_epi32(static_cast<int>(e.nearestEvenAddend))),
          fractionShift(_mm512_set1_epi32(static_cast<int>(e.fractionShift))),
          magicBits(_mm512_set1_epi32(static_cast<int>(e.subnormalMagicBits))),
          minNormal(_mm512_set1_epi32(static_cast<int>(e.minNormalBits))),
          maxMagnitude(_mm512_set1_epi32(static_cast<int>(e.maxMagnitude))),
          signBit(_mm512_set1_epi32(static_cast<int>(e.signBit))) {}

    [[gnu::always_inline]] __m512i encode16(const std::uint32_t* in, std::uint32_t& clipped,
                                            std::uint32_t& flushed) const {
        const __m512i bits = _mm512_loadu_si512(in);
        const __m512i magnitudeMask = _mm512_set1_epi32(0x7fffffff);
        const __m512i magnitude = _mm512_and_si512(
            _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(bits), factor)), magnitudeMask);
        const __m512i lsb = _mm512_and_si512(
            _mm512_maskz_srlv_epi32(kAllLanes, magnitude, fractionShift), _mm512_set1_epi32(1));
        const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(magnitude, addend), lsb);
        const __m512i small =
            _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(magnitude),
                                                               _mm512_castsi512_ps(magicBits))),
                             magicBits);
        const __m512i rounded = _mm512_mask_srlv_epi32(
            small, _mm512_cmpge_epu32_mask(magnitude, minNormal), sum, fractionShift);
        clipped += countOf(_mm512_cmpgt_epu32_mask(rounded, maxMagnitude));
        flushed += countOf(_mm512_mask_testn_epi32_mask(_mm512_test_epi32_mask(bits, magnitudeMask),
                                                        rounded, rounded));
        // code ^ (sign mask & signBit): vpternlogd 0x78 is A ^ (B & C).
        return _mm512_ternarylogic_epi32(_mm512_maskz_min_epu32(kAllLanes, rounded, maxMagnitude),
                                         _mm512_maskz_srai_epi32(kAllLanes, bits, 31), signBit,
                                         0x78);
    }
};

// Whether MxLanes gives encodeElementOf's answers: a symmetric format whose overflow answer
// is its largest magnitude code (the saturating policy).
bool mxSaturatingCodes(const EncodeParams& e, bool symmetric) {
    return symmetric && e.overflowCode[0] == e.maxMagnitude;
}
#endif

template <bool Symmetric>
[[gnu::always_inline]] inline void
mxFloatElements(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                std::uint32_t factorBits, std::uint8_t* codes, BlockTally& tally) {
    const EncodeParams e = p.element; // a local: the byte stores below may alias anything
    const float factor = asFloat(factorBits);
    const std::uint32_t magnitudeBits = e.codeMask & ~e.signBit;
    std::uint32_t clipped = 0, flushed = 0;
    std::size_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    if (mxSaturatingCodes(e, Symmetric)) {
        // 64 codes packed into one store where the block has them, then 16 at a time.
        const MxLanes lanes(e, factor);
        for (const std::size_t whole = count / 64 * 64; i < whole; i += 64) {
            const __m512i c[4] = {lanes.encode16(in + i, clipped, flushed),
                                  lanes.encode16(in + i + 16, clipped, flushed),
                                  lanes.encode16(in + i + 32, clipped, flushed),
                                  lanes.encode16(in + i + 48, clipped, flushed)};
            _mm512_storeu_si512(codes + i, packCodesInOrder(c));
        }
        for (const std::size_t whole = count / 16 * 16; i < whole; i += 16)
            _mm512_mask_cvtepi32_storeu_epi8(codes + i, kAllLanes,
                                             lanes.encode16(in + i, clipped, flushed));
    }
#endif
    for (; i < count; ++i) {
        const std::uint32_t scaled = bitsOf(asFloat(in[i]) * factor);
        const std::uint32_t code =
            encodeElementOf<RoundingMode::NearestEven, EncodeKind::BinaryFloat, Symmetric>(
                e, scaled, 0);
        codes[i] = static_cast<std::uint8_t>(code);
        const std::uint32_t magnitude = scaled & 0x7fffffffu;
        clipped +=
            roundFloatMagnitude<RoundingMode::NearestEven>(e, magnitude, 0, 0) > e.maxMagnitude;
        flushed += ((in[i] & 0x7fffffffu) != 0u) & ((code & magnitudeBits) == 0u);
    }
    tally.clipped += clipped;
    tally.flushed += flushed;
}

// x rounded to an integer, nearest-even, for |x| < 2^51: 1.5 · 2^52 + x lies in [2^52, 2^53),
// where a double's spacing is 1, so the adder rounds x to an integer (ties to even) and the
// subtraction gives it back exactly.
[[gnu::always_inline]] inline double roundToInteger(double x) {
    return (x + 0x1.8p52) - 0x1.8p52;
}

// Integer elements r = RNE(d) saturated to ±qmax, d exact or as the caller proves; counts.
// The parameters come as values: read through `p`, they would be reloaded after every byte
// store (a byte store may alias anything), and the loops would not vectorise. clipped: the
// integer lies beyond ±qmax (the exact core's overflow flag, or its clamp of −2^(n−1)).
[[gnu::always_inline]] inline std::uint8_t integerElement(double qmax, std::uint32_t codeMask,
                                                          double d, std::uint32_t inputBits,
                                                          std::uint32_t& clipped,
                                                          std::uint32_t& flushed) {
    const double rounded = roundToInteger(d);
    clipped += (rounded > qmax) | (rounded < -qmax);
    const double saturated = rounded > qmax ? qmax : (rounded < -qmax ? -qmax : rounded);
    flushed += ((inputBits & 0x7fffffffu) != 0u) & (saturated == 0.0);
    return static_cast<std::uint8_t>(
        static_cast<std::uint32_t>(static_cast<std::int32_t>(saturated)) & codeMask);
}

// MXINT8 elements: x · 2^(F − k) (F fraction bits of the element) in a double is exact
// (24 significant bits, exponent far inside the double's range), and below 2^(emax + 2 + F).
[[gnu::always_inline]] inline void mxIntegerElements(const BlockQuantParams& p,
                                                     const std::uint32_t* in, std::size_t count,
                                                     int k, std::uint8_t* codes,
                                                     BlockTally& tally) {
    const double factor = powerOfTwo(p.integerFractionBits - k);
    std::uint32_t clipped = 0, flushed = 0;
    const double qmax = p.qmax;
    const std::uint32_t codeMask = p.codeMask;
    for (std::size_t i = 0; i < count; ++i)
        codes[i] = integerElement(qmax, codeMask, static_cast<double>(asFloat(in[i])) * factor,
                                  in[i], clipped, flushed);
    tally.clipped += clipped;
    tally.flushed += flushed;
}

// Calls block(x, n, amax, codes) for each block and stores its scale code. The common block
// sizes come as compile-time constants (std::integral_constant), so that the element loops of
// a block have a fixed trip count: no remainder loop, no run-time checks of the length.
template <typename BlockFn>
[[gnu::always_inline]] inline void
forEachBlock(const std::uint32_t* in, std::size_t count, std::size_t blockSize, std::uint8_t* codes,
             std::uint32_t* scales, BlockTally& tally, const BlockFn& block) {
    const auto blocksOf = [&](auto size) {
        std::size_t first = 0, b = 0;
        for (; first + size <= count; first += size, ++b) {
            prefetchAhead(in + first, size);
            const std::uint32_t amax = maxMagnitudeOf(in + first, size);
            if (amax >= kInfinityBits) {
                tally.nonFinite = true;
                return;
            }
            scales[b] = block(in + first, size, amax, codes + first);
        }
        if (first < count) { // the ragged last block
            const std::size_t n = count - first;
            const std::uint32_t amax = maxMagnitudeOf(in + first, n);
            if (amax >= kInfinityBits) {
                tally.nonFinite = true;
                return;
            }
            scales[b] = block(in + first, n, amax, codes + first);
        }
    };
    return withBlockSize(blockSize, blocksOf);
}

// forEachBlock for quantizers whose blocks need a long chain of steps before their elements
// can start (the amax's reduction across a vector and the scale rule, a division, a scale
// rounding, thresholds worked out from the scale): the loop prepares block b + 1 (its amax
// and prepare(amax) → a state) before it runs the elements of block b, so that in program order,
// which is the order the core takes instructions in, the next block's chain starts a whole block of
// element work earlier and runs alongside it rather than after it. Blocks are independent, so the
// order changes no value. A NaN or ±∞ stops the loop at once (tally.nonFinite): the caller redoes
// the whole run, so what was stored before does not matter. elements(x, n, state, codes) → the
// block's scale code.
template <typename Prepare, typename Elements>
[[gnu::always_inline]] inline void
forEachBlockAhead(const std::uint32_t* in, std::size_t count, std::size_t blockSize,
                  std::uint8_t* codes, std::uint32_t* scales, BlockTally& tally,
                  bool scalesHoldAmaxes, const Prepare& prepare, const Elements& elements) {
    const auto blocksOf = [&](auto size) {
        // In place: block b + 1's amax is read before block b's code is stored.
        const auto amaxOf = [&](std::size_t b, std::size_t n) {
            return scalesHoldAmaxes ? scales[b] : maxMagnitudeOf(in + b * size, n);
        };
        const std::size_t whole = count / size;
        if (whole > 0) {
            const std::uint32_t firstAmax = amaxOf(0, size);
            if (firstAmax >= kInfinityBits) {
                tally.nonFinite = true;
                return;
            }
            auto next = prepare(firstAmax);
            for (std::size_t b = 0; b < whole; ++b) {
                const auto current = next;
                const std::size_t first = b * size;
                if (b + 1 < whole) {
                    prefetchAhead(in + first + size, size);
                    const std::uint32_t amax = amaxOf(b + 1, size);
                    if (amax >= kInfinityBits) {
                        tally.nonFinite = true;
                        return;
                    }
                    next = prepare(amax);
                }
                scales[b] = elements(in + first, size, current, codes + first);
            }
        }
        const std::size_t first = whole * size;
        if (first < count) { // the ragged last block
            const std::size_t n = count - first;
            const std::uint32_t amax = amaxOf(whole, n);
            if (amax >= kInfinityBits) {
                tally.nonFinite = true;
                return;
            }
            scales[whole] = elements(in + first, n, prepare(amax), codes + first);
        }
    };
    return withBlockSize(blockSize, blocksOf);
}

template <bool Symmetric>
void mxBlocksOf(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
                BlockTally& tally) {
    forEachBlockAhead(
        in, count, blockSize, codes, scales, tally, false,
        [&](std::uint32_t amax) { return mxScaleExponent(p, amax); },
        [&](const std::uint32_t* x, auto n, int k, std::uint8_t* c) {
            if (p.integerElements)
                mxIntegerElements(p, x, n, k, c, tally);
            else
                mxFloatElements<Symmetric>(p, x, n, inverseScaleBits(k), c, tally);
            return static_cast<std::uint32_t>(k + 127); // the E8M0 code
        });
}

void mxBlocks(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
              std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
              BlockTally& tally) {
    if (p.elementSymmetric)
        mxBlocksOf<true>(p, in, count, blockSize, codes, scales, tally);
    else
        mxBlocksOf<false>(p, in, count, blockSize, codes, scales, tally);
}

// The smallest FP32 number U with  x ≥ U  ⇔  x > t, or x = t and tieUp,  for every FP32 x
// (t exact in a double). With f = t rounded to FP32 (to nearest): f > t makes f the smallest
// FP32 above t; f < t makes it f's successor; f = t leaves f (tieUp) or its successor.
// Successors by the bits: +1 for a positive number, −1 for a negative one, and −0 → 2^−149.
[[gnu::always_inline]] inline float thresholdAbove(double t, bool tieUp) {
    // Branch-free (the comparisons go either way from block to block): selects the compiler
    // turns into blends, vectorised over a block's thresholds.
    const float f = static_cast<float>(t);
    const double back = static_cast<double>(f);
    const std::uint32_t bits = bitsOf(f);
    const std::uint32_t successor =
        bits == 0x80000000u ? 1u : ((bits >> 31) != 0u ? bits - 1u : bits + 1u);
    const bool keep = (back > t) | ((back == t) & tieUp);
    return asFloat(keep ? bits : successor);
}

// Thresholds of a ThresholdSet times a scale S (exact products: see the callers) as FP32
// compares.
struct ScaledThresholds {
    float above[ThresholdSet::kLanes];
    float clip; // NVFP4: |x| at or above this counts as clipped
};

// thresholdAbove for all (padded) thresholds of a set at once, in loops of a vector's width
// with selects only, which the compiler vectorises (one block's scale is worked out while the
// last block's elements are still in flight).
[[gnu::always_inline]] inline void scaleThresholds(const ThresholdSet& set, double scale,
                                                   ScaledThresholds& out) {
    constexpr int kLanes = ThresholdSet::kLanes;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    // The same steps in two vectors of 8 doubles, stored with one 512-bit store: the element
    // loops load the thresholds as one vector, and element-wise stores before that load
    // would stall it (a store cannot forward to a wider load). static_cast<float> and
    // vcvtpd2ps both round to nearest (the default MXCSR), ±∞ beyond FP32's range.
    static_assert(kLanes == 16);
    constexpr __mmask8 kAllDoubles = 0xff; // zero-masked conversions: see kAllLanes above
    const __m512d s = _mm512_set1_pd(scale);
    const __m512d tLow = _mm512_mul_pd(_mm512_loadu_pd(set.thresholds), s);
    const __m512d tHigh = _mm512_mul_pd(_mm512_loadu_pd(set.thresholds + 8), s);
    const __m256 fLow = _mm512_maskz_cvtpd_ps(kAllDoubles, tLow);
    const __m256 fHigh = _mm512_maskz_cvtpd_ps(kAllDoubles, tHigh);
    const __m512d backLow = _mm512_maskz_cvtps_pd(kAllDoubles, fLow);
    const __m512d backHigh = _mm512_maskz_cvtps_pd(kAllDoubles, fHigh);
    const __mmask16 above =
        static_cast<__mmask16>(_mm512_cmp_pd_mask(backLow, tLow, _CMP_GT_OQ) |
                               (_mm512_cmp_pd_mask(backHigh, tHigh, _CMP_GT_OQ) << 8));
    const __mmask16 equal =
        static_cast<__mmask16>(_mm512_cmp_pd_mask(backLow, tLow, _CMP_EQ_OQ) |
                               (_mm512_cmp_pd_mask(backHigh, tHigh, _CMP_EQ_OQ) << 8));
    const __m512i tieMask = _mm512_loadu_si512(set.tieMask);
    const __mmask16 keep = above | (equal & _mm512_test_epi32_mask(tieMask, tieMask));
    const __m512i bits =
        _mm512_castps_si512(_mm512_insertf32x8(_mm512_castps256_ps512(fLow), fHigh, 1));
    const __m512i one = _mm512_set1_epi32(1);
    __m512i successor =
        _mm512_mask_sub_epi32(_mm512_add_epi32(bits, one), _mm512_movepi32_mask(bits), bits, one);
    successor = _mm512_mask_mov_epi32(
        successor, _mm512_cmpeq_epi32_mask(bits, _mm512_set1_epi32(static_cast<int>(0x80000000u))),
        one);
    _mm512_storeu_si512(out.above, _mm512_mask_mov_epi32(successor, keep, bits));
#else
    double t[kLanes];
    std::uint32_t bits[kLanes], keep[kLanes];
    for (int i = 0; i < kLanes; ++i)
        t[i] = set.thresholds[i] * scale;
    for (int i = 0; i < kLanes; ++i) {
        const float f = static_cast<float>(t[i]);
        const double back = static_cast<double>(f);
        bits[i] = bitsOf(f);
        keep[i] = (back > t[i] ? ~0u : 0u) | (back == t[i] ? set.tieMask[i] : 0u);
    }
    for (int i = 0; i < kLanes; ++i) {
        const std::uint32_t b = bits[i];
        const std::uint32_t successor = b == 0x80000000u ? 1u : ((b >> 31) != 0u ? b - 1u : b + 1u);
        out.above[i] = asFloat((b & keep[i]) | (successor & ~keep[i]));
    }
#endif
}

// The segment of x: how many thresholds lie at or below it, in FP32 compares x ≥ U_i.
template <int Count>
[[gnu::always_inline]] inline std::uint32_t segmentOf(float x, const ScaledThresholds& t) {
    std::uint32_t segment = 0;
    for (int i = 0; i < Count; ++i)
        segment += static_cast<std::uint32_t>(x >= t.above[i]);
    return segment;
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
// The segments of 16 values at once by a branch-free binary search over Count = 2^m − 1
// ascending thresholds U (as FP32 compares x ≥ U_i), m steps instead of Count compares:
//   segment s = #{i : x ≥ U_i}; since the U_i ascend, x ≥ U_(s0 + h − 1) ⇔ s ≥ s0 + h
//   step h = 2^(m−1) … 1:  s0 += h where x ≥ U[s0 + h − 1]        (vpermps picks U per lane)
//   Count = 15:  U[7] → U[s0+3] → U[s0+1] → U[s0]      indices ≤ 14: lane 15 is never read
// It equals segmentOf<Count> wherever the U_i do not descend: thresholds t_i · S ascend
// strictly for S > 0, and thresholdAbove keeps their order (it is the least FP32 of an
// up-set that shrinks as t grows). The callers keep S > 0 (NF4's all-zero block, S = 0, takes
// the counting loop).
template <int Count> [[gnu::always_inline]] inline __m512i searchSegments(__m512 x, __m512 above) {
    static_assert(((Count + 1) & Count) == 0, "Count + 1 must be a power of two");
    __m512i segment = _mm512_setzero_si512();
    for (int step = (Count + 1) / 2; step >= 1; step /= 2) {
        const __m512 u = _mm512_maskz_permutexvar_ps(
            kAllLanes, _mm512_add_epi32(segment, _mm512_set1_epi32(step - 1)), above);
        segment = _mm512_mask_add_epi32(segment, _mm512_cmp_ps_mask(x, u, _CMP_GE_OQ), segment,
                                        _mm512_set1_epi32(step));
    }
    return segment;
}

// The sum of 16 per-lane counts (the zero-masked extract, every lane kept: the plain form
// starts from an undefined vector, as above).
[[gnu::always_inline]] inline std::uint32_t laneSum(__m512i counts) {
    const __m256i half = _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xff, counts, 0),
                                          _mm512_maskz_extracti64x4_epi64(0xff, counts, 1));
    const __m128i quarter =
        _mm_add_epi32(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
    const __m128i eighth = _mm_add_epi32(quarter, _mm_unpackhi_epi64(quarter, quarter));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(eighth) + _mm_extract_epi32(eighth, 1));
}
// Per-lane counts of one vector of a search kernel (NVFP4, INT4): a lane clipped when its
// |x| reaches the clip threshold (only where a block can clip at all), and flushed when a
// non-zero |x| landed in segment 0. Each count is a lane's −1 mask subtracted, summed by
// laneSum once after the loop.
template <bool CountClips> struct LaneCounts {
    __m512i clipped = _mm512_setzero_si512();
    __m512i flushed = _mm512_setzero_si512();

    [[gnu::always_inline]] void add(__m512 a, __m512i magnitude, __m512i segment, float clip) {
        const __m512i minusOne = _mm512_set1_epi32(-1);
        if constexpr (CountClips)
            clipped = _mm512_mask_sub_epi32(clipped,
                                            _mm512_cmp_ps_mask(a, _mm512_set1_ps(clip), _CMP_GE_OQ),
                                            clipped, minusOne);
        flushed = _mm512_mask_sub_epi32(
            flushed,
            _mm512_mask_cmpeq_epi32_mask(_mm512_test_epi32_mask(magnitude, magnitude), segment,
                                         _mm512_setzero_si512()),
            flushed, minusOne);
    }
    [[gnu::always_inline]] void addTo(std::uint32_t& clippedTotal,
                                      std::uint32_t& flushedTotal) const {
        if constexpr (CountClips)
            clippedTotal += laneSum(clipped);
        flushedTotal += laneSum(flushed);
    }
};
#endif

// E4M3 rounding of a positive double q, nearest-even, saturated: with e = max(floor(log2 q),
// emin), adding C = 1.5 · 2^(52 + e − p + 1) rounds q to a multiple of 2^(e − p + 1), the
// format's spacing there (C's own spacing), ties to even, and subtracting C leaves it exactly.
double roundToScaleGrid(const BlockQuantParams& p, double q) {
    const int e0 = static_cast<int>((std::bit_cast<std::uint64_t>(q) >> 52) & 0x7ffu) - 1023;
    const int e = e0 > p.scaleMinExponent ? e0 : p.scaleMinExponent;
    const double c = 1.5 * powerOfTwo(52 + e - p.scalePrecision + 1);
    const double rounded = (q + c) - c;
    return rounded > p.scaleMax ? p.scaleMax : rounded;
}

// One NVFP4 block's scale: its code, and the thresholds of its scale (none where the scale
// rounds to 0). mayClip: the block's amax reaches the clip threshold; where it does not, no
// element of the block does (every |x| ≤ amax), and the loops skip counting.
struct Nvfp4Scale {
    const ScaledThresholds* thresholds = nullptr;
    std::uint32_t code = 0;
    bool mayClip = false;
};

template <bool CountClips>
[[gnu::always_inline]] inline void
nvfp4ElementsOf(std::uint32_t signCode, const ScaledThresholds& t, const std::uint32_t* x,
                std::size_t n, std::uint8_t* c, BlockTally& tally) {
    const float clip = t.clip;
    std::uint32_t clipped = 0, flushed = 0;
    std::size_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    // Three steps of searchSegments (the scale s_b · s_t > 0 here), counted by LaneCounts.
    const __m512 above = _mm512_loadu_ps(t.above);
    LaneCounts<CountClips> lanes;
    for (const std::size_t whole = n / 16 * 16; i < whole; i += 16) {
        const __m512i bits = _mm512_loadu_si512(x + i);
        const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
        const __m512 a = _mm512_castsi512_ps(magnitude);
        const __m512i segment = searchSegments<7>(a, above);
        const __m512i code = _mm512_mask_or_epi32(segment, _mm512_movepi32_mask(bits), segment,
                                                  _mm512_set1_epi32(static_cast<int>(signCode)));
        _mm512_mask_cvtepi32_storeu_epi8(c + i, kAllLanes, code);
        lanes.add(a, magnitude, segment, clip);
    }
    lanes.addTo(clipped, flushed);
#endif
    for (; i < n; ++i) {
        const std::uint32_t magnitude = x[i] & 0x7fffffffu;
        const float a = asFloat(magnitude);
        const std::uint32_t segment = segmentOf<7>(a, t);
        c[i] = static_cast<std::uint8_t>(segment | (signCode & (0u - (x[i] >> 31))));
        if constexpr (CountClips)
            clipped += a >= clip;
        flushed += (magnitude != 0u) & (segment == 0u);
    }
    tally.clipped += clipped;
    tally.flushed += flushed;
}

// NVFP4: s_b = E4M3(amax_b / (6 · s_t)) from the correctly rounded double quotient (a double
// rounding that cannot change the result: docs/proofs.md, "Block quantizers"), elements E2M1(|x| /
// (s_b · s_t)) by thresholds t_i · s_b · s_t (exact products of 3, 4 and 24 significant bits)
// compared in FP32. ByGrid: p.scaleCodesOnGrid, a template parameter so that the common case
// carries no encoder.
template <bool ClipAtOrAbove, bool ByGrid>
void nvfp4BlocksOf(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                   std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
                   BlockTally& tally) {
    const double divisor = p.elementMax * p.tensorScale; // exact: 3 and 24 significant bits
    ScaledThresholds byScaleCode[128];
    bool known[128] = {};
    const std::uint32_t signCode = p.signCode;
    const auto prepare = [&](std::uint32_t amax) {
        const double blockScale = roundToScaleGrid(p, static_cast<double>(asFloat(amax)) / divisor);
        Nvfp4Scale s;
        s.code = ByGrid ? gridCode(p, blockScale)
                        : encodeElementOf<RoundingMode::NearestEven, EncodeKind::BinaryFloat>(
                              p.scaleEncoder, bitsOf(static_cast<float>(blockScale)), 0);
        if (blockScale == 0.0)
            return s;
        // The thresholds depend on the block scale only, one of at most 128 positive codes:
        // each is worked out the first time its code comes up.
        ScaledThresholds& t = byScaleCode[s.code & 0x7fu];
        if (!known[s.code & 0x7fu]) {
            const double scale = blockScale * p.tensorScale;
            scaleThresholds(p.levels, scale, t);
            t.clip = thresholdAbove(p.clipThreshold * scale, ClipAtOrAbove);
            known[s.code & 0x7fu] = true;
        }
        s.thresholds = &t;
        s.mayClip = asFloat(amax) >= t.clip;
        return s;
    };
    const auto elements = [&](const std::uint32_t* x, auto n, const Nvfp4Scale& s,
                              std::uint8_t* c) {
        if (s.thresholds == nullptr) {
            // A block scale that rounds to 0: every element stores +0, and the non-zero
            // inputs are flushed (the reference's rule, docs/behaviour.md, "Block formats and
            // quantization").
            std::uint32_t flushed = 0;
            for (std::size_t i = 0; i < n; ++i) {
                c[i] = 0;
                flushed += (x[i] & 0x7fffffffu) != 0u;
            }
            tally.flushed += flushed;
        } else if (s.mayClip) {
            nvfp4ElementsOf<true>(signCode, *s.thresholds, x, n, c, tally);
        } else {
            nvfp4ElementsOf<false>(signCode, *s.thresholds, x, n, c, tally);
        }
        return s.code;
    };
    forEachBlockAhead(in, count, blockSize, codes, scales, tally, p.scalesHoldAmaxes, prepare,
                      elements);
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
// NVFP4 elements by an estimate and one compare (AVX-512), instead of the three steps of the
// search, for the E2M1 grid g = 0, 1/2, 1, 3/2, 2, 3, 4, 6 (midpoints t_j between g_j and
// g_(j+1): 1/4, 3/4, 5/4, 7/4, 5/2, 7/2, 5). With S = s_b · s_t, v = |x| / S (exact) and k its
// code (the thresholds v passes, ties to even), the estimate is e = the grid index of
// w = |x| · r in FP32, r = 1/S rounded to FP32, taken down to the grid (the largest j with
// g_j ≤ w); then k = e + [|x| ≥ U_e], U_e the search's own FP32 threshold (U_7 = +∞):
//   r = (1/S)(1 + ε1), |ε1| < 2^−23 (1/S rounded to a double, then to FP32, r normal), and
//   w = |x| · r · (1 + ε2), |ε2| ≤ 2^−24, so w = v · (1 + δ) with |δ| < 2^−22 (a w below
//   2^−126 rounds by less than 2^−149 in absolute terms: e = 0 and k ≤ 1 all the same).
//   k ≥ e:      g_e ≤ w  ⇒  v ≥ g_e / (1 + δ) > t_(e−1), since g_j / t_(j−1) ≥ 8/7
//   k ≤ e + 1:  w < g_(e+1)  ⇒  v < g_(e+1) / (1 − δ) < t_(e+1), since t_j / g_j ≥ 7/6
// so k is e or e + 1, and v passes t_e exactly when |x| ≥ U_e. The grid index comes from w's
// bits: bits(w) >> 22 is w's exponent field and its first fraction bit,
//   w:     [0, 1/2)  [1/2, 1)   [1, 3/2) [3/2, 2) [2, 3)  [3, 4)  [4, 6)  [6, 8)
//   >> 22: ≤ 0xfb    0xfc 0xfd  0xfe     0xff     0x100   0x101   0x102   0x103
//   e:     0         1          2        3        4       5       6       7
// raised to at least 0xf8 (w below 1/8: e = 0), and its low four bits pick e and U_e
// (vpermd, vpermps) from 16-entry tables. w < 8 (the index stays below 0x104) is checked per
// block on the amax (the product and its rounding are monotone in |x|, r > 0); a block that may
// clip, whose r is not a normal FP32 number, or whose scale is 0 takes the search instead.
constexpr std::uint32_t kE2m1IndexFloor = 0xf8;
constexpr std::uint32_t kE2m1ByIndex[16] = {4, 5, 6, 7, 7, 7, 7, 7, 0, 0, 0, 0, 1, 1, 2, 3};
constexpr double kE2m1Midpoints[7] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5};

// Whether the element thresholds are E2M1's (the estimate's table assumes its grid).
bool e2m1Thresholds(const ThresholdSet& levels) {
    if (levels.count != 7)
        return false;
    for (int j = 0; j < 7; ++j)
        if (levels.thresholds[j] != kE2m1Midpoints[j])
            return false;
    return true;
}

// One block scale code's thresholds for both kernels: the search's, and the estimate's U_e
// by index with the reciprocal (usable: r is a normal FP32 number).
struct Nvfp4CodeThresholds {
    ScaledThresholds t;
    float byIndex[16];
    float reciprocal;
    bool usable;
};

[[gnu::always_inline]] inline void nvfp4CodeThresholds(const BlockQuantParams& p, double scale,
                                                       bool clipAtOrAbove,
                                                       Nvfp4CodeThresholds& out) {
    scaleThresholds(p.levels, scale, out.t);
    out.t.clip = thresholdAbove(p.clipThreshold * scale, clipAtOrAbove);
    for (int i = 0; i < 16; ++i)
        out.byIndex[i] = kE2m1ByIndex[i] < 7 ? out.t.above[kE2m1ByIndex[i]]
                                             : std::numeric_limits<float>::infinity();
    out.reciprocal = static_cast<float>(1.0 / scale);
    out.usable = out.reciprocal >= 0x1p-126f && out.reciprocal <= std::numeric_limits<float>::max();
}

// The estimate kernel over one block of n elements (a multiple of 16), codes stored 64 at a
// time where n allows. flushed (x ≠ 0, code 0) is counted as the codes without magnitude bits
// less the zero inputs (every zero input has code 0): `codeZeros` counts the former on the
// packed bytes (one test for 64 codes), `zeroInputs` the latter; popcounts of masks, which
// leave the vector units to the codes.
[[gnu::always_inline]] inline void nvfp4EstimatedElements(const Nvfp4CodeThresholds& s,
                                                          std::uint32_t signCode,
                                                          const std::uint32_t* x, std::size_t n,
                                                          std::uint8_t* c, std::size_t& codeZeros,
                                                          std::size_t& zeroInputs) {
    const __m512 byIndex = _mm512_loadu_ps(s.byIndex);
    const __m512i estimates = _mm512_loadu_si512(kE2m1ByIndex);
    const __m512 reciprocal = _mm512_set1_ps(s.reciprocal);
    const std::uint32_t magnitudeBits = signCode - 1; // E2M1: the three bits below the sign
    const auto code16 = [&](const std::uint32_t* in) {
        const __m512i bits = _mm512_loadu_si512(in);
        const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
        const __m512 a = _mm512_castsi512_ps(magnitude);
        const __m512i index = _mm512_maskz_max_epu32(
            kAllLanes,
            _mm512_maskz_srli_epi32(kAllLanes, _mm512_castps_si512(_mm512_mul_ps(a, reciprocal)),
                                    22),
            _mm512_set1_epi32(static_cast<int>(kE2m1IndexFloor)));
        const __m512i estimate = _mm512_maskz_permutexvar_epi32(kAllLanes, index, estimates);
        const __m512 u = _mm512_maskz_permutexvar_ps(kAllLanes, index, byIndex);
        const __m512i segment = _mm512_mask_add_epi32(
            estimate, _mm512_cmp_ps_mask(a, u, _CMP_GE_OQ), estimate, _mm512_set1_epi32(1));
        zeroInputs += countOf(_mm512_testn_epi32_mask(magnitude, magnitude));
        // segment | (sign mask & signCode): vpternlogd 0xf8 is A | (B & C).
        return _mm512_ternarylogic_epi32(segment, _mm512_maskz_srai_epi32(kAllLanes, bits, 31),
                                         _mm512_set1_epi32(static_cast<int>(signCode)), 0xf8);
    };
    std::size_t i = 0;
    for (const std::size_t whole = n / 64 * 64; i < whole; i += 64) {
        const __m512i codes4[4] = {code16(x + i), code16(x + i + 16), code16(x + i + 32),
                                   code16(x + i + 48)};
        const __m512i packed = packCodesInOrder(codes4);
        _mm512_storeu_si512(c + i, packed);
        codeZeros += static_cast<std::size_t>(std::popcount(static_cast<std::uint64_t>(
            _mm512_testn_epi8_mask(packed, _mm512_set1_epi8(static_cast<char>(magnitudeBits))))));
    }
    for (; i < n; i += 16) {
        const __m512i code = code16(x + i);
        _mm512_mask_cvtepi32_storeu_epi8(c + i, kAllLanes, code);
        codeZeros += countOf(
            _mm512_testn_epi32_mask(code, _mm512_set1_epi32(static_cast<int>(magnitudeBits))));
    }
}

// roundToScaleGrid and gridCode for 8 quotients q at once, lane by lane the same operations
// (an add and a subtract of C, a minimum, the code's exact products and sum), so the same
// values: the scale codes, and the rounded scales into `rounded`.
[[gnu::always_inline]] inline __m256i gridCodes8(const BlockQuantParams& p, __m512d q,
                                                 __m512d& rounded) {
    constexpr __mmask8 kAll = 0xff; // zero-masked forms: see kAllLanes
    const __m512i exponentField = _mm512_set1_epi64(0x7ff);
    const __m512i minExponent = _mm512_set1_epi64(p.scaleMinExponent);
    const auto exponentOf = [&](__m512d x) { // max(floor(log2 x), emin) for x ≥ 0
        const __m512i field = _mm512_and_si512(
            _mm512_maskz_srli_epi64(kAll, _mm512_castpd_si512(x), 52), exponentField);
        return _mm512_maskz_max_epi64(kAll, _mm512_sub_epi64(field, _mm512_set1_epi64(1023)),
                                      minExponent);
    };
    // C = 1.5 · 2^(52 + e − p + 1): exponent field 1023 + 52 + e − p + 1, fraction 100…0.
    const __m512i e = exponentOf(q);
    const __m512d c = _mm512_castsi512_pd(_mm512_or_si512(
        _mm512_maskz_slli_epi64(
            kAll, _mm512_add_epi64(e, _mm512_set1_epi64(1023 + 52 - p.scalePrecision + 1)), 52),
        _mm512_set1_epi64(std::int64_t{1} << 51)));
    rounded = _mm512_maskz_min_pd(kAll, _mm512_sub_pd(_mm512_add_pd(q, c), c),
                                  _mm512_set1_pd(p.scaleMax));
    // code = (e − emin) · P + r · 2^(p − 1 − e), e = max(floor(log2 r), emin): exact integers.
    const __m512i er = exponentOf(rounded);
    const __m512d scaleToCode = _mm512_castsi512_pd(_mm512_maskz_slli_epi64(
        kAll, _mm512_sub_epi64(_mm512_set1_epi64(1023 + p.scalePrecision - 1), er), 52));
    const __m512d code = _mm512_add_pd(
        _mm512_mul_pd(_mm512_maskz_cvtepi64_pd(kAll, _mm512_sub_epi64(er, minExponent)),
                      _mm512_set1_pd(static_cast<double>(1u << (p.scalePrecision - 1)))),
        _mm512_mul_pd(rounded, scaleToCode));
    return _mm512_maskz_cvttpd_epi32(kAll, code);
}

// NVFP4 blocks of a multiple of 16 elements with grid scale codes (AVX-512): the scales of a
// group of blocks first (each an independent chain: amax, rounding, code, thresholds), then
// the group's elements, by the estimate where the block allows it (above), else by the search.
// The blocks are independent, so the order changes no value; a NaN or ±∞ stops at once, as in
// forEachBlockAhead. The ragged last block goes through nvfp4BlocksOf.
template <bool ClipAtOrAbove>
void nvfp4EstimatedBlocks(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                          std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
                          BlockTally& tally) {
    const double divisor = p.elementMax * p.tensorScale; // exact: 3 and 24 significant bits
    Nvfp4CodeThresholds byScaleCode[128];
    bool known[128] = {};
    const std::uint32_t signCode = p.signCode;
    std::size_t codeZeros = 0, zeroInputs = 0; // by the estimate: flushed = their difference
    const auto blocksOf = [&](auto size) {
        constexpr std::size_t kGroup = 16;
        struct Block {
            const Nvfp4CodeThresholds* thresholds;
            std::uint32_t code;
            bool mayClip;
            bool byEstimate;
        };
        const std::size_t whole = count / size;
        for (std::size_t g = 0; g < whole; g += kGroup) {
            const std::size_t end = whole - g < kGroup ? whole : g + kGroup;
            // The amaxes (a block past the end: 0, never used), then their scales 8 at a time.
            alignas(64) std::uint32_t amaxes[kGroup] = {};
            for (std::size_t b = g; b < end; ++b)
                amaxes[b - g] =
                    p.scalesHoldAmaxes ? scales[b] : maxMagnitudeOf(in + b * size, size);
            const __m512i amaxBits = _mm512_load_si512(amaxes);
            if (_mm512_cmpge_epu32_mask(amaxBits,
                                        _mm512_set1_epi32(static_cast<int>(kInfinityBits))) != 0) {
                tally.nonFinite = true;
                return;
            }
            alignas(64) double rounded[kGroup];
            alignas(64) std::uint32_t scaleCodes[kGroup];
            const __m512d divisors = _mm512_set1_pd(divisor);
            for (std::size_t h = 0; h < kGroup; h += 8) {
                const __m512d q = _mm512_div_pd(
                    _mm512_maskz_cvtps_pd(static_cast<__mmask8>(0xff),
                                          _mm256_castsi256_ps(_mm256_load_si256(
                                              reinterpret_cast<const __m256i*>(amaxes + h)))),
                    divisors);
                __m512d r;
                _mm256_store_si256(reinterpret_cast<__m256i*>(scaleCodes + h), gridCodes8(p, q, r));
                _mm512_store_pd(rounded + h, r);
            }
            Block group[kGroup];
            for (std::size_t b = g; b < end; ++b) {
                const std::uint32_t amax = amaxes[b - g];
                Block& block = group[b - g];
                const double blockScale = rounded[b - g];
                block.code = scaleCodes[b - g];
                block.thresholds = nullptr;
                if (blockScale == 0.0)
                    continue;
                Nvfp4CodeThresholds& t = byScaleCode[block.code & 0x7fu];
                if (!known[block.code & 0x7fu]) {
                    nvfp4CodeThresholds(p, blockScale * p.tensorScale, ClipAtOrAbove, t);
                    known[block.code & 0x7fu] = true;
                }
                block.thresholds = &t;
                block.mayClip = asFloat(amax) >= t.t.clip;
                block.byEstimate =
                    t.usable && !block.mayClip && asFloat(amax) * t.reciprocal < 8.0f;
            }
            for (std::size_t b = g; b < end; ++b) {
                const Block& block = group[b - g];
                const std::size_t first = b * size;
                prefetchAhead(in + first, size);
                if (block.thresholds == nullptr) {
                    // A block scale that rounds to 0: every element stores +0, and the
                    // non-zero inputs are flushed (the reference's rule, docs/behaviour.md, "Block
                    // formats and quantization").
                    std::uint32_t flushed = 0;
                    for (std::size_t i = 0; i < size; ++i) {
                        codes[first + i] = 0;
                        flushed += (in[first + i] & 0x7fffffffu) != 0u;
                    }
                    tally.flushed += flushed;
                } else if (block.byEstimate) {
                    nvfp4EstimatedElements(*block.thresholds, signCode, in + first, size,
                                           codes + first, codeZeros, zeroInputs);
                } else if (block.mayClip) {
                    nvfp4ElementsOf<true>(signCode, block.thresholds->t, in + first, size,
                                          codes + first, tally);
                } else {
                    nvfp4ElementsOf<false>(signCode, block.thresholds->t, in + first, size,
                                           codes + first, tally);
                }
                scales[b] = block.code;
            }
        }
    };
    withBlockSize(blockSize, blocksOf);
    tally.flushed += codeZeros - zeroInputs;
    if (tally.nonFinite)
        return;
    const std::size_t first = count / blockSize * blockSize;
    if (first < count) // the ragged last block
        nvfp4BlocksOf<ClipAtOrAbove, true>(p, in + first, count - first, blockSize, codes + first,
                                           scales + first / blockSize, tally);
}
#endif

void nvfp4Blocks(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                 std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
                 BlockTally& tally) {
    const auto run = [&](auto clipAtOrAbove, auto byGrid) {
        nvfp4BlocksOf<decltype(clipAtOrAbove)::value, decltype(byGrid)::value>(
            p, in, count, blockSize, codes, scales, tally);
    };
    const auto withGrid = [&](auto clipAtOrAbove) {
        p.scaleCodesOnGrid ? run(clipAtOrAbove, std::true_type{})
                           : run(clipAtOrAbove, std::false_type{});
    };
#if defined(__AVX512F__) && defined(__AVX512BW__)
    if (p.scaleCodesOnGrid && blockSize % 16 == 0 && e2m1Thresholds(p.levels)) {
        p.clipAtOrAbove
            ? nvfp4EstimatedBlocks<true>(p, in, count, blockSize, codes, scales, tally)
            : nvfp4EstimatedBlocks<false>(p, in, count, blockSize, codes, scales, tally);
        return;
    }
#endif
    p.clipAtOrAbove ? withGrid(std::true_type{}) : withGrid(std::false_type{});
}

// NF4: scale = the block's absmax (FP32), elements by thresholds m_i · absmax (midpoints of
// adjacent levels, ≤ 29 significant bits, times 24: exact in a double) compared in FP32.
void nf4Blocks(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
               std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
               BlockTally& tally) {
    struct Nf4Scale {
        ScaledThresholds t;
        std::uint32_t amax;
    };
    const auto prepare = [&](std::uint32_t amax) {
        Nf4Scale s;
        scaleThresholds(p.levels, static_cast<double>(asFloat(amax)), s.t);
        s.amax = amax;
        return s;
    };
    const auto elements = [&](const std::uint32_t* x, auto n, const Nf4Scale& s, std::uint8_t* c) {
        const ScaledThresholds& t = s.t;
        const std::uint32_t zeroLevel = p.zeroLevelCode;
        std::uint32_t flushed = 0;
        std::size_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
        // Four steps of searchSegments; an all-zero block (absmax 0, where the
        // thresholds all fall on ±0 and do not ascend) keeps the counting loop.
        const __m512 above = _mm512_loadu_ps(t.above);
        const __m512i zeroCode = _mm512_set1_epi32(static_cast<int>(zeroLevel));
        for (const std::size_t whole = s.amax != 0 ? n / 16 * 16 : 0; i < whole; i += 16) {
            const __m512i bits = _mm512_loadu_si512(x + i);
            const __m512i segment = searchSegments<15>(_mm512_castsi512_ps(bits), above);
            _mm512_mask_cvtepi32_storeu_epi8(c + i, kAllLanes, segment);
            flushed += countOf(_mm512_mask_cmpeq_epi32_mask(
                _mm512_test_epi32_mask(bits, _mm512_set1_epi32(0x7fffffff)), segment, zeroCode));
        }
#endif
        for (; i < n; ++i) {
            const std::uint32_t segment = segmentOf<15>(asFloat(x[i]), t);
            c[i] = static_cast<std::uint8_t>(segment);
            flushed += ((x[i] & 0x7fffffffu) != 0u) & (segment == zeroLevel);
        }
        tally.flushed += flushed;
        return s.amax; // the absmax's FP32 bits
    };
#if defined(__AVX512F__) && defined(__AVX512BW__)
    // The search's block starts while the last block's elements run (forEachBlockAhead).
    forEachBlockAhead(in, count, blockSize, codes, scales, tally, false, prepare, elements);
#else
    // The counting loops gain nothing from that: the thresholds' copy from block to block
    // costs what the overlap saves.
    forEachBlock(in, count, blockSize, codes, scales, tally,
                 [&](const std::uint32_t* x, auto n, std::uint32_t amax, std::uint8_t* c) {
                     return elements(x, n, prepare(amax), c);
                 });
#endif
}

// Integer elements with scale s: d = x / s as a correctly rounded double, then RNE to an
// integer. The quotient's rounding cannot move it onto or across a midpoint k + 1/2
// (docs/proofs.md, "Block quantizers"): d rounds like x / s itself. The general path (INT8's 127
// levels).
[[gnu::always_inline]] inline void
integerElementsByDivision(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                          float scale, std::uint8_t* codes, BlockTally& tally) {
    const double s = scale;
    std::uint32_t clipped = 0, flushed = 0;
    const double qmax = p.qmax;
    const std::uint32_t codeMask = p.codeMask;
    for (std::size_t i = 0; i < count; ++i)
        codes[i] = integerElement(qmax, codeMask, static_cast<double>(asFloat(in[i])) / s, in[i],
                                  clipped, flushed);
    tally.clipped += clipped;
    tally.flushed += flushed;
}

// INT4 (qmax = 7) by thresholds instead of a division. RNE(|x| / s) is the number of
// midpoints k + 1/2 (k = 0 … qmax − 1) that |x| / s passes, a value exactly on one going up
// where k + 1 is even (k odd); counting only those below qmax saturates at qmax, and
// |x| / s beyond qmax + 1/2 (on it: up, to qmax + 1, where that is even) is the clip:
//   |x|/s:  0 ─┼─ 1 ─┼─ 2 ─┼─ … ─ 6 ─┼─ 7 ─┼─ (8)
//             ½     1½    2½        6½    7½  ← thresholds, ties to the even neighbour
// (k + 1/2) · s has ≤ 4 + 24 significant bits: exact in a double, and thresholdAbove turns
// each into one FP32 compare |x| ≥ U_k, exact for every FP32 |x| (subnormal s included).
struct IntegerThresholds {
    ThresholdSet midpoints;
    double clipMidpoint = 0;
    bool clipTieUp = false;
};

IntegerThresholds integerThresholds(int qmax) {
    IntegerThresholds t;
    t.midpoints.count = qmax;
    for (int k = 0; k < qmax; ++k) {
        t.midpoints.thresholds[k] = k + 0.5;
        t.midpoints.tieUp[k] = k % 2 != 0;
        t.midpoints.tieMask[k] = k % 2 != 0 ? ~0u : 0u;
    }
    t.clipMidpoint = qmax + 0.5;
    t.clipTieUp = (qmax + 1) % 2 == 0;
    return t;
}

constexpr int kInt4Max = 7;

// One INT4 scale's thresholds. mayClip: the largest |x| it applies to reaches the clip
// threshold; where it does not, no |x| does (every |x| ≤ amax), and the loops skip counting.
// byEstimate: the AVX-512 loop may take each element's integer from an estimate (below).
struct Int4Scale {
    ScaledThresholds t;
    float scale = 0;
    float reciprocal = 0; // 1 / scale rounded to FP32, where byEstimate
    bool mayClip = false;
    bool byEstimate = false;
};

#if defined(__AVX512F__) && defined(__AVX512BW__)
// INT4 by an estimate and one compare (AVX-512), instead of the three steps of the search.
// With v = |x| / s (exact) and k = RNE(v), the integer k0 = trunc(q), q = fma(|x|, r, 1/4)
// in FP32 and r = 1/s rounded to FP32, is k − 1 or k:
//   r = (1/s)(1 + ε1), |ε1| ≤ 2^−24, for a normal s whose reciprocal is normal; so
//   |x| · r = v + v · ε1, and the fused add rounds once: q = (v + 1/4 + v · ε1)(1 + ε2).
//   With q < 8 (v < 8): |q − (v + 1/4)| ≤ 8 · 2^−24 + 8.5 · 2^−24 < 2^−19.
//   k − 1/2 ≤ v ≤ k + 1/2  ⇒  k − 1/4 − 2^−19 < q < k + 3/4 + 2^−19  ⇒  trunc(q) ∈ {k − 1, k}
//   (never below 0: q > 1/4 − 2^−19).
// The search's thresholds then finish it: |x| ≥ U_j ⇔ RNE(v) ≥ j + 1 (U_7 the clip
// threshold, 7 1/2), so  k = k0 + [|x| ≥ U_k0]:
//   0 ─┼─ 1 ─┼─ 2 … 6 ─┼─ 7 ─┼─          k0 = k:      |x| < U_k   (RNE(v) is not k + 1)
//     U0    U1        U6    U7            k0 = k − 1:  |x| ≥ U_k−1 (RNE(v) is k)
// The largest k0 of a block is amax's (fma and trunc are monotone in |x|, r > 0), so k0 ≤ 7,
// which keeps U_k0 within the thresholds and q below 8, is one check per scale; and where the
// block cannot clip (not mayClip), k ≤ 7 as saturation needs. Anything else takes the search.
[[gnu::always_inline]] inline void estimateInt4(Int4Scale& s, std::uint32_t amax) {
    constexpr float kSmallestNormal = 0x1p-126f;
    if (s.mayClip || s.scale < kSmallestNormal)
        return;
    const float reciprocal = 1.0f / s.scale;
    if (reciprocal < kSmallestNormal ||
        static_cast<std::int32_t>(std::fma(asFloat(amax), reciprocal, 0.25f)) > kInt4Max)
        return;
    s.reciprocal = reciprocal;
    s.byEstimate = true;
}
#endif

[[gnu::always_inline]] inline Int4Scale int4Scale(const IntegerThresholds& midpoints, float scale,
                                                  std::uint32_t amax) {
    Int4Scale s;
    s.scale = scale;
    scaleThresholds(midpoints.midpoints, scale, s.t);
    s.t.clip = thresholdAbove(midpoints.clipMidpoint * scale, midpoints.clipTieUp);
    s.mayClip = asFloat(amax) >= s.t.clip;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    estimateInt4(s, amax);
#endif
    return s;
}

template <bool CountClips>
[[gnu::always_inline]] inline void int4ElementsOf(std::uint32_t codeMask, const Int4Scale& s,
                                                  const std::uint32_t* in, std::size_t count,
                                                  std::uint8_t* codes, BlockTally& tally) {
    const ScaledThresholds& t = s.t;
    const float clip = t.clip;
    std::uint32_t clipped = 0, flushed = 0;
    std::size_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    // The integer k of |x|: by the estimate where byEstimate (estimateInt4), else by three
    // steps of searchSegments (the s > 0 it needs: integerScale is never 0). The code of −k
    // is (0 − k) masked to the element's width, as in integerElement; counted by LaneCounts.
    const __m512 above = _mm512_loadu_ps(t.above);
    LaneCounts<CountClips> lanes;
    const auto store16 = [&](__m512i bits, __m512i magnitude, __m512i segment) {
        const __mmask16 negative = _mm512_movepi32_mask(bits);
        const __m512i signedSegment = _mm512_and_si512(
            _mm512_mask_sub_epi32(segment, negative, _mm512_setzero_si512(), segment),
            _mm512_set1_epi32(static_cast<int>(codeMask)));
        _mm512_mask_cvtepi32_storeu_epi8(codes + i, kAllLanes, signedSegment);
        lanes.add(_mm512_castsi512_ps(magnitude), magnitude, segment, clip);
    };
    const std::size_t whole = count / 16 * 16;
    if (s.byEstimate) {
        // U_0 … U_6 and the clip threshold as U_7.
        const __m512 thresholds =
            _mm512_mask_mov_ps(above, static_cast<__mmask16>(1u << kInt4Max), _mm512_set1_ps(clip));
        const __m512 reciprocal = _mm512_set1_ps(s.reciprocal);
        for (; i < whole; i += 16) {
            const __m512i bits = _mm512_loadu_si512(in + i);
            const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
            const __m512 a = _mm512_castsi512_ps(magnitude);
            const __m512i estimate = _mm512_maskz_cvttps_epi32(
                kAllLanes, _mm512_fmadd_ps(a, reciprocal, _mm512_set1_ps(0.25f)));
            const __m512 u = _mm512_maskz_permutexvar_ps(kAllLanes, estimate, thresholds);
            const __m512i segment = _mm512_mask_add_epi32(
                estimate, _mm512_cmp_ps_mask(a, u, _CMP_GE_OQ), estimate, _mm512_set1_epi32(1));
            store16(bits, magnitude, segment);
        }
    }
    for (; i < whole; i += 16) {
        const __m512i bits = _mm512_loadu_si512(in + i);
        const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
        store16(bits, magnitude, searchSegments<kInt4Max>(_mm512_castsi512_ps(magnitude), above));
    }
    lanes.addTo(clipped, flushed);
#endif
    for (; i < count; ++i) {
        const std::uint32_t magnitude = in[i] & 0x7fffffffu;
        const float a = asFloat(magnitude);
        const std::uint32_t segment = segmentOf<kInt4Max>(a, t);
        const std::uint32_t negative = 0u - (in[i] >> 31);
        codes[i] = static_cast<std::uint8_t>(((segment ^ negative) - negative) & codeMask);
        if constexpr (CountClips)
            clipped += a >= clip;
        flushed += (magnitude != 0u) & (segment == 0u);
    }
    tally.clipped += clipped;
    tally.flushed += flushed;
}

[[gnu::always_inline]] inline void int4Elements(std::uint32_t codeMask, const Int4Scale& s,
                                                const std::uint32_t* in, std::size_t count,
                                                std::uint8_t* codes, BlockTally& tally) {
    if (s.mayClip)
        int4ElementsOf<true>(codeMask, s, in, count, codes, tally);
    else
        int4ElementsOf<false>(codeMask, s, in, count, codes, tally);
}

// The FP32 scale absmax / qmax, one rounding (IEEE division, exact qmax); an all-zero block
// gets 1, and a quotient that rounds to 0 the smallest FP32 number, 2^−149.
float integerScale(const BlockQuantParams& p, std::uint32_t amax) {
    if (amax == 0)
        return 1.0f;
    const float scale = asFloat(amax) / static_cast<float>(p.qmax);
    return scale == 0.0f ? asFloat(1u) : scale;
}

void integerBlocksOf(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                     std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
                     BlockTally& tally) {
    if (p.qmax == kInt4Max) {
        const IntegerThresholds midpoints = integerThresholds(kInt4Max);
        const std::uint32_t codeMask = p.codeMask;
        forEachBlockAhead(
            in, count, blockSize, codes, scales, tally, false,
            [&](std::uint32_t amax) { return int4Scale(midpoints, integerScale(p, amax), amax); },
            [&](const std::uint32_t* x, auto n, const Int4Scale& s, std::uint8_t* c) {
                int4Elements(codeMask, s, x, n, c, tally);
                return bitsOf(s.scale);
            });
        return;
    }
    forEachBlock(in, count, blockSize, codes, scales, tally,
                 [&](const std::uint32_t* x, auto n, std::uint32_t amax, std::uint8_t* c) {
                     const float scale = integerScale(p, amax);
                     integerElementsByDivision(p, x, n, scale, c, tally);
                     return bitsOf(scale);
                 });
}

void integerBlocks(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                   std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
                   BlockTally& tally) {
    integerBlocksOf(p, in, count, blockSize, codes, scales, tally);
}

void integerWithScale(const BlockQuantParams& p, const std::uint32_t* in, std::size_t count,
                      float scale, std::uint8_t* codes, BlockTally& tally) {
    const std::uint32_t amax = maxMagnitudeOf(in, count);
    if (amax >= kInfinityBits) {
        tally.nonFinite = true;
        return;
    }
    if (p.qmax == kInt4Max)
        int4Elements(p.codeMask, int4Scale(integerThresholds(kInt4Max), scale, amax), in, count,
                     codes, tally);
    else
        integerElementsByDivision(p, in, count, scale, codes, tally);
}

// Branch-free, for the compiler to vectorise; m − 1 < flushUpTo wraps for m = 0, so ±0 is
// never flushed.
void castCounts(const std::uint32_t* in, std::size_t count, std::uint32_t clipFrom,
                std::uint32_t flushUpTo, std::size_t& clipped, std::size_t& flushed,
                std::size_t& nonFinite) {
    std::uint32_t clips = 0, flushes = 0, nonFinites = 0; // per run of at most 2^32 elements
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t m = in[i] & 0x7fffffffu;
        nonFinites += m >= kInfinityBits;
        clips += (m >= clipFrom) & (m < kInfinityBits);
        flushes += (m - 1u) < flushUpTo;
    }
    clipped += clips;
    flushed += flushes;
    nonFinite += nonFinites;
}

void topBytes(const std::uint32_t* in, std::size_t count, std::uint8_t* out) {
    for (std::size_t i = 0; i < count; ++i)
        out[i] = static_cast<std::uint8_t>(in[i] >> 24);
}

BlockQuantLoops makeBlockQuantLoops(const char* name) {
    return BlockQuantLoops{name,       &maxMagnitude,  &blockMaxima,      &mxBlocks,   &nvfp4Blocks,
                           &nf4Blocks, &integerBlocks, &integerWithScale, &castCounts, &topBytes};
}

} // namespace
