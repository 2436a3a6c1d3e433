// SPDX-License-Identifier: GPL-3.0-or-later
// .safetensors: an 8-byte little-endian header length N, N bytes of JSON, then the data. The
// JSON maps each tensor's name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// relative to the start of the data) and may hold "__metadata__", a map of strings. Nothing in
// the header is trusted: every field is checked and every tensor's bytes must lie in the file,
// match dtype × shape exactly and overlap no other tensor, before anything is read.
#include "tensor_file_kinds.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>

namespace fpx::tensor_file {

namespace {

using Json = nlohmann::ordered_json;

// The header may not be larger than this: the limit of the reference implementation, and far
// more than the header of any real model needs.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

constexpr std::array<SafetensorsDtype, 19> kDtypes{{
    {"F64", 64, ElementType::F64},     {"F32", 32, ElementType::F32},
    {"F16", 16, ElementType::F16},     {"BF16", 16, ElementType::BF16},
    {"F8_E4M3", 8, ElementType::E4M3}, {"F8_E5M2", 8, ElementType::E5M2},
    {"F8_E8M0", 8, std::nullopt},      {"F6_E2M3", 6, std::nullopt},
    {"F6_E3M2", 6, std::nullopt},      {"F4", 4, std::nullopt},
    {"C64", 64, std::nullopt},         {"I64", 64, std::nullopt},
    {"U64", 64, std::nullopt},         {"I32", 32, std::nullopt},
    {"U32", 32, std::nullopt},         {"I16", 16, std::nullopt},
    {"U16", 16, std::nullopt},         {"I8", 8, std::nullopt},
    {"U8", 8, std::nullopt},
}};
constexpr SafetensorsDtype kBool{"BOOL", 8, std::nullopt};

std::string shapeText(const Json& shape) {
    return shape.dump();
}

struct Extent {
    std::uint64_t begin, end;
    std::string name;
};

// " near file offset N" for the text quoted ('...') in a parser's message, found in the header
// (which starts at file offset 8); empty when the message quotes nothing found there.
std::string offsetOfQuoted(std::string_view message, std::string_view header) {
    const std::size_t open = message.find('\'');
    const std::size_t close = message.rfind('\'');
    if (open == std::string_view::npos || close <= open + 1)
        return {};
    const std::size_t at = header.find(message.substr(open + 1, close - open - 1));
    return at == std::string_view::npos ? std::string{}
                                        : " near file offset " + std::to_string(8 + at);
}

} // namespace

const SafetensorsDtype* findSafetensorsDtype(std::string_view name) {
    for (const SafetensorsDtype& d : kDtypes)
        if (d.name == name)
            return &d;
    return name == kBool.name ? &kBool : nullptr;
}

TensorFileOpen openSafetensors(const std::string& path, std::shared_ptr<const MappedFile> mapping) {
    auto fail = [&](const std::string& message) {
        return TensorFileOpen{nullptr, path + ": " + message};
    };
    const std::uint64_t size = mapping->size();
    if (size < 8)
        return fail("truncated: " + std::to_string(size) +
                    " bytes, too short for the 8-byte safetensors header length");
    std::uint64_t headerBytes = 0;
    for (int k = 7; k >= 0; --k)
        headerBytes = headerBytes << 8 | mapping->data()[k];
    if (headerBytes > size - 8)
        return fail("the header length (bytes 0-7) is " + std::to_string(headerBytes) +
                    " bytes, but only " + std::to_string(size - 8) + " bytes follow it");
    if (headerBytes > kMaxHeaderBytes)
        return fail("the header length (bytes 0-7) is " + std::to_string(headerBytes) +
                    " bytes, more than the " + std::to_string(kMaxHeaderBytes) + " allowed");
    const std::string_view headerText = mapping->bytes().substr(8, headerBytes);
    Json header;
    try {
        header = Json::parse(headerText);
    } catch (const Json::parse_error& e) {
        return fail("the JSON header is malformed near file offset " +
                    std::to_string(8 + (e.byte > 0 ? e.byte - 1 : 0)) + ": " + e.what());
    } catch (const Json::exception& e) {
        // Well-formed JSON the parser still refuses: a number beyond the doubles ("1e999",
        // out_of_range.406). The message quotes the number, which locates it in the header.
        return fail("the JSON header cannot be read" + offsetOfQuoted(e.what(), headerText) + ": " +
                    e.what());
    }
    if (!header.is_object())
        return fail("the JSON header (file offset 8) is not an object");

    const std::uint64_t dataStart = 8 + headerBytes;
    const std::uint64_t dataSize = size - dataStart;
    auto file =
        std::make_unique<MappedTensorFile>(TensorFileKind::Safetensors, path, std::move(mapping));
    std::vector<Extent> extents;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                return fail("header field '__metadata__' is not a map of strings");
            std::vector<std::pair<std::string, std::string>> metadata;
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string())
                    return fail("header field '__metadata__': the value of '" + key +
                                "' is not a string");
                metadata.emplace_back(key, value.get<std::string>());
            }
            file->setMetadata(std::move(metadata));
            continue;
        }
        const std::string where = "tensor '" + name + "': ";
        if (!entry.is_object())
            return fail(where + "expected an object with dtype, shape and data_offsets");
        for (const char* key : {"dtype", "shape", "data_offsets"})
            if (!entry.contains(key))
                return fail(where + "field '" + key + "' is missing");
        const Json& dtypeField = entry["dtype"];
        if (!dtypeField.is_string())
            return fail(where + "field 'dtype' is not a string: " + dtypeField.dump());
        const std::string dtypeName = dtypeField.get<std::string>();
        const SafetensorsDtype* dtype = findSafetensorsDtype(dtypeName);
        if (!dtype)
            return fail(where + "unknown dtype '" + dtypeName + "'");

        const Json& shapeField = entry["shape"];
        if (!shapeField.is_array())
            return fail(where + "field 'shape' is not a list: " + shapeField.dump());
        TensorInfo info;
        info.name = name;
        info.dtype = dtypeName;
        for (const Json& d : shapeField) {
            if (d.is_number_integer() && !d.is_number_unsigned())
                return fail(where + "shape " + shapeText(shapeField) + " has a negative dimension");
            if (!d.is_number_unsigned())
                return fail(where + "shape " + shapeText(shapeField) +
                            " is not a list of non-negative integers");
            const std::uint64_t v = d.get<std::uint64_t>();
            if (v > std::numeric_limits<std::size_t>::max())
                return fail(where + "shape " + shapeText(shapeField) + " has too many elements");
            info.shape.push_back(static_cast<std::size_t>(v));
        }
        // The element count, bounded so that count × bits cannot overflow 64 bits.
        constexpr std::uint64_t kMaxElements = std::numeric_limits<std::uint64_t>::max() / 64;
        std::uint64_t count = 1;
        if (std::find(info.shape.begin(), info.shape.end(), 0) != info.shape.end())
            count = 0;
        for (std::size_t d : info.shape) {
            if (count != 0 && count > kMaxElements / d)
                return fail(where + "shape " + shapeText(shapeField) + " has too many elements");
            count *= d;
        }

        const Json& offsets = entry["data_offsets"];
        if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
            !offsets[1].is_number_unsigned())
            return fail(where +
                        "field 'data_offsets' is not two non-negative integers: " + offsets.dump());
        const std::uint64_t begin = offsets[0].get<std::uint64_t>();
        const std::uint64_t end = offsets[1].get<std::uint64_t>();
        if (begin > end)
            return fail(where + "data_offsets " + offsets.dump() + " end before they begin");
        if (end > dataSize)
            return fail(where + "data_offsets " + offsets.dump() +
                        " reach past the end of the data (" + std::to_string(dataSize) +
                        " bytes from file offset " + std::to_string(dataStart) + ")");
        const std::uint64_t needed = (count * std::uint64_t(dtype->bits) + 7) / 8;
        if (end - begin != needed)
            return fail(where + "data_offsets " + offsets.dump() + " span " +
                        std::to_string(end - begin) + " bytes, but " + dtypeName + " × shape " +
                        shapeText(shapeField) + " needs " + std::to_string(needed));
        info.elementCount = static_cast<std::size_t>(count);
        info.dataOffset = dataStart + begin;
        info.dataBytes = end - begin;
        extents.push_back({begin, end, name});
        file->addTensor(std::move(info), dtype->element);
    }

    // No two tensors may share a byte: sorted by where they begin, each must end before the
    // next one begins. Empty tensors hold no bytes and cannot overlap.
    std::erase_if(extents, [](const Extent& e) { return e.begin == e.end; });
    std::sort(extents.begin(), extents.end(),
              [](const Extent& x, const Extent& y) { return x.begin < y.begin; });
    for (std::size_t i = 1; i < extents.size(); ++i)
        if (extents[i].begin < extents[i - 1].end)
            return fail("tensors '" + extents[i - 1].name + "' (data bytes " +
                        std::to_string(extents[i - 1].begin) + "-" +
                        std::to_string(extents[i - 1].end) + ") and '" + extents[i].name +
                        "' (data bytes " + std::to_string(extents[i].begin) + "-" +
                        std::to_string(extents[i].end) + ") overlap");
    return {std::move(file), {}};
}

} // namespace fpx::tensor_file
