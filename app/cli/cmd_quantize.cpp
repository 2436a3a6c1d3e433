// SPDX-License-Identifier: GPL-3.0-or-later
// fpx quantize: tensors (every tensor of a file or sharded model, one tensor, a distribution or
// a list of values) quantized into block formats in one pass, with SQNR and errors per tensor
// and per format over the whole model; optionally every block's codes, the codes and the
// dequantized tensors as files, SQNR against block size and histograms. The options, the
// report the core computes from them, the files and the renderers (quantize_output.cpp).
#include "arguments.h"
#include "commands.h"
#include "progress_meter.h"
#include "quantize_output.h"
#include "tensor_source.h"

#include "fpx/data/tensor_axes.h"
#include "fpx/data/tensor_collection.h"
#include "fpx/exact/text_util.h"
#include "fpx/quantization/block_format.h"
#include "fpx/quantization/quantization_pass.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx quantize (--input PATH[:TENSOR] [--dtype D] [--tensors GLOB] | --dist SPEC\n"
    "                    --count N [--seed S] [--outliers F:S] | --values V1,V2,...)\n"
    "                    --formats ID[@N],... [--block N|row|tensor] [--axis K]\n"
    "                    [--scale-rule floor|ceil|even] [--sort sqnr|bits] [--threads N]\n"
    "                    [--json|--csv] [--codes [--max-blocks K]] [--output FILE.safetensors]\n"
    "                    [--dequantized FILE.npy|FILE.safetensors [--dequantized-dtype f32|f64]]\n"
    "                    [--sweep N,N,...] [--histogram BINS]\n"
    "  Quantizes every tensor into each format in one read and reports SQNR, MSE, RMSE, the\n"
    "  largest error, clipped (saturated) and flushed (non-zero → 0) elements and the bits per\n"
    "  element, per tensor and, for a whole file, per format over every tensor.\n"
    "  Formats: mxfp8_e4m3 mxfp8_e5m2 mxfp6_e3m2 mxfp6_e2m3 mxfp4 mxint8 nvfp4 nf4 nf4_dq\n"
    "           int8 int4 (absmax, per tensor unless blocked), or a plain cast (fp8_e4m3, bf16…);\n"
    "           ID@N sizes that format's blocks (int4@64, nf4@128); an MX or NVFP4 block other\n"
    "           than the standard's is named as a variant (mxfp4@64)\n"
    "  --input: .npy, .safetensors (every tensor fpx can read, or PATH:TENSOR), a sharded model's\n"
    "           model.safetensors.index.json, text (one value a line), raw little-endian with\n"
    "           --dtype f32|f64|f16|bf16|e4m3|e5m2; --tensors picks tensors by name ('*.weight')\n"
    "  --dist: normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU, uniform:A:B\n"
    "          (values rounded to FP32)\n"
    "  --values: each value rounded once to FP32 (nearest even), as every tensor fpx makes\n"
    "  --block: elements per block for every scaled format, 'row' or 'tensor'\n"
    "  --axis: the axis the blocks run along (default the last): per-channel scales for any\n"
    "          layout; tensors without that axis are skipped\n"
    "  --scale-rule: how an MX block's power-of-two scale follows from its amax (MX only)\n"
    "  --sort: rank the formats by SQNR (best first) or by bits per element (fewest first)\n"
    "  --codes: each block's scale bits, exact scale, element codes and exact values (the first\n"
    "           K blocks, --max-blocks, default 64; one tensor)\n"
    "  --output: codes and scales as .safetensors; --dequantized: the values, f32 unless\n"
    "            --dequantized-dtype f64, one file per format (FILE.ID.npy) when several\n"
    "  --sweep: SQNR against block size; --histogram: the values and each format's errors\n"
    "           (one tensor)\n"
    "  Ctrl+C stops a long run cleanly and writes nothing.\n";

constexpr std::size_t kDefaultListedBlocks = 64;
constexpr std::size_t kMaxListedBlocks = 1 << 16;
constexpr std::size_t kMaxHistogramBins = 10000;
constexpr std::size_t kProgressFrom = std::size_t(1) << 24; // elements worth a progress bar
// Widened copies of F16, BF16 and FP8 tensors held at once: a model larger than this is
// quantized in batches of tensors, so memory stays the mapping plus one batch.
constexpr std::size_t kBatchBytes = std::size_t(1) << 30;

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

