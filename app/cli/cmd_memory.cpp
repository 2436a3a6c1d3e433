// SPDX-License-Identifier: GPL-3.0-or-later
// fpx memory: what the explorer's memory plot shows, as text or JSON: the exact bytes a model
// of N parameters takes in each format, for inference or mixed-precision training.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "text_table.h"

#include "fpx/exact/text_util.h"
#include "fpx/quantization/memory_footprint.h"

#include <ostream>
#include <sstream>

namespace fpx::cli {

namespace {

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

} // namespace

int runMemory(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs, {"params", "formats"}, {"training", "gib", "json"});
    const char* usage =
        "usage: fpx memory --params N [--formats ID,...] [--training] [--gib] [--json]\n"
        "  N: 1B, 7B, 70B, 405B, 13B, 350M, 1.5T, 7e9 …; ID: a format (bf16, fp8_e4m3, …) or a\n"
        "  block quantizer (mxfp4, nvfp4, nf4, nf4_dq, int4, …)\n";
    if (auto stop = checkOptionsOnly(args, io, "memory", usage))
        return *stop;
    const auto paramsText = args.value("params");
    if (!paramsText)
        return usageError(io, "memory", "--params N is required (e.g. --params 70B)");
    std::string error;
    const auto parameters = parseParameterCount(*paramsText, error);
    if (!parameters)
        return usageError(io, "memory", "--params: " + error);
    const FootprintMode mode =
        args.has("training") ? FootprintMode::Training : FootprintMode::Inference;
    const bool gib = args.has("gib");
    const std::uint64_t unit = gib ? std::uint64_t(1) << 30 : 1'000'000'000;
    const char* unitName = gib ? "GiB" : "GB";
    std::vector<MemoryFootprint> footprints;
    const std::vector<std::string> ids =
        splitIds(args.value("formats").value_or(kDefaultMemoryFormats));
    if (ids.empty())
        return usageError(io, "memory", "--formats: no formats given");
    for (const std::string& id : ids) {
        auto f = memoryFootprint(id, *parameters, mode, error);
        if (!f)
            return usageError(io, "memory", "--formats: " + error);
        footprints.push_back(std::move(*f));
    }

    if (args.has("json")) {
        Json doc;
        doc["parameters"] = *parameters;
        doc["mode"] = mode == FootprintMode::Training ? "training" : "inference";
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
                part["stored_as"] = p.storage;
                part["bytes"] = p.bytes;
                parts.push_back(part);
            }
            item["parts"] = parts;
            list.push_back(item);
        }
        doc["formats"] = list;
        printJson(io.out, doc);
        return kExitOk;
    }

    io.out << parameterCountText(*parameters) << " parameters (" << *parameters << "), "
           << (mode == FootprintMode::Training
                   ? "mixed-precision training with Adam: weights and gradients in the format, "
                     "FP32 master weights (none for FP32 weights), FP32 moments m and v"
                   : "inference: the weights, block scales included")
           << "; activations not counted\n";
    std::vector<std::string> header = {"format", unitName, "bytes"};
    if (mode == FootprintMode::Training)
        for (const char* part : {"weights", "gradients", "master", "Adam m", "Adam v"})
            header.emplace_back(part);
    header.emplace_back("stored as");
    TextTable table(header);
    for (const MemoryFootprint& f : footprints) {
        std::vector<std::string> row = {f.id, bytesInUnit(f.totalBytes(), unit, 2),
                                        std::to_string(f.totalBytes())};
        if (mode == FootprintMode::Training) {
            for (const char* part :
                 {"weights", "gradients", "master weights", "Adam m", "Adam v"}) {
                std::string cell = "-";
                for (const FootprintPart& p : f.parts)
                    if (p.name == part)
                        cell = std::to_string(p.bytes);
                row.push_back(cell);
            }
        }
        row.push_back(f.note);
        table.addRow(row);
    }
    table.print(io.out, false);
    return kExitOk;
}

} // namespace fpx::cli
