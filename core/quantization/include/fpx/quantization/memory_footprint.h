// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// How many bytes a model of N parameters takes for inference, its weights stored in one format.
// Training stores several arrays in several formats, fixed by a recipe, not by one format:
// fpx/quantization/training_recipe.h. Every count is an exact integer number of bytes; the
// assumptions are in docs/behaviour.md, "Memory footprint".

// The most parameters a footprint is computed for (10^15): far beyond any model, and small
// enough that bits = parameters × 128 fits in 64 bits.
constexpr std::uint64_t kMostParameters = 1'000'000'000'000'000;

// A parameter count as people write it: "70B", "13b", "350M", "1.5T", "405 B", "7e9", "1000".
// Suffixes K, M, B (or G), T are powers of ten; the result must be a whole number from 1 to
// kMostParameters. nullopt with `error` saying what is wrong otherwise.
std::optional<std::uint64_t> parseParameterCount(std::string_view text, std::string& error);
// The shortest way to write it back: "70B", "1.5B", "350M", "1234567" (parse(text(n)) == n).
std::string parameterCountText(std::uint64_t parameters);

// One stored array of the footprint.
struct FootprintPart {
    std::string name;        // "weights", "gradients", "master weights", "Adam m", "Adam v"
    std::string format;      // the format, short, as legends name it: "BF16", "FP32", "MXFP4"
    std::string storage;     // how it is stored: "bf16", "FP32", "mxfp4 (E2M1 × E8M0 per 32)"
    std::uint64_t bytes = 0; // exact, rounded up to whole bytes per array
};

struct MemoryFootprint {
    std::string id;    // what was asked for: "bf16", "mxfp4", … or a recipe's "bf16-mixed"
    std::string label; // how plots name it: "BF16", "MXFP4", "BF16 mixed"
    std::string note;  // how the weights are stored, scales included; a recipe's arrays
    std::uint64_t parameters = 0;
    bool training = false;            // a training recipe's footprint
    std::vector<FootprintPart> parts; // inference: weights only
    std::uint64_t totalBytes() const;
};

// The inference footprint of `parameters` stored as `id`: a block quantizer of the catalogue
// (mxfp8_e4m3, mxfp6_e3m2, mxfp4, nvfp4, nf4, nf4_dq, int8, int4: elements plus their scales), or
// any format findFormat knows, stored plainly (TF32 in 32-bit containers, FP80 padded to 16 bytes,
// narrower formats packed). nullopt with `error` naming the id otherwise.
std::optional<MemoryFootprint> memoryFootprint(std::string_view id, std::uint64_t parameters,
                                               std::string& error);

// The memory ids a list of plain formats stands for: each format itself, then the block
// quantizers built on its elements (fp4_e2m1 brings mxfp4 and nvfp4, fp8_e4m3 mxfp8_e4m3, …),
// each once, in that order.
std::vector<std::string> memoryIdsForFormats(const std::vector<std::string>& formatIds);

// Exact decimal text of bytes / unit (10^9 for GB, 2^30 for GiB) rounded to `decimals`
// places, half away from zero: "37.19". Display only; bytes themselves are exact.
std::string bytesInUnit(std::uint64_t bytes, std::uint64_t unit, int decimals);

} // namespace fpx
