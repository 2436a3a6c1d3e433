// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/quantization/training_recipe.h"

#include "fpx/exact/text_util.h"

#include <cctype>

namespace fpx {

namespace {

// A share of 10^15 parameters in millionths exceeds 64 bits before it is divided back.
__extension__ typedef unsigned __int128 Wide;

constexpr std::uint64_t kMillion = 1'000'000;

std::uint64_t times(std::uint64_t parameters, std::uint64_t bytesEach) {
    return parameters * bytesEach; // ≤ 10^15 × 4 bytes: no overflow
}

void addBf16Mixed(MemoryFootprint& f) {
    const std::uint64_t n = f.parameters;
    f.parts.push_back({"weights", "BF16", "BF16", times(n, 2)});
    f.parts.push_back({"gradients", "BF16", "BF16", times(n, 2)});
    f.parts.push_back({"master weights", "FP32", "FP32", times(n, 4)});
    f.parts.push_back({"Adam m", "FP32", "FP32", times(n, 4)});
    f.parts.push_back({"Adam v", "FP32", "FP32", times(n, 4)});
}

} // namespace

std::vector<TrainingRecipe> trainingRecipes() {
    return {TrainingRecipe::Bf16Mixed, TrainingRecipe::Fp8, TrainingRecipe::QLora};
}

std::string trainingRecipeId(TrainingRecipe recipe) {
    switch (recipe) {
    case TrainingRecipe::Bf16Mixed:
        return "bf16-mixed";
    case TrainingRecipe::Fp8:
        return "fp8";
    case TrainingRecipe::QLora:
        return "qlora";
    }
    return {};
}

std::string trainingRecipeLabel(TrainingRecipe recipe) {
    switch (recipe) {
    case TrainingRecipe::Bf16Mixed:
        return "BF16 mixed";
    case TrainingRecipe::Fp8:
        return "FP8 (TE)";
    case TrainingRecipe::QLora:
        return "QLoRA";
    }
    return {};
}

std::optional<std::vector<TrainingRecipe>> parseMemoryRecipes(std::string_view text,
                                                              std::string& error) {
    const std::string key = toLower(trim(text));
    if (key == "inference")
        return std::vector<TrainingRecipe>{};
    if (key == "training")
        return trainingRecipes();
    for (TrainingRecipe r : trainingRecipes())
        if (key == trainingRecipeId(r))
            return std::vector<TrainingRecipe>{r};
    error = "unknown recipe '" + std::string(trim(text)) +
            "' (use inference, bf16-mixed, fp8, qlora or training for all three)";
    return std::nullopt;
}

std::string memoryRecipesText(const std::vector<TrainingRecipe>& recipes) {
    if (recipes.empty())
        return "inference";
    if (recipes.size() == 1)
        return trainingRecipeId(recipes.front());
    return "training";
}

std::uint64_t AdapterSize::of(std::uint64_t parameters) const {
    if (!share)
        return count;
    return static_cast<std::uint64_t>((Wide(parameters) * millionths + kMillion / 2) / kMillion);
}

std::optional<AdapterSize> parseAdapterSize(std::string_view text, std::string& error) {
    std::string s(trim(text));
    AdapterSize size;
    if (!s.empty() && s.back() == '%') {
        s = std::string(trim(std::string_view(s).substr(0, s.size() - 1)));
        // A percentage with at most four decimals: a whole number of millionths.
        std::uint64_t millionths = 0;
        int decimals = -1;
        bool digits = false;
        for (char c : s) {
            if (c == '.' && decimals < 0) {
                decimals = 0;
            } else if (std::isdigit(static_cast<unsigned char>(c)) && decimals < 4 &&
                       millionths <= 100 * kMillion) {
                millionths = millionths * 10 + static_cast<std::uint64_t>(c - '0');
                digits = true;
                if (decimals >= 0)
                    ++decimals;
            } else {
                error = "adapter parameters '" + std::string(trim(text)) +
                        "': expected a percentage with at most four decimals (0.5%)";
                return std::nullopt;
            }
        }
        for (int d = decimals < 0 ? 0 : decimals; d < 4; ++d)
            millionths *= 10;
        if (!digits || millionths > kMillion) {
            error = "adapter parameters '" + std::string(trim(text)) +
                    "': a share from 0% to 100% of the model's";
            return std::nullopt;
        }
        size.millionths = millionths;
        return size;
    }
    std::string why;
    const auto count = parseParameterCount(s, why);
    if (!count) {
        error = "adapter parameters: " + why + " (or a share: 0.5%)";
        return std::nullopt;
    }
    size.share = false;
    size.count = *count;
    return size;
}

std::string adapterSizeText(const AdapterSize& size) {
    if (!size.share)
        return parameterCountText(size.count);
    std::string text = std::to_string(size.millionths / 10'000);
    std::uint64_t rest = size.millionths % 10'000;
    if (rest != 0) {
        std::string fraction = std::to_string(rest);
        fraction.insert(0, 4 - fraction.size(), '0');
        while (fraction.back() == '0')
            fraction.pop_back();
        text += "." + fraction;
    }
    return text + "%";
}

std::optional<MemoryFootprint> trainingFootprint(TrainingRecipe recipe, std::uint64_t parameters,
                                                 const AdapterSize& adapters, std::string& error) {
    if (parameters == 0 || parameters > kMostParameters) {
        error = "parameter count must be from 1 to " + std::to_string(kMostParameters);
        return std::nullopt;
    }
    MemoryFootprint f;
    f.id = trainingRecipeId(recipe);
    f.label = trainingRecipeLabel(recipe);
    f.parameters = parameters;
    f.training = true;
    switch (recipe) {
    case TrainingRecipe::Bf16Mixed:
        f.note = "BF16 weights and gradients, FP32 master weights, Adam m and v in FP32";
        addBf16Mixed(f);
        break;
    case TrainingRecipe::Fp8: {
        // Transformer Engine style: the model keeps BF16 parameters and the optimizer FP32
        // master weights; each GEMM reads an E4M3 copy of its weight with an FP32 scale, kept
        // for the step. FP8 also carries the activations and their gradients (E5M2), which are
        // not counted here.
        f.note = "BF16 weights, an FP8 E4M3 copy of them for the matrix multiplies (one FP32 "
                 "scale per tensor), BF16 gradients, FP32 master weights, Adam m and v in FP32";
        addBf16Mixed(f);
        f.parts.insert(
            f.parts.begin() + 1,
            {"FP8 weight copy", "FP8 E4M3", "FP8 E4M3, one FP32 scale per tensor", parameters + 4});
        break;
    }
    case TrainingRecipe::QLora: {
        const std::uint64_t a = adapters.of(parameters);
        if (a > kMostParameters) {
            error = "adapter parameters must be at most " + std::to_string(kMostParameters);
            return std::nullopt;
        }
        auto base = memoryFootprint("nf4_dq", parameters, error);
        if (!base)
            return std::nullopt;
        f.note = "frozen NF4 base weights with double-quantized absmax and no gradients; " +
                 std::to_string(a) +
                 " BF16 adapter parameters with BF16 gradients and FP32 Adam m and v";
        f.parts.push_back({"frozen weights", "NF4", base->note, base->totalBytes()});
        f.parts.push_back({"adapters", "BF16", "BF16", times(a, 2)});
        f.parts.push_back({"adapter gradients", "BF16", "BF16", times(a, 2)});
        f.parts.push_back({"Adam m", "FP32", "FP32 (adapters only)", times(a, 4)});
        f.parts.push_back({"Adam v", "FP32", "FP32 (adapters only)", times(a, 4)});
        break;
    }
    }
    return f;
}

} // namespace fpx
