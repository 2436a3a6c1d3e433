// SPDX-License-Identifier: GPL-3.0-or-later
// A model's tensors: one tensor file, or the shards a model.safetensors.index.json names.
#include "fpx/data/tensor_collection.h"

#include <nlohmann/json.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace fpx {

namespace {

constexpr std::size_t kMaxIndexBytes = std::size_t(64) << 20; // an index lists names only

std::string folderOf(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

} // namespace

bool isShardIndex(const std::string& path) {
    constexpr std::string_view kSuffix = ".index.json";
    return path.size() > kSuffix.size() &&
           path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

bool tensorNameMatches(const std::string& pattern, const std::string& name) {
    return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::optional<TensorCollection> TensorCollection::open(const std::string& argument,
                                                       const std::optional<RawLayout>& raw,
                                                       std::string& error) {
    TensorCollection c;
    if (!isShardIndex(argument)) {
        // A struct rather than a structured binding: clang 14 cannot capture bindings in lambdas.
        const TensorArgument split = splitTensorArgument(argument);
        const std::string& path = split.path;
        const std::optional<std::string>& tensor = split.tensor;
        TensorFileOpen opened = TensorFile::open(path, raw);
        if (!opened.file) {
            error = opened.error;
            return std::nullopt;
        }
        std::shared_ptr<const TensorFile> file = std::move(opened.file);
        for (const TensorInfo& t : file->tensors())
            if (!tensor || t.name == *tensor)
                c.tensors_.push_back(Entry{t, 0});
        if (tensor && c.tensors_.empty()) {
            loadTensorArgument(argument, raw, error); // its message lists the names held
            return std::nullopt;
        }
        c.metadata_ = file->metadata();
        c.paths_.push_back(path);
        c.files_.push_back(std::move(file));
        return c;
    }
    if (raw) {
        error = argument + ": --dtype describes a headerless file, not a model's index";
        return std::nullopt;
    }
    c.sharded_ = true;
    std::ifstream in(argument, std::ios::binary);
    if (!in) {
        error = argument + ": cannot open the index";
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().size() > kMaxIndexBytes) {
        error = argument + ": an index larger than 64 MiB is not a model's index";
        return std::nullopt;
    }
    nlohmann::json index;
    try {
        index = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error& e) {
        // Where the parser stopped, as LINE:COLUMN of the text (e.byte counts from 1).
        const std::string& json = text.str();
        const std::size_t at = std::min<std::size_t>(e.byte ? e.byte - 1 : 0, json.size());
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < at; ++i) {
            column = json[i] == '\n' ? 1 : column + 1;
            line += json[i] == '\n' ? 1 : 0;
        }
        error = argument + ":" + std::to_string(line) + ":" + std::to_string(column) + ": not JSON";
        return std::nullopt;
    }
    if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object()) {
        error = argument + ": no \"weight_map\" object (a model.safetensors.index.json maps "
                           "each tensor name to its shard)";
        return std::nullopt;
    }
    if (index.contains("metadata") && index["metadata"].is_object())
        for (const auto& [key, value] : index["metadata"].items())
            c.metadata_.emplace_back(key,
                                     value.is_string() ? value.get<std::string>() : value.dump());
    // The shards in their order of first mention; the tensors each should hold.
    std::vector<std::string> shards;
    std::map<std::string, std::map<std::string, bool>> expected;
    for (const auto& [name, shard] : index["weight_map"].items()) {
        if (!shard.is_string()) {
            error = argument + ": weight_map[\"" + name + "\"]: expected a shard's file name";
            return std::nullopt;
        }
        const std::string file = shard.get<std::string>();
        if (file.empty() || file.find('/') != std::string::npos || file == "..") {
            error = argument + ": weight_map[\"" + name + "\"]: '" + file +
                    "' is not a file name in the index's folder";
            return std::nullopt;
        }
        if (!expected.count(file))
            shards.push_back(file);
        expected[file][name] = false;
    }
    if (shards.empty()) {
        error = argument + ": the weight_map names no tensors";
        return std::nullopt;
    }
    const std::string folder = folderOf(argument);
    for (const std::string& shard : shards) {
        TensorFileOpen opened = TensorFile::open(folder + shard);
        if (!opened.file) {
            error = argument + ": shard '" + shard + "': " + opened.error;
            return std::nullopt;
        }
        std::map<std::string, bool>& names = expected[shard];
        const std::size_t file = c.files_.size();
        for (const TensorInfo& t : opened.file->tensors()) {
            const auto it = names.find(t.name);
            if (it == names.end())
                continue; // a tensor the index does not list is not the model's
            it->second = true;
            c.tensors_.push_back(Entry{t, file});
        }
        for (const auto& [name, found] : names)
            if (!found) {
                error = argument + ": weight_map[\"" + name + "\"] names shard '" + shard +
                        "', which holds no such tensor";
                return std::nullopt;
            }
        c.paths_.push_back(folder + shard);
        c.files_.push_back(std::move(opened.file));
    }
    return c;
}

std::optional<TensorFile::Loaded> TensorCollection::load(std::size_t index,
                                                         std::string& error) const {
    const Entry& entry = tensors_.at(index);
    return files_.at(entry.file)->load(entry.info.name, error);
}

} // namespace fpx
