// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One FP32 element → one code, and one code → FP32, as branch-free integer arithmetic on
// plain parameters. This header is the single definition of the fast conversions: the CPU
// bulk loops (compiled once per instruction set), the CUDA kernels and the tests include it.
// The parameters are derived from a FormatSpec by the exact core (bulk_conversion.h), and the
// rare results (NaN, ±∞, overflow, zero) are the exact core's own answers, looked up. Why
// each trick gives the exact core's answer, and which tests check it: docs/proofs.md, "Fast paths
// and how they are proved".
//
// The functions are `static`: every translation unit gets its own copy, so a copy compiled
// for AVX-512 can never be picked by the linker for a caller built for plain x86-64.

#include "fpx/exact/host_device.h"
#include "fpx/exact/rounding.h"

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

namespace fpx::kernels {

// Whether this copy is compiled for a GPU (CUDA device code). The device keeps the integer
// nearest-even path (most GPUs compute FP64 at a small fraction of their FP32 rate).
#if defined(__CUDA_ARCH__)
inline constexpr bool kDeviceCode = true;
#else
inline constexpr bool kDeviceCode = false;
#endif

enum class EncodeKind : std::uint32_t { BinaryFloat, SignedInteger };

// FP32 → binary float (≤ 8 exponent bits, ≤ 22 fraction bits, hidden integer bit) or
// FP32 → signed integer of ≤ 16 bits whose scale is 2^k / K (INT8's default 1/127: K = 127).
struct EncodeParams {
    EncodeKind kind = EncodeKind::BinaryFloat;
    std::uint32_t fractionShift = 0; // 23 − M: FP32 fraction bits dropped for normal results
    std::uint32_t normalRebias = 0;  // (127 − bias) << M, subtracted from the shifted bits
    std::uint32_t minNormalBits = 0; // |x| bits of the target's smallest normal value
    std::int32_t smallShiftBase = 0; // shift of the significand = smallShiftBase − exponent
    std::uint32_t multiplier = 1;    // integer: K of the scale 2^k / K (≤ 127); float: 1
    std::uint32_t maxMagnitude = 0;  // largest finite magnitude code (integer: 2^(N−1) − 1)
    std::uint32_t maxNegativeMagnitude = 0; // integer: 2^(N−1); float: = maxMagnitude
    std::uint32_t signBit = 0;              // float: the code's sign bit
    std::uint32_t codeMask = 0;
    // Float, nearest-even fast path (see encodeElementOf): 2^(23 − M − 1) − 1 − (127 − bias)·2^23,
    // the rounding addend with the rebias folded in, and the FP32 bits of
    // 2^(emin − M + 23), the number whose FP32 spacing is the target's subnormal spacing.
    std::uint32_t nearestEvenAddend = 0;
    std::uint32_t subnormalMagicBits = 0;
    // The exact core's answers, indexed by the sign of the input (0 positive, 1 negative).
    std::uint32_t zeroCode[2] = {0, 0};
    std::uint32_t overflowCode[2] = {0, 0};
    std::uint32_t nanCode[2] = {0, 0};
    std::uint32_t infinityCode[2] = {0, 0};
    // Integer, nearest-even fast path on the CPU (see encodeElementOf): K · 2^−k, the
    // reciprocal of the scale.
    double reciprocalScale = 0;
};

// Branch-free choice: a mask of all ones or all zeros instead of a jump, so that compilers
// turn a loop of these into vector blends (GCC does not if-convert nested ternaries). A GPU
// thread has a select instruction of its own (SEL on a predicate), which the ternary becomes;
// the mask takes three.
FPX_HOST_DEVICE static inline std::uint32_t select(bool condition, std::uint32_t ifTrue,
                                                   std::uint32_t ifFalse) {
#if defined(__CUDA_ARCH__)
    return condition ? ifTrue : ifFalse;
#else
    const std::uint32_t mask = 0u - static_cast<std::uint32_t>(condition);
    return (ifTrue & mask) | (ifFalse & ~mask);
#endif
}

// a + b as FP32 values, rounded to nearest-even (the default floating-point environment; no
// flush-to-zero: fpx is never built with -ffast-math, nor CUDA code with --use_fast_math).
FPX_HOST_DEVICE static inline std::uint32_t addAsFloat(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(__fadd_rn(__uint_as_float(a), __uint_as_float(b)));
#else
    return std::bit_cast<std::uint32_t>(std::bit_cast<float>(a) + std::bit_cast<float>(b));
#endif
}

// a − b as FP32 values (exact wherever it is used here).
FPX_HOST_DEVICE static inline std::uint32_t subtractAsFloat(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(__fsub_rn(__uint_as_float(a), __uint_as_float(b)));
#else
    return std::bit_cast<std::uint32_t>(std::bit_cast<float>(a) - std::bit_cast<float>(b));
#endif
}

// FP32 bits → that value as a double (exact), and a double's bits.
FPX_HOST_DEVICE static inline double fp32ToDouble(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return static_cast<double>(__uint_as_float(bits));
#else
    return static_cast<double>(std::bit_cast<float>(bits));
#endif
}
FPX_HOST_DEVICE static inline std::uint64_t doubleBits(double value) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__double_as_longlong(value));
#else
    return std::bit_cast<std::uint64_t>(value);
