// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The conversion paths of the CUDA backend (own kernels over the core's element conversions,
// and CUDA's intrinsics), and one device that runs them.

#include "conversion_runner.h"
#include "cuda_util.h"
#include "device_kernels.h"

#include "fpx/bench/backend.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fpx::cuda {

struct ConversionPath {
    PathDescription description;
    bench::Direction direction = bench::Direction::Encode;
    int codeBytes = 1;                    // packed code size, both directions
    EncodeLaunch encode;                  // Encode
    DecodeLaunch decode;                  // Decode; decode.table is set from deviceTable
    std::vector<std::uint32_t> hostTable; // DecodeOp::Table: the core's decodeTable
    DeviceBuffer deviceTable;             // … uploaded on first launch
    int residentBlocks = 0;               // of its kernel per SM, asked on first launch
};

// Every path for the format, own kernel first, then CUDA's intrinsics where CUDA has one for
// this format, rounding mode and overflow policy. Empty when none applies. Core errors
// (a format the kernels do not cover) give no own kernel rather than an exception.
std::vector<ConversionPath> conversionPaths(const FormatSpec& format,
                                            const RoundingOptions& options,
                                            bench::Direction direction,
                                            const DeviceFeatures& features);

// The packed code size of a format when the GPU kernels can carry it (1, 2 or 4), else 0.
int kernelCodeBytes(const FormatSpec& format);

// One CUDA device: selected on construction (and again by activate() from other threads),
// with its own stream and the features its code was compiled with. Throws CudaError.
class DeviceRunner {
  public:
    explicit DeviceRunner(int device);

    void activate() const; // cudaSetDevice for the calling thread
    int device() const { return device_; }
    const DeviceFeatures& features() const { return features_; }
    cudaStream_t stream() const { return stream_.get(); }
    int multiProcessors() const { return multiProcessors_; }
    // Blocks of 256 threads for a grid-stride kernel over `elements` (16 a thread): one full
    // wave of the kernel's resident blocks on every SM, or fewer when the data needs fewer.
    int blocksFor(std::size_t elements, int residentBlocksPerSM) const;
    // … for the copy kernel.
    int copyBlocksFor(std::size_t bytes) const;

    // One pass of `path` (asynchronous): `in` and `out` are device memory.
    void launch(ConversionPath& path, const void* in, void* out, std::size_t count,
                std::uint64_t seed);
    void synchronize() const { stream_.synchronize(); }

  private:
    int device_;
    int multiProcessors_ = 1;
    Stream stream_;
    DeviceFeatures features_;
    int copyResidentBlocks_ = 1;
};

} // namespace fpx::cuda
