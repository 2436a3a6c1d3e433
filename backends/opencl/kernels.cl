// SPDX-License-Identifier: GPL-3.0-or-later
// OpenCL C 1.2 kernels of the OpenCL benchmark backend, embedded in the plugin at build time.
//
// The encode, lookup and widen functions are core/kernels/include/fpx/kernels/element_conversion.h
// translated line by line: the same branch-free integer arithmetic on the same parameters
// (derived from a FormatSpec by fpx::encodeParams / lookupParams / widenParams), so that a
// result that differs from the exact core is a bug here, not a second algorithm. The
// parameter structs mirror the host's Cl*Params (opencl_paths.h): 32-bit fields only, so
// host and device lay them out the same way.
//
// Work-item i handles element i, without a bounds check (which keeps pocl's loops over
// work-items vectorised): the host pads every buffer and launch to a multiple of 256.
//
// The helpers are always inlined: the rounding mode is a constant at every call site and only
// after inlining do the other modes' branches fold away (pocl does not inline them otherwise,
// and then runs several times slower).
#define FPX_INLINE inline __attribute__((always_inline))

// The constants below come from the host's C++ enums, as build options (kernel_constants.cpp):
//   FPX_RNE FPX_RNA FPX_RTZ FPX_RUP FPX_RDN FPX_SR FPX_RTO   fpx::RoundingMode
//   FPX_OVERFLOW_IEEE FPX_OVERFLOW_SATURATE                  fpx::OverflowPolicy
//   FPX_KIND_BINARY_FLOAT FPX_KIND_SIGNED_INTEGER            fpx::kernels::EncodeKind
//   FPX_MAX_BREAKPOINTS                                      fpx::kernels::LookupParams
//   FPX_FMA_CHAINS                                           the host's FMA count
#if !defined(FPX_RNE) || !defined(FPX_RNA) || !defined(FPX_RTZ) || !defined(FPX_RUP) ||      \
    !defined(FPX_RDN) || !defined(FPX_SR) || !defined(FPX_RTO) ||                            \
    !defined(FPX_OVERFLOW_IEEE) || !defined(FPX_OVERFLOW_SATURATE) ||                        \
    !defined(FPX_KIND_BINARY_FLOAT) || !defined(FPX_KIND_SIGNED_INTEGER) ||                  \
    !defined(FPX_MAX_BREAKPOINTS) || !defined(FPX_FMA_CHAINS)
#error "kernels.cl is built with the host's constants (kernel_constants.cpp's build options)"
#endif

typedef struct {
    uint kind;
    uint fractionShift;
    uint normalRebias;
    uint minNormalBits;
    int smallShiftBase;
    uint multiplier;
    uint maxMagnitude;
    uint maxNegativeMagnitude;
    uint signBit;
    uint codeMask;
    // Unused here: the nearest-even fast path adds in FP32, and OpenCL devices need not keep
    // FP32 subnormals (CL_FP_DENORM is optional).
    uint nearestEvenAddend;
    uint subnormalMagicBits;
    uint zeroCode[2];
    uint overflowCode[2];
    uint nanCode[2];
    uint infinityCode[2];
    // Unused here: the CPU's integer nearest-even path (a double; FP64 is optional in OpenCL).
    ulong reciprocalScaleBits;
} EncodeParams;

typedef struct {
    uint count;
    int breakpoints[FPX_MAX_BREAKPOINTS]; // unused ones are INT32_MAX
    uint codes[FPX_MAX_BREAKPOINTS + 1];
    uint nanCode[2];
} LookupParams;

typedef struct {
    uint codeMask;
    uint shift;
    uint nanBits[2];
    uint infinityBits[2];
} WidenParams;

// fpx::stochasticBits: splitmix64 on seed + (index + 1) * golden ratio.
FPX_INLINE ulong stochasticBits(ulong seed, ulong index) {
    ulong z = seed + (index + 1ul) * 0x9e3779b97f4a7c15ul;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
    return z ^ (z >> 31);
}

