// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_view.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fpx {

// The kinds of tensor files fpx reads (docs/behaviour.md, "Tensor files").
//   Npy          NumPy .npy: <f2, <f4, <f8, C or Fortran order
//   Safetensors  F64, F32, F16, BF16, F8_E4M3, F8_E5M2 tensors (others listed, not loaded)
//   Raw          headerless little-endian values of a dtype given by the user
//   Text         one value per line (blank lines and # comments skipped)
enum class TensorFileKind { Npy, Safetensors, Raw, Text };

// One tensor in a file, as its header describes it.
struct TensorInfo {
    std::string name;  // safetensors key; the file's name for .npy, raw and text
    std::string dtype; // as the file spells it: "F32", "BF16", "<f4", "float16" …
    std::vector<std::size_t> shape;
    std::size_t elementCount = 0;
    std::uint64_t dataOffset = 0; // bytes from the start of the file
    std::uint64_t dataBytes = 0;
    bool loadable = true; // false for dtypes fpx does not read (I32, BOOL …)
};

// How to read a file that has no header.
struct RawLayout {
    std::string dtype; // "f32", "f64", "f16", "bf16", "e4m3", "e5m2"
};

class TensorFile;

struct TensorFileOpen {
    std::unique_ptr<TensorFile> file;
    std::string error; // "PATH: what is wrong (header field, byte offset)" when file is null
};

// An open tensor file: the header checked in full (every offset in bounds, ordered and sized by
// dtype × shape), the data memory-mapped and read only on demand.
class TensorFile {
  public:
    // Kind from the contents (the .npy magic, a plausible safetensors header) or, for text, the
    // extension; raw needs `raw`.
    static TensorFileOpen open(const std::string& path,
                               const std::optional<RawLayout>& raw = std::nullopt);
    virtual ~TensorFile() = default;

    virtual TensorFileKind kind() const = 0;
    virtual const std::string& path() const = 0;
    virtual const std::vector<TensorInfo>& tensors() const = 0;
    // A safetensors file's "__metadata__" (string to string, in the file's order); empty for
    // the other kinds.
    virtual const std::vector<std::pair<std::string, std::string>>& metadata() const;

    // A tensor's values: F32 and F64 data are borrowed from the mapping where aligned, other
    // dtypes widened exactly into FP32. Always in C order: a Fortran-order .npy array is copied
    // into C order (its shape unchanged), so rows are rows whatever the file's layout. Text
    // values are parsed exactly and rounded once to FP64. The result owns or pins what its view
    // points at, and outlives the TensorFile.
    struct Loaded;
    virtual std::optional<Loaded> load(const std::string& name, std::string& error) const = 0;
};

// Values plus whatever keeps them alive.
struct TensorFile::Loaded {
    TensorView view;
    std::shared_ptr<const void> keepAlive;
};

// The kind TensorFile::open takes a file for, from the same evidence (the .npy magic, a
// plausible safetensors header, text-like first bytes, the extension), without parsing it.
// Never Raw: nullopt with `error` for a file that cannot be opened or has none of these kinds.
std::optional<TensorFileKind> tensorFileKind(const std::string& path, std::string& error);

// "PATH:TENSOR" split into the file and the tensor's name, unless the whole argument names a
// file (paths may hold colons): then the path alone.
struct TensorArgument {
    std::string path;
    std::optional<std::string> tensor;
};
TensorArgument splitTensorArgument(const std::string& argument);

// "PATH" or "PATH:TENSOR" as --input takes it: the file, and the tensor (the only or the first
// loadable one when no name is given). nullopt with `error` naming what is wrong.
std::optional<TensorFile::Loaded> loadTensorArgument(const std::string& argument,
                                                     const std::optional<RawLayout>& raw,
                                                     std::string& error);

// What `fpx inspect` prints for a tensor: min, max, absmax, mean and the population standard
// deviation of the finite values (all 0 when there are none), NaN and ±∞ counted apart. Taken
// in pieces on `threads` threads (0: one per hardware thread) and the fastest vector loops, in
// an order fixed by the element index alone, so that the figures are the same bits whatever the
// thread count and instruction set (docs/design.md, "Tensor statistics"; the error bound:
// docs/behaviour.md, "Tensor files").
struct TensorStatistics {
    std::size_t elements = 0;
    double min = 0, max = 0, absmax = 0, mean = 0, std = 0;
    std::size_t zeros = 0, nans = 0, infs = 0;
};
TensorStatistics tensorStatistics(const TensorView& view, unsigned threads = 0);

// The statistics of every tensor of `file`, as tensorStatistics gives them (nullopt for a tensor
// fpx does not load), without loading any: the values are read from the mapping a piece at a
// time, F16, BF16 and FP8 widened and Fortran order reordered piece by piece into a buffer per
// thread, so the memory used is the mapping and a few pages per thread. All the tensors' pieces
// are shared among the threads at once, so many small tensors keep every thread busy. nullopt
// with `error` when a tensor cannot be read.
std::optional<std::vector<std::optional<TensorStatistics>>>
tensorFileStatistics(const TensorFile& file, std::string& error, unsigned threads = 0);

// Output files are written to a temporary name beside PATH and renamed into place only when
// complete, so a failed write never leaves a half-written file. false with `error` otherwise.
struct OutputTensor {
    std::string name;
    std::string dtype; // safetensors dtype: "U8", "F32", "F64" …
    std::vector<std::size_t> shape;
    std::vector<std::uint8_t> bytes; // little-endian data
};
bool writeSafetensors(const std::string& path, const std::vector<OutputTensor>& tensors,
                      const std::vector<std::pair<std::string, std::string>>& metadata,
                      std::string& error);
bool writeNpy(const std::string& path, const std::vector<double>& values,
              const std::vector<std::size_t>& shape, std::string& error);
bool writeNpy(const std::string& path, const std::vector<float>& values,
              const std::vector<std::size_t>& shape, std::string& error);

} // namespace fpx
