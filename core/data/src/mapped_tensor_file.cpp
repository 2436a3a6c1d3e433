// SPDX-License-Identifier: GPL-3.0-or-later
// Loading a tensor out of a mapped file: borrowed where the bytes already are FP32 or FP64 in C
// order and aligned, otherwise widened (exactly) or reordered into memory of its own.
#include "tensor_file_kinds.h"

#include <cstring>

namespace fpx::tensor_file {

namespace {

// Fortran order (first index fastest) into C order (last index fastest): walk the C-order
// multi-index like an odometer and keep the Fortran offset of the same element alongside.
template <typename T>
void fortranToC(const T* source, T* target, const std::vector<std::size_t>& shape,
                std::size_t count) {
    const std::size_t rank = shape.size();
    std::vector<std::size_t> stride(rank), index(rank, 0);
    std::size_t s = 1;
    for (std::size_t j = 0; j < rank; ++j) {
        stride[j] = s;
        s *= shape[j];
    }
    std::size_t offset = 0;
    for (std::size_t c = 0; c < count; ++c) {
        target[c] = source[offset];
        for (std::size_t j = rank; j-- > 0;) {
            offset += stride[j];
            if (++index[j] < shape[j])
                break;
            offset -= stride[j] * shape[j];
            index[j] = 0;
        }
    }
}

template <typename T> bool aligned(const std::uint8_t* p) {
    return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

} // namespace

std::string fileNameOf(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

void MappedTensorFile::addTensor(TensorInfo info, std::optional<ElementType> type,
                                 bool fortranOrder) {
    info.loadable = type.has_value();
    tensors_.push_back(std::move(info));
    layouts_.push_back({type, fortranOrder});
}

std::optional<TensorFile::Loaded> MappedTensorFile::load(const std::string& name,
                                                         std::string& error) const {
    std::size_t k = 0;
    while (k < tensors_.size() && tensors_[k].name != name)
        ++k;
    if (k == tensors_.size()) {
        error = path_ + ": no tensor named '" + name + "'";
        return std::nullopt;
    }
    const TensorInfo& info = tensors_[k];
    const Layout& layout = layouts_[k];
    if (!layout.type) {
        error = path_ + ": tensor '" + name + "' has dtype " + info.dtype +
                ", which fpx does not read (it reads F64, F32, F16, BF16, F8_E4M3 and F8_E5M2)";
        return std::nullopt;
    }
    const ElementType type = *layout.type;
    const std::size_t n = info.elementCount;
    const std::uint8_t* bytes = mapping_->data() + info.dataOffset;
    const bool reorder = layout.fortranOrder && info.shape.size() >= 2;

    mapping_->prefetch(info.dataOffset, info.dataBytes);
    Loaded loaded;
    loaded.view.name = info.name;
    loaded.view.shape = info.shape;
    if (n == 0) {
        loaded.keepAlive = mapping_;
        return loaded;
    }
    if (type == ElementType::F64) {
        if (!reorder && aligned<double>(bytes)) {
            loaded.view.doubles = {reinterpret_cast<const double*>(bytes), n};
            loaded.keepAlive = mapping_;
            return loaded;
        }
        std::shared_ptr<double[]> values = allocateValues<double>(n);
        if (reorder) {
            // Fortran order from possibly unaligned bytes: copy, then reorder.
            std::shared_ptr<double[]> copy = allocateValues<double>(n);
            std::memcpy(copy.get(), bytes, 8 * n);
            fortranToC(copy.get(), values.get(), info.shape, n);
        } else {
            std::memcpy(values.get(), bytes, 8 * n);
        }
        loaded.view.doubles = {values.get(), n};
        loaded.keepAlive = values;
        return loaded;
    }
    if (type == ElementType::F32 && !reorder && aligned<float>(bytes)) {
        loaded.view.floats = {reinterpret_cast<const float*>(bytes), n};
        loaded.keepAlive = mapping_;
        return loaded;
    }
    std::shared_ptr<float[]> values = allocateValues<float>(n);
    if (reorder) {
        std::shared_ptr<float[]> widened = allocateValues<float>(n);
        widenToFloat(type, bytes, n, widened.get());
        fortranToC(widened.get(), values.get(), info.shape, n);
    } else {
        widenToFloat(type, bytes, n, values.get());
    }
    loaded.view.floats = {values.get(), n};
    loaded.keepAlive = values;
    return loaded;
}

} // namespace fpx::tensor_file
