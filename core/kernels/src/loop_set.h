// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/kernels/element_conversion.h"
#include "fpx/kernels/output_stores.h"

#include <cstddef>
#include <cstdint>

namespace fpx::kernels {

// The bulk loops of one instruction set: the same element functions compiled for plain
// x86-64, AVX2 or AVX-512 (make_loop_set.h, included by one file per instruction set), chosen at
// run time by what the CPU supports.
struct LoopSet {
    const char* isaName; // "AVX-512", "AVX2", "scalar"

    // [OutputStores][rounding mode][EncodeKind][output bytes: 1, 2, 4]
    using EncodeLoop = void (*)(const EncodeParams&, const std::uint32_t*, void*, std::size_t,
                                std::uint64_t seed, std::uint64_t firstIndex);
    EncodeLoop encode[2][7][2][3];
    // Binary floats with symmetricSpecials(): [OutputStores][rounding mode][output bytes].
    EncodeLoop encodeSymmetric[2][7][3];
    using LookupLoop = void (*)(const LookupParams&, const std::uint32_t*, void*, std::size_t);
    // Breakpoints (NF4 …): [OutputStores][output bytes].
    LookupLoop lookup[2][3];
    // Table decode of 1- or 2-byte codes: [OutputStores][input bytes 1, 2].
    using TableLoop = void (*)(const std::uint32_t* table, std::uint32_t mask, const void*,
                               std::uint32_t*, std::size_t);
    TableLoop table[2][2];
    // Binary float codes of 1, 2 or 4 bytes → FP32 by bit trick: [OutputStores][input bytes].
    using FloatDecodeLoop = void (*)(const FloatDecodeParams&, const void*, std::uint32_t*,
                                     std::size_t);
    FloatDecodeLoop floatDecode[2][3];
    // Widening of 2- or 4-byte codes (BF16, TF32): [OutputStores][input bytes 2, 4].
    using WidenLoop = void (*)(const WidenParams&, const void*, std::uint32_t*, std::size_t);
    WidenLoop widen[2][2];
    // Whether nearest-even encodes to byte codes with these parameters run in this set's
    // hand-written block encoders (AVX-512 and AVX2: about half the instructions of GCC's
    // vectorisation of the element code), so that callers can rank the paths.
    bool (*nearestEvenBytesInIntrinsics)(const EncodeParams&);
};

const LoopSet& scalarLoops();   // one element at a time: vectorisation disabled
const LoopSet& baselineLoops(); // plain x86-64 (SSE2) or the target's default
const LoopSet* avx2Loops();     // nullptr where not built (not x86-64)
const LoopSet* avx512Loops();

// Index of an output width in LoopSet tables.
constexpr int widthIndex(int bytes) {
    return bytes == 1 ? 0 : bytes == 2 ? 1 : 2;
}

} // namespace fpx::kernels
