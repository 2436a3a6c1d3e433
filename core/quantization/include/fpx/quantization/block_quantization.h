// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_view.h"
#include "fpx/exact/exact_value.h"
#include "fpx/quantization/block_format.h"
#include "fpx/quantization/error_sums.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fpx {

// A tensor quantized by one BlockFormat: what would be stored, and what happened on the way.
// Every dequantized value (element value × block scale × tensor scale) is exact in a double
// (docs/behaviour.md, "Block formats and quantization", shows why for each scheme).
struct QuantizedTensor {
    BlockFormat format;
    std::vector<std::size_t> shape;
    std::size_t elementCount = 0;
    std::size_t blockSize = 0; // elements per block, resolved (the last block may be shorter)

    // Element codes, packed little-endian, packedBytes(format.element) bytes each (one byte for
    // every format of at most 8 bits: 4-bit codes are not nibble-packed in memory).
    std::vector<std::uint8_t> codes;
    // One stored scale per block: the E8M0 code (Mx), the E4M3 code (Nvfp4), the FP32 bits of
    // the absmax or scale (Nf4, IntAbsmax), or the 8-bit code of the absmax (nf4_dq).
    std::vector<std::uint32_t> scaleCodes;
    // Nvfp4: the FP32 tensor scale s_t. nf4_dq: the FP32 offset (mean of the absmaxes).
    std::optional<float> tensorScale;
    // nf4_dq only: the FP32 scale of each group of 256 absmax codes.
    std::vector<float> groupScales;

    // What the inputs did.
    std::size_t clipped = 0;   // finite inputs whose scaled value saturated at ±element max
    std::size_t flushed = 0;   // non-zero finite inputs that became zero
    std::size_t nanInputs = 0; // NaN inputs (the spec's rule for each scheme says what
    std::size_t infInputs = 0; // their blocks become; see docs/behaviour.md)

    std::size_t blockCount() const { return scaleCodes.empty() ? 1 : scaleCodes.size(); }
    std::size_t blockOf(std::size_t element) const { return blockSize ? element / blockSize : 0; }
    Code code(std::size_t element) const;
    // The value each block's elements are multiplied by (tensor scale included), exactly.
    double blockScale(std::size_t block) const;
    // Element i dequantized: exact (NaN for NaN, ±∞ where the scheme keeps infinities).
    double dequantized(std::size_t element) const;
};

// Called now and then with (elements done, elements in all); return false to cancel.
using QuantizeProgress = std::function<bool(std::size_t done, std::size_t total)>;

// The reference quantizer: every scale and element computed from exact values with
// roundToFormat, one rounding each, as docs/behaviour.md states the rules. Slow (one ExactValue
// per element); the fast kernels (tensor_quantizer.h) are proved against it. nullopt when
// cancelled or when the input cannot be quantized (`error` says why: an empty tensor, a 'row'
// layout on a 0-d tensor …).
std::optional<QuantizedTensor> quantizeExactly(const BlockFormat& format, const TensorView& input,
                                               std::string& error,
                                               const QuantizeProgress& progress = {});

// One MX block whose largest magnitude is |amax|, scaled as quantizeExactly scales it: the E8M0
// scale its format's ScaleRule picks (clamped to 2^−127 … 2^127) and what |amax| becomes in the
// element format. `format` must be an Mx scheme (BlockFormat::scale is E8M0).
struct MxBlockScale {
    bool nonFinite = false;    // amax is NaN or ±∞: the NaN scale, elements +0
    std::int64_t exponent = 0; // the scale is 2^exponent (finite amax only)
    Code scaleCode = 0;        // the E8M0 code: exponent + 127, or 0xff for the NaN scale
    Code elementCode = 0;      // |amax| / 2^exponent, nearest even, saturating
    bool clipped = false;      // that rounding overflowed: the element saturated at its max
};
MxBlockScale mxBlockScale(const BlockFormat& format, const ExactValue& amax);

// The rule every FP32 scale follows (NVFP4's tensor scale, NF4's absmax, the integer scales,
// nf4_dq's offset and group scales): x rounded once to FP32, nearest even, saturating; a
// non-zero x that rounds to 0 gets 2^−149, so that quotients by the scale stay finite.
float fp32ScaleOf(const ExactValue& x);

// Every element dequantized, in order.
std::vector<double> dequantizeAll(const QuantizedTensor& quantized);

// The dequantized values in consecutive pieces of at most `chunk` elements, in order:
// sink(first element, values). Reports and plots stream a large tensor through it without
// holding every value at once.
void dequantizeInChunks(
    const QuantizedTensor& quantized, std::size_t chunk,
    const std::function<void(std::size_t first, const std::vector<double>& values)>& sink);

// How far the quantized tensor is from its input (NaN and ±∞ inputs left out of the sums and
// counted apart). The sums of squares are taken in double over non-negative terms in the
// fixed order of error_sums.h, so their relative error is far below what 4 decimals of
// sqnr_db can show and every path gives the same bits (docs/design.md, "Quantization
// statistics", gives the order and the bound).
struct QuantizationReport {
    std::string format;
    std::size_t elements = 0;
    std::size_t blockSize = 0;
    double bitsPerElement = 0;
    std::size_t bytes = 0;
    double sqnrDb = 0; // 10·log10(Σx² / Σ(x − q)²); +∞ when q = x everywhere
    double mse = 0;
    double rmse = 0;
    double maxAbsError = 0;
    std::size_t maxErrorIndex = 0;
    std::size_t clipped = 0;
    std::size_t flushed = 0;
    std::size_t nanInputs = 0;
    std::size_t infInputs = 0;
    // Finite inputs whose dequantized value is NaN or ±∞ (they share a block, or with
    // per-tensor scales the tensor, with a NaN or ±∞ input): left out of the sums too.
    std::size_t nonFiniteOutputs = 0;
    std::optional<double> tensorScale; // NVFP4's s_tensor; nf4_dq's FP32 offset
};

// On `threads` threads (0: every hardware thread), with the vector loops; the figures do not
// depend on the thread count.
QuantizationReport measureQuantization(const TensorView& input, const QuantizedTensor& quantized,
                                       int threads = 0);
// The same report one element at a time, each value dequantized by the exact core: slow, the
// reference the fast paths are tested against.
QuantizationReport measureQuantizationExactly(const TensorView& input,
                                              const QuantizedTensor& quantized);

// The unit a quantizer's pieces hold whole (error_sums.h): the block size, or 1 for casts
// and for one scale over the whole tensor (they work element by element).
std::size_t statisticsUnit(const BlockFormat& format, std::size_t count, std::size_t blockSize);
// The report's fields that need no sums: format, sizes, bits and bytes, counts, tensor scale.
QuantizationReport quantizationReportHead(const TensorView& input,
                                          const QuantizedTensor& quantized);
// The report's SQNR, MSE, RMSE and largest error from the sums (of terms scaled by
// 2^−scaleExponent), its other fields left as they are.
void finishReport(const ErrorSums& sums, int scaleExponent, QuantizationReport& report);

} // namespace fpx
