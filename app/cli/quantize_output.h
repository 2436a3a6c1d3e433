// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "presentation.h"

#include "fpx/data/histogram.h"
#include "fpx/data/tensor_file.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/block_size_sweep.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fpx::cli {

// One format's results in fpx quantize.
struct QuantizeResult {
    QuantizedTensor quantized;
    QuantizationReport report;
    QuantizerPath path;
    std::vector<BlockSizePoint> sweep; // --sweep
    std::optional<Histogram> errors;   // --histogram: x − q of the finite inputs
};

// --codes: list the first maxBlocks blocks of each format.
struct QuantizeListing {
    bool codes = false;
    std::size_t maxBlocks = 0;
};

void printQuantizeText(std::ostream& out, const std::string& description, const TensorView& input,
                       const std::vector<QuantizeResult>& results, const QuantizeListing& listing,
                       const std::optional<Histogram>& values);
void printQuantizeCsv(std::ostream& out, const std::vector<QuantizeResult>& results);
Json quantizeJson(const std::string& description, const TensorView& input,
                  const std::vector<QuantizeResult>& results, const QuantizeListing& listing,
                  const std::optional<Histogram>& values);

// One format's tensors in the .safetensors output (codes, scales, tensor and group scales) and
// its metadata entries, as docs/behaviour.md, "Block formats and quantization", lays them out.
void addQuantizedTensors(const QuantizedTensor& quantized, std::vector<OutputTensor>& tensors,
                         std::vector<std::pair<std::string, std::string>>& metadata);

} // namespace fpx::cli
