// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fast quantizers' plans, shared by quantizeTensor (tensor_quantizer.cpp) and the
// quantization pass (quantization_pass.cpp): which kernel loop or cast quantizes a format, its
// parameters derived from the format, and the exact core's hand in blocks that hold a NaN or
// ±∞. docs/proofs.md, "Block quantizers", proves the loops.

#include "block_quant_loops.h"
#include "direct_cast.h"
#include "fpx/data/tensor_view.h"
#include "fpx/quantization/block_format.h"
#include "fpx/quantization/block_quantization.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace fpx::quantizer {

using kernels::BlockQuantLoops;
using kernels::BlockQuantParams;
using kernels::BlockTally;

// The loops of the widest instruction set this CPU runs (FPX_MAX_ISA can hide wider ones).
const BlockQuantLoops& fastestLoops();

// How a fast path quantizes one format: a kernel loop's parameters, or a direct cast.
struct Plan {
    BlockScheme scheme;
    BlockQuantParams params;
    std::string what;
    std::shared_ptr<const DirectCast> cast; // Direct only
};

// The fast plan for `format` on `input`, or nullopt where only the exact core quantizes it
// (FP64 tensors, an empty tensor, formats the loops do not cover).
std::optional<Plan> planFor(const BlockFormat& format, const TensorView& input);

// Elements per block of `format` on `input`: the layout's, at most the tensor, at least one.
std::size_t blockSizeFor(const BlockFormat& format, const TensorView& input);

// What a run of chunks did: the kernels' counts plus the NaN and ±∞ inputs of the blocks the
// exact core took over. nonFinite: a NaN or ±∞ the fast path cannot take (the whole tensor then
// goes to the exact core).
struct Tally {
    std::size_t clipped = 0;
    std::size_t flushed = 0;
    std::size_t nanInputs = 0;
    std::size_t infInputs = 0;
    bool nonFinite = false;

    void add(const BlockTally& t) {
        clipped += t.clipped;
        flushed += t.flushed;
        nonFinite = nonFinite || t.nonFinite;
    }
    void add(const Tally& t) {
        add(BlockTally{t.clipped, t.flushed, t.nonFinite});
        nanInputs += t.nanInputs;
        infInputs += t.infInputs;
    }
};

// Blocks [first, first + count) of a run that holds a NaN or ±∞ (first a multiple of the block
// size), their codes written from `codes` (element first's) and scales from `scales` (block
// first / blockSize's): finite blocks through the loop, the others through the exact core.
void blocksAroundNonFinite(BlockQuantLoops::BlockLoop loop, const BlockQuantLoops& loops,
                           BlockQuantParams p, const BlockFormat& format, std::size_t blockSize,
                           const TensorView& input, std::size_t first, std::size_t count,
                           std::uint8_t* codes, std::uint32_t* scales, Tally& tally);

// The scale over the whole tensor from its finite amax (FP32 magnitude bits): NVFP4's tensor
// scale s_t (also set in p.tensorScale), or the integers' single scale amax / qmax.
float tensorScaleFor(const BlockFormat& format, std::uint32_t amax, BlockQuantParams& p);

} // namespace fpx::quantizer
