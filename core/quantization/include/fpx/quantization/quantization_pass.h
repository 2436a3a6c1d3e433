// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_view.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace fpx {

// Many tensors quantized into many formats with the tensors read once: each chunk of a tensor
// is quantized into every format while it is in the cache, the report's sums are taken on the
// way (error_sums.h, the same bits as measureQuantization), and no codes are kept unless they
// are asked for. Chunks of every tensor are shared among the threads by elements, so many
// small tensors and one large one keep every thread busy alike. NVFP4 and one scale per tensor
// read a tensor twice (its amax first). What the fast loops do not cover (FP64 tensors, nf4_dq,
// formats only the exact core quantizes) goes through quantizeTensor and measureQuantization,
// with the same figures.
struct QuantizationPass {
    std::vector<TensorView> tensors;
    std::vector<BlockFormat> formats;
    bool keepQuantized = false; // the codes of every tensor and format, for files and listings
};

struct QuantizationPassResult {
    // [tensor][format], in the request's order. A tensor a format cannot quantize (an empty
    // tensor, a 'row' layout on a 0-d tensor) has its error instead of a report.
    std::vector<std::vector<QuantizationReport>> reports;
    std::vector<std::vector<std::string>> errors;
    std::vector<std::vector<QuantizedTensor>> quantized; // keepQuantized only
};

// run.progress is told the elements read so far out of every element of every tensor times
// the passes over it (1, or 2 for a tensor with an NVFP4 or per-tensor format); returning
// false cancels, and the result is then nullopt with `error` saying so.
std::optional<QuantizationPassResult>
runQuantizationPass(const QuantizationPass& pass, std::string& error, const QuantizeRun& run = {});

// One format over many tensors (a whole model): sums and the elements-weighted SQNR.
struct QuantizationTotal {
    std::string format;
    std::size_t tensors = 0;
    std::size_t elements = 0;
    std::size_t bytes = 0;
    double bitsPerElement = 0; // 8 · bytes / elements
    // Σ elements · SQNR / Σ elements over the tensors whose SQNR is finite; +∞ when every
    // tensor is exact, NaN when none has a SQNR.
    double sqnrDb = 0;
    std::size_t exactTensors = 0; // SQNR +∞: quantized without error, left out of the mean
    double maxAbsError = 0;
    std::size_t clipped = 0;
    std::size_t flushed = 0;
    std::size_t nanInputs = 0;
    std::size_t infInputs = 0;
    std::size_t nonFiniteOutputs = 0;
};
QuantizationTotal quantizationTotal(const std::vector<const QuantizationReport*>& reports);

} // namespace fpx
