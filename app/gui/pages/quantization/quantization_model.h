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
    // The block whose scale is largest in magnitude (blockWithLargestScale), found on the
    // worker: a large tensor has too many blocks to scan on the GUI thread at each redraw.
    std::size_t largestScaleBlock = 0;
    // The element format's finite values, ascending, without repeats (elementGrid): the grid
    // the values plot scales by a block's scale.
    std::vector<double> elementValues;
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

// What a run is doing, for the progress display.
enum class QuantizationStage {
    Reading,    // reading or drawing the tensor: no count is known yet
    Quantizing, // every format in one pass over the tensor, the reports on the way
    Errors,     // each format's |error| histogram from its dequantized values
    Sweeping,   // every scaled format at every sweep block size, in one more pass
};

// Elements read so far out of every element the run will read (each stage reads the tensor
// once or more; a count is corrected when its stage starts and knows it exactly). Returning
// false cancels. Called from the run's threads one at a time.
using QuantizationProgress =
    std::function<bool(QuantizationStage stage, std::size_t done, std::size_t total)>;

// Reads or draws the input, then quantizes it in every format in one pass (runQuantizationPass:
// the fast kernels where they are proved, the exact core elsewhere, each report the one
// measureQuantization gives), histograms each format's errors, and sweeps the scaled ones'
// block sizes in a second pass. `progress` returning false cancels: the result then has
// `cancelled` set and nothing else worth showing. Bad input never throws: `error` (or a
// format's error) says what is wrong. Safe on a worker thread.
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
// The block whose scale is largest in magnitude (the first such). Each distinct stored scale
// code is decoded once, so a tensor of millions of blocks costs a scan of their codes.
std::size_t blockWithLargestScale(const QuantizedTensor& quantized);
// The inspector block holding the finite element nearest to `x` (for a click on the values):
// the first such element, searched on every hardware thread.
std::size_t blockNearestValue(const TensorInput& input, const QuantizedTensor& quantized, double x);

// The element format's finite values, ascending and without repeats (−0 and +0 one value);
// empty when the element format is wider than 16 bits. Decoded by the exact core: a worker's
// job for the 16-bit formats.
std::vector<double> elementGrid(const BlockFormat& format);
// `elementValues` (elementGrid) times `scale`, within [low, high], ascending and without
// repeats; empty when there are none, or more than `maxLines` would be drawn (too fine to see).
std::vector<double> scaledGrid(const std::vector<double>& elementValues, double scale, double low,
                               double high, std::size_t maxLines = 2048);

} // namespace fpx::gui
