// SPDX-License-Identifier: GPL-3.0-or-later
// fpx quantize: a tensor (a file, a distribution or a list of values) quantized into block
// formats, with SQNR and errors; optionally every block's codes, the quantized and dequantized
// tensors as files, SQNR against block size and histograms. The options, the report the core
// computes from them, the files and the renderers (quantize_output.cpp prints the report).
#include "arguments.h"
#include "commands.h"
#include "quantize_output.h"
#include "tensor_source.h"
#include "term_options.h"

#include "fpx/exact/text_util.h"
#include "fpx/quantization/block_format.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <functional>
#include <memory>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx quantize (--input PATH[:TENSOR] [--dtype D] | --dist SPEC --count N [--seed S]\n"
    "                    [--outliers F:S] | --values V1,V2,...) --formats ID,...\n"
    "                    [--block N|row|tensor] [--scale-rule floor|ceil|even]\n"
    "                    [--json|--csv] [--codes [--max-blocks K]] [--output FILE.safetensors]\n"
    "                    [--dequantized FILE.npy] [--sweep N,N,...] [--histogram BINS]\n"
    "  Quantizes the tensor into each format and reports SQNR, MSE, RMSE, the largest error,\n"
    "  clipped (saturated) and flushed (non-zero → 0) elements and the bits per element.\n"
    "  Formats: mxfp8_e4m3 mxfp8_e5m2 mxfp6_e3m2 mxfp6_e2m3 mxfp4 mxint8 nvfp4 nf4 nf4_dq\n"
    "           int8 int4 (absmax, per tensor unless --block), or a plain cast (fp8_e4m3, bf16…)\n"
    "  --input: .npy, .safetensors (one tensor by name, or the first), text (one value a line),\n"
    "           raw little-endian with --dtype f32|f64|f16|bf16|e4m3|e5m2\n"
    "  --dist: normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU, uniform:A:B\n"
    "          (values rounded to FP32)\n"
    "  --values: each value rounded once to FP32 (nearest even), as every tensor fpx makes\n"
    "  --block: elements per block for every scaled format, 'row' or 'tensor'\n"
    "  --scale-rule: how an MX block's power-of-two scale follows from its amax (MX only)\n"
    "  --codes: each block's scale bits, exact scale, element codes and exact values (the first\n"
    "           K blocks, --max-blocks, default 64)\n"
    "  --output: codes and scales as .safetensors; --dequantized: one format's values as .npy\n"
    "  --sweep: SQNR against block size; --histogram: the values and each format's errors\n";

constexpr std::size_t kDefaultListedBlocks = 64;
constexpr std::size_t kMaxListedBlocks = 1 << 16;
constexpr std::size_t kMaxHistogramBins = 10000;

