// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#if CUDART_VERSION >= 12080
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#define FPX_CUDA_HAVE_FP6_FP4 1
#else
#define FPX_CUDA_HAVE_FP6_FP4 0
#endif

#include <type_traits>

namespace fpx::cuda {
namespace {

constexpr int kThreads = 256;
// 16-byte vectors of FP32 (4 elements) a thread loads before it converts any: 64 bytes a
// thread in flight, enough to keep HBM busy.
constexpr int kVectors = 4;
static_assert(kTileElements == 4 * kVectors * kThreads, "the tile the host sizes grids by");

// ---- Memory access shared by every conversion kernel ---------------------------------------
//
// Every warp instruction touches one contiguous run of memory: lane t of a warp takes the
// t-th 16-byte vector of FP32 and the t-th group of 4 codes (4, 8 or 16 bytes), so that a
// warp loads 512 contiguous bytes of FP32 and stores 128, 256 or 512 contiguous bytes of
// codes, whole 32-byte sectors, with no help from L1. (A thread taking 64 contiguous bytes
// instead leaves each instruction's 32 accesses 64 bytes apart, and then runs well below
// HBM's copy bandwidth.)
//
//   vector v = (tile · kVectors + q) · blockDim + threadIdx.x,     q = 0 … kVectors − 1
//
//   FP32    |  v·16 … v·16+15  |     4 elements 4v … 4v+3
//   codes   |  v·4S … v·4S+4S−1 |    the same 4 elements, S bytes each, little-endian

// Four codes of S bytes, as one access of 4·S bytes.
template <typename Code> struct CodeQuad;
template <> struct CodeQuad<std::uint8_t> {
    using Type = std::uint32_t;
    __device__ static Type pack(const std::uint32_t (&c)[4]) {
        return (c[0] & 0xffu) | (c[1] & 0xffu) << 8 | (c[2] & 0xffu) << 16 | c[3] << 24;
    }
    __device__ static void unpack(Type w, std::uint32_t (&c)[4]) {
        c[0] = w & 0xffu;
        c[1] = w >> 8 & 0xffu;
        c[2] = w >> 16 & 0xffu;
        c[3] = w >> 24;
    }
};
template <> struct CodeQuad<std::uint16_t> {
    using Type = uint2;
    __device__ static Type pack(const std::uint32_t (&c)[4]) {
        return make_uint2((c[0] & 0xffffu) | c[1] << 16, (c[2] & 0xffffu) | c[3] << 16);
    }
    __device__ static void unpack(Type w, std::uint32_t (&c)[4]) {
        c[0] = w.x & 0xffffu;
        c[1] = w.x >> 16;
        c[2] = w.y & 0xffffu;
        c[3] = w.y >> 16;
    }
};
template <> struct CodeQuad<std::uint32_t> {
    using Type = uint4;
    __device__ static Type pack(const std::uint32_t (&c)[4]) {
        return make_uint4(c[0], c[1], c[2], c[3]);
    }
    __device__ static void unpack(Type w, std::uint32_t (&c)[4]) {
        c[0] = w.x;
        c[1] = w.y;
        c[2] = w.z;
        c[3] = w.w;
    }
};

__device__ __forceinline__ std::size_t globalThread() {
    return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ std::size_t gridThreads() {
    return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// FP32 bits → codes: whole tiles as drawn above, then the last vectors one a thread, then the
// last elements (fewer than 4) one a thread. `in` and `out` are 16-byte aligned.
template <typename Code, typename Op>
__device__ __forceinline__ void encodeLoop(const std::uint32_t* __restrict__ in,
                                           Code* __restrict__ out, std::size_t count,
                                           const Op& op) {
    using Quad = CodeQuad<Code>;
    const auto* in4 = reinterpret_cast<const uint4*>(in);
    auto* outQuads = reinterpret_cast<typename Quad::Type*>(out);
    const auto convert = [&](const uint4& x, std::size_t v) {
        const std::size_t i = 4 * v;
        const std::uint32_t c[4] = {op(x.x, i), op(x.y, i + 1), op(x.z, i + 2), op(x.w, i + 3)};
        outQuads[v] = Quad::pack(c);
    };
    const std::size_t vectors = count / 4;
    const std::size_t tileVectors = static_cast<std::size_t>(kVectors) * blockDim.x;
    const std::size_t tiles = vectors / tileVectors;
    for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const std::size_t first = tile * tileVectors + threadIdx.x;
        uint4 x[kVectors];
#pragma unroll
        for (int q = 0; q < kVectors; ++q)
            x[q] = in4[first + static_cast<std::size_t>(q) * blockDim.x];
#pragma unroll
        for (int q = 0; q < kVectors; ++q)
            convert(x[q], first + static_cast<std::size_t>(q) * blockDim.x);
    }
    for (std::size_t v = tiles * tileVectors + globalThread(); v < vectors; v += gridThreads())
        convert(in4[v], v);
    for (std::size_t i = vectors * 4 + globalThread(); i < count; i += gridThreads())
        out[i] = static_cast<Code>(op(in[i], i));
}

// Codes → FP32 bits, in the same layout.
template <typename Code, typename Op>
__device__ __forceinline__ void decodeLoop(const Code* __restrict__ in,
                                           std::uint32_t* __restrict__ out, std::size_t count,
                                           const Op& op) {
    using Quad = CodeQuad<Code>;
    const auto* inQuads = reinterpret_cast<const typename Quad::Type*>(in);
    auto* out4 = reinterpret_cast<uint4*>(out);
    const auto convert = [&](const typename Quad::Type& w, std::size_t v) {
        std::uint32_t c[4];
        Quad::unpack(w, c);
        out4[v] = make_uint4(op(c[0]), op(c[1]), op(c[2]), op(c[3]));
    };
    const std::size_t vectors = count / 4;
    const std::size_t tileVectors = static_cast<std::size_t>(kVectors) * blockDim.x;
    const std::size_t tiles = vectors / tileVectors;
    for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const std::size_t first = tile * tileVectors + threadIdx.x;
        typename Quad::Type w[kVectors];
#pragma unroll
        for (int q = 0; q < kVectors; ++q)
            w[q] = inQuads[first + static_cast<std::size_t>(q) * blockDim.x];
#pragma unroll
        for (int q = 0; q < kVectors; ++q)
            convert(w[q], first + static_cast<std::size_t>(q) * blockDim.x);
    }
    for (std::size_t v = tiles * tileVectors + globalThread(); v < vectors; v += gridThreads())
        convert(inQuads[v], v);
    for (std::size_t i = vectors * 4 + globalThread(); i < count; i += gridThreads())
        out[i] = op(static_cast<std::uint32_t>(in[i]));
}

// ---- Own kernels: the core's element conversions -------------------------------------------

// The kind (binary float or integer) is a template parameter, as in the CPU loops, so that
// each kernel holds one straight-line conversion; so is the sign rule (binary floats whose
// answers mirror, or fnuz's under nearest-even: the answer chosen among magnitudes and the
// sign put in once, a quarter fewer instructions; kernels::symmetricSpecials and
// kernels::unsignedZeroApplies say where they hold).
template <RoundingMode Mode, kernels::EncodeKind Kind, bool Symmetric, bool UnsignedZero>
struct ElementEncode {
    kernels::EncodeParams params;
    std::uint64_t seed;
    __device__ std::uint32_t operator()(std::uint32_t bits, std::size_t index) const {
        std::uint64_t random = 0;
        if constexpr (Mode == RoundingMode::Stochastic)
            random = stochasticBits(seed, index);
        return kernels::encodeElementOf<Mode, Kind, Symmetric, UnsignedZero>(params, bits, random);
    }
};

template <typename Code, RoundingMode Mode, kernels::EncodeKind Kind, bool Symmetric,
          bool UnsignedZero>
__global__ void __launch_bounds__(kThreads)
    elementEncodeKernel(const std::uint32_t* __restrict__ in, Code* __restrict__ out,
                        std::size_t count, kernels::EncodeParams params, std::uint64_t seed) {
    encodeLoop(in, out, count, ElementEncode<Mode, Kind, Symmetric, UnsignedZero>{params, seed});
}

// Signed integers under nearest-even whose reciprocal scale r = K·2^−k is an FP32 number (the
// catalogue's: INT8 is x·127, INT4 x·7, INT2 x·1), in FP32 arithmetic, exactly:
//
//   p = x·r rounded to FP32;  e = fma(x, r, −p) = x·r − p exactly (the two-product: x·r has
//   at most 24 + 7 bits);  n = rint(p), ties to even;  t = p − n, exact, |t| ≤ ½.
//
//   |t| < ½: p lies a whole FP32 spacing inside the tie (|p| < 2^16 here, so ½ is on the
//            grid) and |e| is at most half a spacing: x·r rounds to n as well.
//   |t| = ½: p is the tie. x·r = n + t + e is beyond it, and rounds away from n, where e ≠ 0
//            has t's sign; otherwise it is the tie itself or short of it: n.
//
// Beyond |p| ≥ 2^16 every format overflows whatever e is; cvt.rni saturates at ±2^31, still an
// overflow on its side. Products in FP32's subnormal range lie far below ½ and round to 0
// whatever is lost. The core's shifting path, which the device takes otherwise, runs about
// three times the instructions; the CPU's FP64 path would be slow on GPUs with few FP64 units.
struct IntegerNearestEvenEncode {
    kernels::EncodeParams params;
    float reciprocalScale;
    __device__ std::uint32_t operator()(std::uint32_t bits, std::size_t) const {
        const float x = __uint_as_float(bits);
        const float product = __fmul_rn(x, reciprocalScale);
        const float error = __fmaf_rn(x, reciprocalScale, -product);
        const float nearest = rintf(product);
        const float tie = product - nearest;
        // Beyond the tie: |t| = ½ and e ≠ 0 of t's sign; the answer is then n + 2t, one step
        // away from n (exact: |n| < 2^16 there).
        const bool sameSign = ((__float_as_uint(error) ^ __float_as_uint(tie)) >> 31) == 0u;
        const bool beyondTie = fabsf(tie) == 0.5f && error != 0.0f && sameSign;
        const std::int32_t rounded = __float2int_rn(beyondTie ? nearest + 2.0f * tie : nearest);
        const std::uint32_t negative = bits >> 31;
        return kernels::withSpecialInputs(params, bits & 0x7fffffffu, negative,
                                          kernels::integerCodeOf(params, rounded, negative));
    }
};

template <typename Code>
__global__ void __launch_bounds__(kThreads)
    integerNearestEvenKernel(const std::uint32_t* __restrict__ in, Code* __restrict__ out,
                             std::size_t count, kernels::EncodeParams params,
                             float reciprocalScale) {
    encodeLoop(in, out, count, IntegerNearestEvenEncode{params, reciprocalScale});
}

// Formats encoded by their breakpoints (NF4 …): by the buckets where they fit (a shift, a
// clamp and one compare, kernels::bucketLookupElement), else by bisection (6 loads).
__device__ __forceinline__ std::uint32_t lookUp(const kernels::BucketedBreakpoints& b,
                                                std::uint32_t bits) {
    return kernels::bucketLookupElement(b, bits);
}
__device__ __forceinline__ std::uint32_t lookUp(const kernels::LookupParams& p,
                                                std::uint32_t bits) {
    return kernels::lookupElementBisect(p, bits);
}

template <typename Params> struct LookupEncode {
    const Params* params; // shared memory: the tables are indexed per element
    __device__ std::uint32_t operator()(std::uint32_t bits, std::size_t) const {
        return lookUp(*params, bits);
    }
};

template <typename Code, typename Params>
__global__ void __launch_bounds__(kThreads)
    lookupEncodeKernel(const std::uint32_t* __restrict__ in, Code* __restrict__ out,
                       std::size_t count, Params params) {
    // Kernel parameters live in constant memory, which serialises a warp whose lanes read
    // different addresses; the per-element lookups read shared memory instead.
    __shared__ Params shared;
    static_assert(sizeof(Params) % 4 == 0);
    constexpr int kWords = sizeof(Params) / 4;
    const auto* from = reinterpret_cast<const std::uint32_t*>(&params);
    auto* to = reinterpret_cast<std::uint32_t*>(&shared);
    for (int k = threadIdx.x; k < kWords; k += blockDim.x)
        to[k] = from[k];
    __syncthreads();
    encodeLoop(in, out, count, LookupEncode<Params>{&shared});
}

struct WidenDecode {
    kernels::WidenParams params;
    __device__ std::uint32_t operator()(std::uint32_t code) const {
        return kernels::widenElement(params, code);
    }
};

template <typename Code>
__global__ void __launch_bounds__(kThreads)
    widenDecodeKernel(const Code* __restrict__ in, std::uint32_t* __restrict__ out,
                      std::size_t count, kernels::WidenParams params) {
    decodeLoop(in, out, count, WidenDecode{params});
}

struct TableDecode {
    const std::uint32_t* table;
    __device__ std::uint32_t operator()(std::uint32_t code) const { return table[code]; }
};

struct GlobalTableDecode {
    const std::uint32_t* __restrict__ table;
    __device__ std::uint32_t operator()(std::uint32_t code) const { return __ldg(table + code); }
};

__global__ void __launch_bounds__(kThreads)
    byteTableDecodeKernel(const std::uint8_t* __restrict__ in, std::uint32_t* __restrict__ out,
                          std::size_t count, const std::uint32_t* __restrict__ table) {
    __shared__ std::uint32_t shared[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x)
        shared[k] = table[k];
    __syncthreads();
    decodeLoop(in, out, count, TableDecode{shared});
}

template <typename Code>
__global__ void __launch_bounds__(kThreads)
    globalTableDecodeKernel(const Code* __restrict__ in, std::uint32_t* __restrict__ out,
                            std::size_t count, const std::uint32_t* __restrict__ table) {
    decodeLoop(in, out, count, GlobalTableDecode{table});
}

// ---- CUDA's own conversions ----------------------------------------------------------------

template <EncodeOp Op> struct IntrinsicEncode {
    __device__ std::uint32_t operator()(std::uint32_t bits, std::size_t) const {
        const float f = __uint_as_float(bits);
        if constexpr (Op == EncodeOp::HalfRn)
            return __half_as_ushort(__float2half_rn(f));
        else if constexpr (Op == EncodeOp::HalfRz)
            return __half_as_ushort(__float2half_rz(f));
        else if constexpr (Op == EncodeOp::HalfRu)
            return __half_as_ushort(__float2half_ru(f));
        else if constexpr (Op == EncodeOp::HalfRd)
            return __half_as_ushort(__float2half_rd(f));
        else if constexpr (Op == EncodeOp::Bf16Rn)
            return __bfloat16_as_ushort(__float2bfloat16_rn(f));
        else if constexpr (Op == EncodeOp::Bf16Rz)
            return __bfloat16_as_ushort(__float2bfloat16_rz(f));
        else if constexpr (Op == EncodeOp::Bf16Ru)
            return __bfloat16_as_ushort(__float2bfloat16_ru(f));
        else if constexpr (Op == EncodeOp::Bf16Rd)
            return __bfloat16_as_ushort(__float2bfloat16_rd(f));
        else if constexpr (Op == EncodeOp::Tf32Rna) {
            // The TF32 value sits in the top 19 bits of the result; the code is those bits.
            std::uint32_t r;
            asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
            return r >> 13;
        } else if constexpr (Op == EncodeOp::Tf32RnaSatFinite) {
#if CUDART_VERSION >= 12010
            std::uint32_t r;
            asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
            return r >> 13;
#else
            return 0; // not offered: encodeOpCompiled says no
#endif
        } else if constexpr (Op == EncodeOp::Tf32Rn || Op == EncodeOp::Tf32Rz) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
            std::uint32_t r;
            if constexpr (Op == EncodeOp::Tf32Rn)
                asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
            else
                asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
            return r >> 13;
#else
            return 0; // not launched below sm_90: the host asks probeDeviceFeatures first
#endif
        } else if constexpr (Op == EncodeOp::Fp8E4m3SatFinite)
            return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
        else if constexpr (Op == EncodeOp::Fp8E4m3NoSat)
            return __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E4M3);
        else if constexpr (Op == EncodeOp::Fp8E5m2SatFinite)
            return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
        else if constexpr (Op == EncodeOp::Fp8E5m2NoSat)
            return __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E5M2);
#if FPX_CUDA_HAVE_FP6_FP4
        else if constexpr (Op == EncodeOp::Fp6E2m3Rn)
            return __nv_cvt_float_to_fp6(f, __NV_E2M3, cudaRoundNearest);
        else if constexpr (Op == EncodeOp::Fp6E2m3Rz)
            return __nv_cvt_float_to_fp6(f, __NV_E2M3, cudaRoundZero);
        else if constexpr (Op == EncodeOp::Fp6E3m2Rn)
            return __nv_cvt_float_to_fp6(f, __NV_E3M2, cudaRoundNearest);
        else if constexpr (Op == EncodeOp::Fp6E3m2Rz)
            return __nv_cvt_float_to_fp6(f, __NV_E3M2, cudaRoundZero);
        else if constexpr (Op == EncodeOp::Fp4E2m1Rn)
            return __nv_cvt_float_to_fp4(f, __NV_E2M1, cudaRoundNearest);
        else if constexpr (Op == EncodeOp::Fp4E2m1Rz)
            return __nv_cvt_float_to_fp4(f, __NV_E2M1, cudaRoundZero);
#endif
        else
            return 0;
    }
};

