// SPDX-License-Identifier: GPL-3.0-or-later
// How far a quantized tensor is from its input: SQNR, MSE, the largest error
// (docs/design.md, "Block formats and quantization", bounds the error of the sums).
#include "fpx/block_quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fpx {

namespace {

// Pairwise summation of non-negative terms: the relative error of the result is at most
// about log2(n) units in the last place of a double, however many terms there are.
double pairwiseSum(const double* terms, std::size_t count) {
    if (count <= 64) {
        double sum = 0;
        for (std::size_t i = 0; i < count; ++i)
            sum += terms[i];
        return sum;
    }
    const std::size_t half = count / 2;
    return pairwiseSum(terms, half) + pairwiseSum(terms + half, count - half);
}

double pairwiseSum(const std::vector<double>& terms) {
    return pairwiseSum(terms.data(), terms.size());
}

} // namespace

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

    // Every term is scaled by the same power of two 2^−k, so that neither x² nor (x − q)²
    // overflows for inputs near the double max; the ratio is unchanged and mse is scaled back.
    double amax = 0;
    for (std::size_t i = 0; i < input.size(); ++i)
        if (std::isfinite(input.at(i)))
            amax = std::max(amax, std::fabs(input.at(i)));
    const int k = amax > 0 ? std::ilogb(amax) : 0;

    std::vector<double> signalChunks, noiseChunks, signal, noise;
    std::size_t counted = 0;
    dequantizeInChunks(quantized, std::size_t(1) << 16,
                       [&](std::size_t first, const std::vector<double>& values) {
                           signal.clear();
                           noise.clear();
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
                               const double xs = std::ldexp(x, -k);
                               const double es = std::ldexp(x, -k) - std::ldexp(q, -k);
                               signal.push_back(xs * xs);
                               noise.push_back(es * es);
                               ++counted;
                           }
                           signalChunks.push_back(pairwiseSum(signal));
                           noiseChunks.push_back(pairwiseSum(noise));
                       });
    if (counted == 0) {
        r.sqnrDb = r.mse = r.rmse = std::numeric_limits<double>::quiet_NaN();
        return r;
    }
    const double signalSum = pairwiseSum(signalChunks);
    const double noiseSum = pairwiseSum(noiseChunks);
    if (noiseSum == 0)
        r.sqnrDb = std::numeric_limits<double>::infinity();
    else
        r.sqnrDb = 10 * std::log10(signalSum / noiseSum);
    r.mse = std::ldexp(noiseSum / double(counted), 2 * k);
    r.rmse = std::sqrt(r.mse);
    return r;
}

} // namespace fpx