#endif
}

// One of a pair by the sign of the input.
FPX_HOST_DEVICE static inline std::uint32_t bySign(const std::uint32_t (&pair)[2],
                                                   std::uint32_t negative) {
    return select(negative != 0u, pair[1], pair[0]);
}

// Shifts x right by `shift` (1 … 31) and rounds by Mode. `negative` is the sign of the value
// for the directed modes; `random` is the element's 64 random bits for stochastic rounding.
//
//      x = [ kept bits | dropped bits (shift of them) ]
//   rne: add 0111…1 + lsb(kept): a carry out of the dropped bits happens exactly when they
//        exceed one half, or equal it with an odd kept part (ties to even)
//   rna: add 1000…0            (ties away from zero; x is a magnitude)
//   rup/rdn: add 1111…1 when rounding away from zero, 0 otherwise
//   rto: truncate, then OR the sticky bit into the last kept bit
//   sr:  add 1111…1 − R, R = the top `shift` random bits: a carry happens when
//        dropped > R, i.e. with probability dropped / 2^shift
template <RoundingMode Mode>
FPX_HOST_DEVICE static inline std::uint32_t roundShiftRight(std::uint32_t x, std::uint32_t shift,
                                                            std::uint32_t negative,
                                                            std::uint64_t random) {
    const std::uint32_t full = (1u << shift) - 1u;
    const std::uint32_t half = 1u << (shift - 1u);
    if constexpr (Mode == RoundingMode::NearestEven)
        return (x + (half - 1u) + ((x >> shift) & 1u)) >> shift;
    else if constexpr (Mode == RoundingMode::NearestAway)
        return (x + half) >> shift;
    else if constexpr (Mode == RoundingMode::TowardZero)
        return x >> shift;
    else if constexpr (Mode == RoundingMode::TowardPositive)
        return (x + (full & (negative - 1u))) >> shift; // negative − 1: all ones when positive
    else if constexpr (Mode == RoundingMode::TowardNegative)
        return (x + (full & (0u - negative))) >> shift;
    else if constexpr (Mode == RoundingMode::ToOdd)
        return (x >> shift) | static_cast<std::uint32_t>((x & full) != 0u);
    else
        return (x + (full - static_cast<std::uint32_t>(random >> (64u - shift)))) >> shift;
}

// Stochastic rounding of scaled / 2^shift for shift ≥ 32 (the result is 0 or 1): up when
// random / 2^64 < scaled / 2^shift, i.e. random < scaled · 2^(64 − shift), in 64 bits. Past
// shift 64 the right side is a fraction and random < ⌈scaled / 2^(shift − 64)⌉ says the same.
FPX_HOST_DEVICE static inline std::uint32_t
stochasticTiny(std::uint32_t scaled, std::uint32_t shift, std::uint64_t random) {
    // Both candidate thresholds, then a mask select (no branch): shifts are capped so that
    // neither is undefined; a cap of 63 still gives ⌈x / 2^t⌉ = 1 for every x ≥ 1 below 2^31.
    const std::uint64_t x = scaled;
    // (Lanes with smaller shifts compute this too and discard it: up ≥ 1 keeps 64 − up < 64.)
    const std::uint32_t up = shift < 1u ? 1u : (shift < 64u ? shift : 64u);
    const std::uint32_t down = shift > 64u ? (shift - 64u < 63u ? shift - 64u : 63u) : 0u;
    const std::uint64_t wide = x << (64u - up);
    const std::uint64_t ceiling = (x + ((std::uint64_t{1} << down) - 1u)) >> down;
    const std::uint64_t mask = 0u - static_cast<std::uint64_t>(shift <= 64u);
    const std::uint64_t threshold = (wide & mask) | (ceiling & ~mask);
    return static_cast<std::uint32_t>(random < threshold);
}

