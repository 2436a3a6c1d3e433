// SPDX-License-Identifier: GPL-3.0-or-later
// How far a quantized tensor is from its input: SQNR, MSE, the largest error
// (docs/behaviour.md, "Block formats and quantization", bounds the error of the sums).
#include "fpx/quantization/block_quantization.h"

#include "fpx/data/signal_noise.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fpx {

QuantizationReport measureQuantization(const TensorView& input, const QuantizedTensor& quantized) {
    QuantizationReport r;
    r.format = quantized.format.id;
    r.elements = quantized.elementCount;
    r.blockSize = quantized.blockSize;
    r.bitsPerElement = bitsPerElement(quantized.format, r.elements, input.rowLength());
    r.bytes = storageBytes(quantized.format, r.elements, input.rowLength());
    r.clipped = quantized.clipped;
    r.flushed = quantized.flushed;
    r.nanInputs = quantized.nanInputs;
    r.infInputs = quantized.infInputs;
    if (quantized.tensorScale)
        r.tensorScale = double(*quantized.tensorScale);

    // The squares' sums (SignalNoiseSums) over the finite inputs whose reconstruction is finite.
    double amax = 0;
    for (std::size_t i = 0; i < input.size(); ++i)
        if (std::isfinite(input.at(i)))
            amax = std::max(amax, std::fabs(input.at(i)));
    SignalNoiseSums sums(amax);
    dequantizeInChunks(quantized, std::size_t(1) << 16,
                       [&](std::size_t first, const std::vector<double>& values) {
                           for (std::size_t j = 0; j < values.size(); ++j) {
                               const double x = input.at(first + j);
                               const double q = values[j];
                               if (!std::isfinite(x))
                                   continue;
                               if (!std::isfinite(q)) {
                                   ++r.nonFiniteOutputs;
                                   continue;
                               }
                               const double error = std::fabs(x - q);
                               if (error > r.maxAbsError) {
                                   r.maxAbsError = error;
                                   r.maxErrorIndex = first + j;
                               }
                               sums.add(x, q);
                           }
                       });
    const SignalNoiseSums::Totals totals = sums.totals();
    r.sqnrDb = totals.sqnrDb;
    r.mse = totals.mse;
    r.rmse = std::sqrt(r.mse);
    return r;
}

} // namespace fpx
