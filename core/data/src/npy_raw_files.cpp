// SPDX-License-Identifier: GPL-3.0-or-later
// .npy files (through the one .npy header parser, npy_reader.h) and headerless raw arrays.
#include "tensor_file_kinds.h"

#include "fpx/data/npy_reader.h"

namespace fpx::tensor_file {

TensorFileOpen openNpy(const std::string& path, std::shared_ptr<const MappedFile> mapping) {
    NpyHeaderResult parsed = parseNpyHeader(mapping->bytes(), path);
    if (!parsed.header)
        return {nullptr, std::move(parsed.error)};
    const NpyHeader& header = *parsed.header;
    TensorInfo info;
    info.name = fileNameOf(path);
    info.dtype = header.dtype;
    info.shape = header.shape;
    info.elementCount = header.elementCount;
    info.dataOffset = header.dataOffset;
    info.dataBytes = header.elementCount * header.elementBytes;
    const ElementType type = header.elementBytes == 2   ? ElementType::F16
                             : header.elementBytes == 4 ? ElementType::F32
                                                        : ElementType::F64;
    auto file = std::make_unique<MappedTensorFile>(TensorFileKind::Npy, path, std::move(mapping));
    file->addTensor(std::move(info), type, header.fortranOrder);
    return {std::move(file), {}};
}

TensorFileOpen openRaw(const std::string& path, std::shared_ptr<const MappedFile> mapping,
                       const RawLayout& layout) {
    const std::optional<ElementType> type = parseRawDtype(layout.dtype);
    if (!type)
        return {nullptr, path + ": unknown raw dtype '" + layout.dtype +
                             "' (use f32, f64, f16, bf16, e4m3 or e5m2)"};
    const std::size_t width = elementBytes(*type);
    if (mapping->size() % width != 0)
        return {nullptr, path + ": " + std::to_string(mapping->size()) +
                             " bytes is not a whole number of " + std::to_string(width) + "-byte " +
                             layout.dtype + " elements"};
    TensorInfo info;
    info.name = fileNameOf(path);
    info.dtype = layout.dtype;
    info.elementCount = mapping->size() / width;
    info.shape = {info.elementCount};
    info.dataOffset = 0;
    info.dataBytes = mapping->size();
    auto file = std::make_unique<MappedTensorFile>(TensorFileKind::Raw, path, std::move(mapping));
    file->addTensor(std::move(info), type);
    return {std::move(file), {}};
}

} // namespace fpx::tensor_file
