// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_view.h"

#include <cstddef>
#include <vector>

namespace fpx {

// A tensor with one axis moved last, so that quantizer blocks (which run along the last axis)
// run along it: per-channel scales for any layout, [in, out] as well as [out, in]. Viewed as
// [outer, L, inner] with L = shape[axis], the result is [outer, inner, L] in C order.
struct AxisMove {
    std::vector<std::size_t> shape; // the original
    std::size_t axis = 0;

    std::vector<std::size_t> movedShape() const;
    // Element `index` of the moved tensor: its index in the original.
    std::size_t originalIndex(std::size_t index) const;
    // The moved copy of an FP32 or FP64 tensor (exactly one of the results is filled).
    void copy(const TensorView& input, std::vector<float>& floats,
              std::vector<double>& doubles) const;
};

} // namespace fpx