template <typename Code, EncodeOp Op>
__global__ void __launch_bounds__(kThreads)
    intrinsicEncodeKernel(const std::uint32_t* __restrict__ in, Code* __restrict__ out,
                          std::size_t count) {
    encodeLoop(in, out, count, IntrinsicEncode<Op>{});
}

template <DecodeOp Op> struct IntrinsicDecode {
    __device__ std::uint32_t operator()(std::uint32_t code) const {
        if constexpr (Op == DecodeOp::Half)
            return __float_as_uint(
                __half2float(__ushort_as_half(static_cast<unsigned short>(code))));
        else if constexpr (Op == DecodeOp::Bf16)
            return __float_as_uint(
                __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(code))));
        else if constexpr (Op == DecodeOp::Fp8E4m3)
            return halfRawToBits(
                __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(code), __NV_E4M3));
        else if constexpr (Op == DecodeOp::Fp8E5m2)
            return halfRawToBits(
                __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(code), __NV_E5M2));
#if FPX_CUDA_HAVE_FP6_FP4
        else if constexpr (Op == DecodeOp::Fp6E2m3)
            return halfRawToBits(
                __nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(code), __NV_E2M3));
        else if constexpr (Op == DecodeOp::Fp6E3m2)
            return halfRawToBits(
                __nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(code), __NV_E3M2));
        else if constexpr (Op == DecodeOp::Fp4E2m1)
            return halfRawToBits(
                __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(code), __NV_E2M1));
