// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// NumPy's .npy files (format versions 1.0, 2.0 and 3.0) holding little-endian float16 ('<f2'),
// float32 ('<f4') or float64 ('<f8') arrays of any shape. Other dtypes, big-endian data, object
// arrays and damaged files are refused with a message naming the file and the header field or byte
// count at fault. Values are read in the file's memory order: C order (last index fastest), or
// Fortran order (first index fastest) when fortranOrder is set.
struct NpyArray {
    std::string dtype; // "<f2", "<f4" or "<f8"
    bool fortranOrder = false;
    std::vector<std::size_t> shape; // empty for a 0-d array (one element)
    std::vector<double> values;     // float16 and float32 data widened exactly

    std::size_t elementCount() const;
};

struct NpyReadResult {
    std::optional<NpyArray> array;
    std::string error; // "NAME: what is wrong" when array is nullopt
};

// The header of a .npy file, checked against the file's size: the data of `elementCount`
// elements of `elementBytes` each start at `dataOffset` and lie within the file.
struct NpyHeader {
    std::string dtype; // "<f2", "<f4" or "<f8"
    bool fortranOrder = false;
    std::vector<std::size_t> shape;
    std::size_t elementCount = 1;
    std::size_t elementBytes = 8;
    std::size_t dataOffset = 0;
};
struct NpyHeaderResult {
    std::optional<NpyHeader> header;
    std::string error; // "NAME: what is wrong" when header is nullopt
};
// `bytes` is the whole file (or a mapping of it); `name` is used in messages only.
NpyHeaderResult parseNpyHeader(std::string_view bytes, const std::string& name);

// `name` is used in messages only.
NpyReadResult parseNpy(std::string_view bytes, const std::string& name);
NpyReadResult readNpyFile(const std::string& path);

// True when `bytes` begins with the .npy magic string "\x93NUMPY".
bool hasNpyMagic(std::string_view bytes);

} // namespace fpx
