// SPDX-License-Identifier: GPL-3.0-or-later
// fpx quantize: a tensor (a file, a distribution or a list of values) quantized into block
// formats, with SQNR and errors; optionally every block's codes, the quantized and dequantized
// tensors as files, SQNR against block size and histograms.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "term_options.h"
#include "text_table.h"

#include "fpx/block_format.h"
#include "fpx/block_quantization.h"
#include "fpx/block_size_sweep.h"
#include "fpx/conversion.h"
#include "fpx/decimal_text.h"
#include "fpx/format_catalogue.h"
#include "fpx/histogram.h"
#include "fpx/tensor_file.h"
#include "fpx/tensor_quantizer.h"
#include "fpx/value_distribution.h"
#include "fpx/value_parser.h"
#include "fpx/wide_rounding.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <sstream>

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
    "  --dist: normal:MU:SIGMA, laplace:B, student:NU, uniform:A:B (values rounded to FP32)\n"
    "  --values: each value rounded once to FP32 (nearest even), as every tensor fpx makes\n"
    "  --block: elements per block for every scaled format, 'row' or 'tensor'\n"
    "  --scale-rule: how an MX block's power-of-two scale follows from its amax (MX only)\n"
    "  --codes: each block's scale bits, exact scale, element codes and exact values (the first\n"
    "           K blocks, --max-blocks, default 64)\n"
    "  --output: codes and scales as .safetensors; --dequantized: one format's values as .npy\n"
    "  --sweep: SQNR against block size; --histogram: the values and each format's errors\n";

constexpr std::size_t kDefaultListedBlocks = 64;
constexpr std::size_t kMaxListedBlocks = 1 << 16;
constexpr std::size_t kMaxGenerated = std::size_t(1) << 30; // 4 GiB of FP32 values
constexpr std::size_t kMaxHistogramBins = 10000;
constexpr std::size_t kDirectListingBlock = 32; // a direct cast's elements, listed by 32

std::vector<std::string> splitCommas(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');)
        items.push_back(item);
    if (!text.empty() && text.back() == ',')
        items.emplace_back();
    return items;
}

std::optional<std::size_t> parseCount(const std::string& text) {
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::string exactText(double x) {
    return toDecimal(exactFromDouble(x)).text;
}

Json numberOrText(double x) {
    if (std::isnan(x))
        return nullptr;
    if (std::isinf(x))
        return x > 0 ? "inf" : "-inf";
    return x;
}

// SQNR to 4 decimals: the sums behind it are good to far more (design.md).
std::string sqnrText(double db) {
    if (std::isnan(db))
        return "-";
    if (std::isinf(db))
        return db > 0 ? "inf" : "-inf";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.4f", db);
    return buffer;
}

Json sqnrJson(double db) {
    if (std::isnan(db) || std::isinf(db))
        return numberOrText(db);
    return std::round(db * 1e4) / 1e4;
}

std::string shortText(double x) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
    return buffer;
}

// The tensor to quantize and where it came from.
struct Source {
    std::optional<TensorFile::Loaded> loaded; // --input
    std::vector<float> values;                // --dist, --values
    TensorView view;
    std::string description;
};

struct FormatRun {
    QuantizedTensor quantized;
    QuantizationReport report;
    QuantizerPath path;
    std::vector<BlockSizePoint> sweep;
    std::optional<Histogram> errors;
};

std::string scaleBitsText(const QuantizedTensor& q, std::size_t block) {
    if (q.format.scheme == BlockScheme::Direct || !q.format.scale)
        return "";
    return codeToHex(q.scaleCodes[block], q.format.scale->totalBits());
}

// Blocks listed by --codes: the format's own blocks, or runs of 32 elements of a direct cast.
std::size_t listingBlockSize(const QuantizedTensor& q) {
    return q.format.scheme == BlockScheme::Direct ? kDirectListingBlock : q.blockSize;
}

