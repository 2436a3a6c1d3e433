// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <cstddef>
#include <string>
#include <vector>

namespace fpx {

// One point of a sweep: the format quantized with blocks of `blockSize` elements.
struct BlockSizePoint {
    std::size_t blockSize = 0;
    QuantizationReport report;
};

// SQNR, errors and bits per element of `format` against its block size: the tensor quantized
// once per size (through quantizeTensor, so the fast kernels serve it), each in the order
// given. A scheme without blocks (a direct cast) or a size of 0 is an error; empty result
// with `error` set then, or when cancelled (run.progress sees the elements of every size
// together).
std::vector<BlockSizePoint> sweepBlockSizes(const BlockFormat& format, const TensorView& input,
                                            const std::vector<std::size_t>& sizes,
                                            std::string& error, const QuantizeRun& run = {});

} // namespace fpx
