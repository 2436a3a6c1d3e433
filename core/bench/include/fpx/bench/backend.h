// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/measurement.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::bench {

// Which way a conversion goes: FP32 → the format (encode) or the format → FP32 (decode).
enum class Direction { Encode, Decode };

// How a device handles a format: in its own instructions, by emulation in ordinary
// integer/float code, or not at all.
enum class Support { Native, Emulated, Unsupported };

// What one result measures. The last three are the CPU's ratios (accumulation_bench.h,
// quantization_bench.h), each timed alongside its reference and carried as results so that the
// result files, saved runs and their comparison take them as they take conversions
// (ratio_results.h).
enum class Operation {
    Copy,         // the device's own copy bandwidth: the ceiling of every conversion
    Convert,      // bulk conversion, elements/s and bytes/s (read + written)
    Arithmetic,   // FMA / dot-product / matrix-multiply throughput, operations/s
    Accumulate,   // a sum in a format, against a plain float loop or memcpy of its terms
    Quantize,     // a block quantizer on a tensor in memory, against memcpy
    QuantizeFile, // loading + quantizing a .safetensors file, against reading it
};

// Distribution of the random FP32 inputs, regenerated for every size so that branch
// predictors and memory compression cannot flatter a result.
enum class InputDistribution { Normal, Subnormal, Overflowing, WithNaN };

struct DeviceInfo {
    std::string backend; // "cpu", "cuda", "opencl"
    int index = 0;
    std::string name;    // "Intel(R) Xeon(R) …", "NVIDIA H200"
    std::string driver;  // driver / runtime versions
    std::string details; // features: "avx512f f16c avx512_bf16 …", "sm_90, 132 SMs"
    int computeUnits = 0;
    std::uint64_t memoryBytes = 0;
    std::uint64_t lastLevelCacheBytes = 0;
    double datasheetBandwidth = 0; // bytes/s from the vendor's datasheet, 0 when unknown
    // Dense datasheet peaks, operations/s, by format id ("fp64", "tf32", "fp8_e4m3", "int8").
    std::vector<std::pair<std::string, double>> datasheetPeaks;
};

struct BenchRequest {
    std::vector<FormatSpec> formats;
    std::vector<Direction> directions = {Direction::Encode, Direction::Decode};
    std::vector<std::size_t> sizes; // elements; empty: defaultSizes (sizes.h) per device
    std::vector<int> threads;       // CPU thread counts; empty: 1 and all
    std::vector<int> devices;       // device indices; empty: all
    TimingPlan plan;
    InputDistribution distribution = InputDistribution::Normal;
    RoundingOptions rounding; // nearest-even unless asked otherwise
    bool conversions = true;
    bool arithmetic = true;
};

// The start of a ceilingName that is the copy of the same arrays timed between the result's own
// samples (measureAlongside), not the copy row of its size and threads.
inline constexpr std::string_view kCopyAlongside = "memcpy alongside";

struct BenchResult {
    std::string backend; // "cpu"
    std::string device;  // DeviceInfo::name
    int deviceIndex = 0;
    Operation operation = Operation::Convert;
    std::string format; // format id; "fp32" for a copy
    Direction direction = Direction::Encode;
    std::string path;         // "bit trick (AVX-512)", "F16C", "cuBLASLt", "memcpy" …
    bool hardware = false;    // the path uses the device's own conversion/arithmetic instructions
    std::size_t elements = 0; // per pass (matrix multiply: M = N = K = elements)
    int threads = 1;
    Statistics time; // seconds per pass
    double elementsPerSecond = 0;
    double bytesPerSecond = 0;      // bytes read + written
    double operationsPerSecond = 0; // Arithmetic: FLOP/s (OP/s for integers)
    double ceiling = 0;             // the reference this is compared to, same unit as above
    std::string ceilingName;        // "memcpy, 1 thread", "datasheet dense peak" …
                                    // (kCopyAlongside …: a copy timed between its samples)
    bool verified = false;          // agreed bit for bit with the exact core before timing
    bool exactByDesign = true;      // false for paths that declare deviations (AVX512-BF16's
                                    // flushing, bare instruction loops) and differ only
                                    // within them: reported, not a failure (verification.h)
    std::uint64_t checked = 0;      // elements compared with the exact core (verification.h)
    std::uint64_t mismatches = 0;
    std::string note; // e.g. "flushes subnormal inputs to zero (…)"