// Branch-free choice by a mask of all ones or all zeros (fpx::kernels::select; OpenCL's own
// select() has other semantics, hence the name).
FPX_INLINE uint fpxSelect(bool condition, uint ifTrue, uint ifFalse) {
    const uint mask = 0u - (uint)condition;
    return (ifTrue & mask) | (ifFalse & ~mask);
}

// One of a pair by the sign of the input.
FPX_INLINE uint bySign(const uint pair[2], uint negative) {
    return fpxSelect(negative != 0u, pair[1], pair[0]);
}

// x >> shift (1 ... 31) rounded by `mode`, a compile-time constant at every call site, so
// the unused branches fold away as the C++ template's `if constexpr` does.
FPX_INLINE uint roundShiftRight(uint x, uint shift, uint negative, ulong random, const int mode) {
    const uint full = (1u << shift) - 1u;
    const uint halfway = 1u << (shift - 1u);
    if (mode == FPX_RNE)
        return (x + (halfway - 1u) + ((x >> shift) & 1u)) >> shift;
    else if (mode == FPX_RNA)
        return (x + halfway) >> shift;
    else if (mode == FPX_RTZ)
        return x >> shift;
    else if (mode == FPX_RUP)
        return (x + (full & (negative - 1u))) >> shift; // negative - 1: all ones when positive
    else if (mode == FPX_RDN)
        return (x + (full & (0u - negative))) >> shift;
    else if (mode == FPX_RTO)
        return (x >> shift) | (uint)((x & full) != 0u);
    else
        return (x + (full - (uint)(random >> (64u - shift)))) >> shift;
}

// Stochastic rounding of scaled / 2^shift for shift >= 32 (the result is 0 or 1): up when
// random < scaled * 2^(64 - shift); past shift 64, random < ceil(scaled / 2^(shift - 64)).
// Both thresholds, then a mask select; the shifts are capped so that neither is undefined.
FPX_INLINE uint stochasticTiny(uint scaled, uint shift, ulong random) {
    const ulong x = scaled;
    const uint up = shift < 64u ? shift : 64u;
    const uint down = shift > 64u ? (shift - 64u < 63u ? shift - 64u : 63u) : 0u;
    const ulong wide = x << (64u - up);
    const ulong ceiling = (x + ((1ul << down) - 1ul)) >> down;
    const ulong mask = 0ul - (ulong)(shift <= 64u);
    const ulong threshold = (wide & mask) | (ceiling & ~mask);
    return (uint)(random < threshold);
}

// FP32 bits -> code (fpx::kernels::encodeElementOf<Mode, Kind>; both are compile-time
// constants at every call site). Two candidates, one selected:
//   normal result: |x| bits = [0][ e (8) ][ f (23) ] -> round off 23 - M bits, the carry runs
//                  into the exponent by itself, then subtract (127 - bias) << M
//   small result:  the significand 1.f (0.f for FP32 subnormals), times K for integers,
//                  shifted right by smallShiftBase - e: a target subnormal, or the integer
FPX_INLINE uint encodeElementOf(const EncodeParams* p, uint bits, ulong random, const int mode,
                                const uint kind) {
    const uint negative = bits >> 31;
    const uint magnitude = bits & 0x7fffffffu;
    const uint exponent = magnitude >> 23;

    const uint significand = (magnitude & 0x7fffffu) | ((uint)(exponent != 0u) << 23);
    const int shift = p->smallShiftBase - (int)(exponent | (uint)(exponent == 0u));
    const bool tiny = shift > 31;
    uint small;
    if (kind == FPX_KIND_BINARY_FLOAT) {
        // Only |x| below the smallest normal takes this path (shift >= 1); past 31 only a
        // remainder below 2^24 is left, which rounding by 31 bits decides alike in every mode
        // but stochastic.
        small = roundShiftRight(significand, fpxSelect(tiny, 31u, (uint)shift), negative, random,
                                mode);
    } else {
        // Times K first. Below 1: an integer of 2^23 or more (an overflow); past 31, scaled is
        // replaced by its sticky bit.
        const uint scaled = significand * p->multiplier;
        const uint clamped = fpxSelect(shift < 1, 1u, fpxSelect(tiny, 31u, (uint)shift));
        small = roundShiftRight(fpxSelect(tiny, (uint)(scaled != 0u), scaled), clamped, negative,
                                random, mode);
    }
    if (mode == FPX_SR)
        small = fpxSelect(
            tiny, stochasticTiny(significand * p->multiplier, (uint)shift, random), small);

    uint code;
    bool overflow;
    if (kind == FPX_KIND_BINARY_FLOAT) {
        const uint normal =
            roundShiftRight(magnitude, p->fractionShift, negative, random, mode) - p->normalRebias;
        const uint rounded = fpxSelect(magnitude >= p->minNormalBits, normal, small);
        overflow = rounded > p->maxMagnitude;
        code = fpxSelect(rounded == 0u, bySign(p->zeroCode, negative),
                         rounded | (p->signBit & (0u - negative)));
    } else {
        overflow = (shift < 1) |
                   (small > fpxSelect(negative != 0u, p->maxNegativeMagnitude, p->maxMagnitude));
        code = fpxSelect(small == 0u, bySign(p->zeroCode, negative),
                         fpxSelect(negative != 0u, 0u - small, small) & p->codeMask);
    }
    code = fpxSelect(overflow, bySign(p->overflowCode, negative), code);
    const uint special = fpxSelect((magnitude & 0x7fffffu) != 0u, bySign(p->nanCode, negative),
                                   bySign(p->infinityCode, negative));
    return fpxSelect(exponent == 0xffu, special, code);
}

