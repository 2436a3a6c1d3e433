// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// The encoders' loop: FP32 to codes in any rounding mode, by the hand-written block encoders
// where they apply and by the element code otherwise, with cached or streaming stores.

#include "avx2_float_encoder.h"
#include "avx2_integer_encoder.h"
#include "avx512_float_encoder.h"
#include "avx512_integer_encoder.h"
#include "block_encoders.h"
#include "half_top_byte_encoder.h"
#include "line_streaming.h"
#include "loop_set.h"

#include <cstddef>
#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

// The codes are computed in 32-bit lanes into a small block on the stack, then narrowed in a
// second pass: done in one loop, GCC narrows every intermediate select to the output width and
// spends more instructions shuffling masks than computing.
// Flattened: with a streaming and an ordinary block loop in one function, GCC's inliner
// otherwise runs out of budget and calls encodeElementOf once per element, unvectorised.
template <RoundingMode Mode, EncodeKind Kind, bool Symmetric>
[[gnu::flatten]] void encodeBlock(const EncodeParams& p, const std::uint32_t* __restrict__ in,
                                  std::uint32_t* __restrict__ out, std::size_t count,
                                  std::uint64_t seed, std::uint64_t firstIndex) {
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t random = 0;
        if constexpr (Mode == RoundingMode::Stochastic)
            random = stochasticBits(seed, firstIndex + i);
        out[i] = encodeElementOf<Mode, Kind, Symmetric>(p, in[i], random);
    }
}

// The parameters are copied to a local: stores through the byte-sized output pointer may
// alias anything, and a local whose address never escapes keeps them in registers.
// Streaming (outputs far beyond the cache): each block of 64 codes goes to memory with
// non-temporal stores as soon as it is narrowed, so the core converts the next block while the
// write-combining buffers drain the last one (see writeOutput in decode_output.h, the same for
// decoders), and the blocks are visited in interleaved runs (interleaved_blocks.h).
template <RoundingMode Mode, EncodeKind Kind, typename Out, bool Symmetric, OutputStores Stores>
void encodeLoop(const EncodeParams& params, const std::uint32_t* __restrict__ in, void* outBytes,
                std::size_t count, std::uint64_t seed, std::uint64_t firstIndex) {
    const EncodeParams p = params;
    Out* __restrict__ out = static_cast<Out*>(outBytes);
#if defined(__AVX2__)
    // Codes of 1 byte (FP8, FP6, FP4), 2 (FP16, BF16; below 2^16, which the unsigned packs
    // keep) or 4 (TF32).
    if constexpr (Mode == RoundingMode::NearestEven && Kind == EncodeKind::BinaryFloat) {
        if constexpr (Symmetric) {
            if (encodeThroughHalf<false, Stores>(p, in, out, count))
                return;
            return encodeCodes<Stores>(NearestEvenFloatEncoder<false, Out>(p), in, out, count);
        } else if (unsignedZeroApplies(p)) {
            if (encodeThroughHalf<true, Stores>(p, in, out, count))
                return;
            return encodeCodes<Stores>(NearestEvenFloatEncoder<true, Out>(p), in, out, count);
        }
    }
    if constexpr (Mode == RoundingMode::NearestEven && Kind == EncodeKind::SignedInteger &&
                  sizeof(Out) == 1) {
        if (NearestEvenIntegerByteEncoder::applies(p))
            return encodeCodes<Stores>(NearestEvenIntegerByteEncoder(p), in, out, count);
    }
#endif
    if constexpr (Stores == OutputStores::Streaming) {
        streamLocalBlocks(
            in, out, count,
            [&](std::size_t first, std::size_t n) {
                encodeLoop<Mode, Kind, Out, Symmetric, OutputStores::Cached>(
                    p, in + first, out + first, n, seed, firstIndex + first);
            },
            // Flattened: a call of encodeBlock per block would broadcast every parameter again.
            [&](std::size_t first, auto& block) __attribute__((flatten)) {
                constexpr std::size_t kCount = sizeof block / sizeof(Out);
                if constexpr (sizeof(Out) == 4) {
                    encodeBlock<Mode, Kind, Symmetric>(p, in + first,
                                                       reinterpret_cast<std::uint32_t*>(block),
                                                       kCount, seed, firstIndex + first);
                } else {
                    alignas(64) std::uint32_t codes[kCount];
                    encodeBlock<Mode, Kind, Symmetric>(p, in + first, codes, kCount, seed,
                                                       firstIndex + first);
                    for (std::size_t i = 0; i < kCount; ++i)
                        block[i] = static_cast<Out>(codes[i]);
                }
            });
        return;
    }
    if constexpr (sizeof(Out) == 4) {
        encodeBlock<Mode, Kind, Symmetric>(p, in, reinterpret_cast<std::uint32_t*>(out), count,
                                           seed, firstIndex);
    } else {
        constexpr std::size_t kBlock = 512;
        alignas(64) std::uint32_t codes[kBlock];
        for (std::size_t start = 0; start < count; start += kBlock) {
            const std::size_t n = count - start < kBlock ? count - start : kBlock;
            encodeBlock<Mode, Kind, Symmetric>(p, in + start, codes, n, seed, firstIndex + start);
            for (std::size_t i = 0; i < n; ++i)
                out[start + i] = static_cast<Out>(codes[i]);
        }
    }
}

} // namespace
