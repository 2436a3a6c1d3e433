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

// A cast has no blocks: its block cell is empty (null in JSON).
bool hasBlocks(const QuantizeResult& run) {
    return run.quantized.format.scheme != BlockScheme::Direct;
}

std::string blockText(const QuantizeResult& run) {
    return hasBlocks(run) ? std::to_string(run.report.blockSize) : "";
}

std::string tensorScaleText(const QuantizeResult& run) {
    const QuantizationReport& r = run.report;
    if (!r.tensorScale)
        return "-";
    return run.quantized.format.doubleQuantized ? "offset " + shortText(*r.tensorScale)
                                                : shortText(*r.tensorScale);
}

Json resultJson(const QuantizeResult& run, const TensorView& input, bool codes,
                std::size_t maxBlocks) {
    const QuantizationReport& r = run.report;
    const BlockFormat& f = run.quantized.format;
    Json json;
    json["format"] = r.format;
    json["elements"] = r.elements;
    json["block"] = hasBlocks(run) ? Json(r.blockSize) : Json(nullptr);
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

void printShape(std::ostream& out, const std::vector<std::size_t>& shape) {
    for (std::size_t i = 0; i < shape.size(); ++i)
        out << (i ? " × " : " ") << shape[i];
}

void printNonFinite(std::ostream& out, const std::string& where, const QuantizationReport& r) {
    if (r.nanInputs || r.infInputs)
        out << where << r.format << ": " << r.nanInputs << " NaN and " << r.infInputs
            << " infinite inputs; " << r.nonFiniteOutputs
            << " finite inputs dequantize to NaN or ±inf (their block's scale is NaN) and "
               "are left out of the sums\n";
}

void printListings(std::ostream& out, const TensorResults& tensor, bool codes,
                   std::size_t maxBlocks) {
    for (const QuantizeResult& run : tensor.results) {
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
    for (const QuantizeResult& run : tensor.results)
        if (run.errors) {
            out << "\n" << run.report.format << ": errors (x − q)\n";
            printHistogram(out, *run.errors);
        }
    if (!codes)
        return;
    const TensorView& input = tensor.view;
    for (const QuantizeResult& run : tensor.results) {
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

// One tensor: today's table, a row per format.
void printOneTensor(std::ostream& out, const QuantizeReport& report, bool codes,
                    std::size_t maxBlocks) {
    const TensorResults& tensor = report.tensors.front();
    out << report.description << ": " << tensor.elements << " elements";
    if (tensor.shape.size() > 1) {
        out << ", shape";
        printShape(out, tensor.shape);
    }
    if (report.axis)
        out << ", blocks along axis " << *report.axis;
    out << "\n\n";
    TextTable table({"format", "block", "bits/elem", "bytes", "SQNR dB", "RMSE", "max |error|",
                     "clipped", "flushed", "tensor scale"});
    for (const QuantizeResult& run : tensor.results) {
        const QuantizationReport& r = run.report;
        table.addRow({r.format, blockText(run), shortText(r.bitsPerElement),
                      std::to_string(r.bytes), sqnrText(r.sqnrDb), shortText(r.rmse),
                      shortText(r.maxAbsError), std::to_string(r.clipped),
                      std::to_string(r.flushed), tensorScaleText(run)});
    }
    table.print(out, false);
    for (const QuantizeResult& run : tensor.results)
        printNonFinite(out, "", run.report);
    if (report.values) {
        out << "\nvalues:\n";
        printHistogram(out, *report.values);
    }
    printListings(out, tensor, codes, maxBlocks);
}

// A whole file or model: a row per tensor and format, then a total per format.
void printWholeFile(std::ostream& out, const QuantizeReport& report) {
    std::size_t elements = 0;
    for (const TensorResults& t : report.tensors)
        elements += t.elements;
    out << report.description << ": " << report.tensors.size()
        << (report.tensors.size() == 1 ? " tensor, " : " tensors, ") << elements << " elements";
    if (report.axis)
        out << ", blocks along axis " << *report.axis;
    out << "\n\n";
    TextTable table({"tensor", "shape", "format", "block", "bits/elem", "bytes", "SQNR dB", "RMSE",
                     "max |error|", "clipped", "flushed", "tensor scale"});
    for (const TensorResults& t : report.tensors)
        for (const QuantizeResult& run : t.results) {
            const QuantizationReport& r = run.report;
            table.addRow({t.name, shapeText(t.shape), r.format, blockText(run),
                          shortText(r.bitsPerElement), std::to_string(r.bytes), sqnrText(r.sqnrDb),
                          shortText(r.rmse), shortText(r.maxAbsError), std::to_string(r.clipped),
                          std::to_string(r.flushed), tensorScaleText(run)});
        }
    table.print(out, false);
    for (const TensorResults& t : report.tensors)
        for (const QuantizeResult& run : t.results)
            printNonFinite(out, t.name + ", ", run.report);
    out << "\ntotal (SQNR: the mean over tensors weighted by their elements)\n";
    TextTable totals({"format", "tensors", "elements", "bits/elem", "bytes", "SQNR dB",
                      "max |error|", "clipped", "flushed"});
    for (const QuantizationTotal& total : report.totals)
        totals.addRow({total.format, std::to_string(total.tensors), std::to_string(total.elements),
                       shortText(total.bitsPerElement), std::to_string(total.bytes),
                       sqnrText(total.sqnrDb), shortText(total.maxAbsError),
                       std::to_string(total.clipped), std::to_string(total.flushed)});
    totals.print(out, false);
    for (const QuantizationTotal& total : report.totals)
        if (total.exactTensors)
            out << total.format << ": " << total.exactTensors
                << " tensors quantized without error (SQNR inf) are left out of the mean\n";
    for (const SkippedTensor& skipped : report.skipped)
        out << "skipped " << skipped.name << " (" << skipped.dtype << "): " << skipped.reason
            << '\n';
}

std::string csvNumber(double x) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", x);
    return buffer;
}

// A row per tensor and format ("tensor" rows), then per format over every tensor ("total"
// rows, whose mse, rmse and tensor_scale cells are empty).
void printCsv(std::ostream& out, const QuantizeReport& report) {
    out << "scope,tensor,format,elements,block,bits_per_element,bytes,sqnr_db,mse,rmse,"
           "max_abs_error,clipped,flushed,tensor_scale,nan_inputs,inf_inputs\n";
    for (const TensorResults& t : report.tensors)
        for (const QuantizeResult& run : t.results) {
            const QuantizationReport& r = run.report;
            out << "tensor," << csvField(t.name) << ',' << r.format << ',' << r.elements << ','
                << blockText(run) << ',' << csvNumber(r.bitsPerElement) << ',' << r.bytes << ','
                << sqnrText(r.sqnrDb) << ',' << csvNumber(r.mse) << ',' << csvNumber(r.rmse) << ','
                << csvNumber(r.maxAbsError) << ',' << r.clipped << ',' << r.flushed << ','
                << (r.tensorScale ? exactText(*r.tensorScale) : "") << ',' << r.nanInputs << ','
                << r.infInputs << '\n';
        }
    if (!report.wholeFile)
        return;
    for (const QuantizationTotal& total : report.totals)
        out << "total,," << total.format << ',' << total.elements << ",,"
            << csvNumber(total.bitsPerElement) << ',' << total.bytes << ','
            << sqnrText(total.sqnrDb) << ",,," << csvNumber(total.maxAbsError) << ','
            << total.clipped << ',' << total.flushed << ",," << total.nanInputs << ','
            << total.infInputs << '\n';
}

// Element codes as stored in the .safetensors output: 4-bit codes two to a byte, low nibble
// first; up to 8 bits one a byte; wider ones little-endian in U16/U32/U64.
OutputTensor codesTensor(const QuantizedTensor& q, const std::string& prefix) {
    OutputTensor t;
    t.name = prefix + ".codes";
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

void addOutput(const QuantizedTensor& q, const std::string& prefix,
               std::vector<OutputTensor>& tensors,
               std::vector<std::pair<std::string, std::string>>& metadata) {
    const BlockFormat& f = q.format;
    tensors.push_back(codesTensor(q, prefix));
    if (f.scheme != BlockScheme::Direct) {
        const bool floatScales = f.scheme == BlockScheme::IntAbsmax ||
                                 (f.scheme == BlockScheme::Nf4 && !f.doubleQuantized);
        OutputTensor scales{
            prefix + ".scales", floatScales ? "F32" : "U8", {q.scaleCodes.size()}, {}};
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
        tensors.push_back(floatsTensor(prefix + ".tensor_scale", {*q.tensorScale}));
    if (f.doubleQuantized) {
        tensors.push_back(floatsTensor(prefix + ".offset", {*q.tensorScale}));
        tensors.push_back(floatsTensor(prefix + ".group_scales", q.groupScales));
    }
    metadata.emplace_back(prefix + ".element", f.element.id);
    metadata.emplace_back(prefix + ".scale", f.scale ? f.scale->id : "none");
    metadata.emplace_back(prefix + ".block", std::to_string(q.blockSize));
    if (f.scheme == BlockScheme::Mx)
        metadata.emplace_back(prefix + ".scale_rule", std::string(scaleRuleId(f.scaleRule)));
}

} // namespace

void printQuantizeText(std::ostream& out, const QuantizeReport& report,
                       const QuantizeListing& listing) {
    if (report.wholeFile)
        printWholeFile(out, report);
    else
        printOneTensor(out, report, listing.codes, listing.maxBlocks);
}

void printQuantizeCsv(std::ostream& out, const QuantizeReport& report) {
    printCsv(out, report);
}

Json totalJson(const QuantizationTotal& t) {
    return {{"format", t.format},
            {"tensors", t.tensors},
            {"elements", t.elements},
            {"bytes", t.bytes},
            {"bits_per_element", t.bitsPerElement},
            {"sqnr_db", sqnrJson(t.sqnrDb)},
            {"exact_tensors", t.exactTensors},
            {"max_abs_error", numberOrText(t.maxAbsError)},
            {"clipped", t.clipped},
            {"flushed", t.flushed},
            {"nan_inputs", t.nanInputs},
            {"inf_inputs", t.infInputs},
            {"non_finite_outputs", t.nonFiniteOutputs}};
}

Json quantizeJson(const QuantizeReport& report, const QuantizeListing& listing) {
    Json root;
    root["source"] = report.description;
    root["axis"] = report.axis ? Json(*report.axis) : Json(nullptr);
    Json tensors = Json::array();
    for (const TensorResults& t : report.tensors) {
        Json list = Json::array();
        for (const QuantizeResult& result : t.results)
            list.push_back(resultJson(result, t.view, listing.codes, listing.maxBlocks));
        tensors.push_back({{"name", t.name},
                           {"dtype", t.dtype},
                           {"shape", t.shape},
                           {"elements", t.elements},
                           {"results", std::move(list)}});
    }
    if (!report.wholeFile && !report.tensors.empty()) {
        // One tensor: its results at the top as well, where a single tensor's report keeps them.
        root["elements"] = report.tensors.front().elements;
        root["shape"] = report.tensors.front().shape;
        root["results"] = tensors.front()["results"];
    }
    root["tensors"] = std::move(tensors);
    Json totals = Json::array();
    for (const QuantizationTotal& t : report.totals)
        totals.push_back(totalJson(t));
    root["total"] = std::move(totals);
    Json skipped = Json::array();
    for (const SkippedTensor& t : report.skipped)
        skipped.push_back({{"name", t.name}, {"dtype", t.dtype}, {"reason", t.reason}});
    root["skipped"] = std::move(skipped);
    if (report.values)
        root["histogram"] = histogramJson(*report.values);
    return root;
}

void addQuantizedTensors(const QuantizedTensor& quantized, const std::string& prefix,
                         std::vector<OutputTensor>& tensors,
                         std::vector<std::pair<std::string, std::string>>& metadata) {
    addOutput(quantized, prefix, tensors, metadata);
}

} // namespace fpx::cli
