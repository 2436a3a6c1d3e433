// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA benchmark backend, a plugin (libfpx_backend_cuda.so) that fpx loads at run time:
//   - copy bandwidth: cudaMemcpyAsync device to device and a 128-bit copy kernel, the ceiling
//     of every conversion, beside the datasheet bandwidth;
//   - FP32 ⇄ format conversions by own kernels over the core's element conversions and by
//     CUDA's intrinsics, each first compared bit for bit with the exact core on the host,
//     over the inputs every backend uses (bench/verification.h);
//   - cuBLASLt matrix-multiply throughput per format beside the datasheet dense peak.
// Without a driver or a device, unavailableReason() says why and nothing else runs. No CUDA
// error leaves the plugin: each becomes a result note. docs/architecture.md, "Backends and
// plugins".

#include "conversion_paths.h"
#include "conversion_runner.h"
#include "cuda_util.h"
#include "datasheet.h"
#include "device_kernels.h"
#include "matmul_bench.h"

#include "fpx/bench/backend.h"
#include "fpx/bench/sizes.h"
#include "fpx/bench/verification.h"
#include "fpx/exact/parallel_chunks.h"
#include "fpx/kernels/bulk_conversion.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

namespace fpx::cuda {
namespace {

using bench::BenchResult;
using bench::Direction;
using bench::Operation;

// Stochastic rounding in the benchmark uses the seed of every backend: element i gets
// stochasticBits(kSeed, i), on the GPU and in the exact core alike.
using bench::kSeed;

// ---- Availability -----------------------------------------------------------------------

struct Availability {
    std::string reason; // empty: usable
    int devices = 0;
};

const Availability& availability() {
    static const Availability result = [] {
        Availability a;
        int count = 0;
        // Without a driver this returns an error code (cudaErrorInsufficientDriver,
        // cudaErrorNoDevice …): check the code, not the count.
        const cudaError_t status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess) {
            a.reason = "no usable CUDA driver or device: cudaGetDeviceCount failed with " +
                       errorText(status);
            cudaGetLastError();
        } else if (count <= 0) {
            a.reason = "no CUDA device";
        } else {
            a.devices = count;
        }
        return a;
    }();
    return result;
}

// ---- Device description -----------------------------------------------------------------

std::string versionText(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string formatFixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string terabytes(double bytesPerSecond) {
    return formatFixed(bytesPerSecond / 1e12, 3) + " TB/s";
}

struct DeviceDescription {
    bench::DeviceInfo info;
    int computeCapability = 0;
    double theoreticalBandwidth = 0;
    std::string datasheetProduct;
};

DeviceDescription describeDevice(int index) {
    DeviceDescription d;
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
    int memoryClockKHz = 0, clockKHz = 0;
    // Attributes rather than cudaDeviceProp fields: CUDA 13 removed the clock-rate fields.
    if (cudaDeviceGetAttribute(&memoryClockKHz, cudaDevAttrMemoryClockRate, index) != cudaSuccess)
        memoryClockKHz = 0;
    if (cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, index) != cudaSuccess)
        clockKHz = 0;
    cudaGetLastError();
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);

    d.computeCapability = prop.major * 10 + prop.minor;
    // Double data rate: two transfers per memory clock on every bus pin.
    d.theoreticalBandwidth =
        2.0 * memoryClockKHz * 1e3 * static_cast<double>(prop.memoryBusWidth) / 8.0;

    bench::DeviceInfo& info = d.info;
    info.backend = "cuda";
    info.index = index;
    info.name = prop.name;
    const std::size_t blas = cublasLtGetVersion();
    info.driver = "driver " + versionText(driver) + ", runtime " + versionText(runtime) +
                  ", cuBLASLt " + std::to_string(blas / 10000) + "." +
                  std::to_string((blas / 100) % 100) + "." + std::to_string(blas % 100);
    info.computeUnits = prop.multiProcessorCount;
    info.memoryBytes = prop.totalGlobalMem;
    info.lastLevelCacheBytes = static_cast<std::uint64_t>(prop.l2CacheSize);
    info.details =
        "sm_" + std::to_string(d.computeCapability) + ", " +
        std::to_string(prop.multiProcessorCount) + " SMs at " + std::to_string(clockKHz / 1000) +
        " MHz, " + std::to_string(prop.memoryBusWidth) + "-bit memory bus at " +
        std::to_string(memoryClockKHz / 1000) + " MHz (" + terabytes(d.theoreticalBandwidth) +
        " theoretical), L2 " + std::to_string(prop.l2CacheSize >> 20) + " MiB";
    if (auto sheet = findDatasheet(prop.name)) {
        d.datasheetProduct = sheet->product;
        info.datasheetBandwidth = sheet->bandwidth;
        info.datasheetPeaks = sheet->peaks;
        info.details += "; datasheet: " + sheet->product + ", " + terabytes(sheet->bandwidth);
    } else {
        info.details += "; no datasheet figures for this model";
    }
    return d;
}

