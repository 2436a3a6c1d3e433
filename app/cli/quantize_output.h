// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "presentation.h"

#include "fpx/data/histogram.h"
#include "fpx/data/tensor_file.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/block_size_sweep.h"
#include "fpx/quantization/quantization_pass.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fpx::cli {

// One format's results in fpx quantize. `quantized` holds the codes only when a file or a
// listing asks for them; its format is always set.
struct QuantizeResult {
    QuantizedTensor quantized;
    QuantizationReport report;
    QuantizerPath path;
    std::vector<BlockSizePoint> sweep; // --sweep
    std::optional<Histogram> errors;   // --histogram: x − q of the finite inputs
};

// One tensor's results, a row per format.
struct TensorResults {
    std::string name;
    std::string dtype; // as its file spells it; empty for generated values
    std::vector<std::size_t> shape;
    std::size_t elements = 0;
    TensorView view; // the values quantized, while `keepAlive` holds them (listings only)
    std::shared_ptr<const void> keepAlive;
    std::vector<QuantizeResult> results;
};

// A tensor of the file that was not quantized, and why.
struct SkippedTensor {
    std::string name;
    std::string dtype;
    std::string reason;
};

struct QuantizeReport {
    std::string description; // the file, model or generated values
    bool wholeFile = false;  // every tensor of a file or model: a tensor column and totals
    std::vector<TensorResults> tensors;
    std::vector<QuantizationTotal> totals; // per format, in the rows' order
    std::vector<SkippedTensor> skipped;
    std::optional<Histogram> values; // --histogram: the input's values
    std::optional<std::size_t> axis; // --axis: the blocks run along it
};

// --codes: list the first maxBlocks blocks of each format.
struct QuantizeListing {
    bool codes = false;
    std::size_t maxBlocks = 0;
};

void printQuantizeText(std::ostream& out, const QuantizeReport& report,
                       const QuantizeListing& listing);
void printQuantizeCsv(std::ostream& out, const QuantizeReport& report);
Json quantizeJson(const QuantizeReport& report, const QuantizeListing& listing);

// One format's tensors in the .safetensors output (codes, scales, tensor and group scales) and
// its metadata entries, their names starting with `prefix` (the format's id, or
// "TENSOR.FORMAT" for a whole file), as docs/behaviour.md, "Block formats and quantization",
// lays them out.
void addQuantizedTensors(const QuantizedTensor& quantized, const std::string& prefix,
                         std::vector<OutputTensor>& tensors,
                         std::vector<std::pair<std::string, std::string>>& metadata);

} // namespace fpx::cli