Json blocksJson(const QuantizedTensor& q, const TensorView& input, std::size_t maxBlocks) {
    Json blocks = Json::array();
    const std::size_t size = listingBlockSize(q);
    const int elementBits = q.format.element.totalBits();
    for (std::size_t first = 0, b = 0; first < q.elementCount && b < maxBlocks;
         first += size, ++b) {
        const std::size_t end = std::min(q.elementCount, first + size);
        const bool direct = q.format.scheme == BlockScheme::Direct;
        Json block;
        block["index"] = b;
        block["first"] = first;
        block["scale_bits"] = direct ? Json(nullptr) : Json(scaleBitsText(q, b));
        block["scale"] = exactText(direct ? 1.0 : q.blockScale(b));
        Json inputs = Json::array(), codes = Json::array(), values = Json::array();
        for (std::size_t i = first; i < end; ++i) {
            inputs.push_back(exactText(input.at(i)));
            codes.push_back(codeToHex(q.code(i), elementBits));
            values.push_back(exactText(q.dequantized(i)));
        }
        block["inputs"] = std::move(inputs);
        block["codes"] = std::move(codes);
        block["values"] = std::move(values);
        blocks.push_back(std::move(block));
    }
    return blocks;
}

Json histogramJson(const Histogram& h) {
    Json json;
    json["axis"] = h.axis == HistogramAxis::Linear ? "linear" : "log2_magnitude";
    json["low"] = h.low;
    json["high"] = h.high;
    json["counts"] = h.counts;
    json["below"] = h.below;
    json["above"] = h.above;
    json["nan"] = h.nans;
    json["inf"] = h.infs;
    return json;
}

Json resultJson(const FormatRun& run, const TensorView& input, bool codes, std::size_t maxBlocks) {
    const QuantizationReport& r = run.report;
    const BlockFormat& f = run.quantized.format;
    Json json;
    json["format"] = r.format;
    json["elements"] = r.elements;
    json["block"] = r.blockSize;
    json["bits_per_element"] = r.bitsPerElement;
    json["bytes"] = r.bytes;
    json["sqnr_db"] = sqnrJson(r.sqnrDb);
    json["mse"] = numberOrText(r.mse);
    json["rmse"] = numberOrText(r.rmse);
    json["max_abs_error"] = numberOrText(r.maxAbsError);
    json["max_error_index"] = r.maxErrorIndex;
    json["clipped"] = r.clipped;
    json["flushed"] = r.flushed;
    if (r.tensorScale) // nf4_dq's is the FP32 offset of its double-quantized absmaxes
        json[f.doubleQuantized ? "offset" : "tensor_scale"] = exactText(*r.tensorScale);
    json["nan_inputs"] = r.nanInputs;
    json["inf_inputs"] = r.infInputs;
    json["non_finite_outputs"] = r.nonFiniteOutputs;
    json["element_format"] = f.element.id;
    json["scale_format"] = f.scale ? Json(f.scale->id) : Json(nullptr);
    if (f.scheme == BlockScheme::Mx)
        json["scale_rule"] = scaleRuleId(f.scaleRule);
    json["path"] = run.path.name;
    if (!run.quantized.groupScales.empty()) {
        Json groups = Json::array();
        for (float g : run.quantized.groupScales)
            groups.push_back(exactText(g));
        json["group_scales"] = std::move(groups);
    }
    if (!run.sweep.empty()) {
        Json sweep = Json::array();
        for (const BlockSizePoint& p : run.sweep)
            sweep.push_back({{"block", p.blockSize},
                             {"bits_per_element", p.report.bitsPerElement},
                             {"sqnr_db", sqnrJson(p.report.sqnrDb)},
                             {"rmse", numberOrText(p.report.rmse)},
                             {"max_abs_error", numberOrText(p.report.maxAbsError)}});
        json["sweep"] = std::move(sweep);
    }
    if (run.errors)
        json["error_histogram"] = histogramJson(*run.errors);
    if (codes) {
        const std::size_t size = listingBlockSize(run.quantized);
        json["blocks_total"] = (run.quantized.elementCount + size - 1) / size;
        json["blocks"] = blocksJson(run.quantized, input, maxBlocks);
    }
    return json;
}

void printHistogram(std::ostream& out, const Histogram& h) {
    std::size_t peak = 1;
    for (std::size_t c : h.counts)
        peak = std::max(peak, c);
    TextTable table({"from", "to", "count", ""});
    for (std::size_t i = 0; i < h.binCount(); ++i)
        table.addRow({shortText(h.binLow(i)), shortText(h.binLow(i + 1)),
                      std::to_string(h.counts[i]), std::string(h.counts[i] * 40 / peak, '#')});
    table.print(out, false);
}