#endif
        else
            return 0;
    }

    static __device__ std::uint32_t halfRawToBits(__half_raw h) {
        return __float_as_uint(__half2float(__half(h)));
    }
};

template <typename Code, DecodeOp Op>
__global__ void __launch_bounds__(kThreads)
    intrinsicDecodeKernel(const Code* __restrict__ in, std::uint32_t* __restrict__ out,
                          std::size_t count) {
    decodeLoop(in, out, count, IntrinsicDecode<Op>{});
}

// ---- Launch helpers -------------------------------------------------------------------------

// The packed code size each intrinsic reads or writes (FP16/BF16: 2, TF32: 4, the rest: 1);
// other sizes are refused rather than instantiated.
constexpr std::size_t naturalBytes(EncodeOp op) {
    switch (op) {
    case EncodeOp::HalfRn:
    case EncodeOp::HalfRz:
    case EncodeOp::HalfRu:
    case EncodeOp::HalfRd:
    case EncodeOp::Bf16Rn:
    case EncodeOp::Bf16Rz:
    case EncodeOp::Bf16Ru:
    case EncodeOp::Bf16Rd:
        return 2;
    case EncodeOp::Tf32Rna:
    case EncodeOp::Tf32Rn:
    case EncodeOp::Tf32Rz:
    case EncodeOp::Tf32RnaSatFinite:
        return 4;
    default:
        return 1;
    }
}

