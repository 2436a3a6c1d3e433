// SPDX-License-Identifier: GPL-3.0-or-later
// fpx inspect: the tensors in a file (.npy, .safetensors, raw, text) and their statistics: the
// options, the statistics the core computes, and their text and JSON renderers.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "text_table.h"
#include "training_options.h"

#include "fpx/data/tensor_file.h"

#include <cmath>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx inspect FILE [--json] [--dtype f32|f64|f16|bf16|e4m3|e5m2]\n";

constexpr const char* kNotLoadable = "not loadable: fpx reads F64, F32, F16, BF16, F8_E4M3 and "
                                     "F8_E5M2";

std::string_view kindName(TensorFileKind kind) {
    switch (kind) {
    case TensorFileKind::Npy:
        return "npy";
    case TensorFileKind::Safetensors:
        return "safetensors";
    case TensorFileKind::Raw:
        return "raw";
    case TensorFileKind::Text:
        return "text";
    }
    return "?";
}

// A double as JSON: a number (nlohmann prints the shortest text that reads back the same
// double), or null where there is no finite value to report.
Json number(double v, bool present) {
    return present && std::isfinite(v) ? Json(v) : Json(nullptr);
}

struct InspectOptions {
    std::string path;
    std::optional<RawLayout> raw; // --dtype: the file is a raw array of it
    bool json = false;
};

Outcome<InspectOptions> parseInspectOptions(const Arguments& args) {
    if (args.positionals().size() != 1)
        return CommandError{"expected exactly one file"};
    InspectOptions options;
    options.path = args.positionals().front();
    if (auto dtype = args.value("dtype"))
        options.raw = RawLayout{*dtype};
    options.json = args.has("json");
    return options;
}

// One tensor of the file: its statistics, or none when fpx cannot load its dtype.
struct InspectedTensor {
    TensorInfo info;
    std::optional<TensorStatistics> statistics;
};

struct InspectReport {
    std::string path;
    TensorFileKind kind = TensorFileKind::Npy;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::vector<InspectedTensor> tensors;
};

Outcome<InspectReport> computeInspect(const InspectOptions& options) {
    const TensorFileOpen opened = TensorFile::open(options.path, options.raw);
    if (!opened.file) {
        // A raw dtype fpx does not know is a usage error; anything about the file is data.
        const bool usage =
            options.raw && opened.error.find("unknown raw dtype") != std::string::npos;
        return CommandError{opened.error, usage ? kExitUsage : kExitDataError};
    }
    const TensorFile& file = *opened.file;
    std::string error;
    auto statistics = tensorFileStatistics(file, error);
    if (!statistics)
        return dataError(error);
    InspectReport report{options.path, file.kind(), file.metadata(), {}};
    for (std::size_t k = 0; k < file.tensors().size(); ++k)
        report.tensors.push_back({file.tensors()[k], std::move((*statistics)[k])});
    return report;
}

void renderInspectJson(const InspectReport& report, std::ostream& out) {
    Json tensors = Json::array();
    for (const auto& [info, s] : report.tensors) {
        Json entry = {{"name", info.name},
                      {"dtype", info.dtype},
                      {"shape", info.shape},
                      {"elements", info.elementCount},
                      {"loadable", info.loadable}};
        if (!s) {
            entry["note"] = kNotLoadable;
            tensors.push_back(std::move(entry));
            continue;
        }
        const bool anyFinite = s->nans + s->infs < s->elements;
        entry["min"] = number(s->min, anyFinite);
        entry["max"] = number(s->max, anyFinite);
        entry["absmax"] = number(s->absmax, anyFinite);
        entry["mean"] = number(s->mean, anyFinite);
        entry["std"] = number(s->std, anyFinite);
        entry["zeros"] = s->zeros;
        entry["nans"] = s->nans;
        entry["infs"] = s->infs;
        tensors.push_back(std::move(entry));
    }
    Json metadata = Json::object();
    for (const auto& [key, value] : report.metadata)
        metadata[key] = value;
    printJson(out, {{"file", report.path},
                    {"kind", kindName(report.kind)},
                    {"metadata", std::move(metadata)},
                    {"tensors", std::move(tensors)}});
}

void renderInspectText(const InspectReport& report, const TerminalStyle& style, std::ostream& out) {
    TextTable table(
        {"name", "dtype", "shape", "min", "max", "absmax", "mean", "std", "zeros", "nan", "inf"});
    std::vector<std::string> notes;
    for (const auto& [info, s] : report.tensors) {
        if (!s) {
            table.addRow({info.name, info.dtype, shapeText(info.shape), "-", "-", "-", "-", "-",
                          "-", "-", "-"});
            notes.push_back(info.name + " (" + info.dtype + "): " + kNotLoadable);
            continue;
        }
        const bool anyFinite = s->nans + s->infs < s->elements;
        auto cell = [&](double v) { return anyFinite ? shortNumber(v) : std::string("-"); };
        table.addRow({info.name, info.dtype, shapeText(info.shape), cell(s->min), cell(s->max),
                      cell(s->absmax), cell(s->mean), cell(s->std), std::to_string(s->zeros),
                      std::to_string(s->nans), std::to_string(s->infs)});
    }
    out << report.path << ": " << kindName(report.kind) << ", " << report.tensors.size()
        << (report.tensors.size() == 1 ? " tensor" : " tensors") << '\n';
    for (const auto& [key, value] : report.metadata)
        out << "  " << key << ": " << value << '\n';
    table.print(out, style.enabled);
    for (const std::string& note : notes)
        out << note << '\n';
}

} // namespace

int runInspect(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"dtype"}, {"json"});
    if (const auto stop = checkArguments(args, io, "inspect", kUsage))
        return *stop;
    const Outcome<InspectOptions> options = parseInspectOptions(args);
    if (!options)
        return reportError(io, "inspect", options.error());
    const Outcome<InspectReport> report = computeInspect(*options);
    if (!report)
        return reportError(io, "inspect", report.error());
    if (options->json)
        renderInspectJson(*report, io.out);
    else
        renderInspectText(*report, TerminalStyle{io.outIsTerminal}, io.out);
    return kExitOk;
}

} // namespace fpx::cli
