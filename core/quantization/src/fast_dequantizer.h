// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "error_loops.h"
#include "fpx/quantization/block_quantization.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fpx {

// Where a run of a quantized tensor's codes is stored: a whole QuantizedTensor, or a piece in
// a thread's buffers during the quantization pass. Element i's code is at
// codes[(i − firstElement) · bytes per code], block b's scale code at
// scaleCodes[b − firstElement / blockSize] (firstElement a multiple of blockSize).
struct StoredCodes {
    const std::uint8_t* codes = nullptr;
    const std::uint32_t* scaleCodes = nullptr;
    std::size_t firstElement = 0;
    std::size_t blockSize = 0;    // as QuantizedTensor::blockSize
    std::size_t elementCount = 0; // of the whole tensor
    std::optional<float> tensorScale;
    const float* groupScales = nullptr; // nf4_dq, indexed by whole-tensor block / 256

    static StoredCodes of(const QuantizedTensor& quantized);
};

// A format's values, element value × block scale, each exact in a double as
// QuantizedTensor::dequantized gives it, without the exact core per element: tables of the
// element values and the scale values, built once from the exact core, and one vector loop per
// block. The scales of nf4_dq, FP32(k · group scale + offset), are rounded by the reasoning in
// nf4DoubleQuantizedAbsmax.
class FastDequantizer {
  public:
    explicit FastDequantizer(const BlockFormat& format);

    // Elements [first, first + count) into values[0 … count − 1].
    void values(const StoredCodes& stored, std::size_t first, std::size_t count,
                double* values) const;

    // The sums of one piece (error_sums.h) of FP32 inputs x (the whole tensor's), elements
    // [first, first + count), whole blocks: dequantized on the way where the codes are single
    // bytes and the blocks whole vectors, through `scratch` otherwise. finiteInputs: the
    // caller knows the piece holds no NaN or ±∞ (a shorter loop, the same sums).
    ErrorSums pieceSums(const StoredCodes& stored, const float* x, std::size_t first,
                        std::size_t count, std::vector<double>& scratch,
                        bool finiteInputs = false) const;

  private:
    enum class Codes { OneByte, TwoBytes, Binary32, Binary64, ExactCore };
    double blockScale(const StoredCodes& stored, std::size_t block) const;
    void elements(const StoredCodes& stored, std::size_t first, std::size_t count, double scale,
                  double* values) const;

    BlockFormat format_;
    const kernels::ErrorLoops& loops_;
    int bytesPerCode_ = 1;
    Codes codes_ = Codes::ExactCore;
    std::vector<double> elementValues_; // by element code, for codes of at most 16 bits
    std::vector<double> scaleValues_;   // Mx, Nvfp4: by scale code (NVFP4's tensor scale apart)
    kernels::CodeDecoding decoding_;
};

// FP32(k · g + offset) for an integer |k| ≤ 127 and FP32 numbers g and offset, nearest even,
// saturating: nf4_dq's absmax of a block whose stored code is k (doubleQuantizedAbsmax's
// answer, found without the exact core).
double nf4DoubleQuantizedAbsmax(std::int64_t k, float groupScale, float offset);

} // namespace fpx