constexpr std::size_t naturalBytes(DecodeOp op) {
    return op == DecodeOp::Half || op == DecodeOp::Bf16 ? 2 : 1;
}

bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// How the dispatch below ends: a launch on a stream, or only the question how many blocks of
// the chosen kernel fit on one SM at once (to size grids to whole waves).
struct Launcher {
    int blocks = 1;
    cudaStream_t stream = nullptr;
    int* residentBlocks = nullptr; // set: query the occupancy instead of launching
};

template <typename Kernel, typename... Args>
cudaError_t launch(Kernel kernel, const Launcher& how, Args... args) {
    if (how.residentBlocks != nullptr)
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(how.residentBlocks, kernel, kThreads,
                                                             0);
    const int grid = how.blocks > 0 ? how.blocks : 1;
    kernel<<<grid, kThreads, 0, how.stream>>>(args...);
    return cudaGetLastError();
}

template <typename Code, RoundingMode Mode>
cudaError_t launchElementEncodeMode(const EncodeLaunch& l, const std::uint32_t* in, Code* out,
                                    std::size_t count, const Launcher& how) {
    using kernels::EncodeKind;
    if (l.encode.kind == EncodeKind::BinaryFloat) {
        if constexpr (Mode == RoundingMode::NearestEven)
            if (l.unsignedZero)
                return launch(elementEncodeKernel<Code, Mode, EncodeKind::BinaryFloat, true, true>,
                              how, in, out, count, l.encode, l.seed);
        if (l.symmetric)
            return launch(elementEncodeKernel<Code, Mode, EncodeKind::BinaryFloat, true, false>,
                          how, in, out, count, l.encode, l.seed);
        return launch(elementEncodeKernel<Code, Mode, EncodeKind::BinaryFloat, false, false>, how,
                      in, out, count, l.encode, l.seed);
    }
    // Integers have at most 16 bits: no 4-byte instantiation.
    if constexpr (sizeof(Code) <= 2) {
        if constexpr (Mode == RoundingMode::NearestEven)
            if (l.integerReciprocalScale != 0.0f)
                return launch(integerNearestEvenKernel<Code>, how, in, out, count, l.encode,
                              l.integerReciprocalScale);
        return launch(elementEncodeKernel<Code, Mode, EncodeKind::SignedInteger, false, false>, how,
                      in, out, count, l.encode, l.seed);
    }
    return cudaErrorInvalidValue;
}

