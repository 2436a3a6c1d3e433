// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commands.h"

#include "fpx/data/tensor_file.h"
#include "fpx/data/tensor_view.h"
#include "fpx/data/value_distribution.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fpx::cli {

class Arguments;

// The tensor a command works on, from one of three sources:
//   --input PATH[:TENSOR] [--dtype D]                a file (.npy, .safetensors, text, raw)
//   --dist SPEC --count N [--seed S] [--outliers F:S]  drawn values, each rounded to FP32
//   --values V1,V2,...                               each parsed exactly, rounded to FP32
// One parser for every command that reads a tensor, so their options and messages agree.
struct TensorSource {
    std::optional<TensorFile::Loaded> loaded; // --input
    std::vector<float> values;                // --dist, --values
    TensorView view;                          // the values, borrowed from one of the above
    std::string description;                  // "normal:0:1 seed 0", "w.npy (tensor w)", …

    TensorSource() = default;
    // The view borrows from `values`, so a copy would point into the original.
    TensorSource(const TensorSource&) = delete;
    TensorSource& operator=(const TensorSource&) = delete;
};

// The options the sources take, for a command's Arguments ("input", "dtype", "dist", …).
std::set<std::string> tensorSourceOptions();

// The largest tensor --dist may draw: 4 GiB of FP32 values.
constexpr std::size_t kMaxGeneratedValues = std::size_t(1) << 30;

// Checks how the options combine (exactly one source; --dtype only with --input; --count,
// --seed and --outliers only with --dist) before any work. The first problem, or nullopt.
std::optional<std::string> checkTensorSourceOptions(const Arguments& args);

// --dist SPEC [--outliers F:S], --count N and --seed S as a command that draws several tensors
// reads them (fp8-scaling draws one per step). nullopt with `error` when one is malformed or
// missing; a missing --seed is 0.
struct DistributionOptions {
    ValueDistribution distribution;
    std::size_t count = 0;
    std::uint64_t seed = 0;
    std::string description; // "SPEC [outliers F:S] seed S"
};
std::optional<DistributionOptions> readDistributionOptions(const Arguments& args,
                                                           std::string& error);

// Reads the tensor the options name into `source`. Returns kExitOk, or kExitUsage (a malformed
// --dist, --count, --seed or --values) or kExitDataError (a file that cannot be read, a tensor
// without elements) with `error` saying what and where. Call checkTensorSourceOptions first.
int readTensorSource(const Arguments& args, TensorSource& source, std::string& error);

// readTensorSource as a step of a command: the source, shared (it cannot be copied) between
// the options and the report that views it, or the error that stops the command.
Outcome<std::shared_ptr<const TensorSource>> loadTensorSource(const Arguments& args);

} // namespace fpx::cli
