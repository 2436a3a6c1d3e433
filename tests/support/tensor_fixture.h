// SPDX-License-Identifier: GPL-3.0-or-later
// A TensorView over a test's FP32 values, for the quantizer tests.
#pragma once

#include "fpx/data/tensor_view.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace fpx::test {

// `values` must outlive the view; an empty shape means one dimension of values.size().
inline TensorView view(const std::vector<float>& values, std::vector<std::size_t> shape = {}) {
    TensorView v;
    v.name = "test";
    v.shape = shape.empty() ? std::vector<std::size_t>{values.size()} : std::move(shape);
    v.floats = values;
    return v;
}

} // namespace fpx::test