template <typename Code>
cudaError_t launchElementEncode(const EncodeLaunch& l, const std::uint32_t* in, Code* out,
                                std::size_t count, const Launcher& how) {
    switch (l.mode) {
    case RoundingMode::NearestEven:
        return launchElementEncodeMode<Code, RoundingMode::NearestEven>(l, in, out, count, how);
    case RoundingMode::NearestAway:
        return launchElementEncodeMode<Code, RoundingMode::NearestAway>(l, in, out, count, how);
    case RoundingMode::TowardZero:
        return launchElementEncodeMode<Code, RoundingMode::TowardZero>(l, in, out, count, how);
    case RoundingMode::TowardPositive:
        return launchElementEncodeMode<Code, RoundingMode::TowardPositive>(l, in, out, count, how);
    case RoundingMode::TowardNegative:
        return launchElementEncodeMode<Code, RoundingMode::TowardNegative>(l, in, out, count, how);
    case RoundingMode::Stochastic:
        return launchElementEncodeMode<Code, RoundingMode::Stochastic>(l, in, out, count, how);
    case RoundingMode::ToOdd:
        return launchElementEncodeMode<Code, RoundingMode::ToOdd>(l, in, out, count, how);
    }
    return cudaErrorInvalidValue;
}

template <typename Code>
cudaError_t launchEncodeAs(const EncodeLaunch& l, const std::uint32_t* in, void* outVoid,
                           std::size_t count, const Launcher& how) {
    Code* out = static_cast<Code*>(outVoid);
    switch (l.op) {
    case EncodeOp::Element:
        return launchElementEncode(l, in, out, count, how);
    case EncodeOp::Lookup:
        return launch(lookupEncodeKernel<Code, kernels::LookupParams>, how, in, out, count,
                      l.lookup);
    case EncodeOp::BucketLookup:
        return launch(lookupEncodeKernel<Code, kernels::BucketedBreakpoints>, how, in, out, count,
                      l.buckets);
#define FPX_INTRINSIC_ENCODE(OP)                                                                   \
    case EncodeOp::OP:                                                                             \
        if constexpr (sizeof(Code) == naturalBytes(EncodeOp::OP))                                  \
            return launch(intrinsicEncodeKernel<Code, EncodeOp::OP>, how, in, out, count);         \
        else                                                                                       \
            return cudaErrorInvalidValue;
        FPX_INTRINSIC_ENCODE(HalfRn)
        FPX_INTRINSIC_ENCODE(HalfRz)
        FPX_INTRINSIC_ENCODE(HalfRu)
        FPX_INTRINSIC_ENCODE(HalfRd)
        FPX_INTRINSIC_ENCODE(Bf16Rn)
        FPX_INTRINSIC_ENCODE(Bf16Rz)
        FPX_INTRINSIC_ENCODE(Bf16Ru)
        FPX_INTRINSIC_ENCODE(Bf16Rd)
        FPX_INTRINSIC_ENCODE(Tf32Rna)
        FPX_INTRINSIC_ENCODE(Tf32Rn)
        FPX_INTRINSIC_ENCODE(Tf32Rz)
        FPX_INTRINSIC_ENCODE(Tf32RnaSatFinite)
        FPX_INTRINSIC_ENCODE(Fp8E4m3SatFinite)
        FPX_INTRINSIC_ENCODE(Fp8E4m3NoSat)
        FPX_INTRINSIC_ENCODE(Fp8E5m2SatFinite)
        FPX_INTRINSIC_ENCODE(Fp8E5m2NoSat)
        FPX_INTRINSIC_ENCODE(Fp6E2m3Rn)
        FPX_INTRINSIC_ENCODE(Fp6E2m3Rz)
        FPX_INTRINSIC_ENCODE(Fp6E3m2Rn)
        FPX_INTRINSIC_ENCODE(Fp6E3m2Rz)
        FPX_INTRINSIC_ENCODE(Fp4E2m1Rn)
        FPX_INTRINSIC_ENCODE(Fp4E2m1Rz)
#undef FPX_INTRINSIC_ENCODE
    }
    return cudaErrorInvalidValue;
}