FPX_INLINE uint encodeElement(const EncodeParams* p, uint bits, ulong random, const int mode) {
    return p->kind == FPX_KIND_BINARY_FLOAT
               ? encodeElementOf(p, bits, random, mode, FPX_KIND_BINARY_FLOAT)
               : encodeElementOf(p, bits, random, mode, FPX_KIND_SIGNED_INTEGER);
}

// FP32 bits -> an integer that orders like the value (-0 just below +0).
FPX_INLINE int orderedKey(uint bits) {
    const int magnitude = (int)(bits & 0x7fffffffu);
    return (bits >> 31) != 0u ? -magnitude - 1 : magnitude;
}

// The segment an element falls in; a fixed trip count (the unused breakpoints are INT32_MAX,
// never reached) lets the loop unroll and vectorise.
FPX_INLINE uint lookupElement(const LookupParams* p, uint bits) {
    const int key = orderedKey(bits);
    uint segment = 0u;
    for (uint i = 0u; i < FPX_MAX_BREAKPOINTS; ++i)
        segment += (uint)(key >= p->breakpoints[i]);
    return fpxSelect((bits & 0x7fffffffu) > 0x7f800000u, bySign(p->nanCode, bits >> 31),
                     p->codes[segment]);
}

// BF16 / TF32 -> FP32 by a shift; NaN and +-inf are the exact core's answers (its NaN is
// canonical; +-inf become +-FLT_MAX under a saturating policy).
FPX_INLINE uint widenElement(const WidenParams* p, uint code) {
    const uint bits = (code & p->codeMask) << p->shift;
    const uint magnitude = bits & 0x7fffffffu;
    return fpxSelect(magnitude >= 0x7f800000u,
                     fpxSelect(magnitude > 0x7f800000u, bySign(p->nanBits, bits >> 31),
                               bySign(p->infinityBits, bits >> 31)),
                     bits);
}

// ---- FP32 -> code, bit trick: encode_<mode>_<u8|u16|u32> -------------------------------
// The parameters are copied to a private variable: its address never escapes, so after
// inlining they live in registers instead of being reloaded past every store.

#define FPX_ENCODE_KERNEL(NAME, MODE, OUT)                                                   \
    __kernel void NAME(__global const uint* in, __global OUT* out, const EncodeParams p,     \
                       const ulong seed, const ulong firstIndex) {                           \
        const size_t i = get_global_id(0);                                                   \
        const EncodeParams q = p;                                                            \
        ulong random = 0ul;                                                                  \
        if (MODE == FPX_SR)                                                                  \
            random = stochasticBits(seed, firstIndex + i);                                   \
        out[i] = (OUT)encodeElement(&q, in[i], random, MODE);                                \
    }