    // What the ratios of Accumulate, Quantize and QuantizeFile are judged by, as fpx bench
    // prints them (docs/behaviour.md, "Benchmarks"); empty or 0 in the other operations, whose
    // figure is throughput() against the ceiling.
    std::string workload;        // the inputs: an accumulation's terms ("uniform:0:1"), a
                                 // quantizer's tensor ("normal")
    double referenceSeconds = 0; // the reference's median seconds per pass (the ceiling's)
    double ratio = 0;       // Accumulate: reference time / time; Quantize: bytes/s over memcpy's;
                            // QuantizeFile: load + quantize time / read time
    double goalAtLeast = 0; // the ratio asked for: at least this (Accumulate, Quantize) …
    double goalAtMost = 0;  // … or at most this (QuantizeFile)
    int passes = 0;         // Quantize: the times the quantizer reads the tensor
    double bareRatio = 0;   // Quantize: the bare loop of as many passes, against its memcpy

    // The figure the ceiling is compared to: bytes/s for copies and conversions,
    // operations/s for arithmetic.
    double throughput() const {
        return operation == Operation::Arithmetic ? operationsPerSecond : bytesPerSecond;
    }
};

using ResultSink = std::function<void(const BenchResult&)>;
// Fraction of the whole run done (0 … 1) and what is being measured now.
using ProgressSink = std::function<void(double, const std::string&)>;

// A place benchmarks run: the CPU, CUDA devices, OpenCL devices. Backends other than the CPU
// are plugins loaded at run time, so fpx starts and works where they cannot load
// (docs/architecture.md, "Backends and plugins").
class Backend {
  public:
    virtual ~Backend() = default;
    virtual std::string id() const = 0;          // "cpu", "cuda", "opencl"
    virtual std::string displayName() const = 0; // "CPU", "CUDA", "OpenCL"
    // Empty when the backend can run; otherwise why not ("no CUDA driver: …").
    virtual std::string unavailableReason() const = 0;
    virtual std::vector<DeviceInfo> devices() const = 0;
    virtual Support support(int device, const FormatSpec& format, Direction direction) const = 0;
    // Runs the request, handing each result to `sink` as soon as it is measured. Stops early
    // (between measurements) when `cancel` becomes true.
    virtual void run(const BenchRequest& request, const ResultSink& sink,
                     const ProgressSink& progress, const std::atomic<bool>* cancel) = 0;
};

// The version of the plugin interface above; a plugin built against another is not loaded.
inline constexpr int kBackendAbiVersion = 2;

struct LoadedBackends {
    std::vector<std::unique_ptr<Backend>> backends; // the CPU first, then every plugin found
    std::vector<std::string> problems; // "opencl: libOpenCL.so.1: cannot open shared object …"
};

// The CPU backend and every backend plugin (libfpx_backend_<id>.so) found in $FPX_BACKEND_DIR,
// or else relative to the executable: ../lib in the build tree, LIBDIR/fpx where installed
// (docs/architecture.md, "Backends and plugins"). A plugin exports
//   extern "C" int fpx_backend_abi_version();
//   extern "C" fpx::bench::Backend* fpx_create_backend();
// Each plugin is first opened by fpx-backend-probe in a process of its own (see
// fpx/bench/backend_probe.h); one whose driver crashes or hangs there is listed as unavailable,
// with why, and is not loaded into this process.
LoadedBackends loadBackends();

// Only the backend `id` ("cpu", "cuda", "opencl"; nothing for any other id), probed as above:
// no other plugin is opened, so a broken driver of one backend cannot stop a run on another.
LoadedBackends loadBackend(std::string_view id);

std::unique_ptr<Backend> createCpuBackend();

std::string_view directionId(Direction direction); // "encode", "decode"
// "copy", "convert", "arithmetic", "accumulate", "quantize", "quantize-file"
std::string_view operationId(Operation operation);
// The operation of an id of operationId, in any case; nullopt for any other text.
std::optional<Operation> parseOperation(std::string_view id);
std::string_view supportId(Support support); // "native", "emulated", "unsupported"
std::string_view distributionId(InputDistribution distribution); // "normal", "subnormal" …
std::optional<InputDistribution> parseDistribution(std::string_view text);

// Random FP32 inputs of a distribution (deterministic in the seed), generated fast enough
// for arrays of hundreds of millions of elements.
std::vector<float> randomInputs(std::size_t count, InputDistribution distribution,
                                std::uint64_t seed);

} // namespace fpx::bench