template <typename Code>
cudaError_t launchDecodeAs(const DecodeLaunch& l, const void* inVoid, std::uint32_t* out,
                           std::size_t count, const Launcher& how) {
    const Code* in = static_cast<const Code*>(inVoid);
    switch (l.op) {
    case DecodeOp::Table:
        if (l.table == nullptr)
            return cudaErrorInvalidValue;
        if constexpr (sizeof(Code) == 1)
            return launch(byteTableDecodeKernel, how, in, out, count, l.table);
        else if constexpr (sizeof(Code) == 2)
            return launch(globalTableDecodeKernel<Code>, how, in, out, count, l.table);
        else
            return cudaErrorInvalidValue; // no table of 2^32 entries
    case DecodeOp::Widen:
        return launch(widenDecodeKernel<Code>, how, in, out, count, l.widen);
#define FPX_INTRINSIC_DECODE(OP)                                                                   \
    case DecodeOp::OP:                                                                             \
        if constexpr (sizeof(Code) == naturalBytes(DecodeOp::OP))                                  \
            return launch(intrinsicDecodeKernel<Code, DecodeOp::OP>, how, in, out, count);         \
        else                                                                                       \
            return cudaErrorInvalidValue;
        FPX_INTRINSIC_DECODE(Half)
        FPX_INTRINSIC_DECODE(Bf16)
        FPX_INTRINSIC_DECODE(Fp8E4m3)
        FPX_INTRINSIC_DECODE(Fp8E5m2)
        FPX_INTRINSIC_DECODE(Fp6E2m3)
        FPX_INTRINSIC_DECODE(Fp6E3m2)
        FPX_INTRINSIC_DECODE(Fp4E2m1)
#undef FPX_INTRINSIC_DECODE
    }
    return cudaErrorInvalidValue;
}