std::optional<std::size_t> parseCount(const std::string& text) {
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

bool endsWith(const std::string& text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct QuantizeOptions {
    QuantizerOptions quantizer;
    std::string formatsText; // --formats as typed
    std::vector<BlockFormat> formats;
    QuantizeListing listing; // --codes, --max-blocks
    std::vector<std::size_t> sweepSizes;
    std::optional<HistogramOptions> histogram;
    std::optional<std::string> output;      // .safetensors
    std::optional<std::string> dequantized; // .npy
    OutputForm form = OutputForm::Text;
    // The tensor, read last so that every option is checked before any work. Shared with the
    // report, whose views borrow from it.
    std::shared_ptr<const TensorSource> source;
};

Outcome<QuantizeOptions> parseQuantizeOptions(const Arguments& args) {
    if (const auto problem = checkTensorSourceOptions(args))
        return CommandError{*problem};
    QuantizeOptions options;
    const auto form = readOutputForm(args);
    if (!form)
        return CommandError{"choose one of --json and --csv"};
    options.form = *form;
    options.listing.codes = args.has("codes");
    if (args.has("max-blocks") && !options.listing.codes)
        return CommandError{"--max-blocks goes with --codes"};
    if (options.form == OutputForm::Csv &&
        (options.listing.codes || args.has("sweep") || args.has("histogram")))
        return CommandError{"--csv prints the results table only; use --json or the text form "
                            "with --codes, --sweep or --histogram"};

    std::string error;
    if (auto text = args.value("block")) {
        options.quantizer.blocks = parseBlockLayout(*text, error);
        if (!options.quantizer.blocks)
            return CommandError{"--block: " + error};
    }
    if (auto text = args.value("scale-rule")) {
        options.quantizer.scaleRule = parseScaleRule(*text);
        if (!options.quantizer.scaleRule)
            return CommandError{"--scale-rule: '" + *text + "' is not floor, ceil or even"};
    }
    const auto formatsText = args.value("formats");
    if (!formatsText)
        return CommandError{"--formats ID,... is required"};
    options.formatsText = *formatsText;
    auto formats = findBlockFormats(*formatsText, options.quantizer, error);
    if (!formats)
        return CommandError{"--formats: " + error};
    options.formats = std::move(*formats);

    options.listing.maxBlocks = kDefaultListedBlocks;
    if (auto text = args.value("max-blocks")) {
        const auto parsed = parseCount(*text);
        if (!parsed || *parsed == 0 || *parsed > kMaxListedBlocks)
            return CommandError{"--max-blocks: expected a count from 1 to " +
                                std::to_string(kMaxListedBlocks) + ", got '" + *text + "'"};
        options.listing.maxBlocks = *parsed;
    }
    if (auto text = args.value("sweep")) {
        for (const std::string_view piece : splitAt(*text, ',')) {
            const std::string item(piece);
            const auto parsed = parseCount(item);
            if (!parsed || *parsed == 0)
                return CommandError{"--sweep: expected block sizes such as 16,32,64,128, got '" +
                                    item + "'"};
            options.sweepSizes.push_back(*parsed);
        }
    }
    if (auto text = args.value("histogram")) {
        const auto bins = parseCount(*text);
        if (!bins || *bins == 0 || *bins > kMaxHistogramBins)
            return CommandError{"--histogram: expected a number of bins from 1 to " +
                                std::to_string(kMaxHistogramBins) + ", got '" + *text + "'"};
        options.histogram = HistogramOptions{};
        options.histogram->bins = *bins;
    }
    options.output = args.value("output");
    if (options.output && !endsWith(*options.output, ".safetensors"))
        return CommandError{"--output: the file name must end in .safetensors"};
    options.dequantized = args.value("dequantized");
    if (options.dequantized && !endsWith(*options.dequantized, ".npy"))
        return CommandError{"--dequantized: the file name must end in .npy"};
    if (options.dequantized && options.formats.size() != 1)
        return CommandError{"--dequantized writes one format's values: give one format"};

    auto source = loadTensorSource(args);
    if (!source)
        return source.error();
    options.source = std::move(*source);
    return options;
}

struct QuantizeReport {
    std::shared_ptr<const TensorSource> source;
    std::vector<QuantizeResult> runs;
    std::optional<Histogram> values; // --histogram: the input's values
};

// `progress(format, done, total)` is told how far each format's quantization has come, and
// (format, 0, 0) when it is done.
using QuantizeProgress =
    std::function<void(const BlockFormat& format, std::size_t done, std::size_t total)>;

Outcome<QuantizeReport> computeQuantize(const QuantizeOptions& options,
                                        const QuantizeProgress& progress) {
    QuantizeReport report;
    report.source = options.source;
    const TensorView& view = options.source->view;
    std::string error;
    for (const BlockFormat& format : options.formats) {
        QuantizeRun run;
        if (progress)
            run.progress = [&progress, &format](std::size_t done, std::size_t total) {
                progress(format, done, total);
                return true;
            };
        auto quantized = quantizeTensor(format, view, error, run);
        if (progress)
            progress(format, 0, 0); // done: clears the line
        if (!quantized)
            return dataError(error);
        QuantizeResult r{std::move(*quantized), {}, quantizerPath(format, view), {}, {}};
        r.report = measureQuantization(view, r.quantized);
        if (!options.sweepSizes.empty() && format.scheme != BlockScheme::Direct) {
            r.sweep = sweepBlockSizes(format, view, options.sweepSizes, error, run);
            if (r.sweep.empty())
                return dataError(error);
        }
        if (options.histogram) {
            std::vector<double> errors;
            dequantizeInChunks(r.quantized, std::size_t(1) << 16,
                               [&](std::size_t first, const std::vector<double>& values) {
                                   for (std::size_t j = 0; j < values.size(); ++j)
                                       if (std::isfinite(view.at(first + j)))
                                           errors.push_back(view.at(first + j) - values[j]);
                               });
            r.errors = makeHistogram(std::span<const double>(errors), *options.histogram);
        }
        report.runs.push_back(std::move(r));
    }
    if (options.histogram)
        report.values = makeHistogram(view, *options.histogram);
    return report;
}

// --output and --dequantized, each written whole or not at all; the error when one cannot be.
std::optional<CommandError> writeQuantizeFiles(const QuantizeOptions& options,
                                               const QuantizeReport& report) {
    std::string error;
    const TensorSource& source = *report.source;
    if (options.output) {
        std::vector<OutputTensor> tensors;
        std::vector<std::pair<std::string, std::string>> metadata{
            {"format", options.formatsText},
            // As the safetensors header writes shapes: a JSON array, "[4096,11008]".
            {"shape", nlohmann::json(source.view.shape).dump()},
            {"source", source.description},
            {"block",
             options.quantizer.blocks ? blockLayoutId(*options.quantizer.blocks) : "default"},
            {"scale_rule",
             std::string(scaleRuleId(options.quantizer.scaleRule.value_or(ScaleRule::Floor)))}};
        for (const QuantizeResult& run : report.runs)
            addQuantizedTensors(run.quantized, tensors, metadata);
        if (!writeSafetensors(*options.output, tensors, metadata, error))
            return dataError(error);
    }
    if (options.dequantized &&
        !writeNpy(*options.dequantized, dequantizeAll(report.runs.front().quantized),
                  source.view.shape, error)) {
        if (options.output)
            std::remove(options.output->c_str()); // all files or none
        return dataError(error);
    }
    return std::nullopt;
}

} // namespace

int runQuantize(const std::vector<std::string>& rawArgs, Streams& io) {
    std::set<std::string> withValue = tensorSourceOptions();
    withValue.insert({"formats", "block", "scale-rule", "max-blocks", "output", "dequantized",
                      "sweep", "histogram"});
    const Arguments args(rawArgs, std::move(withValue), {"json", "csv", "codes"});
    if (const auto stop = checkOptionsOnly(args, io, "quantize", kUsage))
        return *stop;
    const Outcome<QuantizeOptions> options = parseQuantizeOptions(args);
    if (!options)
        return reportError(io, "quantize", options.error());
    // Progress on a terminal's stderr for long runs, the line cleared after each format.
    QuantizeProgress progress;
    if (isatty(STDERR_FILENO) == 1 && options->source->view.size() >= (1u << 24))
        progress = [&io](const BlockFormat& format, std::size_t done, std::size_t total) {
            if (total == 0)
                io.err << "\r\033[K" << std::flush;
            else
                io.err << "\r" << format.id << ": "
                       << (100 * done / std::max<std::size_t>(total, 1)) << " %" << std::flush;
        };
    const Outcome<QuantizeReport> report = computeQuantize(*options, progress);
    if (!report)
        return reportError(io, "quantize", report.error());
    if (const auto error = writeQuantizeFiles(*options, *report))
        return reportError(io, "quantize", *error);
    const TensorSource& source = *report->source;
    switch (options->form) {
    case OutputForm::Csv:
        printQuantizeCsv(io.out, report->runs);
        break;
    case OutputForm::Json:
        printJson(io.out, quantizeJson(source.description, source.view, report->runs,
                                       options->listing, report->values));
        break;
    case OutputForm::Text:
        printQuantizeText(io.out, source.description, source.view, report->runs, options->listing,
                          report->values);
        break;
    }
    return kExitOk;
}

} // namespace fpx::cli