void printText(std::ostream& out, const Source& source, const std::vector<FormatRun>& runs,
               bool codes, std::size_t maxBlocks, const std::optional<Histogram>& values) {
    out << source.description << ": " << source.view.size() << " elements\n\n";
    TextTable table({"format", "block", "bits/elem", "bytes", "SQNR dB", "RMSE", "max |error|",
                     "clipped", "flushed", "tensor scale"});
    for (const FormatRun& run : runs) {
        const QuantizationReport& r = run.report;
        table.addRow({r.format, std::to_string(r.blockSize), shortText(r.bitsPerElement),
                      std::to_string(r.bytes), sqnrText(r.sqnrDb), shortText(r.rmse),
                      shortText(r.maxAbsError), std::to_string(r.clipped),
                      std::to_string(r.flushed),
                      !r.tensorScale                         ? std::string("-")
                      : run.quantized.format.doubleQuantized ? "offset " + shortText(*r.tensorScale)
                                                             : shortText(*r.tensorScale)});
    }
    table.print(out, false);
    for (const FormatRun& run : runs) {
        const QuantizationReport& r = run.report;
        if (r.nanInputs || r.infInputs)
            out << r.format << ": " << r.nanInputs << " NaN and " << r.infInputs
                << " infinite inputs; " << r.nonFiniteOutputs
                << " finite inputs dequantize to NaN or ±inf (their block's scale is NaN) and "
                   "are left out of the sums\n";
    }
    for (const FormatRun& run : runs) {
        if (run.sweep.empty())
            continue;
        out << "\n" << run.report.format << ": SQNR against block size\n";
        TextTable sweep({"block", "bits/elem", "SQNR dB", "RMSE", "max |error|"});
        for (const BlockSizePoint& p : run.sweep)
            sweep.addRow({std::to_string(p.blockSize), shortText(p.report.bitsPerElement),
                          sqnrText(p.report.sqnrDb), shortText(p.report.rmse),
                          shortText(p.report.maxAbsError)});
        sweep.print(out, false);
    }
    if (values) {
        out << "\nvalues:\n";
        printHistogram(out, *values);
    }
    for (const FormatRun& run : runs)
        if (run.errors) {
            out << "\n" << run.report.format << ": errors (x − q)\n";
            printHistogram(out, *run.errors);
        }
    if (!codes)
        return;
    for (const FormatRun& run : runs) {
        const QuantizedTensor& q = run.quantized;
        const std::size_t size = listingBlockSize(q);
        out << "\n" << q.format.id << " blocks";
        if (q.format.scale)
            out << " (scale " << q.format.scale->id << ")";
        out << ":\n";
        TextTable t({"block", "element", "input", "code", "value", "scale bits", "scale"});
        for (std::size_t first = 0, b = 0; first < q.elementCount && b < maxBlocks;
             first += size, ++b)
            for (std::size_t i = first; i < std::min(q.elementCount, first + size); ++i) {
                const bool head = i == first && q.format.scheme != BlockScheme::Direct;
                t.addRow({i == first ? std::to_string(b) : "", std::to_string(i),
                          exactText(source.view.at(i)),
                          codeToHex(q.code(i), q.format.element.totalBits()),
                          exactText(q.dequantized(i)), head ? scaleBitsText(q, b) : "",
                          head ? exactText(q.blockScale(b)) : ""});
            }
        t.print(out, false);
    }
}

void printCsv(std::ostream& out, const std::vector<FormatRun>& runs) {
    out << "format,elements,block,bits_per_element,bytes,sqnr_db,mse,rmse,max_abs_error,clipped,"
           "flushed,tensor_scale,nan_inputs,inf_inputs\n";
    auto number = [](double x) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.17g", x);
        return std::string(buffer);
    };
    for (const FormatRun& run : runs) {
        const QuantizationReport& r = run.report;
        out << r.format << ',' << r.elements << ',' << r.blockSize << ','
            << number(r.bitsPerElement) << ',' << r.bytes << ',' << sqnrText(r.sqnrDb) << ','
            << number(r.mse) << ',' << number(r.rmse) << ',' << number(r.maxAbsError) << ','
            << r.clipped << ',' << r.flushed << ','
            << (r.tensorScale ? exactText(*r.tensorScale) : "") << ',' << r.nanInputs << ','
            << r.infInputs << '\n';
    }
}