// ---- Copy, fill, probe ----------------------------------------------------------------------

__global__ void __launch_bounds__(kThreads)
    copyKernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t vectors,
               const unsigned char* __restrict__ inTail, unsigned char* __restrict__ outTail,
               std::size_t tailBytes) {
    // The layout of the conversion kernels (above): 64 bytes a thread in flight, each warp
    // instruction one contiguous run of 512 bytes.
    const std::size_t tileVectors = static_cast<std::size_t>(kVectors) * blockDim.x;
    const std::size_t tiles = vectors / tileVectors;
    const std::size_t stride = gridThreads();
    for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const std::size_t first = tile * tileVectors + threadIdx.x;
        uint4 v[kVectors];
#pragma unroll
        for (int q = 0; q < kVectors; ++q)
            v[q] = in[first + static_cast<std::size_t>(q) * blockDim.x];
#pragma unroll
        for (int q = 0; q < kVectors; ++q)
            out[first + static_cast<std::size_t>(q) * blockDim.x] = v[q];
    }
    for (std::size_t i = tiles * tileVectors + globalThread(); i < vectors; i += stride)
        out[i] = in[i];
    for (std::size_t i = globalThread(); i < tailBytes; i += stride)
        outTail[i] = inTail[i];
}

__device__ __forceinline__ float uniformSigned(std::uint64_t random) {
    // 24 random bits → [−1, 1)
    return static_cast<float>(static_cast<std::int32_t>(random >> 40) - (1 << 23)) *
           (1.0f / static_cast<float>(1 << 23));
}

template <FillKind Kind>
__global__ void __launch_bounds__(kThreads)
    fillKernel(void* out, std::size_t count, std::uint64_t seed) {
    for (std::size_t i = globalThread(); i < count; i += gridThreads()) {
        const std::uint64_t random = stochasticBits(seed, i);
        const float v = uniformSigned(random);
        if constexpr (Kind == FillKind::F64)
            static_cast<double*>(out)[i] = static_cast<double>(v);
        else if constexpr (Kind == FillKind::F32)
            static_cast<float*>(out)[i] = v;
        else if constexpr (Kind == FillKind::F16)
            static_cast<__half*>(out)[i] = __float2half_rn(v);
        else if constexpr (Kind == FillKind::Bf16)
            static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(v);
        else if constexpr (Kind == FillKind::Fp8E4m3)
            static_cast<__nv_fp8_storage_t*>(out)[i] =
                __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
        else if constexpr (Kind == FillKind::Fp8E5m2)
            static_cast<__nv_fp8_storage_t*>(out)[i] =
                __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2);
        else
            static_cast<std::int8_t*>(out)[i] = static_cast<std::int8_t>((random & 15u) - 8);
    }
}

__global__ void probeKernel(DeviceFeatures* features) {
#if defined(__CUDA_ARCH__)
    features->arch = __CUDA_ARCH__;
    features->fp8Convert = __CUDA_ARCH__ >= 890;
    features->tf32DirectedRounding = __CUDA_ARCH__ >= 900;
#if defined(__CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__)
    features->shortConvert = __CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__ != 0;
#else
    features->shortConvert = false;
#endif
#endif
}

} // namespace

bool encodeOpCompiled(EncodeOp op) {
    switch (op) {
    case EncodeOp::Tf32RnaSatFinite:
        return CUDART_VERSION >= 12010;
    case EncodeOp::Fp6E2m3Rn:
    case EncodeOp::Fp6E2m3Rz:
    case EncodeOp::Fp6E3m2Rn:
    case EncodeOp::Fp6E3m2Rz:
    case EncodeOp::Fp4E2m1Rn:
    case EncodeOp::Fp4E2m1Rz:
        return FPX_CUDA_HAVE_FP6_FP4 != 0;
    default:
        return true;
    }
}

bool decodeOpCompiled(DecodeOp op) {
    switch (op) {
    case DecodeOp::Fp6E2m3:
    case DecodeOp::Fp6E3m2:
    case DecodeOp::Fp4E2m1:
        return FPX_CUDA_HAVE_FP6_FP4 != 0;
    default:
        return true;
    }
}

