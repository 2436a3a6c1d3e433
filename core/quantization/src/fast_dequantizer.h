// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "error_loops.h"
#include "fpx/quantization/block_quantization.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fpx {

// A quantized tensor's values, element value × block scale, each exact in a double as
// QuantizedTensor::dequantized gives it, without the exact core per element: tables of the
// element values and the scale values, built once from the exact core, and one vector loop per
// block. The scales of nf4_dq, FP32(k · group scale + offset), are rounded by the reasoning in
// nf4DoubleQuantizedAbsmax.
class FastDequantizer {
  public:
    // `quantized` must outlive this object.
    explicit FastDequantizer(const QuantizedTensor& quantized);

    // Elements [first, first + count) into values[0 … count − 1].
    void values(std::size_t first, std::size_t count, double* values) const;

    // The sums of one piece (error_sums.h) of FP32 inputs x[first …], first and count whole
    // blocks: dequantized on the way where the codes are single bytes and the blocks whole
    // vectors, through `scratch` otherwise.
    ErrorSums pieceSums(const float* x, std::size_t first, std::size_t count,
                        std::vector<double>& scratch) const;

  private:
    enum class Codes { OneByte, TwoBytes, Binary32, Binary64, ExactCore };
    double blockScale(std::size_t block) const;
    void elements(std::size_t first, std::size_t count, double scale, double* values) const;

    const QuantizedTensor& quantized_;
    const kernels::ErrorLoops& loops_;
    Codes codes_ = Codes::ExactCore;
    std::vector<double> elementValues_; // by element code, for codes of at most 16 bits
    std::vector<double> scaleValues_;   // Mx, Nvfp4: by scale code, NVFP4's tensor scale in
    bool sixteenValues_ = false;        // one-byte codes below 16 (4-bit elements)
};

// FP32(k · g + offset) for an integer |k| ≤ 127 and FP32 numbers g and offset, nearest even,
// saturating: nf4_dq's absmax of a block whose stored code is k (doubleQuantizedAbsmax's
// answer, found without the exact core).
double nf4DoubleQuantizedAbsmax(std::int64_t k, float groupScale, float offset);

} // namespace fpx
