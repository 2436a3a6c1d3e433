// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A second entry point of the CUDA plugin, for tests: every conversion path the benchmark
// times, run once over caller-supplied data, so that a test can compare each one with the
// exact core bit for bit. The plugin exports
//   extern "C" fpx::cuda::ConversionRunner* fpx_cuda_create_conversion_runner();
// Plain C++ (no CUDA headers), so a test can include it without the toolkit's include path.

#include "fpx/bench/backend.h"
#include "fpx/bench/verification.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fpx::cuda {

inline constexpr const char* kConversionRunnerSymbol = "fpx_cuda_create_conversion_runner";

struct PathDescription {
    std::string name;       // "own kernel: encodeElement<rne>", "__float2half_rn" …
    bool ownKernel = false; // the core's element conversions: must agree on every input
    bool hardware = false;  // the GPU's own conversion instructions (not a software emulation)
    bench::Deviations deviations; // where it may differ from the exact core by design
    std::string note;             // what the deviations are, in words
};

class ConversionRunner {
  public:
    virtual ~ConversionRunner() = default;
    // Empty when a CUDA device can run the paths; otherwise why not.
    virtual std::string unavailableReason() const = 0;
    // The paths for a format on device 0, own kernels first. Empty when none applies.
    virtual std::vector<PathDescription>
    paths(const FormatSpec& format, const RoundingOptions& options, bench::Direction direction) = 0;
    // Runs paths(…)[path] over `count` elements on device 0: FP32 bits → packed codes
    // (Encode) or packed codes → FP32 bits (Decode), codes packedBytes(format) bytes each,
    // little-endian. Element i rounds stochastically with stochasticBits(seed, i). Returns an
    // empty string on success, otherwise what failed.
    virtual std::string convert(const FormatSpec& format, const RoundingOptions& options,
                                bench::Direction direction, std::size_t path, const void* in,
                                void* out, std::size_t count, std::uint64_t seed) = 0;
};

} // namespace fpx::cuda