namespace {

cudaError_t dispatchEncode(const EncodeLaunch& l, const std::uint32_t* in, void* out,
                           std::size_t count, const Launcher& how) {
    if (!encodeOpCompiled(l.op))
        return cudaErrorInvalidValue;
    switch (l.codeBytes) {
    case 1:
        return launchEncodeAs<std::uint8_t>(l, in, out, count, how);
    case 2:
        return launchEncodeAs<std::uint16_t>(l, in, out, count, how);
    case 4:
        return launchEncodeAs<std::uint32_t>(l, in, out, count, how);
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t dispatchDecode(const DecodeLaunch& l, const void* in, std::uint32_t* out,
                           std::size_t count, const Launcher& how) {
    if (!decodeOpCompiled(l.op))
        return cudaErrorInvalidValue;
    switch (l.codeBytes) {
    case 1:
        return launchDecodeAs<std::uint8_t>(l, in, out, count, how);
    case 2:
        return launchDecodeAs<std::uint16_t>(l, in, out, count, how);
    case 4:
        return launchDecodeAs<std::uint32_t>(l, in, out, count, how);
    default:
        return cudaErrorInvalidValue;
    }
}

} // namespace

cudaError_t launchEncode(const EncodeLaunch& l, const std::uint32_t* in, void* out,
                         std::size_t count, int blocks, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    if (!aligned16(in) || !aligned16(out))
        return cudaErrorInvalidValue;
    return dispatchEncode(l, in, out, count, Launcher{blocks, stream, nullptr});
}

cudaError_t launchDecode(const DecodeLaunch& l, const void* in, std::uint32_t* out,
                         std::size_t count, int blocks, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    if (!aligned16(in) || !aligned16(out))
        return cudaErrorInvalidValue;
    return dispatchDecode(l, in, out, count, Launcher{blocks, stream, nullptr});
}

cudaError_t encodeResidentBlocks(const EncodeLaunch& l, int* blocks) {
    return dispatchEncode(l, nullptr, nullptr, 0, Launcher{1, nullptr, blocks});
}

cudaError_t decodeResidentBlocks(const DecodeLaunch& l, int* blocks) {
    // The table kernels refuse a null table before launching; any pointer does for the query.
    DecodeLaunch query = l;
    if (query.table == nullptr)
        query.table = reinterpret_cast<const std::uint32_t*>(std::uintptr_t{16});
    return dispatchDecode(query, nullptr, nullptr, 0, Launcher{1, nullptr, blocks});
}

cudaError_t launchCopy(const void* in, void* out, std::size_t bytes, int blocks,
                       cudaStream_t stream) {
    if (bytes == 0)
        return cudaSuccess;
    if (!aligned16(in) || !aligned16(out))
        return cudaErrorInvalidValue;
    const std::size_t vectors = bytes / 16;
    const auto* inBytes = static_cast<const unsigned char*>(in);
    auto* outBytes = static_cast<unsigned char*>(out);
    return launch(copyKernel, Launcher{blocks, stream, nullptr}, static_cast<const uint4*>(in),
                  static_cast<uint4*>(out), vectors, inBytes + vectors * 16,
                  outBytes + vectors * 16, bytes % 16);
}

cudaError_t copyResidentBlocks(int* blocks) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, copyKernel, kThreads, 0);
}

cudaError_t launchFill(FillKind kind, void* out, std::size_t count, std::uint64_t seed, int blocks,
                       cudaStream_t stream) {
    const Launcher how{blocks, stream, nullptr};
    switch (kind) {
    case FillKind::F64:
        return launch(fillKernel<FillKind::F64>, how, out, count, seed);
    case FillKind::F32:
        return launch(fillKernel<FillKind::F32>, how, out, count, seed);
    case FillKind::F16:
        return launch(fillKernel<FillKind::F16>, how, out, count, seed);
    case FillKind::Bf16:
        return launch(fillKernel<FillKind::Bf16>, how, out, count, seed);
    case FillKind::Fp8E4m3:
        return launch(fillKernel<FillKind::Fp8E4m3>, how, out, count, seed);
    case FillKind::Fp8E5m2:
        return launch(fillKernel<FillKind::Fp8E5m2>, how, out, count, seed);
    case FillKind::Int8:
        return launch(fillKernel<FillKind::Int8>, how, out, count, seed);
    }
    return cudaErrorInvalidValue;
}

cudaError_t probeDeviceFeatures(DeviceFeatures* features, cudaStream_t stream) {
    DeviceFeatures* device = nullptr;
    cudaError_t status = cudaMalloc(&device, sizeof(DeviceFeatures));
    if (status != cudaSuccess)
        return status;
    status = cudaMemsetAsync(device, 0, sizeof(DeviceFeatures), stream);
    if (status == cudaSuccess) {
        probeKernel<<<1, 1, 0, stream>>>(device);
        status = cudaGetLastError();
    }
    if (status == cudaSuccess)
        status = cudaMemcpyAsync(features, device, sizeof(DeviceFeatures), cudaMemcpyDeviceToHost,
                                 stream);
    if (status == cudaSuccess)
        status = cudaStreamSynchronize(stream);
    const cudaError_t freed = cudaFree(device);
    return status != cudaSuccess ? status : freed;
}

} // namespace fpx::cuda
