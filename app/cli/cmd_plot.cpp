// SPDX-License-Identifier: GPL-3.0-or-later
// fpx plot: the explorer's plots rendered headless to PNG, PDF, SVG or CSV: the options (a
// plot request), the plot's data the plots library computes, and the file it is drawn into.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "memory_recipe_options.h"

#include "plot_builder.h"
#include "plot_request.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/quantization/memory_footprint.h"

#include <qcustomplot.h>

#include <QApplication>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx plot error|ulp|precision|range|values|codes|memory [--formats ID,...] [--range "
    "A:B] [--log]\n"
    "                [--symlog] [--round MODE] [--overflow POLICY]\n"
    "                [--params N [--recipe NAME] [--adapter-params N|P%] [--gib]]\n"
    "                -o FILE.{png,pdf,svg,csv}\n"
    "  NAME: inference, bf16-mixed, fp8, qlora or training (all three); --training is\n"
    "  --recipe bf16-mixed\n";

const char* defaultFormats(plots::PlotKind kind) {
    switch (kind) {
    case plots::PlotKind::Error:
        return "fp16,bf16,fp8_e4m3,fp8_e5m2";
    case plots::PlotKind::Ulp:
        return "fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2,fp4_e2m1";
    case plots::PlotKind::Precision:
        return "fp16,bf16,posit16";
    case plots::PlotKind::Range:
        return "fp64,fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2,fp6_e3m2,fp6_e2m3,fp4_e2m1";
    case plots::PlotKind::Values:
        return "fp4_e2m1,nf4,int4";
    case plots::PlotKind::Codes:
        return "fp8_e4m3,fp8_e5m2";
    case plots::PlotKind::Memory:
        return "fp32,bf16,fp16,fp8_e4m3,fp4_e2m1,int8,int4,nf4";
    }
    return "fp16";
}

// "A:B" in any notation the value parser reads (0.0625, 1/16, 2^-4, 0x1p-4), each end the
// nearest double: the plots' axes are doubles.
bool parseRange(const std::string& text, double& from, double& to) {
    const auto colon = text.find(':');
    if (colon == std::string::npos)
        return false;
    const ParsedValue a = parseValue(text.substr(0, colon));
    const ParsedValue b = parseValue(text.substr(colon + 1));
    if (!a || !b || !a.value->isFinite() || !b.value->isFinite())
        return false;
    from = nearestDouble(*a.value);
    to = nearestDouble(*b.value);
    return std::isfinite(from) && std::isfinite(to) && from < to;
}

struct PlotOptions {
    plots::PlotRequest request;
    std::string output; // -o FILE: its extension is the form
};

