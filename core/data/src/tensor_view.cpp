// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/data/tensor_view.h"

namespace fpx {

std::string shapeText(const std::vector<std::size_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

} // namespace fpx
