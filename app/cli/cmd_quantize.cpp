// SPDX-License-Identifier: GPL-3.0-or-later
// fpx quantize: a tensor (a file, a distribution or a list of values) quantized into block
// formats, with SQNR and errors; optionally every block's codes, the quantized and dequantized
// tensors as files, SQNR against block size and histograms.
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

} // namespace

int runQuantize(const std::vector<std::string>& rawArgs, Streams& io) {
    std::set<std::string> withValue = tensorSourceOptions();
    withValue.insert({"formats", "block", "scale-rule", "max-blocks", "output", "dequantized",
                      "sweep", "histogram"});
    Arguments args(rawArgs, std::move(withValue), {"json", "csv", "codes"});
    auto usageError = [&](const std::string& message) {
        return cli::usageError(io, "quantize", message);
    };
    auto dataError = [&](const std::string& message) {
        return reportError(io, "quantize", cli::dataError(message));
    };
    if (const auto stop = checkOptionsOnly(args, io, "quantize", kUsage))
        return *stop;

    // Every option checked before any work.
    if (const auto problem = checkTensorSourceOptions(args))
        return usageError(*problem);
    if (args.has("json") && args.has("csv"))
        return usageError("choose one of --json and --csv");
    if (args.has("max-blocks") && !args.has("codes"))
        return usageError("--max-blocks goes with --codes");
    if (args.has("csv") && (args.has("codes") || args.has("sweep") || args.has("histogram")))
        return usageError("--csv prints the results table only; use --json or the text form with "
                          "--codes, --sweep or --histogram");

    std::string error;
    QuantizerOptions options;
    if (auto text = args.value("block")) {
        options.blocks = parseBlockLayout(*text, error);
        if (!options.blocks)
            return usageError("--block: " + error);
    }
    if (auto text = args.value("scale-rule")) {
        options.scaleRule = parseScaleRule(*text);
        if (!options.scaleRule)
            return usageError("--scale-rule: '" + *text + "' is not floor, ceil or even");
    }
    const auto formatsText = args.value("formats");
    if (!formatsText)
        return usageError("--formats ID,... is required");
    const auto formats = findBlockFormats(*formatsText, options, error);
    if (!formats)
        return usageError("--formats: " + error);

    std::size_t maxBlocks = kDefaultListedBlocks;
    if (auto text = args.value("max-blocks")) {
        const auto parsed = parseCount(*text);
        if (!parsed || *parsed == 0 || *parsed > kMaxListedBlocks)
            return usageError("--max-blocks: expected a count from 1 to " +
                              std::to_string(kMaxListedBlocks) + ", got '" + *text + "'");
        maxBlocks = *parsed;
    }
    std::vector<std::size_t> sweepSizes;
    if (auto text = args.value("sweep")) {
        for (const std::string_view piece : splitAt(*text, ',')) {
            const std::string item(piece);
            const auto parsed = parseCount(item);
            if (!parsed || *parsed == 0)
                return usageError("--sweep: expected block sizes such as 16,32,64,128, got '" +
                                  item + "'");
            sweepSizes.push_back(*parsed);
        }
    }
    std::optional<HistogramOptions> histogram;
    if (auto text = args.value("histogram")) {
        const auto bins = parseCount(*text);
        if (!bins || *bins == 0 || *bins > kMaxHistogramBins)
            return usageError("--histogram: expected a number of bins from 1 to " +
                              std::to_string(kMaxHistogramBins) + ", got '" + *text + "'");
        histogram = HistogramOptions{};
        histogram->bins = *bins;
    }
    const auto output = args.value("output");
    if (output && !endsWith(*output, ".safetensors"))
        return usageError("--output: the file name must end in .safetensors");
    const auto dequantized = args.value("dequantized");
    if (dequantized && !endsWith(*dequantized, ".npy"))
        return usageError("--dequantized: the file name must end in .npy");
    if (dequantized && formats->size() != 1)
        return usageError("--dequantized writes one format's values: give one format");

    // The tensor.
    TensorSource source;
    if (const int status = readTensorSource(args, source, error); status != kExitOk)
        return status == kExitUsage ? usageError(error) : dataError(error);

    // The work, with progress on a terminal's stderr for long runs.
    const bool showProgress = isatty(STDERR_FILENO) == 1 && source.view.size() >= (1u << 24);
    std::vector<QuantizeResult> runs;
    for (const BlockFormat& format : *formats) {
        QuantizeRun run;
        if (showProgress)
            run.progress = [&io, &format](std::size_t done, std::size_t total) {
                io.err << "\r" << format.id << ": "
                       << (100 * done / std::max<std::size_t>(total, 1)) << " %" << std::flush;
                return true;
            };
        auto quantized = quantizeTensor(format, source.view, error, run);
        if (showProgress)
            io.err << "\r\033[K" << std::flush;
        if (!quantized)
            return dataError(error);
        QuantizeResult r{std::move(*quantized), {}, quantizerPath(format, source.view), {}, {}};
        r.report = measureQuantization(source.view, r.quantized);
        if (!sweepSizes.empty() && format.scheme != BlockScheme::Direct) {
            r.sweep = sweepBlockSizes(format, source.view, sweepSizes, error, run);
            if (r.sweep.empty())
                return dataError(error);
        }
        if (histogram) {
            std::vector<double> errors;
            dequantizeInChunks(r.quantized, std::size_t(1) << 16,
                               [&](std::size_t first, const std::vector<double>& values) {
                                   for (std::size_t j = 0; j < values.size(); ++j)
                                       if (std::isfinite(source.view.at(first + j)))
                                           errors.push_back(source.view.at(first + j) - values[j]);
                               });
            r.errors = makeHistogram(std::span<const double>(errors), *histogram);
        }
        runs.push_back(std::move(r));
    }
    std::optional<Histogram> valueHistogram;
    if (histogram)
        valueHistogram = makeHistogram(source.view, *histogram);

    // Files, each written whole or not at all.
    if (output) {
        std::vector<OutputTensor> tensors;
        std::vector<std::pair<std::string, std::string>> metadata{
            {"format", *formatsText},
            // As the safetensors header writes shapes: a JSON array, "[4096,11008]".
            {"shape", nlohmann::json(source.view.shape).dump()},
            {"source", source.description},
            {"block", options.blocks ? blockLayoutId(*options.blocks) : "default"},
            {"scale_rule", std::string(scaleRuleId(options.scaleRule.value_or(ScaleRule::Floor)))}};
        for (const QuantizeResult& run : runs)
            addQuantizedTensors(run.quantized, tensors, metadata);
        if (!writeSafetensors(*output, tensors, metadata, error))
            return dataError(error);
    }
    if (dequantized) {
        if (!writeNpy(*dequantized, dequantizeAll(runs.front().quantized), source.view.shape,
                      error)) {
            if (output)
                std::remove(output->c_str()); // all files or none
            return dataError(error);
        }
    }

    const QuantizeListing listing{args.has("codes"), maxBlocks};
    if (args.has("csv"))
        printQuantizeCsv(io.out, runs);
    else if (args.has("json"))
        printJson(io.out,
                  quantizeJson(source.description, source.view, runs, listing, valueHistogram));
    else
        printQuantizeText(io.out, source.description, source.view, runs, listing, valueHistogram);
    return kExitOk;
}

} // namespace fpx::cli
