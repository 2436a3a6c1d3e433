// SPDX-License-Identifier: GPL-3.0-or-later
// fpx memory: what the explorer's memory plot shows, as text or JSON: the exact bytes a model
// of N parameters takes in each format, for inference or mixed-precision training. The
// options, the footprints the core computes, and their text and JSON renderers.
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

constexpr const char* kUsage =
    "usage: fpx memory --params N [--formats ID,...] [--training] [--gib] [--json]\n"
    "  N: 1B, 7B, 70B, 405B, 13B, 350M, 1.5T, 7e9 …; ID: a format (bf16, fp8_e4m3, …) or a\n"
    "  block quantizer (mxfp4, nvfp4, nf4, nf4_dq, int4, …)\n";

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
    FootprintMode mode = FootprintMode::Inference;
    bool gib = false;             // GiB, else GB
    std::vector<std::string> ids; // formats or block quantizers
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
    options.mode = args.has("training") ? FootprintMode::Training : FootprintMode::Inference;
    options.gib = args.has("gib");
    options.ids = splitIds(args.value("formats").value_or(kDefaultMemoryFormats));
    if (options.ids.empty())
        return CommandError{"--formats: no formats given"};
    options.json = args.has("json");
    return options;
}

struct MemoryReport {
    std::uint64_t parameters = 0;
    FootprintMode mode = FootprintMode::Inference;
    std::uint64_t unit = 1'000'000'000;
    const char* unitName = "GB";
    std::vector<MemoryFootprint> footprints; // one per id
};

// An id that is neither a format nor a block quantizer is a usage error of --formats.
Outcome<MemoryReport> computeMemory(const MemoryOptions& options) {
    MemoryReport report;
    report.parameters = options.parameters;
    report.mode = options.mode;
    if (options.gib) {
        report.unit = std::uint64_t(1) << 30;
        report.unitName = "GiB";
    }
    std::string error;
    for (const std::string& id : options.ids) {
        auto f = memoryFootprint(id, options.parameters, options.mode, error);
        if (!f)
            return CommandError{"--formats: " + error};
        report.footprints.push_back(std::move(*f));
    }
    return report;
}

void renderMemoryJson(const MemoryReport& report, std::ostream& out) {
    const auto& [parameters, mode, unit, unitName, footprints] = report;
    Json doc;
    doc["parameters"] = parameters;
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
    printJson(out, doc);
}

void renderMemoryText(const MemoryReport& report, std::ostream& out) {
    const auto& [parameters, mode, unit, unitName, footprints] = report;
    out << parameterCountText(parameters) << " parameters (" << parameters << "), "
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
    table.print(out, false);
}

} // namespace

int runMemory(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"params", "formats"}, {"training", "gib", "json"});
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
