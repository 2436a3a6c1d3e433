// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/quantization/memory_footprint.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// How a model is trained, as far as its memory goes: which arrays it keeps per parameter and
// in which format. The format of each array is the recipe's, never the format of the weights
// alone, so no recipe keeps gradients in a 4-bit format. The assumptions of each are in
// docs/behaviour.md, "Memory footprint".
enum class TrainingRecipe {
    Bf16Mixed, // BF16 weights and gradients, FP32 master weights, Adam m and v in FP32
    Fp8,       // Transformer Engine style: the BF16 recipe plus FP8 E4M3 copies for the GEMMs
    QLora,     // frozen NF4 base weights, BF16 LoRA adapters trained with Adam in FP32
};

// Every recipe, in the order plots and tables show them.
std::vector<TrainingRecipe> trainingRecipes();
std::string trainingRecipeId(TrainingRecipe recipe);    // "bf16-mixed", "fp8", "qlora"
std::string trainingRecipeLabel(TrainingRecipe recipe); // "BF16 mixed", "FP8 (TE)", "QLoRA"

// What a memory plot or `fpx memory` shows: "inference" (the weights by format: no recipe),
// one recipe's id, or "training" (every recipe side by side). nullopt with `error` otherwise.
std::optional<std::vector<TrainingRecipe>> parseMemoryRecipes(std::string_view text,
                                                              std::string& error);
// The text parseMemoryRecipes reads back as `recipes`.
std::string memoryRecipesText(const std::vector<TrainingRecipe>& recipes);

// How many parameters QLoRA's adapters hold: a count ("40M") or a share of the model's
// ("0.5%", at most four decimals, at most 100 %).
struct AdapterSize {
    bool share = true;
    std::uint64_t count = 0;                          // when !share
    std::uint64_t millionths = 5000;                  // when share: 5000 = 0.5 %
    std::uint64_t of(std::uint64_t parameters) const; // the count, rounded half up
};
std::optional<AdapterSize> parseAdapterSize(std::string_view text, std::string& error);
std::string adapterSizeText(const AdapterSize& size); // "0.5%", "40M"

// The training footprint of `parameters` under `recipe`; `adapters` matters to QLoRA alone.
// nullopt with `error` for a count outside 1 … kMostParameters, or adapters above it.
std::optional<MemoryFootprint> trainingFootprint(TrainingRecipe recipe, std::uint64_t parameters,
                                                 const AdapterSize& adapters, std::string& error);

} // namespace fpx