enum class SortBy { Given, Sqnr, Bits };

struct QuantizeOptions {
    QuantizerOptions quantizer;
    std::string formatsText; // --formats as typed
    std::vector<BlockFormat> formats;
    QuantizeListing listing; // --codes, --max-blocks
    std::vector<std::size_t> sweepSizes;
    std::optional<HistogramOptions> histogram;
    std::optional<std::string> output;      // .safetensors
    std::optional<std::string> dequantized; // .npy or .safetensors
    bool dequantizedDoubles = false;
    std::optional<std::size_t> axis;
    std::optional<std::string> tensorPattern; // --tensors
    SortBy sort = SortBy::Given;
    int threads = 0;
    OutputForm form = OutputForm::Text;
    // The tensors: a file or model (--input), or generated values. Read last, so that every
    // option is checked before any work; shared with the report, whose views borrow from them.
    std::shared_ptr<const TensorCollection> collection;
    std::string inputArgument;
    std::shared_ptr<const TensorSource> source;

    // Whether the codes must be kept (files and listings read them).
    bool keepCodes() const {
        return output || dequantized || listing.codes || histogram || !sweepSizes.empty();
    }
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
    if (args.has("tensors") && !args.has("input"))
        return CommandError{"--tensors picks tensors of --input's file"};

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
    for (std::size_t i = 0; i < options.formats.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (options.formats[i].id == options.formats[j].id)
                return CommandError{"--formats: " + options.formats[i].id + " is given twice"};

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
    if (auto text = args.value("axis")) {
        options.axis = parseCount(*text);
        if (!options.axis)
            return CommandError{"--axis: expected an axis number (0 for the first), got '" + *text +
                                "'"};
    }
    if (auto text = args.value("sort")) {
        if (*text == "sqnr")
            options.sort = SortBy::Sqnr;
        else if (*text == "bits")
            options.sort = SortBy::Bits;
        else
            return CommandError{"--sort: '" + *text + "' is not sqnr or bits"};
    }
    if (auto text = args.value("threads")) {
        const auto threads = parseCount(*text);
        if (!threads || *threads == 0 || *threads > 1024)
            return CommandError{"--threads: expected 1 to 1024, got '" + *text + "'"};
        options.threads = static_cast<int>(*threads);
    }
    options.tensorPattern = args.value("tensors");
    options.output = args.value("output");
    if (options.output && !endsWith(*options.output, ".safetensors"))
        return CommandError{"--output: the file name must end in .safetensors"};
    options.dequantized = args.value("dequantized");
    if (options.dequantized && !endsWith(*options.dequantized, ".npy") &&
        !endsWith(*options.dequantized, ".safetensors"))
        return CommandError{"--dequantized: the file name must end in .npy or .safetensors"};
    if (auto dtype = args.value("dequantized-dtype")) {
        if (!options.dequantized)
            return CommandError{"--dequantized-dtype goes with --dequantized"};
        if (*dtype != "f32" && *dtype != "f64")
            return CommandError{"--dequantized-dtype: '" + *dtype + "' is not f32 or f64"};
        options.dequantizedDoubles = *dtype == "f64";
    }

    if (auto input = args.value("input")) {
        std::optional<RawLayout> raw;
        if (auto dtype = args.value("dtype"))
            raw = RawLayout{*dtype};
        std::string openError;
        auto collection = TensorCollection::open(*input, raw, openError);
        if (!collection) {
            const bool usage = raw && openError.find("unknown raw dtype") != std::string::npos;
            return CommandError{openError, usage ? kExitUsage : kExitDataError};
        }
        options.collection = std::make_shared<const TensorCollection>(std::move(*collection));
        options.inputArgument = *input;
    } else {
        auto source = loadTensorSource(args);
        if (!source)
            return source.error();
        options.source = std::move(*source);
    }
    return options;
}

// A tensor to quantize: its values (borrowed from a mapping, a widened copy, or moved along
// --axis) and what keeps them alive.
struct TensorInput {
    std::string name;
    std::string dtype;
    std::vector<std::size_t> shape; // as the file has it
    TensorView view;                // what the quantizers read (axis moved last)
    std::shared_ptr<const void> keepAlive;
    std::optional<AxisMove> move;
    std::size_t ownedBytes = 0; // widened or moved copies
};

// Moves the tensor's --axis last; false with `why` where the tensor has no such axis.
bool applyAxis(const std::optional<std::size_t>& axis, TensorInput& input, std::string& why) {
    if (!axis)
        return true;
    const std::size_t rank = input.view.shape.size();
    if (*axis >= rank) {
        why = "has " + std::to_string(rank) + (rank == 1 ? " axis" : " axes") + ", no axis " +
              std::to_string(*axis);
        return false;
    }
    if (*axis + 1 == rank)
        return true;
    AxisMove move{input.view.shape, *axis};
    // The moved copy, holding on to what the original borrowed from as well.
    struct Moved {
        std::shared_ptr<const void> original;
        std::vector<float> floats;
        std::vector<double> doubles;
    };
    auto moved = std::make_shared<Moved>();
    moved->original = input.keepAlive;
    move.copy(input.view, moved->floats, moved->doubles);
    input.view.shape = move.movedShape();
    input.view.floats = moved->floats;
    input.view.doubles = moved->doubles;
    input.ownedBytes += moved->floats.size() * 4 + moved->doubles.size() * 8;
    input.keepAlive = moved;
    input.move = move;
    return true;
}

using Progress = std::function<bool(std::size_t done, std::size_t total)>;

// The tensors of one batch quantized in one pass, their results appended to the report.
std::optional<CommandError> quantizeBatch(const QuantizeOptions& options,
                                          std::vector<TensorInput>& batch, bool many,
                                          QuantizeReport& report, const Progress& progress) {
    QuantizationPass pass;
    pass.formats = options.formats;
    pass.keepQuantized = options.keepCodes();
    for (const TensorInput& input : batch)
        pass.tensors.push_back(input.view);
    QuantizeRun run;
    run.threads = options.threads;
    run.progress = progress;
    std::string error;
    std::optional<QuantizationPassResult> result = runQuantizationPass(pass, error, run);
    if (!result)
        return error == "cancelled" ? CommandError{"cancelled", kExitInterrupted}
                                    : dataError(error);
    for (std::size_t t = 0; t < batch.size(); ++t) {
        TensorInput& input = batch[t];
        bool failed = false;
        for (std::size_t f = 0; f < pass.formats.size(); ++f) {
            if (result->errors[t][f].empty())
                continue;
            if (!many)
                return dataError(result->errors[t][f]);
            report.skipped.push_back(SkippedTensor{input.name, input.dtype, result->errors[t][f]});
            failed = true;
            break;
        }
        if (failed)
            continue;
        TensorResults tensor{input.name,  input.dtype,
                             input.shape, input.view.size(),
                             input.view,  pass.keepQuantized ? input.keepAlive : nullptr,
                             {}};
        for (std::size_t f = 0; f < pass.formats.size(); ++f) {
            QuantizeResult r;
            if (pass.keepQuantized)
                r.quantized = std::move(result->quantized[t][f]);
            r.quantized.format = pass.formats[f];
            r.report = result->reports[t][f];
            if (input.move)
                r.report.maxErrorIndex = input.move->originalIndex(r.report.maxErrorIndex);
            r.path = quantizerPath(pass.formats[f], input.view);
            tensor.results.push_back(std::move(r));
        }
        report.tensors.push_back(std::move(tensor));
    }
    return std::nullopt;
}

// --sweep and --histogram for one tensor, from its kept codes.
std::optional<CommandError> addListings(const QuantizeOptions& options, QuantizeReport& report) {
    for (TensorResults& tensor : report.tensors) {
        const TensorView& view = tensor.view;
        for (QuantizeResult& r : tensor.results) {
            std::string error;
            const BlockFormat& format = r.quantized.format;
            if (!options.sweepSizes.empty() && format.scheme != BlockScheme::Direct) {
                QuantizeRun run;
                run.threads = options.threads;
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
        }
        if (options.histogram)
            report.values = makeHistogram(view, *options.histogram);
    }
    return std::nullopt;
}

// Formats in the order --sort asks for, the same in every tensor's rows and in the totals.
void sortFormats(SortBy sort, QuantizeReport& report) {
    std::vector<std::size_t> order(report.totals.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    const auto sqnrKey = [](double db) { return std::isnan(db) ? -HUGE_VAL : db; };
    if (sort == SortBy::Sqnr)
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return sqnrKey(report.totals[a].sqnrDb) > sqnrKey(report.totals[b].sqnrDb);
        });
    else if (sort == SortBy::Bits)
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return report.totals[a].bitsPerElement < report.totals[b].bitsPerElement;
        });
    else
        return;
    const auto permute = [&](auto& items) {
        auto copy = std::move(items);
        items.clear();
        for (const std::size_t i : order)
            items.push_back(std::move(copy[i]));
    };
    permute(report.totals);
    for (TensorResults& tensor : report.tensors)
        permute(tensor.results);
}

