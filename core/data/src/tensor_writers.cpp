// SPDX-License-Identifier: GPL-3.0-or-later
// Writing .safetensors and .npy files atomically (fpx/atomic_file.h): a reader of PATH sees the
// old file or the new one, never half.
#include "tensor_file_kinds.h"

#include "fpx/data/atomic_file.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <set>

namespace fpx {

using namespace tensor_file;

namespace {

// The element count of a shape; false when it overflows.
bool elementCount(const std::vector<std::size_t>& shape, std::uint64_t& count) {
    count = 1;
    for (std::size_t d : shape) {
        if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / 64 / d)
            return false;
        count *= d;
    }
    return true;
}

} // namespace

bool writeSafetensors(const std::string& path, const std::vector<OutputTensor>& tensors,
                      const std::vector<std::pair<std::string, std::string>>& metadata,
                      std::string& error) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
        nlohmann::ordered_json map = nlohmann::ordered_json::object();
        for (const auto& [key, value] : metadata) {
            if (map.contains(key)) {
                error = path + ": metadata key '" + key + "' given twice";
                return false;
            }
            map[key] = value;
        }
        header["__metadata__"] = std::move(map);
    }
    std::set<std::string> names;
    std::uint64_t offset = 0;
    for (const OutputTensor& t : tensors) {
        const std::string where = path + ": tensor '" + t.name + "': ";
        if (t.name.empty() || t.name == "__metadata__" || !names.insert(t.name).second) {
            error = where + "the name is empty, reserved or given twice";
            return false;
        }
        const SafetensorsDtype* dtype = findSafetensorsDtype(t.dtype);
        if (!dtype) {
            error = where + "unknown dtype '" + t.dtype + "'";
            return false;
        }
        std::uint64_t count = 0;
        if (!elementCount(t.shape, count)) {
            error = where + "shape " + shapeText(t.shape) + " has too many elements";
            return false;
        }
        const std::uint64_t needed = (count * std::uint64_t(dtype->bits) + 7) / 8;
        if (t.bytes.size() != needed) {
            error = where + std::to_string(t.bytes.size()) + " bytes of data, but " + t.dtype +
                    " × shape " + shapeText(t.shape) + " needs " + std::to_string(needed);
            return false;
        }
        header[t.name] = {
            {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + needed}}};
        offset += needed;
    }
    std::string text = header.dump();
    // Padded with blanks to a multiple of 8 bytes, as the reference writer does, so that the
    // data begins 8-byte aligned in the file.
    text.append((8 - text.size() % 8) % 8, ' ');
    std::uint8_t length[8];
    for (int k = 0; k < 8; ++k)
        length[k] = static_cast<std::uint8_t>(std::uint64_t(text.size()) >> (8 * k));

    AtomicFile file;
    if (!file.create(path, error) || !file.write(length, 8, error) ||
        !file.write(text.data(), text.size(), error))
        return false;
    for (const OutputTensor& t : tensors)
        if (!file.write(t.bytes.data(), t.bytes.size(), error))
            return false;
    return file.commit(error);
}

namespace {

// An array of `count` little-endian elements of numpy type `descr` ('<f4', '<f8'), written
// whole or not at all.
bool writeNpyArray(const std::string& path, const char* descr, const void* data, std::size_t count,
                   std::size_t elementBytes, const std::vector<std::size_t>& shape,
                   std::string& error) {
    std::uint64_t expected = 0;
    if (!elementCount(shape, expected) || expected != count) {
        error = path + ": shape " + shapeText(shape) + " does not hold " + std::to_string(count) +
                " values";
        return false;
    }
    // Python's tuple syntax: "()", "(5,)", "(2, 3)".
    std::string tuple = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        tuple += (i ? ", " : "") + std::to_string(shape[i]);
    tuple += shape.size() == 1 ? ",)" : ")";
    std::string dictionary =
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + tuple;
    dictionary += ", }";
    // Format 1.0: magic, version, a 2-byte header length; the header ends in '\n' and is padded
    // with blanks so the data begins at a multiple of 64 bytes (numpy's alignment).
    std::size_t total = 10 + dictionary.size() + 1;
    dictionary.append((64 - total % 64) % 64, ' ');
    dictionary += '\n';
    if (dictionary.size() > 0xffff) {
        error = path + ": shape " + shapeText(shape) + " is too long for a .npy header";
        return false;
    }
    std::string preamble = "\x93NUMPY\x01";
    preamble += '\0';
    preamble += static_cast<char>(dictionary.size() & 0xff);
    preamble += static_cast<char>(dictionary.size() >> 8);

    AtomicFile file;
    return file.create(path, error) && file.write(preamble.data(), preamble.size(), error) &&
           file.write(dictionary.data(), dictionary.size(), error) &&
           file.write(data, count * elementBytes, error) && file.commit(error);
}

} // namespace

bool writeNpy(const std::string& path, const std::vector<double>& values,
              const std::vector<std::size_t>& shape, std::string& error) {
    return writeNpyArray(path, "<f8", values.data(), values.size(), sizeof(double), shape, error);
}

bool writeNpy(const std::string& path, const std::vector<float>& values,
              const std::vector<std::size_t>& shape, std::string& error) {
    return writeNpyArray(path, "<f4", values.data(), values.size(), sizeof(float), shape, error);
}

} // namespace fpx