// What the code compiled for a device of this compute capability can do, without running
// anything (support() must be cheap): this build has no family-specific sm_100a/sm_120a code,
// so FP6/FP4 conversions are emulated everywhere.
DeviceFeatures featuresFromComputeCapability(int computeCapability) {
    DeviceFeatures f;
    f.arch = computeCapability * 10;
    f.fp8Convert = computeCapability >= 89;
    f.tf32DirectedRounding = computeCapability >= 90;
    f.shortConvert = false;
    return f;
}

// ---- Host-side helpers ------------------------------------------------------------------

// The exact core is the slow side of every comparison: it runs on every core, in chunks of at
// least this many elements (parallelChunks rethrows the first chunk's exception).
constexpr std::size_t kMinVerifiedChunk = 16384;

// ---- The benchmark ----------------------------------------------------------------------

class BenchRun {
  public:
    BenchRun(const bench::BenchRequest& request, const bench::ResultSink& sink,
             const bench::ProgressSink& progress, const std::atomic<bool>* cancel)
        : request_(request), sink_(sink), progress_(progress), cancel_(cancel) {}

    void run(const std::vector<int>& devices) {
        total_ = 0;
        for (std::size_t d = 0; d < devices.size(); ++d)
            total_ += stepsPerDevice();
        for (int index : devices) {
            if (cancelled())
                return;
            runDevice(index);
        }
        report(1.0, "done");
    }

  private:
    bool cancelled() const { return cancel_ && cancel_->load(); }

    double stepsPerDevice() const {
        const std::size_t sizes = request_.sizes.empty() ? 2 : request_.sizes.size();
        double steps = 0;
        if (request_.conversions)
            steps +=
                static_cast<double>(sizes) *
                (2.0 + static_cast<double>(request_.formats.size() * request_.directions.size()));
        else
            steps += 2.0 * static_cast<double>(sizes);
        if (request_.arithmetic)
            steps += matmulCaseCount();
        return std::max(1.0, steps);
    }

    void report(double fraction, const std::string& what) {
        if (progress_)
            progress_(std::clamp(fraction, 0.0, 1.0), what);
    }
    void step(const std::string& what) {
        report(total_ > 0 ? done_ / total_ : 0, what);
        done_ += 1;
    }

    BenchResult baseResult(Operation operation) const {
        BenchResult r;
        r.backend = "cuda";
        r.device = device_.info.name;
        r.deviceIndex = device_.info.index;
        r.operation = operation;
        r.threads = 1;
        return r;
    }

    void runDevice(int index) {
        try {
            device_ = describeDevice(index);
            runner_ = std::make_unique<DeviceRunner>(index);
        } catch (const std::exception& e) {
            BenchResult r = baseResult(Operation::Copy);
            r.deviceIndex = index;
            r.format = "fp32";
            r.path = "device setup";
            r.note = std::string("not measured: ") + e.what();
            sink_(r);
            return;
        }
        for (std::size_t size : sizes()) {
            if (cancelled())
                return;
            try {
                runSize(size);
            } catch (const std::exception& e) {
                BenchResult r = baseResult(Operation::Copy);
                r.format = "fp32";
                r.path = "buffers for " + std::to_string(size) + " elements";
                r.elements = size;
                r.note = std::string("not measured: ") + e.what();
                sink_(r);
            }
        }
        if (request_.arithmetic && !cancelled()) {
            MatmulTarget target;
            target.info = device_.info;
            target.computeCapability = device_.computeCapability;
            target.multiProcessors = runner_->multiProcessors();
            target.stream = runner_->stream();
            runMatmulBench(target, request_.plan, sink_, cancel_,
                           [&](const std::string& what) { step(device_.info.name + ": " + what); });
        }
        runner_.reset();
    }