// The operands of a small result: FP32's significand (1.f, or 0.f for FP32 subnormals) and
// the right shift that brings it to the target's units, smallShiftBase − e.
struct SmallOperands {
    std::uint32_t significand;
    std::int32_t shift;
};

FPX_HOST_DEVICE static inline SmallOperands smallOperands(const EncodeParams& p,
                                                          std::uint32_t magnitude) {
    const std::uint32_t exponent = magnitude >> 23;
    return {(magnitude & 0x7fffffu) | (static_cast<std::uint32_t>(exponent != 0u) << 23),
            p.smallShiftBase -
                static_cast<std::int32_t>(exponent | static_cast<std::uint32_t>(exponent == 0u))};
}

// |x| bits → the magnitude code of a binary float, rounded by Mode (above maxMagnitude: an
// overflow, for the caller to replace). Two candidates are computed and one is selected, so
// that the loop body has no branches and vectorises:
//
//   normal:  |x| = [0][ e (8) ][ kept M | dropped 23 − M ]  →  round off 23 − M bits, the
//            carry runs into the exponent by itself, then subtract (127 − bias) << M
//   small:   the significand shifted right by smallShiftBase − e and rounded: a subnormal code
//            (2^M meaning the smallest normal, whose code is the same number)
//
// Nearest-even, the common case, in about half the vector instructions:
//   normal:  |x| + [0111…1 + lsb(kept) − (127 − bias)·2^23] (one addend: nearestEvenAddend)
//            >> (23 − M). The subtraction is a multiple of 2^(23 − M): it moves no rounding bit.
//   small:   |x| + 2^(emin − M + 23) in FP32. That number's FP32 spacing is 2^(emin − M), the
//            target's subnormal spacing, and |x| < 2^emin keeps the sum below twice it, so
//            the adder itself rounds |x| to a multiple of the subnormal spacing, ties to even,
//            and the sum's low bits are the subnormal code. FP32 subnormal inputs included.
//
//                 2^(emin−M+23) = [0][ e' ][ 000…0000 ]
//               +           |x| =            ╰ rounded in at the last place ╯
//               =                 [0][ e' ][ 000…0mmm ]  →  − 2^(emin−M+23)'s bits = mmm
template <RoundingMode Mode>
FPX_HOST_DEVICE static inline std::uint32_t
roundFloatMagnitude(const EncodeParams& p, std::uint32_t magnitude, std::uint32_t negative,
                    std::uint64_t random) {
    if constexpr (Mode == RoundingMode::NearestEven) {
        const std::uint32_t normal =
            (magnitude + p.nearestEvenAddend + ((magnitude >> p.fractionShift) & 1u)) >>
            p.fractionShift;
        const std::uint32_t small =
            addAsFloat(magnitude, p.subnormalMagicBits) - p.subnormalMagicBits;
        return select(magnitude >= p.minNormalBits, normal, small);
    } else {
        const std::uint32_t normal =
            roundShiftRight<Mode>(magnitude, p.fractionShift, negative, random) - p.normalRebias;
        const SmallOperands o = smallOperands(p, magnitude);
        // Only |x| below the smallest normal takes this path, so the shift is at least
        // 24 − M ≥ 1. Past 31 only a remainder below 2^24 is left, under the half (2^30) of a
        // 31-bit shift: rounding by 31 bits decides every mode but stochastic alike.
        // Clamped below too: |x| of a normal result gives shifts < 1, computed and discarded
        // (a shift by 32 or more would be undefined behaviour even when discarded).
        // (Plain ternaries here: compilers turn them into one vector max and one min.)
        const std::int32_t atLeastOne = o.shift < 1 ? 1 : o.shift;
        const std::int32_t clamped = atLeastOne > 31 ? 31 : atLeastOne;
        std::uint32_t small = roundShiftRight<Mode>(
            o.significand, static_cast<std::uint32_t>(clamped), negative, random);
        if constexpr (Mode == RoundingMode::Stochastic)
            small = select(
                o.shift > 31,
                stochasticTiny(o.significand, static_cast<std::uint32_t>(o.shift), random), small);
        return select(magnitude >= p.minNormalBits, normal, small);
    }
}

