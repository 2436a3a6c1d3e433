// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_file.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fpx {

// The tensors of a model: one tensor file (every tensor in it), or a sharded model through its
// model.safetensors.index.json, whose "weight_map" names the shard of each tensor (shards are
// opened once each, relative to the index's folder, and read through their mappings). The
// order is the shards' in the index's order of first mention, each shard's tensors in its
// header's order.
class TensorCollection {
  public:
    struct Entry {
        TensorInfo info;
        std::size_t file = 0; // which of files()
    };

    // PATH, PATH:TENSOR (that tensor alone) or an index; nullopt with `error` naming the file
    // (and for an index the field or shard) and what is wrong.
    static std::optional<TensorCollection>
    open(const std::string& argument, const std::optional<RawLayout>& raw, std::string& error);

    const std::vector<Entry>& tensors() const { return tensors_; }
    const std::vector<std::string>& files() const { return paths_; }
    bool sharded() const { return sharded_; }
    // The file's or the index's own metadata ("__metadata__", the index's "metadata").
    const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }

    std::optional<TensorFile::Loaded> load(std::size_t index, std::string& error) const;

  private:
    std::vector<std::shared_ptr<const TensorFile>> files_;
    std::vector<std::string> paths_;
    std::vector<Entry> tensors_;
    std::vector<std::pair<std::string, std::string>> metadata_;
    bool sharded_ = false;
};

// Whether a path names a sharded model's index (it ends in ".index.json").
bool isShardIndex(const std::string& path);

// Whether a tensor name matches a shell-style pattern ('*' any run, '?' one character,
// "[abc]" a set), as --tensors GLOB picks tensors.
bool tensorNameMatches(const std::string& pattern, const std::string& name);

} // namespace fpx
