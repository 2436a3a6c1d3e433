// SPDX-License-Identifier: GPL-3.0-or-later
// Opening a tensor file of any kind and loading --input arguments.
#include "tensor_file_kinds.h"

#include "fpx/data/npy_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sys/stat.h>

namespace fpx {

using namespace tensor_file;

namespace {

std::string lowerExtension(const std::string& path) {
    const std::string name = fileNameOf(path);
    const std::size_t dot = name.find_last_of('.');
    std::string extension = dot == std::string::npos ? "" : name.substr(dot);
    for (char& c : extension)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return extension;
}

// An 8-byte length that fits the file, followed by the '{' of a JSON object.
bool looksLikeSafetensors(const MappedFile& file) {
    if (file.size() < 10)
        return false;
    std::uint64_t length = 0;
    for (int k = 7; k >= 0; --k)
        length = length << 8 | file.data()[k];
    return length <= file.size() - 8 && file.data()[8] == '{';
}

// No control characters other than tabs and line ends in the first few kilobytes.
bool looksLikeText(const MappedFile& file) {
    const std::size_t n = std::min<std::size_t>(file.size(), 4096);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t c = file.data()[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return false;
    }
    return true;
}

// The kind of a file with a header or of text, from its contents first, then its extension.
std::optional<TensorFileKind> kindOf(const std::string& path, const MappedFile& file) {
    const std::string extension = lowerExtension(path);
    if (hasNpyMagic(file.bytes()) || extension == ".npy")
        return TensorFileKind::Npy;
    if (extension == ".safetensors" || looksLikeSafetensors(file))
        return TensorFileKind::Safetensors;
    if (extension == ".txt" || extension == ".csv" || extension == ".tsv" || looksLikeText(file))
        return TensorFileKind::Text;
    return std::nullopt;
}

constexpr const char* kUnknownKind = ": not a .npy, .safetensors or text file";

} // namespace

std::optional<TensorFileKind> tensorFileKind(const std::string& path, std::string& error) {
    const std::shared_ptr<const MappedFile> mapping = MappedFile::open(path, error);
    if (!mapping)
        return std::nullopt;
    const std::optional<TensorFileKind> kind = kindOf(path, *mapping);
    if (!kind)
        error = path + kUnknownKind;
    return kind;
}

const std::vector<std::pair<std::string, std::string>>& TensorFile::metadata() const {
    static const std::vector<std::pair<std::string, std::string>> none;
    return none;
}

TensorFileOpen TensorFile::open(const std::string& path, const std::optional<RawLayout>& raw) {
    std::string error;
    std::shared_ptr<const MappedFile> mapping = MappedFile::open(path, error);
    if (!mapping)
        return {nullptr, error};
    if (raw)
        return openRaw(path, std::move(mapping), *raw);
    switch (kindOf(path, *mapping).value_or(TensorFileKind::Raw)) {
    case TensorFileKind::Npy:
        return openNpy(path, std::move(mapping));
    case TensorFileKind::Safetensors:
        return openSafetensors(path, std::move(mapping));
    case TensorFileKind::Text:
        return openText(path, *mapping);
    case TensorFileKind::Raw:
        break;
    }
    return {nullptr, path + kUnknownKind +
                         "; for headerless little-endian data give its dtype "
                         "(--dtype f32|f64|f16|bf16|e4m3|e5m2)"};
}

TensorArgument splitTensorArgument(const std::string& argument) {
    TensorArgument split{argument, std::nullopt};
    struct stat info {};
    const std::size_t colon = argument.find_last_of(':');
    if (::stat(argument.c_str(), &info) != 0 && colon != std::string::npos && colon > 0) {
        split.path = argument.substr(0, colon);
        split.tensor = argument.substr(colon + 1);
    }
    return split;
}

std::optional<TensorFile::Loaded> loadTensorArgument(const std::string& argument,
                                                     const std::optional<RawLayout>& raw,
                                                     std::string& error) {
    // A struct rather than a structured binding: clang 14 cannot capture bindings in lambdas.
    const TensorArgument split = splitTensorArgument(argument);
    const std::string& path = split.path;
    const std::optional<std::string>& tensor = split.tensor;
    TensorFileOpen opened = TensorFile::open(path, raw);
    if (!opened.file) {
        error = opened.error;
        return std::nullopt;
    }
    const TensorFile& file = *opened.file;
    if (tensor) {
        const auto& all = file.tensors();
        if (std::none_of(all.begin(), all.end(),
                         [&](const TensorInfo& t) { return t.name == *tensor; })) {
            error = path + ": no tensor named '" + *tensor + "'; the file holds ";
            for (std::size_t i = 0; i < all.size() && i < 10; ++i)
                error += (i ? ", '" : "'") + all[i].name + "'";
            if (all.size() > 10)
                error += " and " + std::to_string(all.size() - 10) + " more";
            if (all.empty())
                error += "no tensors";
            return std::nullopt;
        }
        return file.load(*tensor, error);
    }
    for (const TensorInfo& t : file.tensors())
        if (t.loadable)
            return file.load(t.name, error);
    error = path + (file.tensors().empty() ? ": holds no tensors"
                                           : ": holds no tensor of a dtype fpx reads (F64, "
                                             "F32, F16, BF16, F8_E4M3, F8_E5M2)");
    return std::nullopt;
}

} // namespace fpx
