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

// What a one-byte code's value is, beyond table[code]: Sixteen, codes below 16 (4-bit
// elements, a register's lookup); SignedBytes, the code as a two's-complement byte times a
// power of two `unit` (int8 levels, MXINT8's k/64), no lookup at all; HalfBits, a small float
// whose bits, moved into an FP16's, give its value times `unit` (FP8, FP6: a conversion instead
// of a gather). FastDequantizer chooses one only where it gives every code's table value, checked
// code by code.
enum class CodeValues { Table, Sixteen, SignedBytes, HalfBits };

struct CodeDecoding {
    CodeValues values = CodeValues::Table;
    double unit = 1;
    // HalfBits: FP16 bits = (code & magnitudeMask) << fractionShift | (code & signMask) <<
    // signShift; a magnitude equal to nanMagnitude is NaN (0xffff: none).
    std::uint16_t magnitudeMask = 0;
    std::uint16_t signMask = 0;
    int fractionShift = 0;
    int signShift = 0;
    std::uint16_t nanMagnitude = 0xffff;
};

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
    // q = value(code) · scales[(element − piece start) / blockSize], blockSize a multiple of 8;
    // value(code) = table[code] (256 entries), which `values` may say more of. finiteInputs:
    // the caller knows every x is finite (the quantizer saw no NaN or ±∞), which allows a
    // shorter loop with the same results.
    void (*pieceOfCodes)(const float* x, const std::uint8_t* codes, std::size_t count,
                         std::size_t blockSize, const double* scales, const double* table,
                         const CodeDecoding& decoding, bool finiteInputs, std::size_t first,
                         ErrorSums& sums);
};

const ErrorLoops& baselineErrorLoops();
const ErrorLoops* avx2ErrorLoops(); // nullptr where not built (not x86-64)
const ErrorLoops* avx512ErrorLoops();
// The fastest of them this CPU runs.
const ErrorLoops& fastestErrorLoops();

} // namespace fpx::kernels