#define FPX_ENCODE_KERNELS(SUFFIX, MODE)                                                     \
    FPX_ENCODE_KERNEL(encode_##SUFFIX##_u8, MODE, uchar)                                     \
    FPX_ENCODE_KERNEL(encode_##SUFFIX##_u16, MODE, ushort)                                   \
    FPX_ENCODE_KERNEL(encode_##SUFFIX##_u32, MODE, uint)

FPX_ENCODE_KERNELS(rne, FPX_RNE)
FPX_ENCODE_KERNELS(rna, FPX_RNA)
FPX_ENCODE_KERNELS(rtz, FPX_RTZ)
FPX_ENCODE_KERNELS(rup, FPX_RUP)
FPX_ENCODE_KERNELS(rdn, FPX_RDN)
FPX_ENCODE_KERNELS(sr, FPX_SR)
FPX_ENCODE_KERNELS(rto, FPX_RTO)

// ---- FP32 -> code, breakpoint search (NF4, INT4 ...): lookup_<u8|u16|u32> -------------

#define FPX_LOOKUP_KERNEL(NAME, OUT)                                                         \
    __kernel void NAME(__global const uint* in, __global OUT* out, const LookupParams p) {   \
        const size_t i = get_global_id(0);                                                   \
        out[i] = (OUT)lookupElement(&p, in[i]);                                              \
    }

FPX_LOOKUP_KERNEL(lookup_u8, uchar)
FPX_LOOKUP_KERNEL(lookup_u16, ushort)
FPX_LOOKUP_KERNEL(lookup_u32, uint)

// ---- FP32 -> FP16 with the device's own conversion: encode_native_<rte|rtz|rtp|rtn> ----
// vstore_half_* needs no cl_khr_fp16. Saturating, every non-NaN input is first clamped to
// +-65504, which is exactly the "satfinite" policy (the clamp only changes values that round
// to +-65504 or overflow).

#define FPX_NATIVE_ENCODE_KERNEL(NAME, STORE)                                                \
    __kernel void NAME(__global const uint* in, __global half* out, const uint overflow) {   \
        const size_t i = get_global_id(0);                                                   \
        float x = as_float(in[i]);                                                           \
        if (overflow == FPX_OVERFLOW_SATURATE && !isnan(x))                                  \
            x = clamp(x, -65504.0f, 65504.0f);                                               \
        STORE(x, i, out);                                                                    \
    }

FPX_NATIVE_ENCODE_KERNEL(encode_native_rte, vstore_half_rte)
FPX_NATIVE_ENCODE_KERNEL(encode_native_rtz, vstore_half_rtz)
FPX_NATIVE_ENCODE_KERNEL(encode_native_rtp, vstore_half_rtp)
FPX_NATIVE_ENCODE_KERNEL(encode_native_rtn, vstore_half_rtn)

// ---- code -> FP32 ------------------------------------------------------------------------

// Saturating, +-inf become +-FLT_MAX: the exact core's answer under "satfinite".
__kernel void decode_native_fp16(__global const half* in, __global uint* out,
                                 const uint overflow) {
    const size_t i = get_global_id(0);
    float x = vload_half(i, in);
    if (overflow == FPX_OVERFLOW_SATURATE && !isnan(x))
        x = clamp(x, -FLT_MAX, FLT_MAX);
    out[i] = as_uint(x);
}

#define FPX_TABLE_KERNEL(NAME, IN)                                                           \
    __kernel void NAME(__global const IN* in, __global uint* out, __global const uint* table, \
                       const uint mask) {                                                    \
        const size_t i = get_global_id(0);                                                   \
        out[i] = table[in[i] & mask];                                                        \
    }

FPX_TABLE_KERNEL(decode_table_u8, uchar)
FPX_TABLE_KERNEL(decode_table_u16, ushort)

#define FPX_WIDEN_KERNEL(NAME, IN)                                                           \
    __kernel void NAME(__global const IN* in, __global uint* out, const WidenParams p) {     \
        const size_t i = get_global_id(0);                                                   \
        const WidenParams q = p;                                                             \
        out[i] = widenElement(&q, (uint)in[i]);                                              \
    }

FPX_WIDEN_KERNEL(decode_widen_u16, ushort)
FPX_WIDEN_KERNEL(decode_widen_u32, uint)

// ---- arithmetic throughput: fma_<fp32|fp64|fp16> -----------------------------------------
// Eight independent chains x <- x * a + b of W-wide vectors per work-item (W = 16 for float
// and half, 8 for double): enough independent FMAs to fill the pipelines of a CPU's widest
// vectors (pocl does not vectorise across work-items around a loop) and of a GPU's lanes.
// x converges to b / (1 - a): no overflow, no subnormals, and without fast-math the compiler
// cannot fold the chain. The lanes start apart and every lane reaches the output, so no lane
// is dead. The host replays one work-item with its own fma (opencl_runner.cpp).

#if FPX_FMA_CHAINS != 8
#error "kernels.cl has 8 FMA chains; the host counts FPX_FMA_CHAINS"
#endif

#define FPX_IOTA8 0, 1, 2, 3, 4, 5, 6, 7
#define FPX_IOTA16 FPX_IOTA8, 8, 9, 10, 11, 12, 13, 14, 15

#define FPX_FMA_BODY(T, TW, IOTA)                                                            \
    const size_t i = get_global_id(0);                                                       \
    const TW a = (TW)((T)aIn);                                                               \
    const TW b = (TW)((T)bIn);                                                               \
    const TW base = ((TW)((T)(i & 7u)) + (TW)(IOTA)) * (TW)((T)0.125f);                      \
    TW x0 = base, x1 = base + (TW)((T)1), x2 = base + (TW)((T)2), x3 = base + (TW)((T)3);    \
    TW x4 = base + (TW)((T)4), x5 = base + (TW)((T)5), x6 = base + (TW)((T)6);               \
    TW x7 = base + (TW)((T)7);                                                               \
    for (uint k = 0u; k < iterations; ++k) {                                                 \
        x0 = fma(x0, a, b);                                                                  \
        x1 = fma(x1, a, b);                                                                  \
        x2 = fma(x2, a, b);                                                                  \
        x3 = fma(x3, a, b);                                                                  \
        x4 = fma(x4, a, b);                                                                  \
        x5 = fma(x5, a, b);                                                                  \
        x6 = fma(x6, a, b);                                                                  \
        x7 = fma(x7, a, b);                                                                  \
    }                                                                                        \
    const TW s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));

#define FPX_FMA_KERNEL16(NAME, T)                                                            \
    __kernel void NAME(__global T* out, const float aIn, const float bIn,                     \
                       const uint iterations) {                                              \
        FPX_FMA_BODY(T, T##16, FPX_IOTA16)                                                   \
        const T##8 s8 = s.lo + s.hi;                                                         \
        const T##4 s4 = s8.lo + s8.hi;                                                       \
        const T##2 s2 = s4.lo + s4.hi;                                                       \
        out[i] = s2.x + s2.y;                                                                \
    }

#define FPX_FMA_KERNEL8(NAME, T)                                                             \
    __kernel void NAME(__global T* out, const float aIn, const float bIn,                     \
                       const uint iterations) {                                              \
        FPX_FMA_BODY(T, T##8, FPX_IOTA8)                                                     \
        const T##4 s4 = s.lo + s.hi;                                                         \
        const T##2 s2 = s4.lo + s4.hi;                                                       \
        out[i] = s2.x + s2.y;                                                                \
    }

FPX_FMA_KERNEL16(fma_fp32, float)

// Only where the device has the extension; the host leaves them out (FPX_NO_FP64 /
// FPX_NO_FP16) when a compiler rejects them, so that the rest still builds.
#if defined(cl_khr_fp64) && !defined(FPX_NO_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
FPX_FMA_KERNEL8(fma_fp64, double)
#endif

#if defined(cl_khr_fp16) && !defined(FPX_NO_FP16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
FPX_FMA_KERNEL16(fma_fp16, half)
#endif
