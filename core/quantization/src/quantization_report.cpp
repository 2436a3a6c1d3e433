// SPDX-License-Identifier: GPL-3.0-or-later
// How far a quantized tensor is from its input: SQNR, MSE, the largest error, with the sums in
// the fixed order of error_sums.h (docs/design.md, "Quantization statistics"), on every thread
// with the vector loops, and again one element at a time through the exact core (the
// reference the fast paths are tested against).
#include "fpx/quantization/block_quantization.h"

#include "error_loops.h"
#include "fast_dequantizer.h"
#include "fpx/exact/parallel_chunks.h"
#include "fpx/quantization/error_sums.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace fpx {

namespace {

// FP64 inputs are scaled by 2^−k, k the binade of their finite amax, so that no square
// overflows; FP32 inputs need no scaling (their squares and the squares of their errors
// are normal doubles far from the limits: docs/design.md, "Quantization statistics").
int scaleExponent(const TensorView& input) {
    if (!input.isDouble())
        return 0;
    double amax = 0;
    for (const double x : input.doubles)
        if (std::isfinite(x))
            amax = std::max(amax, std::fabs(x));
    return amax > 0 ? std::max(std::ilogb(amax), -1022) : 0;
}

// The chunks' extents of a tensor of n elements.
struct Chunking {
    std::size_t piece = 0;
    std::size_t chunk = 0;
    std::size_t chunks = 0;
};
Chunking chunkingFor(const QuantizedTensor& quantized) {
    const std::size_t n = quantized.elementCount;
    const std::size_t unit = statisticsUnit(quantized.format, n, quantized.blockSize);
    Chunking c{statisticsPiece(unit), statisticsChunk(unit), 0};
    c.chunks = (n + c.chunk - 1) / c.chunk;
    return c;
}

} // namespace

std::size_t statisticsUnit(const BlockFormat& format, std::size_t count, std::size_t blockSize) {
    // Casts and a single scale work element by element, so any cut is a whole number of units.
    if (format.scheme == BlockScheme::Direct || blockSize == 0 || blockSize >= count)
        return 1;
    return blockSize;
}

QuantizationReport quantizationReportHead(const TensorView& input,
                                          const QuantizedTensor& quantized) {
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
    return r;
}

void finishReport(const ErrorSums& sums, int scaleExponent, QuantizationReport& r) {
    r.nonFiniteOutputs = sums.nonFiniteOutputs;
    r.maxAbsError = std::ldexp(sums.maxAbsError, scaleExponent);
    r.maxErrorIndex = sums.maxErrorIndex;
    if (sums.valid == 0) {
        r.sqnrDb = r.mse = r.rmse = std::numeric_limits<double>::quiet_NaN();
        return;
    }
    r.sqnrDb = sums.noise == 0 ? std::numeric_limits<double>::infinity()
                               : 10 * std::log10(sums.signal / sums.noise);
    r.mse = std::ldexp(sums.noise / double(sums.valid), 2 * scaleExponent);
    r.rmse = std::sqrt(r.mse);
}

QuantizationReport measureQuantization(const TensorView& input, const QuantizedTensor& quantized,
                                       int threads) {
    QuantizationReport r = quantizationReportHead(input, quantized);
    const int k = scaleExponent(input);
    const double factor = std::ldexp(1.0, -k);
    const Chunking c = chunkingFor(quantized);
    const std::size_t n = quantized.elementCount;
    const FastDequantizer dequantizer(quantized.format);
    const StoredCodes stored = StoredCodes::of(quantized);
    const kernels::ErrorLoops& loops = kernels::fastestErrorLoops();
    std::vector<ErrorSums> chunkSums(c.chunks);
    parallelChunks(
        c.chunks, 1, static_cast<unsigned>(std::max(threads, 0)),
        [&](std::size_t begin, std::size_t end) {
            std::vector<double> q;
            for (std::size_t chunk = begin; chunk < end; ++chunk) {
                const std::size_t chunkEnd = std::min(n, (chunk + 1) * c.chunk);
                for (std::size_t first = chunk * c.chunk; first < chunkEnd; first += c.piece) {
                    const std::size_t count = std::min(c.piece, chunkEnd - first);
                    ErrorSums piece;
                    if (input.isDouble()) {
                        q.resize(count);
                        dequantizer.values(stored, first, count, q.data());
                        loops.pieceOfDoubles(input.doubles.data() + first, q.data(), count, first,
                                             factor, piece);
                    } else {
                        piece = dequantizer.pieceSums(stored, input.floats.data(), first, count, q);
                    }
                    chunkSums[chunk].append(piece);
                }
            }
        });
    finishReport(chunkSumsInOrder(chunkSums.data(), chunkSums.size()), k, r);
    return r;
}

QuantizationReport measureQuantizationExactly(const TensorView& input,
                                              const QuantizedTensor& quantized) {
    QuantizationReport r = quantizationReportHead(input, quantized);
    const int k = scaleExponent(input);
    const double factor = std::ldexp(1.0, -k);
    const Chunking c = chunkingFor(quantized);
    const std::size_t n = quantized.elementCount;
    std::vector<ErrorSums> chunkSums(c.chunks);
    for (std::size_t chunk = 0; chunk < c.chunks; ++chunk) {
        const std::size_t chunkEnd = std::min(n, (chunk + 1) * c.chunk);
        for (std::size_t first = chunk * c.chunk; first < chunkEnd; first += c.piece) {
            ErrorLane lanes[kErrorLanes];
            const std::size_t end = std::min(chunkEnd, first + c.piece);
            for (std::size_t i = first; i < end; ++i)
                lanes[(i - first) % kErrorLanes].add(input.at(i) * factor,
                                                     quantized.dequantized(i) * factor, i);
            chunkSums[chunk].append(meetLanes(lanes));
        }
    }
    finishReport(chunkSumsInOrder(chunkSums.data(), chunkSums.size()), k, r);
    return r;
}

} // namespace fpx
