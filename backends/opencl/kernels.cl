// SPDX-License-Identifier: GPL-3.0-or-later
// OpenCL C 1.2 kernels of the OpenCL benchmark backend, embedded in the plugin at build time.
//
// The encode, lookup and widen functions are core/include/fpx/kernels/element_conversion.h
// translated line by line: the same branch-free integer arithmetic on the same parameters
// (derived from a FormatSpec by fpx::encodeParams / lookupParams / widenParams), so that a
// result that differs from the exact core is a bug here, not a second algorithm. The
// parameter structs mirror the host's Cl*Params (opencl_backend.cpp): 32-bit fields only, so
// host and device lay them out the same way.
//
// Every kernel handles element get_global_id(0) < n; the host rounds the global size up.

// Rounding modes, in the order of fpx::RoundingMode.
#define FPX_RNE 0 // nearest, ties to even
#define FPX_RNA 1 // nearest, ties away from zero
#define FPX_RTZ 2 // toward zero
#define FPX_RUP 3 // toward +inf
#define FPX_RDN 4 // toward -inf
#define FPX_SR 5  // stochastic
#define FPX_RTO 6 // to odd

#define FPX_KIND_BINARY_FLOAT 0u
#define FPX_KIND_SIGNED_INTEGER 1u

typedef struct {
    uint kind;
    uint fractionShift;
    uint normalRebias;
    uint minNormalBits;
    int smallShiftBase;
    uint maxMagnitude;
    uint maxNegativeMagnitude;
    uint signBit;
    uint codeMask;
    uint zeroCode[2];
    uint overflowCode[2];
    uint nanCode[2];
    uint infinityCode[2];
} EncodeParams;

typedef struct {
    uint count;
    int breakpoints[32];
    uint codes[33];
    uint nanCode[2];
} LookupParams;

typedef struct {
    uint codeMask;
    uint shift;
    uint nanBits[2];
} WidenParams;

// fpx::stochasticBits: splitmix64 on seed + (index + 1) * golden ratio.
inline ulong stochasticBits(ulong seed, ulong index) {
    ulong z = seed + (index + 1ul) * 0x9e3779b97f4a7c15ul;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
    return z ^ (z >> 31);
}

inline uint bySign(uint positive, uint negativeValue, uint negative) {
    return negative != 0u ? negativeValue : positive;
}

// x >> shift (1 ... 31) rounded by `mode`, a compile-time constant at every call site, so
// the unused branches fold away as the C++ template's `if constexpr` does.
inline uint roundShiftRight(uint x, uint shift, uint negative, ulong random, const int mode) {
    const uint full = (1u << shift) - 1u;
    const uint half = 1u << (shift - 1u);
    if (mode == FPX_RNE)
        return (x + (half - 1u) + ((x >> shift) & 1u)) >> shift;
    else if (mode == FPX_RNA)
        return (x + half) >> shift;
    else if (mode == FPX_RTZ)
        return x >> shift;
    else if (mode == FPX_RUP)
        return (x + (negative != 0u ? 0u : full)) >> shift;
    else if (mode == FPX_RDN)
        return (x + (negative != 0u ? full : 0u)) >> shift;
    else if (mode == FPX_RTO)
        return (x >> shift) | ((x & full) != 0u ? 1u : 0u);
    else
        return (x + (full - (uint)(random >> (64u - shift)))) >> shift;
}