// The code of a signed integer format for x rounded to the integer `rounded` (scaled: x·K·2^−k):
// zero by its sign, the overflow answer beyond the format's range, else the two's complement
// bits. Shared by the CPU's FP64 path below and the CUDA backend's FP32 one.
FPX_HOST_DEVICE static inline std::uint32_t
integerCodeOf(const EncodeParams& p, std::int32_t rounded, std::uint32_t negative) {
    const bool overflow = (rounded > static_cast<std::int32_t>(p.maxMagnitude)) |
                          (rounded < -static_cast<std::int32_t>(p.maxNegativeMagnitude));
    const std::uint32_t code = select(rounded == 0, bySign(p.zeroCode, negative),
                                      static_cast<std::uint32_t>(rounded) & p.codeMask);
    return select(overflow, bySign(p.overflowCode, negative), code);
}

// `code` for finite inputs, the NaN and infinity answers for the rest.
FPX_HOST_DEVICE static inline std::uint32_t withSpecialInputs(const EncodeParams& p,
                                                              std::uint32_t magnitude,
                                                              std::uint32_t negative,
                                                              std::uint32_t code) {
    code = select(magnitude > 0x7f800000u, bySign(p.nanCode, negative), code);
    return select(magnitude == 0x7f800000u, bySign(p.infinityCode, negative), code);
}

