// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/tensor_input.h"

#include "fpx/data/histogram.h"
#include "fpx/data/tensor_file.h"
#include "fpx/data/tensor_view.h"
#include "fpx/quantization/block_format.h"
#include "fpx/quantization/block_quantization.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fpx::gui {

struct QuantizationRequest {
    TensorSource source;
    std::vector<std::string> formats; // quantizer ids (findBlockFormat)
    QuantizerOptions options;         // --block, --scale-rule
    std::vector<std::size_t> sweepSizes = {16, 32, 64, 128, 256};
    int valueBins = 160;
    int errorBins = 60;
};

// One format's quantization of the input.
struct FormatOutcome {
    std::string id;
    std::string error; // the format could not be made or applied; nothing else is set
    std::optional<BlockFormat> format;
    std::shared_ptr<const QuantizedTensor> quantized;
    QuantizationReport report;
    std::string path; // how it was quantized ("exact core", a fast kernel's name)
    // |x − q| of the finite elements on a log2 axis; its `zeros` are the elements kept exactly.
    Histogram errors;
};

// SQNR against block size for one scaled format (direct casts have no blocks).
struct SweepCurve {
    std::string format;
    std::vector<std::size_t> blockSizes;
    std::vector<double> sqnrDb;
    std::string note; // why there are no points (the sweep's error)
};

struct QuantizationResult {
    QuantizationRequest request;
    std::string error; // the input could not be read or made: nothing was quantized
    std::shared_ptr<const TensorInput> input;
    // Linear bins over the finite values: over mean ± 6 std when a few outliers would otherwise
    // squeeze the bulk of the values into a bin or two (those outside are in below/above).
    Histogram values;
    std::vector<FormatOutcome> outcomes;
    std::vector<SweepCurve> sweep;
    bool cancelled = false;
};

using QuantizationProgress = std::function<bool(std::size_t done, std::size_t total)>;

// Reads or draws the input, then quantizes it in every format (the fast kernels where they are
// proved, the exact core elsewhere: quantizeTensor), measures each, and sweeps the scaled ones'
// block sizes (sweepBlockSizes).
// `progress` returning false cancels (the formats finished so far are kept). Bad input never
// throws: `error` (or a format's error) says what is wrong. Safe on a worker thread.
QuantizationResult runQuantization(const QuantizationRequest& request,
                                   const QuantizationProgress& progress = {});

std::size_t largestCount(const Histogram& histogram);

// Rows of the block inspector: a block's elements (at most `limit` of them).
struct InspectedElement {
    std::size_t index = 0;
    double input = 0;
    Code code = 0;
    double value = 0; // dequantized, exact
    double error = 0; // input − value (in double: for display)
};
std::vector<InspectedElement> inspectBlock(const TensorInput& input,
                                           const QuantizedTensor& quantized, std::size_t block,
                                           std::size_t limit = 1024);

// Blocks as the inspector counts them: the format's blocks, or for a direct cast (one block,
// no scale) runs of 32 elements.
std::size_t inspectorBlockSize(const QuantizedTensor& quantized);
std::size_t inspectorBlockCount(const QuantizedTensor& quantized);
// The block whose scale is largest in magnitude (the first such).
std::size_t blockWithLargestScale(const QuantizedTensor& quantized);
// The inspector block holding the finite element nearest to `x` (for a click on the values).
std::size_t blockNearestValue(const TensorInput& input, const QuantizedTensor& quantized, double x);

// The element format's finite values times `scale`, within [low, high], ascending and without
// repeats; empty when the element format is wider than 16 bits or more than `maxLines` values
// would be drawn (too fine to see).
std::vector<double> representableGrid(const BlockFormat& format, double scale, double low,
                                      double high, std::size_t maxLines = 2048);

} // namespace fpx::gui
