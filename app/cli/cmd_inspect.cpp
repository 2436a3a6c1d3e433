// SPDX-License-Identifier: GPL-3.0-or-later
// fpx inspect: the tensors in a file (.npy, .safetensors, raw, text) and their statistics.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"

#include "fpx/data/tensor_file.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace fpx::cli {

namespace {

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

// Six significant digits for the table; the JSON carries the full doubles.
std::string shortNumber(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

// A double as JSON: a number (nlohmann prints the shortest text that reads back the same
// double), or null where there is no finite value to report.
Json number(double v, bool present) {
    return present && std::isfinite(v) ? Json(v) : Json(nullptr);
}

} // namespace

int runInspect(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs, {"dtype"}, {"json"});
    const char* usage = "usage: fpx inspect FILE [--json] [--dtype f32|f64|f16|bf16|e4m3|e5m2]\n";
    if (const auto stop = checkArguments(args, io, "inspect", usage))
        return *stop;
    if (args.positionals().size() != 1)
        return usageError(io, "inspect", "expected exactly one file");
    std::optional<RawLayout> raw;
    if (auto dtype = args.value("dtype"))
        raw = RawLayout{*dtype};
    const std::string& path = args.positionals().front();
    const TensorFileOpen opened = TensorFile::open(path, raw);
    if (!opened.file) {
        // A raw dtype fpx does not know is a usage error; anything about the file is data.
        const bool usage = raw && opened.error.find("unknown raw dtype") != std::string::npos;
        return reportError(io, "inspect", {opened.error, usage ? kExitUsage : kExitDataError});
    }
    const TensorFile& file = *opened.file;

    Json tensors = Json::array();
    TextTable table(
        {"name", "dtype", "shape", "min", "max", "absmax", "mean", "std", "zeros", "nan", "inf"});
    std::vector<std::string> notes;
    for (const TensorInfo& info : file.tensors()) {
        Json entry = {{"name", info.name},
                      {"dtype", info.dtype},
                      {"shape", info.shape},
                      {"elements", info.elementCount},
                      {"loadable", info.loadable}};
        if (!info.loadable) {
            entry["note"] = kNotLoadable;
            tensors.push_back(std::move(entry));
            table.addRow({info.name, info.dtype, shapeText(info.shape), "-", "-", "-", "-", "-",
                          "-", "-", "-"});
            notes.push_back(info.name + " (" + info.dtype + "): " + kNotLoadable);
            continue;
        }
        std::string error;
        const auto loaded = file.load(info.name, error);
        if (!loaded) {
            io.err << "fpx inspect: " << error << '\n';
            return kExitDataError;
        }
        const TensorStatistics s = tensorStatistics(loaded->view);
        const bool anyFinite = s.nans + s.infs < s.elements;
        entry["min"] = number(s.min, anyFinite);
        entry["max"] = number(s.max, anyFinite);
        entry["absmax"] = number(s.absmax, anyFinite);
        entry["mean"] = number(s.mean, anyFinite);
        entry["std"] = number(s.std, anyFinite);
        entry["zeros"] = s.zeros;
        entry["nans"] = s.nans;
        entry["infs"] = s.infs;
        tensors.push_back(std::move(entry));
        auto cell = [&](double v) { return anyFinite ? shortNumber(v) : std::string("-"); };
        table.addRow({info.name, info.dtype, shapeText(info.shape), cell(s.min), cell(s.max),
                      cell(s.absmax), cell(s.mean), cell(s.std), std::to_string(s.zeros),
                      std::to_string(s.nans), std::to_string(s.infs)});
    }

    if (args.has("json")) {
        Json metadata = Json::object();
        for (const auto& [key, value] : file.metadata())
            metadata[key] = value;
        printJson(io.out, {{"file", path},
                           {"kind", kindName(file.kind())},
                           {"metadata", std::move(metadata)},
                           {"tensors", std::move(tensors)}});
        return kExitOk;
    }
    io.out << path << ": " << kindName(file.kind()) << ", " << file.tensors().size()
           << (file.tensors().size() == 1 ? " tensor" : " tensors") << '\n';
    for (const auto& [key, value] : file.metadata())
        io.out << "  " << key << ": " << value << '\n';
    table.print(io.out, io.outIsTerminal);
    for (const std::string& note : notes)
        io.out << note << '\n';
    return kExitOk;
}

} // namespace fpx::cli
