// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory_recipe_options.h"

#include "arguments.h"

#include <algorithm>

namespace fpx::cli {

Outcome<MemoryRecipeOptions> readMemoryRecipe(const Arguments& args) {
    MemoryRecipeOptions options;
    if (args.has("recipe") && args.has("training"))
        return CommandError{"--training is --recipe bf16-mixed: give one of them"};
    std::string error;
    if (auto text = args.value("recipe")) {
        auto recipes = parseMemoryRecipes(*text, error);
        if (!recipes)
            return CommandError{"--recipe: " + error};
        options.recipes = std::move(*recipes);
    } else if (args.has("training")) {
        options.recipes = {TrainingRecipe::Bf16Mixed};
    }
    if (auto text = args.value("adapter-params")) {
        if (std::find(options.recipes.begin(), options.recipes.end(), TrainingRecipe::QLora) ==
            options.recipes.end())
            return CommandError{"--adapter-params is for --recipe qlora (or training)"};
        auto size = parseAdapterSize(*text, error);
        if (!size)
            return CommandError{"--adapter-params: " + error};
        options.adapters = *size;
    }
    if (!options.recipes.empty() && args.has("formats"))
        return CommandError{"--formats is for inference: a training recipe fixes the format of "
                            "each array it stores"};
    return options;
}

} // namespace fpx::cli