void addTotals(QuantizeReport& report, std::size_t formats) {
    for (std::size_t f = 0; f < formats; ++f) {
        std::vector<const QuantizationReport*> reports;
        for (const TensorResults& tensor : report.tensors)
            reports.push_back(&tensor.results[f].report);
        if (!reports.empty())
            report.totals.push_back(quantizationTotal(reports));
    }
}

Outcome<QuantizeReport> computeQuantize(const QuantizeOptions& options, const Progress& progress) {
    QuantizeReport report;
    report.axis = options.axis;
    if (options.source) { // generated values: one tensor
        const TensorSource& source = *options.source;
        report.description = source.description;
        std::vector<TensorInput> batch(1);
        batch[0].name = source.view.name;
        batch[0].shape = source.view.shape;
        batch[0].view = source.view;
        batch[0].keepAlive = options.source;
        std::string why;
        if (!applyAxis(options.axis, batch[0], why))
            return CommandError{"--axis: the tensor " + why};
        if (auto stop = quantizeBatch(options, batch, false, report, progress))
            return *stop;
    } else {
        const TensorCollection& collection = *options.collection;
        // A file of one tensor, or one tensor named, reads as one tensor; every other file
        // as a whole (a tensor column and totals).
        std::vector<std::size_t> chosen;
        for (std::size_t i = 0; i < collection.tensors().size(); ++i) {
            const TensorInfo& info = collection.tensors()[i].info;
            if (options.tensorPattern && !tensorNameMatches(*options.tensorPattern, info.name))
                continue;
            if (!info.loadable) {
                report.skipped.push_back(SkippedTensor{
                    info.name, info.dtype,
                    "not loadable: fpx reads F64, F32, F16, BF16, F8_E4M3 and F8_E5M2"});
                continue;
            }
            chosen.push_back(i);
        }
        if (chosen.empty())
            return dataError(
                options.inputArgument +
                (options.tensorPattern
                     ? ": no loadable tensor matches --tensors '" + *options.tensorPattern + "'"
                     : ": holds no tensor of a dtype fpx reads (F64, F32, F16, "
                       "BF16, F8_E4M3, F8_E5M2)"));
        const bool many = collection.sharded() || collection.tensors().size() > 1;
        report.wholeFile = many;
        report.description = options.inputArgument;
        if (!many)
            report.description +=
                " (tensor " + collection.tensors()[chosen.front()].info.name + ")";
        std::size_t allElements = 0;
        for (const std::size_t i : chosen)
            allElements += collection.tensors()[i].info.elementCount;
        // Progress over the whole file, across the batches.
        std::vector<TensorInput> batch;
        std::size_t batchBytes = 0;
        std::size_t batchElements = 0;
        std::size_t before = 0;
        const Progress overall = [&](std::size_t done, std::size_t total) {
            const double share = total ? double(done) / double(total) : 1.0;
            return progress(before + static_cast<std::size_t>(share * double(batchElements)),
                            allElements);
        };
        const auto flush = [&]() -> std::optional<CommandError> {
            if (batch.empty())
                return std::nullopt;
            if (auto stop = quantizeBatch(options, batch, many, report, overall))
                return stop;
            before += batchElements;
            batch.clear();
            batchBytes = batchElements = 0;
            return std::nullopt;
        };
        for (const std::size_t i : chosen) {
            const TensorInfo& info = collection.tensors()[i].info;
            std::string error;
            std::optional<TensorFile::Loaded> loaded = collection.load(i, error);
            if (!loaded) {
                if (!many)
                    return dataError(error);
                report.skipped.push_back(SkippedTensor{info.name, info.dtype, error});
                continue;
            }
            TensorInput input;
            input.name = info.name;
            input.dtype = info.dtype;
            input.shape = loaded->view.shape;
            input.view = loaded->view;
            input.keepAlive = loaded->keepAlive;
            input.ownedBytes =
                info.dtype == "F32" || info.dtype == "F64" ? 0 : input.view.size() * 4;
            std::string why;
            if (!applyAxis(options.axis, input, why)) {
                if (!many)
                    return CommandError{"--axis: the tensor " + info.name + " " + why};
                report.skipped.push_back(SkippedTensor{info.name, info.dtype, why});
                continue;
            }
            if (!batch.empty() && batchBytes + input.ownedBytes > kBatchBytes)
                if (auto stop = flush())
                    return *stop;
            batchBytes += input.ownedBytes;
            batchElements += input.view.size();
            batch.push_back(std::move(input));
        }
        if (auto stop = flush())
            return *stop;
        if (report.tensors.empty())
            return dataError(options.inputArgument + ": no tensor could be quantized");
    }
    if (!report.wholeFile && report.tensors.size() == 1)
        if (auto stop = addListings(options, report))
            return *stop;
    addTotals(report, options.formats.size());
    sortFormats(options.sort, report);
    return report;
}

