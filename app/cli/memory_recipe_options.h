// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commands.h"

#include "fpx/quantization/training_recipe.h"

#include <vector>

namespace fpx::cli {

class Arguments;

// What `fpx memory` and `fpx plot memory` count, read alike from --recipe NAME (inference,
// bf16-mixed, fp8, qlora, or training for all three), --training (--recipe bf16-mixed) and
// --adapter-params COUNT|SHARE% (QLoRA's adapters).
struct MemoryRecipeOptions {
    std::vector<TrainingRecipe> recipes; // empty: inference, the weights by format
    AdapterSize adapters;
};

Outcome<MemoryRecipeOptions> readMemoryRecipe(const Arguments& args);

} // namespace fpx::cli