    // In cache and beyond the last-level cache (bench::defaultSizes), unless asked otherwise;
    // shrunk to what fits in three buffers in free memory.
    std::vector<std::size_t> sizes() const {
        std::vector<std::size_t> sizes = request_.sizes;
        if (sizes.empty())
            sizes = bench::defaultSizes(device_.info);
        std::size_t freeBytes = 0, totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess)
            for (std::size_t& s : sizes)
                while (s > 16 && 3 * 4 * s > freeBytes / 10 * 8)
                    s /= 2;
        cudaGetLastError();
        return sizes;
    }

    // Times `pass` (one pass, launched asynchronously on the runner's stream) by the plan.
    // A synchronisation costs microseconds, as much as a pass over an array in L2, so the
    // passes are batched: enough passes for 0.2 ms of device time are one iteration, and the
    // statistics are divided back to one pass. Kernels are batched in a CUDA graph (one launch
    // for the batch); cudaMemcpyAsync is not (`inGraph` false): a copy node of a graph runs on
    // a copy engine, well below the same copy on a stream.
    bench::Statistics timePasses(const std::function<void()>& pass, bool inGraph = true) {
        DeviceRunner& runner = *runner_;
        cudaEvent_t start = nullptr, stop = nullptr;
        check(cudaEventCreate(&start), "cudaEventCreate");
        std::unique_ptr<CUevent_st, decltype(&cudaEventDestroy)> startOwner(start,
                                                                            &cudaEventDestroy);
        check(cudaEventCreate(&stop), "cudaEventCreate");
        std::unique_ptr<CUevent_st, decltype(&cudaEventDestroy)> stopOwner(stop, &cudaEventDestroy);
        check(cudaEventRecord(start, runner.stream()), "cudaEventRecord");
        pass();
        check(cudaEventRecord(stop, runner.stream()), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float milliseconds = 0;
        check(cudaEventElapsedTime(&milliseconds, start, stop), "cudaEventElapsedTime");
        const double seconds = std::max(1e-7, static_cast<double>(milliseconds) * 1e-3);
        const int passes = static_cast<int>(std::clamp(std::ceil(2e-4 / seconds), 1.0, 1000.0));
        const auto perPass = [passes](bench::Statistics s) {
            s.median /= passes;
            s.min /= passes;
            s.max /= passes;
            s.iterationsPerSample *= static_cast<std::uint64_t>(passes);
            return s;
        };
        if (!inGraph)
            return perPass(bench::measure(
                [&] {
                    for (int i = 0; i < passes; ++i)
                        pass();
                    runner.synchronize();
                },
                request_.plan, cancel_));

        cudaGraph_t graph = nullptr;
        check(cudaStreamBeginCapture(runner.stream(), cudaStreamCaptureModeThreadLocal),
              "cudaStreamBeginCapture");
        try {
            for (int i = 0; i < passes; ++i)
                pass();
        } catch (...) {
            cudaStreamEndCapture(runner.stream(), &graph);
            if (graph != nullptr)
                cudaGraphDestroy(graph);
            throw;
        }
        check(cudaStreamEndCapture(runner.stream(), &graph), "cudaStreamEndCapture");
        std::unique_ptr<CUgraph_st, decltype(&cudaGraphDestroy)> graphOwner(graph,
                                                                            &cudaGraphDestroy);
        cudaGraphExec_t exec = nullptr;
        check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
        std::unique_ptr<CUgraphExec_st, decltype(&cudaGraphExecDestroy)> execOwner(
            exec, &cudaGraphExecDestroy);

        return perPass(bench::measure(
            [&] {
                check(cudaGraphLaunch(exec, runner.stream()), "cudaGraphLaunch");
                runner.synchronize();
            },
            request_.plan, cancel_));
    }

    void runSize(std::size_t n) {
        DeviceRunner& runner = *runner_;
        runner.activate();
        const std::size_t verify = std::min(n, bench::kRandomSampleElements);
        const std::vector<float> inputs =
            bench::randomInputs(n, request_.distribution, bench::randomInputSeed(n));
        std::vector<std::uint8_t> prefix(verify * 4);
        std::memcpy(prefix.data(), inputs.data(), prefix.size());

        DeviceBuffer in(n * 4), out(n * 4), codes(n * 4);
        copyOnStream(in.get(), inputs.data(), n * 4, cudaMemcpyHostToDevice, runner.stream(),
                     "upload");

        const double ceiling = measureCopies(n, in, out, prefix);
        if (!request_.conversions)
            return;
        for (const FormatSpec& format : request_.formats) {
            bool codesReady = false;
            for (Direction direction : request_.directions) {
                if (cancelled())
                    return;
                step(device_.info.name + ": " + std::string(bench::directionId(direction)) + " " +
                     format.id + ", " + std::to_string(n) + " elements");
                runConversions(format, direction, n, verify, in, out, codes, codesReady, prefix,
                               ceiling);
            }
        }
    }

    // cudaMemcpyAsync and the copy kernel over n FP32 values; returns the better bytes/s
    // (read + written), the ceiling of the conversions.
    double measureCopies(std::size_t n, DeviceBuffer& in, DeviceBuffer& out,
                         const std::vector<std::uint8_t>& prefix) {
        DeviceRunner& runner = *runner_;
        const std::size_t bytes = n * 4;
        warmUp(in, out, bytes);
        double best = 0;
        for (int kind = 0; kind < 2; ++kind) {
            step(device_.info.name + ": copy, " + std::to_string(n) + " elements");
            BenchResult r = baseResult(Operation::Copy);
            r.format = "fp32";
            r.path = kind == 0 ? "cudaMemcpyAsync device to device"
                               : "copy kernel (128-bit loads and stores)";
            r.elements = n;
            try {
                auto pass = [&] {
                    if (kind == 0)
                        check(cudaMemcpyAsync(out.get(), in.get(), bytes, cudaMemcpyDeviceToDevice,
                                              runner.stream()),
                              "cudaMemcpyAsync");
                    else
                        check(launchCopy(in.get(), out.get(), bytes, runner.copyBlocksFor(bytes),
                                         runner.stream()),
                              "copy kernel");
                };
                check(cudaMemsetAsync(out.get(), 0, bytes, runner.stream()), "clear output");
                pass();
                runner.synchronize();
                std::vector<std::uint8_t> back(prefix.size());
                copyOnStream(back.data(), out.get(), back.size(), cudaMemcpyDeviceToHost,
                             runner.stream(), "download");
                r.checked = prefix.size() / 4;
                for (std::size_t i = 0; i < back.size(); i += 4)
                    if (std::memcmp(back.data() + i, prefix.data() + i, 4) != 0)
                        ++r.mismatches;
                r.verified = r.mismatches == 0;
                r.time = timePasses(pass, kind != 0);
                if (r.time.median > 0) {
                    r.elementsPerSecond = static_cast<double>(n) / r.time.median;
                    r.bytesPerSecond = 2.0 * static_cast<double>(bytes) / r.time.median;
                }
                best = std::max(best, r.bytesPerSecond);
            } catch (const std::exception& e) {
                r.note = std::string("not measured: ") + e.what();
            }
            r.ceiling = device_.info.datasheetBandwidth;
            r.ceilingName = r.ceiling > 0 ? "datasheet bandwidth (" + device_.datasheetProduct + ")"
                                          : "no datasheet figure for " + device_.info.name;
            r.note =
                bench::joinNotes(r.note, "bytes read + written; theoretical from the memory bus: " +
                                             terabytes(device_.theoreticalBandwidth));
            sink_(r);
        }
        return best;
    }

    // An idle GPU runs at a fraction of its clocks and raises them under load over tens of
    // milliseconds; the first measurements of a run would time part of that climb (the copy
    // ceiling first of all). So the run begins with a quarter of a second of copies.
    void warmUp(DeviceBuffer& in, DeviceBuffer& out, std::size_t bytes) {
        if (warm_)
            return;
        warm_ = true;
        DeviceRunner& runner = *runner_;
        const auto start = std::chrono::steady_clock::now();
        const int batch = static_cast<int>(std::clamp<std::size_t>((64u << 20) / bytes, 1, 256));
        while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(250) &&
               !cancelled()) {
            for (int i = 0; i < batch; ++i)
                check(launchCopy(in.get(), out.get(), bytes, runner.copyBlocksFor(bytes),
                                 runner.stream()),
                      "warm-up copy");
            runner.synchronize();
        }
    }

    // Makes `codes` hold n codes of the format to decode: the inputs encoded with nearest-even
    // by the own encode kernel (the codes bench::decodeInputs gives every backend, made on the
    // device), or bench::writeRandomCodes' codes where the format has no own encode kernel.
    void prepareCodes(const FormatSpec& format, std::size_t n, DeviceBuffer& in,
                      DeviceBuffer& codes, int codeBytes) {
        DeviceRunner& runner = *runner_;
        auto encoders = conversionPaths(format, {}, Direction::Encode, runner.features());
        if (!encoders.empty() && encoders.front().description.ownKernel) {
            runner.launch(encoders.front(), in.get(), codes.get(), n, kSeed);
            runner.synchronize();
            return;
        }
        std::vector<std::uint8_t> host(n * static_cast<std::size_t>(codeBytes));
        parallelChunks(n, kMinVerifiedChunk, 0, [&](std::size_t begin, std::size_t end) {
            bench::writeRandomCodes(format, n, host.data(), begin, end);
        });
        copyOnStream(codes.get(), host.data(), host.size(), cudaMemcpyHostToDevice, runner.stream(),
                     "upload codes");
    }

    // One pass of `path` over host inputs, its outputs compared with the exact core's.
    bench::Verification checkOnHostInputs(ConversionPath& path, const bench::DeviationJudge& judge,
                                          const std::vector<std::uint8_t>& inputs,
                                          const std::vector<std::uint8_t>& expected,
                                          std::size_t count) {
        DeviceRunner& runner = *runner_;
        const std::size_t outBytes = static_cast<std::size_t>(judge.outputBytes());
        DeviceBuffer in(std::max<std::size_t>(inputs.size(), 4)),
            out(std::max<std::size_t>(count * outBytes, 4));
        copyOnStream(in.get(), inputs.data(), inputs.size(), cudaMemcpyHostToDevice,
                     runner.stream(), "upload adversarial inputs");
        runner.launch(path, in.get(), out.get(), count, kSeed);
        runner.synchronize();
        std::vector<std::uint8_t> got(count * outBytes);
        copyOnStream(got.data(), out.get(), got.size(), cudaMemcpyDeviceToHost, runner.stream(),
                     "download");
        return bench::verify(judge, inputs.data(), expected.data(), got.data(), count);
    }

    void runConversions(const FormatSpec& format, Direction direction, std::size_t n,
                        std::size_t verify, DeviceBuffer& in, DeviceBuffer& out,
                        DeviceBuffer& codes, bool& codesReady,
                        const std::vector<std::uint8_t>& prefix, double ceiling) {
        DeviceRunner& runner = *runner_;
        const int codeBytes = kernelCodeBytes(format);
        // What the exact core is asked for, and the paths built for the same options.
        const RoundingOptions options = bench::exactCoreOptions(request_.rounding, direction);
        std::vector<ConversionPath> paths;
        try {
            paths = conversionPaths(format, options, direction, runner.features());
        } catch (const std::exception&) {
            return;
        }
        if (paths.empty() || codeBytes == 0)
            return;

        const bool encode = direction == Direction::Encode;
        const int outBytes = encode ? codeBytes : 4;
        const void* source = encode ? in.get() : codes.get();

        // The exact core's answers for the adversarial set and the first `verify` elements.
        bench::AdversarialSet adversarial;
        std::vector<std::uint8_t> sourcePrefix, expected;
        std::string setupError;
        try {
            adversarial = bench::adversarialSet(format, options, direction);
            if (encode) {
                sourcePrefix = prefix;
            } else {
                if (!codesReady) {
                    prepareCodes(format, n, in, codes, codeBytes);
                    codesReady = true;
                }
                sourcePrefix.resize(verify * static_cast<std::size_t>(codeBytes));
                copyOnStream(sourcePrefix.data(), codes.get(), sourcePrefix.size(),
                             cudaMemcpyDeviceToHost, runner.stream(), "download codes");
            }
            expected.resize(verify * static_cast<std::size_t>(outBytes));
            parallelChunks(verify, kMinVerifiedChunk, 0, [&](std::size_t begin, std::size_t end) {
                const std::size_t inStride = encode ? 4 : static_cast<std::size_t>(codeBytes);
                const std::vector<std::uint8_t> part = bench::exactCoreOutputs(
                    format, options, direction, sourcePrefix.data() + begin * inStride, end - begin,
                    kSeed, begin);
                std::memcpy(expected.data() + begin * static_cast<std::size_t>(outBytes),
                            part.data(), part.size());
            });
        } catch (const std::exception& e) {
            setupError = e.what();
        }

        for (ConversionPath& path : paths) {
            if (cancelled())
                return;
            BenchResult r = baseResult(Operation::Convert);
            r.format = format.id;
            r.direction = direction;
            r.path = path.description.name;
            r.hardware = path.description.hardware;
            r.elements = n;
            r.ceiling = ceiling;
            r.ceilingName = "measured copy bandwidth (best of cudaMemcpyAsync and the copy kernel)";
            if (!setupError.empty()) {
                r.note = "not measured: " + setupError;
                sink_(r);
                continue;
            }
            try {
                const bench::DeviationJudge judge(format, options, direction,
                                                  path.description.deviations);
                bench::Verification outcome = checkOnHostInputs(
                    path, judge, adversarial.inputs, adversarial.expected, adversarial.count);
                auto pass = [&] { runner.launch(path, source, out.get(), n, kSeed); };
                check(cudaMemsetAsync(out.get(), 0xa5, n * 4, runner.stream()), "clear output");
                pass();
                runner.synchronize();
                std::vector<std::uint8_t> got(expected.size());
                copyOnStream(got.data(), out.get(), got.size(), cudaMemcpyDeviceToHost,
                             runner.stream(), "download");
                outcome.add(
                    bench::verify(judge, sourcePrefix.data(), expected.data(), got.data(), verify));
                r.note = path.description.note;
                bench::recordVerification(r, outcome, path.description.deviations);
                r.time = timePasses(pass);
                if (r.time.median > 0) {
                    r.elementsPerSecond = static_cast<double>(n) / r.time.median;
                    r.bytesPerSecond =
                        static_cast<double>(n) * (judge.inputBytes() + outBytes) / r.time.median;
                }
            } catch (const std::exception& e) {
                r.note = bench::joinNotes(r.note, std::string("not measured: ") + e.what());
                cudaGetLastError();
            }
            sink_(r);
        }
    }

    const bench::BenchRequest& request_;
    const bench::ResultSink& sink_;
    const bench::ProgressSink& progress_;
    const std::atomic<bool>* cancel_;
    double total_ = 0, done_ = 0;
    DeviceDescription device_;
    std::unique_ptr<DeviceRunner> runner_;
    bool warm_ = false; // warmUp has run
};