// FP32 bits → code, branch-free. Kind is a template parameter (the loops are instantiated
// per kind); the run-time p.kind is there for callers that dispatch on it.
//
// Integers: x / (2^k / K) = 1.f·2^23 · K · 2^(e − 150 − k), the significand times K (below
// 2^24 · 2^7: the product and the rounding increment fit 32 bits) shifted right and rounded.
//
// Symmetric (binary floats whose answers for −x are those for +x with the sign bit flipped,
// and whose zero is code 0: every IEEE-style, "fn" and "f" format, not fnuz): the answer is
// chosen among magnitudes and the sign put in once, a quarter fewer vector instructions.
// symmetricSpecials() says whether a format qualifies.
//
// UnsignedZero (with Symmetric, nearest-even only): the fnuz formats, whose one zero and one
// NaN (1000…0) take no sign. The answer is chosen among magnitudes as above, and the sign put
// only into an answer with magnitude bits, so that 0 and 1000…0 stay as they are;
// unsignedZeroApplies() says whether a format qualifies.
template <RoundingMode Mode, EncodeKind Kind, bool Symmetric = false, bool UnsignedZero = false>
FPX_HOST_DEVICE static inline std::uint32_t
encodeElementOf(const EncodeParams& p, std::uint32_t bits, std::uint64_t random) {
    static_assert(!UnsignedZero || (Symmetric && Mode == RoundingMode::NearestEven),
                  "the unsigned-zero rule takes every answer from the positive side");
    const std::uint32_t negative = bits >> 31;
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    // The sign as an all-ones mask, by an arithmetic shift.
    const std::uint32_t signMask =
        static_cast<std::uint32_t>(static_cast<std::int32_t>(bits) >> 31);

    std::uint32_t code = 0; // set by every branch but the symmetric one, which returns
    if constexpr (Kind == EncodeKind::BinaryFloat && Symmetric) {
        std::uint32_t rounded = roundFloatMagnitude<Mode>(p, magnitude, negative, random);
        // Nearest-even rounds −x to −(x rounded), so its overflow answer mirrors too (checked
        // by symmetricSpecials); directed modes may overflow to ∞ on one side, max on the other.
        std::uint32_t overflowMagnitude;
        if constexpr (Mode == RoundingMode::NearestEven)
            overflowMagnitude = p.overflowCode[0];
        else
            overflowMagnitude = bySign(p.overflowCode, negative) & ~p.signBit;
        rounded = select(rounded > p.maxMagnitude, overflowMagnitude, rounded);
        rounded = select(magnitude > 0x7f800000u, p.nanCode[0], rounded);
        rounded = select(magnitude == 0x7f800000u, p.infinityCode[0], rounded);
        if constexpr (UnsignedZero) {
            const std::uint32_t hasMagnitude =
                0u - static_cast<std::uint32_t>((rounded & p.codeMask & ~p.signBit) != 0u);
            return rounded ^ (signMask & hasMagnitude & p.signBit);
        }
        // The sign by XOR: the same as OR for a magnitude, and it gives FP6's and FP4's NaN
        // stand-ins too (they have no NaN; the exact core's answers are +NaN → 100…0, −NaN → 0).
        return rounded ^ (signMask & p.signBit);
    } else if constexpr (Kind == EncodeKind::BinaryFloat) {
        const std::uint32_t rounded = roundFloatMagnitude<Mode>(p, magnitude, negative, random);
        code =
            select(rounded == 0u, bySign(p.zeroCode, negative), rounded | (signMask & p.signBit));
        code = select(rounded > p.maxMagnitude, bySign(p.overflowCode, negative), code);
    } else if constexpr (Mode == RoundingMode::NearestEven && !kDeviceCode) {
        // Nearest-even through FP64, fewer vector instructions than the shifts below.
        // x · K · 2^−k is exact in a double (a 24-bit significand times K ≤ 127 is 31 bits;
        // 2^±64 · 2^±128 is far inside FP64's range). Clamped to ±2^31 (a NaN passes through;
        // its lanes are replaced below), then 1.5 · 2^52 is added: the sum lies in
        // [2^52, 2^53), where FP64's spacing is 1, so the adder rounds to an integer, ties to
        // even, and the integer is the low bits:
        //
        //   1.5·2^52 + v  =  0 10000110011 | 1000…0 + round(v)   (two's complement, 51 bits)
        //                                    low 32 bits = round(v) as an int32
        //
        // ±2^31 becomes INT32_MIN, below every format's range: an overflow on either side (the
        // answer is chosen by the input's sign).
        constexpr double kLimit = 2147483648.0;
        double scaled = fp32ToDouble(bits) * p.reciprocalScale;
        scaled = scaled < -kLimit ? -kLimit : scaled;
        scaled = scaled > kLimit ? kLimit : scaled;
        const auto rounded =
            static_cast<std::int32_t>(static_cast<std::uint32_t>(doubleBits(scaled + 0x1.8p52)));
        code = integerCodeOf(p, rounded, negative);
    } else {
        // A shift below 1 is an integer of 2^23 or more (always an overflow); past 31, scaled
        // (< 2^31) may exceed a 31-bit half, so it is replaced by its sticky bit, which every
        // mode but stochastic rounds the same way (0 to nearest, 1 away).
        const SmallOperands o = smallOperands(p, magnitude);
        const bool tiny = o.shift > 31;
        const std::uint32_t scaled = o.significand * p.multiplier;
        const std::uint32_t clamped =
            select(o.shift < 1, 1u, select(tiny, 31u, static_cast<std::uint32_t>(o.shift)));
        std::uint32_t small =
            roundShiftRight<Mode>(select(tiny, static_cast<std::uint32_t>(scaled != 0u), scaled),
                                  clamped, negative, random);
        if constexpr (Mode == RoundingMode::Stochastic)
            small = select(
                tiny, stochasticTiny(scaled, static_cast<std::uint32_t>(o.shift), random), small);
        const bool overflow =
            (o.shift < 1) |
            (small > select(negative != 0u, p.maxNegativeMagnitude, p.maxMagnitude));
        code = select(small == 0u, bySign(p.zeroCode, negative),
                      select(negative != 0u, 0u - small, small) & p.codeMask);
        code = select(overflow, bySign(p.overflowCode, negative), code);
    }
    return withSpecialInputs(p, magnitude, negative, code);
}

// Whether encodeElementOf<mode, …, Symmetric = true> gives the same answers for these
// parameters. (Nearest-even's fast path takes the overflow answer from the positive side too.)
FPX_HOST_DEVICE static inline bool symmetricSpecials(const EncodeParams& p, RoundingMode mode) {
    auto mirrored = [&](const std::uint32_t(&pair)[2]) {
        return (pair[0] & p.signBit) == 0u && pair[1] == (pair[0] | p.signBit);
    };
    const bool overflowMirrored =
        mode == RoundingMode::NearestEven
            ? mirrored(p.overflowCode)
            : (p.overflowCode[0] & p.signBit) == 0u && (p.overflowCode[1] & p.signBit) != 0u;
    return p.kind == EncodeKind::BinaryFloat && p.zeroCode[0] == 0u && mirrored(p.zeroCode) &&
           mirrored(p.infinityCode) && p.nanCode[1] == (p.nanCode[0] ^ p.signBit) &&
           overflowMirrored;
}

