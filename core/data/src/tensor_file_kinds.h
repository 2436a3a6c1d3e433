// SPDX-License-Identifier: GPL-3.0-or-later
// The readers behind TensorFile::open, one per kind, and what they share: a mapped file whose
// tensors are runs of little-endian elements.
#pragma once

#include "element_widening.h"
#include "mapped_file.h"

#include "fpx/data/tensor_file.h"

#include <optional>
#include <string_view>

namespace fpx::tensor_file {

// A tensor file whose tensors lie in a memory mapping (.npy, .safetensors, raw).
class MappedTensorFile : public TensorFile {
  public:
    MappedTensorFile(TensorFileKind kind, std::string path,
                     std::shared_ptr<const MappedFile> mapping)
        : kind_(kind), path_(std::move(path)), mapping_(std::move(mapping)) {}

    TensorFileKind kind() const override { return kind_; }
    const std::string& path() const override { return path_; }
    const std::vector<TensorInfo>& tensors() const override { return tensors_; }
    const std::vector<std::pair<std::string, std::string>>& metadata() const override {
        return metadata_;
    }
    std::optional<Loaded> load(const std::string& name, std::string& error) const override;

    // Where tensor k's elements lie, for readers that take them piece by piece instead of
    // loading the whole tensor (tensorFileStatistics): the element type (nullopt: not loadable),
    // the first byte in the mapping, whether the order is Fortran's.
    struct Stored {
        std::optional<ElementType> type;
        const std::uint8_t* bytes = nullptr;
        bool fortranOrder = false;
    };
    Stored stored(std::size_t k) const {
        return {layouts_[k].type, mapping_->data() + tensors_[k].dataOffset,
                layouts_[k].fortranOrder};
    }

    // `type` is nullopt for a tensor that is listed but not loadable.
    void addTensor(TensorInfo info, std::optional<ElementType> type, bool fortranOrder = false);
    void setMetadata(std::vector<std::pair<std::string, std::string>> metadata) {
        metadata_ = std::move(metadata);
    }

  private:
    struct Layout {
        std::optional<ElementType> type;
        bool fortranOrder = false;
    };
    TensorFileKind kind_;
    std::string path_;
    std::shared_ptr<const MappedFile> mapping_;
    std::vector<TensorInfo> tensors_;
    std::vector<Layout> layouts_;
    std::vector<std::pair<std::string, std::string>> metadata_;
};

// The name a headerless or single-tensor file gives its tensor: the file's name without its
// directory.
std::string fileNameOf(const std::string& path);

TensorFileOpen openNpy(const std::string& path, std::shared_ptr<const MappedFile> mapping);
TensorFileOpen openSafetensors(const std::string& path, std::shared_ptr<const MappedFile> mapping);
TensorFileOpen openRaw(const std::string& path, std::shared_ptr<const MappedFile> mapping,
                       const RawLayout& layout);
TensorFileOpen openText(const std::string& path, const MappedFile& mapping);

// The safetensors dtypes: their width in bits and, for those fpx reads, the element type.
struct SafetensorsDtype {
    std::string_view name;
    int bits;
    std::optional<ElementType> element;
};
const SafetensorsDtype* findSafetensorsDtype(std::string_view name);

} // namespace fpx::tensor_file