// ---- The plugin's objects -----------------------------------------------------------------

class CudaBackend final : public bench::Backend {
  public:
    std::string id() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA"; }
    std::string unavailableReason() const override { return availability().reason; }

    std::vector<bench::DeviceInfo> devices() const override {
        std::vector<bench::DeviceInfo> list;
        if (!availability().reason.empty())
            return list;
        for (int i = 0; i < availability().devices; ++i) {
            try {
                list.push_back(describeDevice(i).info);
            } catch (const std::exception&) {
                cudaGetLastError(); // a device that cannot be described is left out
            }
        }
        return list;
    }

    bench::Support support(int device, const FormatSpec& format,
                           Direction direction) const override {
        if (!availability().reason.empty() || device < 0 || device >= availability().devices)
            return bench::Support::Unsupported;
        int major = 0, minor = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
                cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) !=
                cudaSuccess) {
            cudaGetLastError();
            return bench::Support::Unsupported;
        }
        const DeviceFeatures features = featuresFromComputeCapability(major * 10 + minor);
        bool any = false;
        for (OverflowPolicy policy : {OverflowPolicy::Ieee, OverflowPolicy::Saturate}) {
            RoundingOptions options;
            options.overflow = policy;
            try {
                for (const ConversionPath& path :
                     conversionPaths(format, options, direction, features)) {
                    if (path.description.hardware)
                        return bench::Support::Native;
                    any = true;
                }
            } catch (const std::exception&) {
            }
        }
        return any ? bench::Support::Emulated : bench::Support::Unsupported;
    }

    void run(const bench::BenchRequest& request, const bench::ResultSink& sink,
             const bench::ProgressSink& progress, const std::atomic<bool>* cancel) override {
        std::lock_guard<std::mutex> lock(runMutex_);
        if (!availability().reason.empty()) {
            if (progress)
                progress(1.0, "CUDA unavailable: " + availability().reason);
            return;
        }
        std::vector<int> devices = request.devices;
        if (devices.empty())
            for (int i = 0; i < availability().devices; ++i)
                devices.push_back(i);
        devices.erase(std::remove_if(devices.begin(), devices.end(),
                                     [](int d) { return d < 0 || d >= availability().devices; }),
                      devices.end());
        try {
            BenchRun(request, sink, progress, cancel).run(devices);
        } catch (const std::exception& e) {
            BenchResult r;
            r.backend = "cuda";
            r.operation = Operation::Copy;
            r.format = "fp32";
            r.note = std::string("benchmark stopped: ") + e.what();
            sink(r);
        }
    }

  private:
    std::mutex runMutex_;
};

