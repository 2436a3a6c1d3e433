// SPDX-License-Identifier: GPL-3.0-or-later
// Moving a tensor's axis last (tensor_axes.h).
#include "fpx/data/tensor_axes.h"

namespace fpx {

namespace {

struct Extents {
    std::size_t outer = 1, length = 1, inner = 1;
};

Extents extentsOf(const std::vector<std::size_t>& shape, std::size_t axis) {
    Extents e;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        if (k < axis)
            e.outer *= shape[k];
        else if (k == axis)
            e.length = shape[k];
        else
            e.inner *= shape[k];
    }
    return e;
}

template <typename T> void moveLast(std::span<const T> in, const Extents& e, std::vector<T>& out) {
    out.resize(in.size());
    for (std::size_t o = 0; o < e.outer; ++o)
        for (std::size_t l = 0; l < e.length; ++l) {
            const T* from = in.data() + (o * e.length + l) * e.inner;
            T* to = out.data() + o * e.inner * e.length + l;
            for (std::size_t i = 0; i < e.inner; ++i)
                to[i * e.length] = from[i];
        }
}

} // namespace

std::vector<std::size_t> AxisMove::movedShape() const {
    std::vector<std::size_t> moved;
    for (std::size_t k = 0; k < shape.size(); ++k)
        if (k != axis)
            moved.push_back(shape[k]);
    moved.push_back(shape.at(axis));
    return moved;
}

std::size_t AxisMove::originalIndex(std::size_t index) const {
    const Extents e = extentsOf(shape, axis);
    const std::size_t o = index / (e.inner * e.length);
    const std::size_t rest = index % (e.inner * e.length);
    const std::size_t i = rest / e.length;
    const std::size_t l = rest % e.length;
    return (o * e.length + l) * e.inner + i;
}

void AxisMove::copy(const TensorView& input, std::vector<float>& floats,
                    std::vector<double>& doubles) const {
    const Extents e = extentsOf(shape, axis);
    if (input.isDouble())
        moveLast(input.doubles, e, doubles);
    else
        moveLast(input.floats, e, floats);
}

} // namespace fpx
