// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace fpx {

// The values of one tensor as the quantizers read them: FP32 or FP64, in C order (last index
// fastest; the readers reorder Fortran-order files), borrowed from whoever owns them (a loaded or
// memory-mapped file, a generated vector). Every narrower source type (F16, BF16, FP8) is widened
// exactly to FP32 before it gets here, so no value is ever rounded on the way in.
struct TensorView {
    std::string name;               // for reports: "model.layers.0.weight", "normal:0:1", …
    std::vector<std::size_t> shape; // empty for a 0-d tensor (one element)
    std::span<const float> floats;  // exactly one of floats and doubles is non-empty
    std::span<const double> doubles;

    bool isDouble() const { return !doubles.empty(); }
    std::size_t size() const { return isDouble() ? doubles.size() : floats.size(); }
    double at(std::size_t i) const { return isDouble() ? doubles[i] : double(floats[i]); }
    // Elements of the last dimension (a row in C order); size() for 0-d and 1-d tensors.
    std::size_t rowLength() const {
        return shape.size() >= 2 && shape.back() > 0 ? shape.back() : size();
    }
};

// A shape as people read it: "[4096, 11008]"; "[]" for a 0-d tensor.
std::string shapeText(const std::vector<std::size_t>& shape);

} // namespace fpx