class CudaConversionRunner final : public ConversionRunner {
  public:
    std::string unavailableReason() const override { return availability().reason; }

    std::vector<PathDescription> paths(const FormatSpec& format, const RoundingOptions& options,
                                       Direction direction) override {
        std::vector<PathDescription> list;
        if (!availability().reason.empty())
            return list;
        try {
            for (const ConversionPath& p :
                 conversionPaths(format, options, direction, runner().features()))
                list.push_back(p.description);
        } catch (const std::exception&) {
        }
        return list;
    }

    std::string convert(const FormatSpec& format, const RoundingOptions& options,
                        Direction direction, std::size_t path, const void* in, void* out,
                        std::size_t count, std::uint64_t seed) override {
        if (!availability().reason.empty())
            return availability().reason;
        try {
            DeviceRunner& device = runner();
            device.activate();
            std::vector<ConversionPath> list =
                conversionPaths(format, options, direction, device.features());
            if (path >= list.size())
                return "no path " + std::to_string(path) + " for " + format.id;
            ConversionPath& p = list[path];
            const std::size_t inBytes =
                direction == Direction::Encode ? 4 : static_cast<std::size_t>(p.codeBytes);
            const std::size_t outBytes =
                direction == Direction::Encode ? static_cast<std::size_t>(p.codeBytes) : 4;
            DeviceBuffer deviceIn(count * inBytes), deviceOut(count * outBytes);
            copyOnStream(deviceIn.get(), in, count * inBytes, cudaMemcpyHostToDevice,
                         device.stream(), "upload");
            device.launch(p, deviceIn.get(), deviceOut.get(), count, seed);
            device.synchronize();
            copyOnStream(out, deviceOut.get(), count * outBytes, cudaMemcpyDeviceToHost,
                         device.stream(), "download");
            return {};
        } catch (const std::exception& e) {
            cudaGetLastError();
            return e.what();
        }
    }

