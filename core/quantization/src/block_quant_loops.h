// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/kernels/element_conversion.h"

#include <cstddef>
#include <cstdint>

// The block quantizers' loops for FP32 input (tensor_quantizer.h): the same C++ compiled once
// per instruction set (block_quant_avx512.cpp, block_quant_avx2.cpp, block_quant_baseline.cpp,
// each including block_quant_body.h), chosen at run time by what the CPU has. Every trick in
// them, and why it gives the exact core's answer: docs/proofs.md, "Block quantizers", "Block
// quantizers".

namespace fpx::kernels {

// What a run of blocks did to its finite inputs. A NaN or ±∞ anywhere stops the loops
// (nonFinite): the caller redoes that chunk with the blocks holding them quantized by the exact
// core alone, whose rules for them are the reference's own.
struct BlockTally {
    std::size_t clipped = 0;
    std::size_t flushed = 0;
    bool nonFinite = false;
};

// A rounding to nearest by comparisons: the result steps up at each threshold (ascending,
// in units of the block's scale), and a value exactly on threshold i goes up only where
// tieUp[i] (ties to the even code). NVFP4's E2M1 magnitudes and NF4's 16 levels.
struct ThresholdSet {
    static constexpr int kMax = 15;
    static constexpr int kLanes = 16; // the arrays padded to a vector's width (unused: 0)
    int count = 0;
    double thresholds[kLanes] = {};
    bool tieUp[kLanes] = {};
    std::uint32_t tieMask[kLanes] = {}; // tieUp as all ones or zero
};

// The parameters of one quantizer, derived from its BlockFormat by tensor_quantizer.cpp.
struct BlockQuantParams {
    // MX: the element encoder (nearest-even, saturating) and the scale rule.
    EncodeParams element;
    bool elementSymmetric = false; // symmetricSpecials(element, NearestEven)
    int elementEmax = 0;
    int scaleRule = 0;            // 0 floor, 1 ceil, 2 even (ScaleRule's order)
    int evenPrecision = 0;        // Even: significant bits amax is rounded to first
    double elementMax = 0;        // Ceil, NVFP4: the element's largest value
    bool integerElements = false; // MXINT8: elements are k / 2^integerFractionBits, |k| ≤ qmax
    int integerFractionBits = 0;

    // NVFP4 elements, NF4 levels: thresholds in units of the scale; `sign` of NVFP4's codes.
    ThresholdSet levels;
    std::uint32_t signCode = 0;      // NVFP4: the E2M1 sign bit, ORed into negative elements
    std::uint32_t zeroLevelCode = 0; // NF4: the code of the level 0 (a flushed element)
    double clipThreshold = 0;        // NVFP4: |v| / scale beyond this counts as clipped
    bool clipAtOrAbove = false;      //        (≥ rather than >)

    // NVFP4 block scales: E4M3, rounded from a double by precision and smallest exponent.
    EncodeParams scaleEncoder;
    int scalePrecision = 0;
    int scaleMinExponent = 0;
    double scaleMax = 0;
    double tensorScale = 0; // s_t, an FP32 value
    // Whether the scale codes follow from their values by gridCode (gridCodesAgree, checked
    // when the quantizer is set up); else the scale encoder gives them.
    bool scaleCodesOnGrid = false;
    // scales[b] holds block b's amax bits on entry (blockMaxima stored them in the first
    // pass), in place of reading the block for it; each is overwritten by the scale's code.
    bool scalesHoldAmaxes = false;

    // Integers: |k| ≤ qmax, codes masked to the element's width.
    int qmax = 0;
    std::uint32_t codeMask = 0;
};

// Which block quantizers a loop set has, and its name.
struct BlockQuantLoops {
    const char* isaName;
    // Largest |x| bits (x & 0x7fffffff; NaN and ±∞ above every finite value).
    std::uint32_t (*maxMagnitude)(const std::uint32_t* in, std::size_t count);
    // Each block's largest |x| bits into maxima (blocks of blockSize, the last may be
    // shorter, one entry each); returns the largest of them.
    std::uint32_t (*blockMaxima)(const std::uint32_t* in, std::size_t count, std::size_t blockSize,
                                 std::uint32_t* maxima);
    // Whole blocks of `blockSize` from `in` (the last one may be shorter), `count` elements in
    // all: one byte code per element, one scale code per block.
    using BlockLoop = void (*)(const BlockQuantParams&, const std::uint32_t* in, std::size_t count,
                               std::size_t blockSize, std::uint8_t* codes, std::uint32_t* scales,
                               BlockTally& tally);
    BlockLoop mx;
    BlockLoop nvfp4;
    BlockLoop nf4;
    BlockLoop integer;
    // Integer elements with one scale for all of them (per-tensor layout): no scale codes.
    void (*integerWithScale)(const BlockQuantParams&, const std::uint32_t* in, std::size_t count,
                             float scale, std::uint8_t* codes, BlockTally& tally);
    // A direct cast's counts over FP32 input bits: clipped (finite, magnitude ≥ clipFrom),
    // flushed (0 < magnitude ≤ flushUpTo) and NaN or ±∞ (magnitude ≥ the infinity bits).
    void (*castCounts)(const std::uint32_t* in, std::size_t count, std::uint32_t clipFrom,
                       std::uint32_t flushUpTo, std::size_t& clipped, std::size_t& flushed,
                       std::size_t& nonFinite);
    // The bare loop the quantizers are measured against: one byte stored per FP32 value read
    // (its top byte), nothing worked out, the traffic of a quantizer's last pass alone.
    void (*topBytes)(const std::uint32_t* in, std::size_t count, std::uint8_t* out);
};

const BlockQuantLoops& baselineBlockQuantLoops();
const BlockQuantLoops* avx2BlockQuantLoops(); // nullptr where not built (not x86-64)
const BlockQuantLoops* avx512BlockQuantLoops();

} // namespace fpx::kernels
