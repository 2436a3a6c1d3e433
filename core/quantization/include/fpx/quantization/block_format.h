// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// How a quantizer turns a tensor into element codes plus scales (docs/behaviour.md, "Block formats
// and quantization", has the exact rules and how libraries differ).
//   Direct     a plain cast into the element format (fp8_e4m3, bf16, …): no scale
//   Mx         OCP MX v1.0: each block shares a power-of-two E8M0 scale chosen by a ScaleRule
//   Nvfp4      E2M1 elements, an E4M3 scale per block and an FP32 scale for the whole tensor
//   Nf4        the 16 NF4 levels times the block's FP32 absmax (QLoRA); doubleQuantized stores
//              the absmaxes themselves in 8 bits, groups of 256 sharing an FP32 scale
//   IntAbsmax  symmetric integers: FP32 scale = absmax / largest level, per block or tensor
enum class BlockScheme { Direct, Mx, Nvfp4, Nf4, IntAbsmax };

// How an MX block's power-of-two scale follows from its amax (emax = the element's largest
// binade exponent):
//   Floor  2^(floor(log2 amax) − emax)              the OCP MX v1.0 rule; may saturate
//   Ceil   2^ceil(log2(amax / element max))         never saturates
//   Even   2^(floor(log2 RNE_p(amax)) − emax)       amax first rounded to the element's
//                                                   precision, so that values which would round
//                                                   up past the top binade get the next scale
enum class ScaleRule { Floor, Ceil, Even };

std::string_view scaleRuleId(ScaleRule rule); // "floor", "ceil", "even"
std::optional<ScaleRule> parseScaleRule(std::string_view text);

// Which elements share a scale.
struct BlockLayout {
    enum class Kind { Tensor, Elements, Row };
    Kind kind = Kind::Elements;
    std::size_t size = 0; // Elements: consecutive elements per block (≥ 1)

    // Elements per block for a tensor of `count` elements whose rows hold `rowLength`.
    std::size_t elementsPerBlock(std::size_t count, std::size_t rowLength) const;
};

// "N" (N ≥ 1), "row" or "tensor"; nullopt with `error` saying what is wrong otherwise.
std::optional<BlockLayout> parseBlockLayout(std::string_view text, std::string& error);
std::string blockLayoutId(const BlockLayout& layout); // what parseBlockLayout reads back

// One quantizer, as data.
struct BlockFormat {
    std::string id;          // "mxfp4", "nvfp4", "nf4_dq", "int4", "fp8_e4m3", …
    std::string displayName; // "MXFP4 (OCP MX, E2M1 × E8M0 per 32)"
    std::string description; // one sentence
    BlockScheme scheme = BlockScheme::Direct;
    FormatSpec element; // what each element code means, before scaling
    // E8M0 (Mx), E4M3 (Nvfp4), FP32 (nf4, IntAbsmax); nf4_dq: int8, the 8-bit code k of each
    // block's absmax (k/127 of its group's FP32 scale, around an FP32 offset)
    std::optional<FormatSpec> scale;
    int elementEmax = 0;                    // Mx: exponent of the element's largest binade
    bool doubleQuantized = false;           // Nf4 only (nf4_dq)
    BlockLayout blocks;                     // Direct: Tensor (one block, scale 1)
    ScaleRule scaleRule = ScaleRule::Floor; // Mx only
};

// Options that override a quantizer's defaults (--block, --scale-rule).
struct QuantizerOptions {
    std::optional<BlockLayout> blocks;
    std::optional<ScaleRule> scaleRule;
};

// A quantizer by id: the scaled ids (mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4,
// mxint8, nvfp4, nf4, nf4_dq, int8, int4 and the other integer formats), or any binary float
// format findFormat knows (a direct cast). "ID@N" (N, row or tensor) sizes that format's blocks
// ahead of options.blocks, and the id keeps the suffix ("int4@64"). A block size other than
// the one the MX or NVFP4 standard defines makes a named variant: "mxfp4@256", "…, variant:
// blocks of 256". nullopt with `error` naming the id and what is wrong (unknown id, an option
// that does not apply, a block size the scheme cannot take, "@N" on a plain cast).
std::optional<BlockFormat> findBlockFormat(std::string_view id, const QuantizerOptions& options,
                                           std::string& error);
// Comma-separated ids; the first error stops.
std::optional<std::vector<BlockFormat>>
findBlockFormats(std::string_view ids, const QuantizerOptions& options, std::string& error);
// The ids of the scaled quantizers, in the catalogue's order (for help texts and the GUI).
std::vector<std::string> scaledQuantizerIds();

// Storage bits per element, scales included, for a tensor of `count` elements whose rows hold
// `rowLength` (MXFP4 with blocks of 32: 4 + 8/32 = 4.25; NVFP4 adds its FP32 tensor scale over
// the whole tensor).
double bitsPerElement(const BlockFormat& format, std::size_t count, std::size_t rowLength);
// Storage bytes, rounded up to whole bytes per stored array (codes packed as documented).
std::size_t storageBytes(const BlockFormat& format, std::size_t count, std::size_t rowLength);

} // namespace fpx
