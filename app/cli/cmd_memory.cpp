// SPDX-License-Identifier: GPL-3.0-or-later
// fpx memory: what the explorer's memory plot shows, as text or JSON: the exact bytes a model
// of N parameters takes, for inference in each format or for training by recipe (BF16 mixed,
// FP8, QLoRA). The options, the footprints the core computes, and their text and JSON
// renderers.
#include "arguments.h"
#include "commands.h"
#include "memory_recipe_options.h"
#include "presentation.h"
#include "text_table.h"

#include "fpx/exact/text_util.h"
#include "fpx/quantization/memory_footprint.h"

#include <ostream>
#include <sstream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx memory --params N [--formats ID,...] [--gib] [--json]\n"
    "       fpx memory --params N --recipe NAME [--adapter-params N|P%] [--gib] [--json]\n"
    "  N: 1B, 7B, 70B, 405B, 13B, 350M, 1.5T, 7e9 …; ID: a format (bf16, fp8_e4m3, …) or a\n"
    "  block quantizer (mxfp4, nvfp4, nf4, nf4_dq, int4, …), for inference;\n"
    "  NAME: a training recipe: bf16-mixed, fp8, qlora, or training for all three\n"
    "  (--training is --recipe bf16-mixed); --adapter-params: QLoRA's adapters, a count\n"
    "  (40M) or a share of N (default 0.5%)\n";

constexpr const char* kDefaultMemoryFormats = "fp32,bf16,fp16,fp8_e4m3,int8,mxfp4,nvfp4,nf4,int4";

std::vector<std::string> splitIds(const std::string& text) {
    std::vector<std::string> ids;
    std::stringstream in(text);
    std::string id;
    while (std::getline(in, id, ','))
        if (!trim(id).empty())
            ids.emplace_back(trim(id));
    return ids;
}

struct MemoryOptions {
    std::uint64_t parameters = 0;
    MemoryRecipeOptions recipe;   // no recipes: inference
    bool gib = false;             // GiB, else GB
    std::vector<std::string> ids; // formats or block quantizers, for inference
    bool json = false;
};

Outcome<MemoryOptions> parseMemoryOptions(const Arguments& args) {
    const auto paramsText = args.value("params");
    if (!paramsText)
        return CommandError{"--params N is required (e.g. --params 70B)"};
    std::string error;
    const auto parameters = parseParameterCount(*paramsText, error);
    if (!parameters)
        return CommandError{"--params: " + error};
    MemoryOptions options;
    options.parameters = *parameters;
    Outcome<MemoryRecipeOptions> recipe = readMemoryRecipe(args);
    if (!recipe)
        return recipe.error();
    options.recipe = std::move(*recipe);
    options.gib = args.has("gib");
    if (options.recipe.recipes.empty()) {
        options.ids = splitIds(args.value("formats").value_or(kDefaultMemoryFormats));
        if (options.ids.empty())
            return CommandError{"--formats: no formats given"};
    }
    options.json = args.has("json");
    return options;
}

struct MemoryReport {
    std::uint64_t parameters = 0;
    bool training = false;
    std::uint64_t adapterParameters = 0; // QLoRA's, when it is among the recipes
    std::uint64_t unit = 1'000'000'000;
    const char* unitName = "GB";
    std::vector<MemoryFootprint> footprints; // one per id or recipe
};

// An id that is neither a format nor a block quantizer is a usage error of --formats.
Outcome<MemoryReport> computeMemory(const MemoryOptions& options) {
    MemoryReport report;
    report.parameters = options.parameters;
    report.training = !options.recipe.recipes.empty();
    if (options.gib) {
        report.unit = std::uint64_t(1) << 30;
        report.unitName = "GiB";
    }
    std::string error;
    for (const std::string& id : options.ids) {
        auto f = memoryFootprint(id, options.parameters, error);
        if (!f)
            return CommandError{"--formats: " + error};
        report.footprints.push_back(std::move(*f));
    }
    for (TrainingRecipe recipe : options.recipe.recipes) {
        auto f = trainingFootprint(recipe, options.parameters, options.recipe.adapters, error);
        if (!f)
            return CommandError{"--adapter-params: " + error};
        if (recipe == TrainingRecipe::QLora)
            report.adapterParameters = options.recipe.adapters.of(options.parameters);
        report.footprints.push_back(std::move(*f));
    }
    return report;
}

void renderMemoryJson(const MemoryReport& report, std::ostream& out) {
    const auto& [parameters, training, adapterParameters, unit, unitName, footprints] = report;
    Json doc;
    doc["parameters"] = parameters;
    doc["mode"] = training ? "training" : "inference";
    if (adapterParameters != 0)
        doc["adapter_parameters"] = adapterParameters;
    doc["unit"] = unitName;
    doc["unit_bytes"] = unit;
    Json list = Json::array();
    for (const MemoryFootprint& f : footprints) {
        Json item;
        item["id"] = f.id;
        item["label"] = f.label;
        item["stored_as"] = f.note;
        item["bytes"] = f.totalBytes();
        item["size"] = bytesInUnit(f.totalBytes(), unit, 3);
        Json parts = Json::array();
        for (const FootprintPart& p : f.parts) {
            Json part;
            part["name"] = p.name;
            part["format"] = p.format;
            part["stored_as"] = p.storage;
            part["bytes"] = p.bytes;
            parts.push_back(part);
        }
        item["parts"] = parts;
        list.push_back(item);
    }
    doc[training ? "recipes" : "formats"] = list;
    printJson(out, doc);
}

// Inference: one row per format. Training: one row per array each recipe stores, then the
// recipe's total, so that what is FP8, BF16 or FP32 is read off the table.
void renderMemoryText(const MemoryReport& report, std::ostream& out) {
    const auto& [parameters, training, adapterParameters, unit, unitName, footprints] = report;
    out << parameterCountText(parameters) << " parameters (" << parameters << "), "
        << (training ? "training with Adam, by recipe"
                     : "inference: the weights, block scales included")
        << "; activations not counted\n";
    if (!training) {
        TextTable table({"format", unitName, "bytes", "stored as"});
        for (const MemoryFootprint& f : footprints)
            table.addRow({f.id, bytesInUnit(f.totalBytes(), unit, 2),
                          std::to_string(f.totalBytes()), f.note});
        table.print(out, false);
        return;
    }
    if (adapterParameters != 0)
        out << "QLoRA adapters: " << adapterParameters << " parameters\n";
    TextTable table({"recipe", "array", "format", unitName, "bytes", "stored as"});
    for (const MemoryFootprint& f : footprints) {
        for (const FootprintPart& p : f.parts)
            table.addRow({f.id, p.name, p.format, bytesInUnit(p.bytes, unit, 2),
                          std::to_string(p.bytes), p.storage});
        table.addRow({f.id, "total", "", bytesInUnit(f.totalBytes(), unit, 2),
                      std::to_string(f.totalBytes()), f.note});
    }
    table.print(out, false);
}

} // namespace

int runMemory(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"params", "formats", "recipe", "adapter-params"},
                         {"training", "gib", "json"});
    if (const auto stop = checkOptionsOnly(args, io, "memory", kUsage))
        return *stop;
    const Outcome<MemoryOptions> options = parseMemoryOptions(args);
    if (!options)
        return reportError(io, "memory", options.error());
    const Outcome<MemoryReport> report = computeMemory(*options);
    if (!report)
        return reportError(io, "memory", report.error());
    if (options->json)
        renderMemoryJson(*report, io.out);
    else
        renderMemoryText(*report, io.out);
    return kExitOk;
}

} // namespace fpx::cli