// FILE.npy → FILE.ID.npy: one file per format when several are given.
std::string dequantizedPath(const std::string& path, const std::string& id, bool several) {
    if (!several)
        return path;
    const std::size_t dot = path.find_last_of('.');
    return path.substr(0, dot) + "." + id + path.substr(dot);
}

// One tensor's dequantized values in its own layout (an --axis moved for the blocks moves
// back).
std::vector<double> dequantizedValues(const QuantizeReport& report, const TensorResults& t,
                                      std::size_t format) {
    const QuantizedTensor& q = t.results[format].quantized;
    std::vector<double> values = dequantizeAll(q);
    if (!report.axis || q.shape == t.shape)
        return values;
    const AxisMove move{t.shape, *report.axis};
    std::vector<double> original(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        original[move.originalIndex(i)] = values[i];
    return original;
}

// The dequantized values of one format: every tensor into one .safetensors, or the one tensor
// into a .npy. F32 unless F64 is asked for: every value of an element format of at most 8 bits
// times an FP32 or E4M3 scale is an FP32 value except beyond FP32's range (MX scales reach
// 2^127 times the element's max), where F32 rounds it, so F64 holds them all.
bool writeDequantized(const QuantizeOptions& options, const QuantizeReport& report,
                      std::size_t format, const std::string& path, std::string& error) {
    const bool doubles = options.dequantizedDoubles;
    if (endsWith(path, ".npy")) {
        if (report.tensors.size() != 1) {
            error = path + ": a .npy holds one tensor; give a .safetensors for " +
                    std::to_string(report.tensors.size()) + " tensors";
            return false;
        }
        const TensorResults& t = report.tensors.front();
        const std::vector<double> values = dequantizedValues(report, t, format);
        if (doubles)
            return writeNpy(path, values, t.shape, error);
        return writeNpy(path, std::vector<float>(values.begin(), values.end()), t.shape, error);
    }
    std::vector<OutputTensor> tensors;
    for (const TensorResults& t : report.tensors) {
        const std::vector<double> values = dequantizedValues(report, t, format);
        OutputTensor out{t.name,
                         doubles ? "F64" : "F32",
                         t.shape.empty() ? std::vector<std::size_t>{1} : t.shape,
                         {}};
        if (doubles) {
            out.bytes.resize(values.size() * 8);
            std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
        } else {
            const std::vector<float> narrow(values.begin(), values.end());
            out.bytes.resize(narrow.size() * 4);
            std::memcpy(out.bytes.data(), narrow.data(), out.bytes.size());
        }
        tensors.push_back(std::move(out));
    }
    return writeSafetensors(path, tensors,
                            {{"format", report.tensors.front().results[format].report.format},
                             {"source", report.description}},
                            error);
}

// --output and --dequantized, each written whole or not at all, and all of them or none; the
// error when one cannot be.
std::optional<CommandError> writeQuantizeFiles(const QuantizeOptions& options,
                                               const QuantizeReport& report,
                                               std::vector<std::string>& written) {
    std::string error;
    const auto fail = [&](std::string message) {
        for (const std::string& path : written)
            std::remove(path.c_str()); // all files or none
        written.clear();
        return dataError(std::move(message));
    };
    if (options.output) {
        std::vector<OutputTensor> tensors;
        std::vector<std::pair<std::string, std::string>> metadata{
            {"format", options.formatsText},
            {"source", report.description},
            {"block",
             options.quantizer.blocks ? blockLayoutId(*options.quantizer.blocks) : "default"},
            {"scale_rule",
             std::string(scaleRuleId(options.quantizer.scaleRule.value_or(ScaleRule::Floor)))}};
        if (!report.wholeFile)
            // As the safetensors header writes shapes: a JSON array, "[4096,11008]".
            metadata.emplace_back("shape",
                                  nlohmann::json(report.tensors.front().view.shape).dump());
        if (report.axis)
            metadata.emplace_back("axis", std::to_string(*report.axis));
        for (const TensorResults& t : report.tensors)
            for (const QuantizeResult& run : t.results)
                addQuantizedTensors(run.quantized,
                                    report.wholeFile ? t.name + "." + run.quantized.format.id
                                                     : run.quantized.format.id,
                                    tensors, metadata);
        if (!writeSafetensors(*options.output, tensors, metadata, error))
            return fail(error);
        written.push_back(*options.output);
    }
    if (options.dequantized) {
        const std::size_t formats = report.tensors.front().results.size();
        for (std::size_t f = 0; f < formats; ++f) {
            const std::string path =
                dequantizedPath(*options.dequantized,
                                report.tensors.front().results[f].quantized.format.id, formats > 1);
            if (!writeDequantized(options, report, f, path, error))
                return fail(error);
            written.push_back(path);
        }
    }
    return std::nullopt;
}

} // namespace

