// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The CUDA backend's device code, seen from the host: plain launch functions implemented in
// device_kernels.cu. Host code (compiled by the C++ compiler) includes this header; it needs
// only the runtime API's types.
//
// Two kinds of conversion kernels:
//   - own kernels: every element goes through the core's branch-free element conversions
//     (fpx/kernels/element_conversion.h), the same code the CPU bulk loops run;
//   - intrinsic kernels: CUDA's own conversions (__float2half_rn, cvt.rna.tf32.f32,
//     __nv_cvt_float_to_fp8 …), which are compared with the exact core, not trusted.
// Both share one memory-access pattern: grid-stride loops over tiles of kTileElements, each
// warp instruction loading or storing one contiguous run (device_kernels.cu draws it), so that
// their throughput differs only by the conversion itself.

#include "fpx/exact/rounding.h"
#include "fpx/kernels/bucketed_breakpoints.h"
#include "fpx/kernels/element_conversion.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace fpx::cuda {

// Elements one block converts per step of its grid-stride loop (256 threads, 4 vectors of 4
// elements each); grids are sized in these.
inline constexpr std::size_t kTileElements = 4096;

// What converts FP32 → code.
enum class EncodeOp : int {
    Element,      // own kernel: kernels::encodeElement<mode>
    Lookup,       // own kernel: kernels::lookupElementBisect
    BucketLookup, // own kernel: kernels::bucketLookupElement
    HalfRn,       // __float2half_rn
    HalfRz,
    HalfRu,
    HalfRd,
    Bf16Rn, // __float2bfloat16_rn
    Bf16Rz,
    Bf16Ru,
    Bf16Rd,
    Tf32Rna,          // cvt.rna.tf32.f32 (sm_80+)
    Tf32Rn,           // cvt.rn.tf32.f32 (sm_90+)
    Tf32Rz,           // cvt.rz.tf32.f32 (sm_90+)
    Tf32RnaSatFinite, // cvt.rna.satfinite.tf32.f32 (sm_80+, PTX 8.1: CUDA 12.1+)
    Fp8E4m3SatFinite, // __nv_cvt_float_to_fp8(…, __NV_SATFINITE, __NV_E4M3)
    Fp8E4m3NoSat,
    Fp8E5m2SatFinite,
    Fp8E5m2NoSat,
    Fp6E2m3Rn, // __nv_cvt_float_to_fp6(…, __NV_E2M3, cudaRoundNearest) (CUDA 12.8+)
    Fp6E2m3Rz,
    Fp6E3m2Rn,
    Fp6E3m2Rz,
    Fp4E2m1Rn, // __nv_cvt_float_to_fp4(…, __NV_E2M1, cudaRoundNearest) (CUDA 12.8+)
    Fp4E2m1Rz,
};

// What converts code → FP32.
enum class DecodeOp : int {
    Table,   // own kernel: the core's decodeTable (shared memory for 8-bit codes)
    Widen,   // own kernel: kernels::widenElement (BF16, TF32)
    Half,    // __half2float
    Bf16,    // __bfloat162float
    Fp8E4m3, // __nv_cvt_fp8x2_to_halfraw2(…, __NV_E4M3), then __half22float2
    Fp8E5m2,
    Fp6E2m3, // __nv_cvt_fp6_to_halfraw (CUDA 12.8+)
    Fp6E3m2,
    Fp4E2m1, // __nv_cvt_fp4_to_halfraw (CUDA 12.8+)
};

struct EncodeLaunch {
    EncodeOp op = EncodeOp::Element;
    RoundingMode mode = RoundingMode::NearestEven; // Element: the rounding compiled in
    int codeBytes = 1;                             // packed output: 1, 2 or 4 bytes a code
    kernels::EncodeParams encode;                  // Element
    bool symmetric = false;    // Element, binary floats: kernels::symmetricSpecials holds
    bool unsignedZero = false; // Element, nearest-even: kernels::unsignedZeroApplies holds
    // Element, integers, nearest-even: K·2^−k where it is an FP32 number in the normal range
    // (the FP32 path, integerNearestEvenScale); 0: the core's shifting path.
    float integerReciprocalScale = 0.0f;
    kernels::LookupParams lookup;         // Lookup
    kernels::BucketedBreakpoints buckets; // BucketLookup
    std::uint64_t seed = 0;               // stochastic rounding: stochasticBits(seed, i)
};

struct DecodeLaunch {
    DecodeOp op = DecodeOp::Table;
    int codeBytes = 1;                    // packed input: 1, 2 or 4 bytes a code
    const std::uint32_t* table = nullptr; // Table: device memory, 2^(8·codeBytes) FP32 bits
    kernels::WidenParams widen;           // Widen
};

// Whether the build supports an op at all (fp6/fp4 need CUDA 12.8's headers).
bool encodeOpCompiled(EncodeOp op);
bool decodeOpCompiled(DecodeOp op);

// The kernels are launched on `stream` with `blocks` blocks of 256 threads (grid-stride, so
// any positive count works); the return value is the launch error. Element i of an encode
// gets stochasticBits(seed, i), i counted from `in`.
cudaError_t launchEncode(const EncodeLaunch& launch, const std::uint32_t* in, void* out,
                         std::size_t count, int blocks, cudaStream_t stream);
cudaError_t launchDecode(const DecodeLaunch& launch, const void* in, std::uint32_t* out,
                         std::size_t count, int blocks, cudaStream_t stream);
// A plain copy kernel (128-bit loads and stores): the measured ceiling beside cudaMemcpyAsync.
cudaError_t launchCopy(const void* in, void* out, std::size_t bytes, int blocks,
                       cudaStream_t stream);

// How many blocks of the kernel a launch would use fit on one SM at once: grids are sized to
// whole waves of resident blocks, so that a grid-stride loop gives every block equal work and
// no block runs alone in a last, partial wave.
cudaError_t encodeResidentBlocks(const EncodeLaunch& launch, int* blocks);
cudaError_t decodeResidentBlocks(const DecodeLaunch& launch, int* blocks);
cudaError_t copyResidentBlocks(int* blocks);

// Random matrix contents for the matrix-multiply benchmark: values in [−1, 1) (integers in
// [−8, 7]) converted to the element type on the device.
enum class FillKind { F64, F32, F16, Bf16, Fp8E4m3, Fp8E5m2, Int8 };
cudaError_t launchFill(FillKind kind, void* out, std::size_t count, std::uint64_t seed, int blocks,
                       cudaStream_t stream);

// What the code compiled for the current device can do, asked of the device itself.
struct DeviceFeatures {
    int arch = 0;                      // __CUDA_ARCH__ of the code that ran (900 for sm_90)
    bool fp8Convert = false;           // cvt.rn.satfinite.e4m3x2.f32 (sm_89+)
    bool shortConvert = false;         // hardware fp6/fp4 conversions (sm_100 family code)
    bool tf32DirectedRounding = false; // cvt.rn/rz.tf32.f32 (sm_90+)
};
// Runs a one-thread probe kernel and copies its answer back (synchronous).
cudaError_t probeDeviceFeatures(DeviceFeatures* features, cudaStream_t stream);

} // namespace fpx::cuda
