// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/rounding.h"
#include "fpx/kernels/bucketed_breakpoints.h"
#include "fpx/kernels/output_stores.h"

#include <cstddef>
#include <cstdint>
#include <string>

// The x86 instruction paths that are not loop sets, one unit per instruction family:
// cpu_features.cpp, f16c_conversion.cpp, avx512_fp16_conversion.cpp, avx512_bf16_conversion.cpp,
// avx512_table_decode.cpp, avx512_bucket_lookup.cpp and streaming_copy.cpp, which share
// hardware_path_support.h; x86_hardware_none.cpp stands in for them elsewhere.

namespace fpx::kernels {

// The CPU's own FP16/BF16 conversion instructions, where the CPU has them (x86-64 only; all
// false elsewhere). Queried once per call of hasX: cheap (cpuid is cached by the compiler's
// runtime).
bool hasF16c();
bool hasAvx512Bf16();
bool hasAvx512Fp16();
bool hasAvx512Vbmi();
bool hasAvx2();
bool hasAvx512();

// The environment variable FPX_MAX_ISA=avx2 or =baseline (plain x86-64) makes the functions
// above say no to what is wider, as if the CPU lacked it, so that one machine can measure
// what narrower ones would run (fpx bench). What it did, for reports: "" where it is not set.
std::string maxIsaNote();

// NaN lanes are replaced by `nanCode[sign]`: the instructions keep payload bits, the exact
// core gives the canonical NaN. Modes: nearest-even, toward zero, up, down.
void f16cEncode(RoundingMode mode, const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                const std::uint32_t (&nanCode)[2], OutputStores stores = OutputStores::Cached);
void f16cDecode(const std::uint16_t* in, std::uint32_t* out, std::size_t count,
                const std::uint32_t (&nanBits)[2], OutputStores stores = OutputStores::Cached);
// vcvtneps2bf16: nearest-even; flushes FP32 subnormal inputs to ±0, so it is not bit-exact
// (docs/behaviour.md, "Known hardware deviations").
void avx512Bf16Encode(const std::uint32_t* in, std::uint16_t* out, std::size_t count,
                      const std::uint32_t (&nanCode)[2],
                      OutputStores stores = OutputStores::Cached);
// vcvtps2phx with embedded rounding (all four IEEE modes); subnormals are kept.
void avx512Fp16Encode(RoundingMode mode, const std::uint32_t* in, std::uint16_t* out,
                      std::size_t count, const std::uint32_t (&nanCode)[2],
                      OutputStores stores = OutputStores::Cached);
void avx512Fp16Decode(const std::uint16_t* in, std::uint32_t* out, std::size_t count,
                      const std::uint32_t (&nanBits)[2],
                      OutputStores stores = OutputStores::Cached);

// Decoding 8-bit codes by a table of at most 256 FP32 answers, 64 codes at a time
// (AVX512-VBMI). `planes` holds the table's four byte planes: byte p of entry c at
// planes[256·p + c] (zeros past the table's end: never picked, as index = code & mask).
constexpr std::size_t kTablePlaneBytes = 4 * 256;
void avx512VbmiTableDecode(const std::uint8_t* in, std::uint32_t* out, std::size_t count,
                           const std::uint32_t* table,
                           const std::uint8_t (&planes)[kTablePlaneBytes], std::uint8_t mask,
                           OutputStores stores = OutputStores::Cached);

// The buckets' codes for one-byte codes (bucketed_breakpoints.h), AVX-512F/BW/DQ.
void avx512BucketLookup(const BucketedBreakpoints& buckets, const std::uint32_t* in,
                        std::uint8_t* out, std::size_t count,
                        OutputStores stores = OutputStores::Cached);

// Copies with non-temporal stores (the destination is not read first nor kept in the cache):
// for outputs far larger than the cache. memcpy elsewhere. Call streamingFence() once after
// the last copy, before the output is handed on: a fence per copy would stall the core until
// each piece reached memory, instead of computing the next one meanwhile.
void streamingCopy(void* destination, const void* source, std::size_t bytes);
void streamingFence();

// The bare instruction loops, nothing else (no NaN fix-up): the speed the paths above are
// compared with.
void f16cEncodeBare(const std::uint32_t* in, std::uint16_t* out, std::size_t count);
void avx512Fp16EncodeBare(const std::uint32_t* in, std::uint16_t* out, std::size_t count);
void avx512Bf16EncodeBare(const std::uint32_t* in, std::uint16_t* out, std::size_t count);

} // namespace fpx::kernels