inline uint encodeElement(const EncodeParams* p, uint bits, ulong random, const int mode) {
    const uint negative = bits >> 31;
    const uint magnitude = bits & 0x7fffffffu;
    const uint exponent = magnitude >> 23;

    const uint normal =
        roundShiftRight(magnitude, p->fractionShift, negative, random, mode) - p->normalRebias;

    const uint significand = (magnitude & 0x7fffffu) | (exponent != 0u ? 0x800000u : 0u);
    const int shift = p->smallShiftBase - (int)(exponent | (exponent == 0u ? 1u : 0u));
    const uint clamped = (uint)(shift < 1 ? 1 : (shift > 31 ? 31 : shift));
    const uint small = roundShiftRight(significand, clamped, negative, random, mode);

    uint code;
    bool overflow;
    if (p->kind == FPX_KIND_BINARY_FLOAT) {
        const uint rounded = magnitude >= p->minNormalBits ? normal : small;
        overflow = rounded > p->maxMagnitude;
        code = rounded == 0u ? bySign(p->zeroCode[0], p->zeroCode[1], negative)
                             : (rounded | (negative != 0u ? p->signBit : 0u));
    } else {
        overflow =
            shift < 1 || small > (negative != 0u ? p->maxNegativeMagnitude : p->maxMagnitude);
        code = small == 0u ? bySign(p->zeroCode[0], p->zeroCode[1], negative)
                           : ((negative != 0u ? 0u - small : small) & p->codeMask);
    }
    code = overflow ? bySign(p->overflowCode[0], p->overflowCode[1], negative) : code;
    if (exponent == 0xffu)
        code = (magnitude & 0x7fffffu) != 0u
                   ? bySign(p->nanCode[0], p->nanCode[1], negative)
                   : bySign(p->infinityCode[0], p->infinityCode[1], negative);
    return code;
}

// FP32 bits -> an integer that orders like the value (-0 just below +0).
inline int orderedKey(uint bits) {
    const int magnitude = (int)(bits & 0x7fffffffu);
    return (bits >> 31) != 0u ? -magnitude - 1 : magnitude;
}

inline uint lookupElement(const LookupParams* p, uint bits) {
    const int key = orderedKey(bits);
    uint segment = 0u;
    for (uint i = 0u; i < p->count; ++i)
        segment += key >= p->breakpoints[i] ? 1u : 0u;
    const uint code = p->codes[segment];
    return (bits & 0x7fffffffu) > 0x7f800000u ? bySign(p->nanCode[0], p->nanCode[1], bits >> 31)
                                              : code;
}

inline uint widenElement(const WidenParams* p, uint code) {
    const uint bits = (code & p->codeMask) << p->shift;
    return (bits & 0x7fffffffu) > 0x7f800000u ? bySign(p->nanBits[0], p->nanBits[1], bits >> 31)
                                              : bits;
}

// ---- FP32 -> code, bit trick: encode_<mode>_<u8|u16|u32> -------------------------------