Outcome<PlotOptions> parsePlotOptions(const Arguments& args) {
    PlotOptions options;
    if (args.positionals().size() != 1)
        return CommandError{"expected one plot kind"};
    const auto kind = plots::parsePlotKind(QString::fromStdString(args.positionals().front()));
    if (!kind)
        return CommandError{std::string("unknown plot '") + args.positionals().front() +
                            "' (use error, ulp, precision, range, values, codes or memory)"};
    const auto output = args.value("o") ? args.value("o") : args.value("output");
    if (!output)
        return CommandError{"-o FILE is required (.png, .pdf, .svg or .csv)"};
    options.output = *output;
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return CommandError{setup.error};
    // The memory plot also takes block quantizers (mxfp4, nvfp4, nf4_dq …), not formats.
    std::vector<std::string> memoryIds;
    if (*kind == plots::PlotKind::Memory && args.has("formats")) {
        std::string list = *args.value("formats");
        std::string error;
        for (std::size_t start = 0; start <= list.size();) {
            const std::size_t comma = std::min(list.find(',', start), list.size());
            const std::string id(trim(std::string_view(list).substr(start, comma - start)));
            start = comma + 1;
            if (id.empty())
                continue;
            if (!memoryFootprint(id, 1000, error))
                return CommandError{std::string("--formats: ") + error};
            memoryIds.push_back(id);
        }
        if (memoryIds.empty())
            return CommandError{"--formats: no formats given"};
    }
    FormatListLookup formats =
        findFormats(memoryIds.empty() ? args.value("formats").value_or(defaultFormats(*kind))
                                      : std::string(defaultFormats(*kind)));
    if (!formats.error.empty())
        return CommandError{std::string("--formats: ") + formats.error};
    plots::PlotRequest& request = options.request;
    request.kind = *kind;
    request.options = setup.rounding;
    request.logarithmic = args.has("log");
    request.symmetricLog = args.has("symlog");
    for (FormatSpec& spec : formats.specs)
        setup.applyScale(spec);
    request.formats = std::move(formats.specs);
    if (auto range = args.value("range")) {
        if (!parseRange(*range, request.from, request.to))
            return CommandError{std::string("--range '") + *range +
                                "': expected A:B with finite A < B"};
    }
    // The switches that mean nothing for this kind are errors, not silently ignored.
    const plots::PlotSwitches switches = plots::plotSwitches(*kind);
    if (args.has("range") && !switches.range)
        return CommandError{std::string("--range: ") + switches.rangeWhy.toStdString()};
    if (args.has("log") && !switches.log)
        return CommandError{std::string("--log: ") + switches.logWhy.toStdString()};
    request.rangeSet = args.has("range");
    if (*kind == plots::PlotKind::Values && request.logarithmic) {
        request.symmetricLog = true; // the values plot's log axis is the symmetric one
        request.logarithmic = false;
    }
    const bool memory = *kind == plots::PlotKind::Memory;
    for (const char* option : {"params", "training", "recipe", "adapter-params", "gib"})
        if (args.has(option) && !memory)
            return CommandError{std::string("--") + option + " is for the memory plot only"};
    if (auto params = args.value("params")) {
        std::string error;
        const auto count = parseParameterCount(*params, error);
        if (!count)
            return CommandError{std::string("--params: ") + error};
        request.parameters = *count;
    }
    if (memory) {
        Outcome<MemoryRecipeOptions> recipe = readMemoryRecipe(args);
        if (!recipe)
            return recipe.error();
        request.recipes = std::move(recipe->recipes);
        request.adapters = recipe->adapters;
    }
    request.gib = args.has("gib");
    request.memoryIds = std::move(memoryIds);
    if (*kind == plots::PlotKind::Error && request.logarithmic && request.from <= 0)
        return CommandError{"--log needs a positive range (--range A:B with 0 < A)"};

    return options;
}

// Qt's widgets draw the plots and need an application: offscreen unless a display is at hand.
std::unique_ptr<QApplication> headlessApplication() {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // QApplication keeps a reference to argc for its whole life.
    static int argc = 1;
    static char name[] = "fpx";
    static char* argv[] = {name, nullptr};
    return std::make_unique<QApplication>(argc, argv);
}

// The plot drawn and written to `output` as PNG, PDF, SVG or (its data) CSV.
std::optional<CommandError> renderPlot(const plots::PlotData& data, const std::string& output) {
    QCustomPlot plot;
    plot.resize(1100, 650);
    plots::buildPlot(plot, data);
    QString error;
    if (!plots::exportPlot(plot, data, QString::fromStdString(output), &error))
        return CommandError{error.toStdString()};
    return std::nullopt;
}

} // namespace

int runPlot(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs,
                         {"formats", "range", "round", "overflow", "seed", "scale", "o", "output",
                          "params", "recipe", "adapter-params"},
                         {"log", "symlog", "training", "gib"});
    if (const auto stop = checkArguments(args, io, "plot", kUsage))
        return *stop;
    const Outcome<PlotOptions> options = parsePlotOptions(args);
    if (!options)
        return reportError(io, "plot", options.error());
    const auto application = headlessApplication();
    const plots::PlotData data = plots::computePlotData(options->request);
    if (const auto error = renderPlot(data, options->output))
        return reportError(io, "plot", *error);
    return kExitOk;
}

} // namespace fpx::cli
