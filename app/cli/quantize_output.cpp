// SPDX-License-Identifier: GPL-3.0-or-later
// What fpx quantize prints and writes: the results table (text, CSV, JSON), the listing of
// blocks, histograms, and the tensors of the .safetensors output (docs/behaviour.md, "Block
// formats and quantization", documents their layout).
#include "quantize_output.h"

#include "text_table.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/wide_rounding.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr std::size_t kDirectListingBlock = 32; // a direct cast's elements, listed by 32

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

// SQNR to 4 decimals: the sums behind it are good to far more (docs/behaviour.md, "Block formats
// and quantization").
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

Json resultJson(const QuantizeResult& run, const TensorView& input, bool codes,
                std::size_t maxBlocks) {
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

void printText(std::ostream& out, const std::string& description, const TensorView& input,
               const std::vector<QuantizeResult>& runs, bool codes, std::size_t maxBlocks,
               const std::optional<Histogram>& values) {
    out << description << ": " << input.size() << " elements";
    if (input.shape.size() > 1) {
        out << ", shape";
        for (std::size_t i = 0; i < input.shape.size(); ++i)
            out << (i ? " × " : " ") << input.shape[i];
    }
    out << "\n\n";
    TextTable table({"format", "block", "bits/elem", "bytes", "SQNR dB", "RMSE", "max |error|",
                     "clipped", "flushed", "tensor scale"});
    for (const QuantizeResult& run : runs) {
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
    for (const QuantizeResult& run : runs) {
        const QuantizationReport& r = run.report;
        if (r.nanInputs || r.infInputs)
            out << r.format << ": " << r.nanInputs << " NaN and " << r.infInputs
                << " infinite inputs; " << r.nonFiniteOutputs
                << " finite inputs dequantize to NaN or ±inf (their block's scale is NaN) and "
                   "are left out of the sums\n";
    }
    for (const QuantizeResult& run : runs) {
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
    for (const QuantizeResult& run : runs)
        if (run.errors) {
            out << "\n" << run.report.format << ": errors (x − q)\n";
            printHistogram(out, *run.errors);
        }
    if (!codes)
        return;
    for (const QuantizeResult& run : runs) {
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
                          exactText(input.at(i)),
                          codeToHex(q.code(i), q.format.element.totalBits()),
                          exactText(q.dequantized(i)), head ? scaleBitsText(q, b) : "",
                          head ? exactText(q.blockScale(b)) : ""});
            }
        t.print(out, false);
    }
}

void printCsv(std::ostream& out, const std::vector<QuantizeResult>& runs) {
    out << "format,elements,block,bits_per_element,bytes,sqnr_db,mse,rmse,max_abs_error,clipped,"
           "flushed,tensor_scale,nan_inputs,inf_inputs\n";
    auto number = [](double x) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.17g", x);
        return std::string(buffer);
    };
    for (const QuantizeResult& run : runs) {
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

} // namespace

void printQuantizeText(std::ostream& out, const std::string& description, const TensorView& input,
                       const std::vector<QuantizeResult>& results, const QuantizeListing& listing,
                       const std::optional<Histogram>& values) {
    printText(out, description, input, results, listing.codes, listing.maxBlocks, values);
}

void printQuantizeCsv(std::ostream& out, const std::vector<QuantizeResult>& results) {
    printCsv(out, results);
}

Json quantizeJson(const std::string& description, const TensorView& input,
                  const std::vector<QuantizeResult>& results, const QuantizeListing& listing,
                  const std::optional<Histogram>& values) {
    Json root;
    root["source"] = description;
    root["elements"] = input.size();
    root["shape"] = input.shape;
    Json list = Json::array();
    for (const QuantizeResult& result : results)
        list.push_back(resultJson(result, input, listing.codes, listing.maxBlocks));
    root["results"] = std::move(list);
    if (values)
        root["histogram"] = histogramJson(*values);
    return root;
}

void addQuantizedTensors(const QuantizedTensor& quantized, std::vector<OutputTensor>& tensors,
                         std::vector<std::pair<std::string, std::string>>& metadata) {
    addOutput(quantized, tensors, metadata);
}

} // namespace fpx::cli