int runQuantize(const std::vector<std::string>& rawArgs, Streams& io) {
    std::set<std::string> withValue = tensorSourceOptions();
    withValue.insert({"formats", "block", "scale-rule", "max-blocks", "output", "dequantized",
                      "dequantized-dtype", "sweep", "histogram", "axis", "tensors", "sort",
                      "threads"});
    const Arguments args(rawArgs, std::move(withValue), {"json", "csv", "codes"});
    if (const auto stop = checkOptionsOnly(args, io, "quantize", kUsage))
        return *stop;
    const Outcome<QuantizeOptions> options = parseQuantizeOptions(args);
    if (!options)
        return reportError(io, "quantize", options.error());
    if ((options->listing.codes || options->histogram || !options->sweepSizes.empty()) &&
        options->collection &&
        (options->collection->sharded() || options->collection->tensors().size() > 1))
        return reportError(io, "quantize",
                           CommandError{"--codes, --sweep and --histogram read one tensor: name "
                                        "it as PATH:TENSOR"});
    std::size_t elements = options->source ? options->source->view.size() : 0;
    if (options->collection)
        for (const TensorCollection::Entry& entry : options->collection->tensors())
            elements += entry.info.elementCount;
    ProgressMeter meter(io.err, "quantize",
                        isatty(STDERR_FILENO) == 1 && elements >= kProgressFrom);
    const Outcome<QuantizeReport> report = computeQuantize(
        *options, [&](std::size_t done, std::size_t total) { return meter.update(done, total); });
    meter.finish();
    if (!report)
        return reportError(io, "quantize", report.error());
    std::vector<std::string> written;
    if (const auto error = writeQuantizeFiles(*options, *report, written))
        return reportError(io, "quantize", *error);
    if (!meter.keepGoing()) { // Ctrl+C while the files were written: none of them stays
        for (const std::string& path : written)
            std::remove(path.c_str());
        return reportError(io, "quantize", CommandError{"cancelled", kExitInterrupted});
    }
    switch (options->form) {
    case OutputForm::Csv:
        printQuantizeCsv(io.out, *report);
        break;
    case OutputForm::Json:
        printJson(io.out, quantizeJson(*report, options->listing));
        break;
    case OutputForm::Text:
        printQuantizeText(io.out, *report, options->listing);
        break;
    }
    return kExitOk;
}

} // namespace fpx::cli
