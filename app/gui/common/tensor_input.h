// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_file.h"
#include "fpx/data/tensor_view.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fpx::gui {

// The tensor a page works on (the Quantization page, the Training page's range view): one
// from a file, or values drawn from a distribution (FP32, each double draw rounded once to
// nearest-even, as `fpx quantize --dist`).
struct TensorSource {
    enum class Kind { File, Distribution };
    Kind kind = Kind::Distribution;
    std::string argument;         // File: "PATH" or "PATH:TENSOR"
    std::optional<RawLayout> raw; // File: the dtype of a headerless file
    std::string distribution = "normal:0:1";
    std::string outliers; // "" or "FRACTION:SCALE"
    std::size_t count = 65536;
    std::uint64_t seed = 1;
};

// The input values, owned here or pinned (a memory-mapped file).
struct TensorInput {
    TensorView view;
    std::shared_ptr<const void> keepAlive;
    std::string description; // "weights.npy: F32 [4096, 128]", "normal:0:1, 65 536 values"
    // Over the finite values (tensorStatistics, as `fpx inspect` prints them).
    double min = 0, max = 0;
    double mean = 0, std = 0;
    std::size_t finite = 0;
};

// Reads or draws the input (the source's statistics filled in); null with `error` naming what is
// wrong. Safe on a worker thread.
std::shared_ptr<TensorInput> loadTensorInput(const TensorSource& source, std::string& error);

// The tensors of a file, for a tensor picker; empty with `error` when it cannot be opened. Reads
// headers only, fit for the GUI thread: a text file's one tensor comes without its count
// (elementCount 0, no shape), which only parsing the whole file would give.
std::vector<TensorInfo> listTensors(const std::string& path, const std::optional<RawLayout>& raw,
                                    std::string& error);

} // namespace fpx::gui
