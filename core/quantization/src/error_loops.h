// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/quantization/error_sums.h"

#include <cstddef>
#include <cstdint>

// The loops that dequantize and measure a quantization, compiled once per instruction set
// (error_loops_avx512.cpp, error_loops_avx2.cpp, error_loops_baseline.cpp, each including
// error_loops_body.h with floating-point contraction off): every copy does the same
// arithmetic in the same order (error_sums.h), so they give the same bits, and the fastest the
// CPU runs is chosen at run time.

namespace fpx::kernels {

struct ErrorLoops {
    const char* isaName;
    // values[i] = table[codes[i]] · scale for i < count: one block's elements (one-byte codes),
    // the product exact (docs/behaviour.md, "Block formats and quantization").
    void (*scaledLookup)(const std::uint8_t* codes, std::size_t count, const double* table,
                         double scale, double* values);
    // One piece's sums in the order of error_sums.h: inputs x (FP32, or FP64 times `factor`,
    // a power of two), reconstructions q (times `factor` too), elements first … first + count.
    void (*pieceOfFloats)(const float* x, const double* q, std::size_t count, std::size_t first,
                          ErrorSums& sums);
    void (*pieceOfDoubles)(const double* x, const double* q, std::size_t count, std::size_t first,
                           double factor, ErrorSums& sums);
    // The same for FP32 inputs and one-byte codes, dequantized on the way without a buffer:
    // q = table[code] · scales[(element − piece start) / blockSize]; `table` holds 256 values
    // (16 where `sixteen`, codes below 16), blockSize a multiple of 8.
    void (*pieceOfCodes)(const float* x, const std::uint8_t* codes, std::size_t count,
                         std::size_t blockSize, const double* scales, const double* table,
                         bool sixteen, std::size_t first, ErrorSums& sums);
};

const ErrorLoops& baselineErrorLoops();
const ErrorLoops* avx2ErrorLoops(); // nullptr where not built (not x86-64)
const ErrorLoops* avx512ErrorLoops();
// The fastest of them this CPU runs.
const ErrorLoops& fastestErrorLoops();

} // namespace fpx::kernels