// Whether encodeElementOf<NearestEven, BinaryFloat, true, UnsignedZero = true> gives the same
// answers for these parameters: zero is code 0 on both sides, and each special answer for −x
// is the one for +x with the sign bit put in where it has magnitude bits.
FPX_HOST_DEVICE static inline bool unsignedZeroApplies(const EncodeParams& p) {
    const std::uint32_t magnitudeBits = p.codeMask & ~p.signBit;
    const auto follows = [&](const std::uint32_t(&pair)[2]) {
        return pair[1] == ((pair[0] & magnitudeBits) != 0u ? pair[0] ^ p.signBit : pair[0]);
    };
    return p.kind == EncodeKind::BinaryFloat && p.zeroCode[0] == 0u && p.zeroCode[1] == 0u &&
           follows(p.overflowCode) && follows(p.nanCode) && follows(p.infinityCode);
}

template <RoundingMode Mode>
FPX_HOST_DEVICE static inline std::uint32_t encodeElement(const EncodeParams& p, std::uint32_t bits,
                                                          std::uint64_t random = 0) {
    return p.kind == EncodeKind::BinaryFloat
               ? encodeElementOf<Mode, EncodeKind::BinaryFloat>(p, bits, random)
               : encodeElementOf<Mode, EncodeKind::SignedInteger>(p, bits, random);
}

// Any format with few codes (NF4, INT4 …) whose results step monotonically along the real
// line: the exact core's result changes at `count` FP32 breakpoints, found once by binary
// search. An element's result is the code of the segment it falls in.
struct LookupParams {
    static constexpr std::uint32_t kMaxBreakpoints = 32;
    std::uint32_t count = 0; // breakpoints in use; the rest are INT32_MAX, never reached
    // Ordered keys (orderedKey) where the next segment starts.
    std::int32_t breakpoints[kMaxBreakpoints] = {};
    std::uint32_t codes[33] = {}; // the code of each segment, from −∞ upwards
    std::uint32_t nanCode[2] = {0, 0};
};

// FP32 bits → an integer that orders like the value: −0 sorts just below +0 (their codes may
// differ), NaN must be handled before.
FPX_HOST_DEVICE static inline std::int32_t orderedKey(std::uint32_t bits) {
    const std::int32_t magnitude = static_cast<std::int32_t>(bits & 0x7fffffffu);
    return (bits >> 31) != 0u ? -magnitude - 1 : magnitude;
}

FPX_HOST_DEVICE static inline std::uint32_t lookupElement(const LookupParams& p,
                                                          std::uint32_t bits) {
    const std::int32_t key = orderedKey(bits);
    std::uint32_t segment = 0;
    // A fixed trip count (unused breakpoints never match) lets the loop unroll and vectorise.
    for (std::uint32_t i = 0; i < LookupParams::kMaxBreakpoints; ++i)
        segment += static_cast<std::uint32_t>(key >= p.breakpoints[i]);
    return select((bits & 0x7fffffffu) > 0x7f800000u, bySign(p.nanCode, bits >> 31),
                  p.codes[segment]);
}

// lookupElement by bisection: the number of breakpoints at or below the key in five steps
// and one last look, instead of 32 compares. Where the breakpoints sit in memory that each
// compare must load from (a GPU's shared memory), 6 loads beat 32; the CPU's vector loops
// keep the linear form, whose compares are against registers.
//
//   step s = 16, 8, 4, 2, 1:  segment += s  where key ≥ breakpoints[segment + s − 1]
//   last:                     segment += 1  where key ≥ breakpoints[segment]   (only
//                             segment = 31 can still move: below it, that breakpoint was
//                             already found above the key)
FPX_HOST_DEVICE static inline std::uint32_t lookupElementBisect(const LookupParams& p,
                                                                std::uint32_t bits) {
    static_assert(LookupParams::kMaxBreakpoints == 32, "five steps and one last look");
    const std::int32_t key = orderedKey(bits);
    std::uint32_t segment = 0;
    for (std::uint32_t step = 16; step != 0; step /= 2)
        segment += select(key >= p.breakpoints[segment + step - 1], step, 0u);
    segment += static_cast<std::uint32_t>(key >= p.breakpoints[segment]);
    return select((bits & 0x7fffffffu) > 0x7f800000u, bySign(p.nanCode, bits >> 31),
                  p.codes[segment]);
}