// Element codes as stored in the .safetensors output: 4-bit codes two to a byte, low nibble
// first; up to 8 bits one a byte; wider ones little-endian in U16/U32/U64.
OutputTensor codesTensor(const QuantizedTensor& q) {
    OutputTensor t;
    t.name = q.format.id + ".codes";
    const int bits = q.format.element.totalBits();
    const std::size_t n = q.elementCount;
    if (bits <= 4) {
        t.dtype = "U8";
        t.shape = {(n + 1) / 2};
        t.bytes.assign(t.shape[0], 0);
        for (std::size_t i = 0; i < n; ++i)
            t.bytes[i / 2] |= static_cast<std::uint8_t>((q.code(i) & 0xf) << (i % 2 ? 4 : 0));
        return t;
    }
    t.shape = q.shape.empty() ? std::vector<std::size_t>{1} : q.shape;
    t.dtype = bits <= 8 ? "U8" : bits <= 16 ? "U16" : bits <= 32 ? "U32" : "U64";
    t.bytes = q.codes; // packed little-endian, 1, 2, 4 or 8 bytes each
    return t;
}

OutputTensor floatsTensor(std::string name, const std::vector<float>& values) {
    OutputTensor t{std::move(name), "F32", {values.size()}, {}};
    t.bytes.resize(values.size() * 4);
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

void addOutput(const QuantizedTensor& q, std::vector<OutputTensor>& tensors,
               std::vector<std::pair<std::string, std::string>>& metadata) {
    const BlockFormat& f = q.format;
    tensors.push_back(codesTensor(q));
    if (f.scheme != BlockScheme::Direct) {
        const bool floatScales = f.scheme == BlockScheme::IntAbsmax ||
                                 (f.scheme == BlockScheme::Nf4 && !f.doubleQuantized);
        OutputTensor scales{
            f.id + ".scales", floatScales ? "F32" : "U8", {q.scaleCodes.size()}, {}};
        for (std::uint32_t code : q.scaleCodes) {
            if (floatScales)
                for (int k = 0; k < 4; ++k)
                    scales.bytes.push_back(static_cast<std::uint8_t>(code >> (8 * k)));
            else
                scales.bytes.push_back(static_cast<std::uint8_t>(code));
        }
        tensors.push_back(std::move(scales));
    }
    if (f.scheme == BlockScheme::Nvfp4)
        tensors.push_back(floatsTensor(f.id + ".tensor_scale", {*q.tensorScale}));
    if (f.doubleQuantized) {
        tensors.push_back(floatsTensor(f.id + ".offset", {*q.tensorScale}));
        tensors.push_back(floatsTensor(f.id + ".group_scales", q.groupScales));
    }
    metadata.emplace_back(f.id + ".element", f.element.id);
    metadata.emplace_back(f.id + ".scale", f.scale ? f.scale->id : "none");
    metadata.emplace_back(f.id + ".block", std::to_string(q.blockSize));
    if (f.scheme == BlockScheme::Mx)
        metadata.emplace_back(f.id + ".scale_rule", std::string(scaleRuleId(f.scaleRule)));
}

std::string shapeText(const std::vector<std::size_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

bool endsWith(const std::string& text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --values: each parsed exactly, then rounded once to FP32 (nearest even); a finite value
// beyond FP32's range is an error rather than a silent infinity.
std::optional<std::vector<float>> parseValueList(const std::string& text, std::string& error) {
    const FormatSpec fp32 = *findFormat("fp32").spec;
    std::vector<float> values;
    for (const std::string& item : splitCommas(text)) {
        const ParsedValue parsed = parseValue(item);
        if (!parsed) {
            error = "--values: '" + item + "': " + parsed.error.message;
            return std::nullopt;
        }
        const Conversion c = roundToFormat(*parsed.value, fp32);
        if (c.flags.overflow) {
            error = "--values: '" + item + "' is beyond FP32's range (largest 3.40282347e38)";
            return std::nullopt;
        }
        const auto bits = static_cast<std::uint32_t>(c.code);
        float f = 0;
        std::memcpy(&f, &bits, 4);
        values.push_back(f);
    }
    return values;
}

} // namespace

int runQuantize(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs,
                   {"input", "dtype", "dist", "count", "seed", "outliers", "values", "formats",
                    "block", "scale-rule", "max-blocks", "output", "dequantized", "sweep",
                    "histogram"},
                   {"json", "csv", "codes"});
    auto usageError = [&](const std::string& message) {
        io.err << "fpx quantize: " << message << '\n' << kUsage;
        return kExitUsage;
    };
    auto dataError = [&](const std::string& message) {
        io.err << "fpx quantize: " << message << '\n';
        return kExitDataError;
    };
    if (const auto stop = checkOptionsOnly(args, io, "fpx quantize", kUsage))
        return *stop;

    // Every option checked before any work.
    const int sources = int(args.has("input")) + int(args.has("dist")) + int(args.has("values"));
    if (sources != 1)
        return usageError("give exactly one of --input, --dist and --values");
    if (args.has("json") && args.has("csv"))
        return usageError("choose one of --json and --csv");
    if (args.has("dtype") && !args.has("input"))
        return usageError("--dtype goes with --input (a raw file)");
    for (const char* option : {"count", "seed", "outliers"})
        if (args.has(option) && !args.has("dist"))
            return usageError(std::string("--") + option + " goes with --dist");
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
        for (const std::string& item : splitCommas(*text)) {
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
    Source source;
    if (auto path = args.value("input")) {
        std::optional<RawLayout> raw;
        if (auto dtype = args.value("dtype"))
            raw = RawLayout{*dtype};
        source.loaded = loadTensorArgument(*path, raw, error);
        if (!source.loaded)
            return dataError(error);
        source.view = source.loaded->view;
        source.description = *path;
    } else if (auto spec = args.value("dist")) {
        auto distribution = parseValueDistribution(*spec, error);
        if (!distribution)
            return usageError("--dist: " + error);
        if (auto outliers = args.value("outliers"))
            if (!parseOutliers(*outliers, *distribution, error))
                return usageError("--outliers: " + error);
        const auto countText = args.value("count");
        if (!countText)
            return usageError("--count N is required with --dist");
        const auto count = parseTermCount(*countText);
        if (!count || *count > kMaxGenerated)
            return usageError("--count: expected 1 to " + std::to_string(kMaxGenerated) +
                              " values, got '" + *countText + "'");
        std::uint64_t seed = 0;
        if (auto text = args.value("seed")) {
            const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), seed);
            if (text->empty() || ec != std::errc() || end != text->data() + text->size())
                return usageError("--seed: expected an unsigned 64-bit integer, got '" + *text +
                                  "'");
        }
        // Each double draw rounded once (nearest even) to FP32.
        source.values.resize(*count);
        for (std::size_t i = 0; i < *count; ++i)
            source.values[i] = static_cast<float>(drawValue(*distribution, seed, i));
        source.description =
            *spec +
            (args.has("outliers") ? " outliers " + *args.value("outliers") : std::string()) +
            " seed " + std::to_string(seed);
    } else {
        auto values = parseValueList(*args.value("values"), error);
        if (!values)
            return usageError(error);
        source.values = std::move(*values);
        source.description = "values (rounded to FP32)";
    }
    if (!source.loaded) {
        source.view.name = source.description;
        source.view.shape = {source.values.size()};
        source.view.floats = source.values;
    }
    if (source.view.size() == 0)
        return dataError(source.description + ": the tensor has no elements");

    // The work, with progress on a terminal's stderr for long runs.
    const bool showProgress = isatty(STDERR_FILENO) == 1 && source.view.size() >= (1u << 24);
    std::vector<FormatRun> runs;
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
        FormatRun r{std::move(*quantized), {}, quantizerPath(format, source.view), {}, {}};
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
            {"shape", shapeText(source.view.shape)},
            {"source", source.description},
            {"block", options.blocks ? blockLayoutId(*options.blocks) : "default"},
            {"scale_rule", std::string(scaleRuleId(options.scaleRule.value_or(ScaleRule::Floor)))}};
        for (const FormatRun& run : runs)
            addOutput(run.quantized, tensors, metadata);
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

    const bool codes = args.has("codes");
    if (args.has("csv")) {
        printCsv(io.out, runs);
    } else if (args.has("json")) {
        Json root;
        root["source"] = source.description;
        root["elements"] = source.view.size();
        root["shape"] = source.view.shape;
        Json results = Json::array();
        for (const FormatRun& run : runs)
            results.push_back(resultJson(run, source.view, codes, maxBlocks));
        root["results"] = std::move(results);
        if (valueHistogram)
            root["histogram"] = histogramJson(*valueHistogram);
        printJson(io.out, root);
    } else {
        printText(io.out, source, runs, codes, maxBlocks, valueHistogram);
    }
    return kExitOk;
}

} // namespace fpx::cli