#define FPX_ENCODE_KERNEL(NAME, MODE, OUT)                                                   \
    __kernel void NAME(__global const uint* in, __global OUT* out, const EncodeParams p,     \
                       const ulong seed, const ulong firstIndex, const ulong n) {            \
        const size_t i = get_global_id(0);                                                   \
        if (i < n) {                                                                          \
            ulong random = 0ul;                                                              \
            if (MODE == FPX_SR)                                                              \
                random = stochasticBits(seed, firstIndex + i);                               \
            out[i] = (OUT)encodeElement(&p, in[i], random, MODE);                            \
        }                                                                                     \
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
    __kernel void NAME(__global const uint* in, __global OUT* out, const LookupParams p,     \
                       const ulong n) {                                                      \
        const size_t i = get_global_id(0);                                                   \
        if (i < n)                                                                            \
            out[i] = (OUT)lookupElement(&p, in[i]);                                          \
    }

FPX_LOOKUP_KERNEL(lookup_u8, uchar)
FPX_LOOKUP_KERNEL(lookup_u16, ushort)
FPX_LOOKUP_KERNEL(lookup_u32, uint)

// ---- FP32 -> FP16 with the device's own conversion: encode_native_<rte|rtz|rtp|rtn> ----
// vstore_half_* needs no cl_khr_fp16. With `saturate` every non-NaN input is first clamped to
// +-65504, which is exactly the "satfinite" policy (the clamp only touches values that round to
// +-65504 or overflow).

#define FPX_NATIVE_ENCODE_KERNEL(NAME, STORE)                                                \
    __kernel void NAME(__global const uint* in, __global half* out, const uint saturate,     \
                       const ulong n) {                                                      \
        const size_t i = get_global_id(0);                                                   \
        if (i < n) {                                                                          \
            float x = as_float(in[i]);                                                       \
            if (saturate != 0u && !isnan(x))                                                 \
                x = clamp(x, -65504.0f, 65504.0f);                                           \
            STORE(x, i, out);                                                                \
        }                                                                                     \
    }

FPX_NATIVE_ENCODE_KERNEL(encode_native_rte, vstore_half_rte)
FPX_NATIVE_ENCODE_KERNEL(encode_native_rtz, vstore_half_rtz)
FPX_NATIVE_ENCODE_KERNEL(encode_native_rtp, vstore_half_rtp)
FPX_NATIVE_ENCODE_KERNEL(encode_native_rtn, vstore_half_rtn)

// ---- code -> FP32 ------------------------------------------------------------------------

__kernel void decode_native_fp16(__global const half* in, __global uint* out, const ulong n) {
    const size_t i = get_global_id(0);
    if (i < n)
        out[i] = as_uint(vload_half(i, in));
}

#define FPX_TABLE_KERNEL(NAME, IN)                                                           \
    __kernel void NAME(__global const IN* in, __global uint* out, __global const uint* table, \
                       const uint mask, const ulong n) {                                     \
        const size_t i = get_global_id(0);                                                   \
        if (i < n)                                                                            \
            out[i] = table[in[i] & mask];                                                    \
    }

FPX_TABLE_KERNEL(decode_table_u8, uchar)
FPX_TABLE_KERNEL(decode_table_u16, ushort)

#define FPX_WIDEN_KERNEL(NAME, IN)                                                           \
    __kernel void NAME(__global const IN* in, __global uint* out, const WidenParams p,       \
                       const ulong n) {                                                      \
        const size_t i = get_global_id(0);                                                   \
        if (i < n)                                                                            \
            out[i] = widenElement(&p, (uint)in[i]);                                          \
    }

FPX_WIDEN_KERNEL(decode_widen_u16, ushort)
FPX_WIDEN_KERNEL(decode_widen_u32, uint)

// ---- random codes for the decode benchmarks (every code equally likely) ------------------

#define FPX_RANDOM_CODES_KERNEL(NAME, OUT)                                                   \
    __kernel void NAME(__global OUT* out, const ulong seed, const uint mask, const ulong n) {\
        const size_t i = get_global_id(0);                                                   \
        if (i < n)                                                                            \
            out[i] = (OUT)((uint)(stochasticBits(seed, i) >> 32) & mask);                    \
    }

FPX_RANDOM_CODES_KERNEL(random_codes_u8, uchar)
FPX_RANDOM_CODES_KERNEL(random_codes_u16, ushort)
FPX_RANDOM_CODES_KERNEL(random_codes_u32, uint)

// ---- arithmetic throughput: FPX_FMA_CHAINS independent vector FMA chains per work-item ----
// x <- x * a + b converges to b / (1 - a): no overflow, no subnormals, and the compiler cannot
// fold the chain (no fast-math). Each iteration is FPX_FMA_CHAINS * 4 FMAs, 2 FLOP each.

#ifndef FPX_FMA_CHAINS // set by the host, which counts the FLOPs
#define FPX_FMA_CHAINS 8
#endif

#define FPX_FMA_KERNEL(NAME, T, T4)                                                          \
    __kernel void NAME(__global T* out, const float aIn, const float bIn,                     \
                       const uint iterations) {                                              \
        const size_t i = get_global_id(0);                                                   \
        const T4 a = (T4)((T)aIn);                                                           \
        const T4 b = (T4)((T)bIn);                                                           \
        T4 x[FPX_FMA_CHAINS];                                                                \
        for (int c = 0; c < FPX_FMA_CHAINS; ++c)                                             \
            x[c] = (T4)((T)(i & 7u), (T)c, (T)1, (T)2) * (T4)((T)0.125f);                    \
        for (uint k = 0u; k < iterations; ++k) {                                             \
            for (int c = 0; c < FPX_FMA_CHAINS; ++c)                                         \
                x[c] = fma(x[c], a, b);                                                      \
        }                                                                                     \
        T4 sum = x[0];                                                                       \
        for (int c = 1; c < FPX_FMA_CHAINS; ++c)                                             \
            sum += x[c];                                                                     \
        out[i] = sum.x + sum.y + sum.z + sum.w;                                              \
    }

FPX_FMA_KERNEL(fma_fp32, float, float4)

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
FPX_FMA_KERNEL(fma_fp64, double, double4)
#endif

#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
FPX_FMA_KERNEL(fma_fp16, half, half4)
#endif