  private:
    DeviceRunner& runner() {
        if (!runner_)
            runner_ = std::make_unique<DeviceRunner>(0);
        return *runner_;
    }
    std::unique_ptr<DeviceRunner> runner_;
};

// Keeps the plugin loaded until the process exits, whatever dlclose the loader calls: the
// statically linked CUDA runtime and cuBLASLt hold the device context and their own threads,
// and tearing them down by unloading the library mid-process is a known source of crashes.
void pinPlugin() {
    static const int anchor = 0;
    Dl_info info{};
    if (dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE); // never closed
}

} // namespace
} // namespace fpx::cuda

#define FPX_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

FPX_PLUGIN_EXPORT int fpx_backend_abi_version() {
    return fpx::bench::kBackendAbiVersion;
}

FPX_PLUGIN_EXPORT fpx::bench::Backend* fpx_create_backend() {
    try {
        fpx::cuda::pinPlugin();
        return new fpx::cuda::CudaBackend();
    } catch (...) {
        return nullptr;
    }
}

FPX_PLUGIN_EXPORT fpx::cuda::ConversionRunner* fpx_cuda_create_conversion_runner() {
    try {
        fpx::cuda::pinPlugin();
        return new fpx::cuda::CudaConversionRunner();
    } catch (...) {
        return nullptr;
    }
}