// Formats that are the leading bits of FP32 (BF16: 16, TF32: 19) widen by a shift; only NaN
// needs the exact core's answer (its NaN is canonical, a shifted payload is not).
struct WidenParams {
    std::uint32_t codeMask = 0;
    std::uint32_t shift = 0; // 32 − code bits
    std::uint32_t nanBits[2] = {0, 0};
    // ±∞ as the exact core gives them: ±∞, or ±FLT_MAX when the overflow policy saturates.
    std::uint32_t infinityBits[2] = {0x7f800000u, 0xff800000u};
};

FPX_HOST_DEVICE static inline std::uint32_t widenElement(const WidenParams& p, std::uint32_t code) {
    const std::uint32_t bits = (code & p.codeMask) << p.shift;
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    // The answers as magnitudes, the sign ORed in (widenParams checks that the negative
    // answers are the positive ones with the sign bit); unnested ternaries become blends.
    const std::uint32_t special = magnitude > 0x7f800000u ? p.nanBits[0] : p.infinityBits[0];
    return (magnitude >= 0x7f800000u ? special : magnitude) | (bits & 0x80000000u);
}

// Binary float (≤ 8 exponent bits, hidden integer bit) → FP32, which holds each of its values
// exactly. The magnitude is decoded, then the sign put in:
//   normal:     [ e ][ f ]  →  (e·2^M + f) << (23 − M), plus (127 − bias) << 23 to rebias
//   subnormal:  f · 2^(emin − M) by one FP32 subtraction. c = 2^(emin − M + 23) has the FP32
//               spacing 2^(emin − M), so c's bits OR f are the FP32 number c + f·2^(emin − M),
//               and subtracting c leaves f·2^(emin − M), exactly (Sterbenz: the two are within
//               a factor of two):
//                   [0][ c's exponent ][ 000…0 fff ]  −  [0][ c's exponent ][ 000…0 000 ]
//               BF16-like formats (bias 127, emin = −126) have FP32 subnormals as subnormals
//               and take the normal formula instead.
//   specials:   the exact core's answers (NaN canonical, ±∞ or ±FLT_MAX when saturating)
struct FloatDecodeParams {
    std::uint32_t codeMask = 0;
    std::uint32_t signShift = 0; // code bits − 1
    std::uint32_t magnitudeMask = 0;
    std::uint32_t fractionShift = 0;      // 23 − M
    std::uint32_t rebias = 0;             // (127 − bias) << 23
    std::uint32_t minNormalMagnitude = 0; // 2^M, or 0 when subnormals map to FP32 subnormals
    std::uint32_t subnormalMagicBits = 0; // FP32 bits of c = 2^(emin − M + 23)
    std::uint32_t specialMagnitude = 0;   // first special magnitude (∞ or NaN); none: above all
    // IEEE: exactly specialMagnitude is ∞ (above is NaN); else none.
    std::uint32_t infinityMagnitude = 0xffffffffu;
    std::uint32_t negativeZeroNaN = 0xffffffffu; // fnuz: the code 1000…0, which is the NaN
    // The exact core's answers as magnitudes (their negative counterparts have the sign bit
    // set: floatDecodeParams checks), and the NaN of fnuz's code 1000…0.
    std::uint32_t nanMagnitude = 0;
    std::uint32_t infinityMagnitudeBits = 0;
    std::uint32_t negativeZeroNaNBits = 0;
};

FPX_HOST_DEVICE static inline std::uint32_t decodeFloatElement(const FloatDecodeParams& p,
                                                               std::uint32_t code) {
    code &= p.codeMask;
    const std::uint32_t magnitude = code & p.magnitudeMask;
    const std::uint32_t normal = (magnitude << p.fractionShift) + p.rebias;
    const std::uint32_t subnormal =
        subtractAsFloat(p.subnormalMagicBits | magnitude, p.subnormalMagicBits);
    // Plain ternaries: unnested, GCC turns each into one masked blend (select() costs three
    // instructions here; it is needed where GCC would not vectorise the ternaries at all).
    std::uint32_t value = magnitude < p.minNormalMagnitude ? subnormal : normal;
    const std::uint32_t special =
        magnitude == p.infinityMagnitude ? p.infinityMagnitudeBits : p.nanMagnitude;
    value = magnitude >= p.specialMagnitude ? special : value;
    value |= (code >> p.signShift) << 31;
    return code == p.negativeZeroNaN ? p.negativeZeroNaNBits : value;
}

} // namespace fpx::kernels
