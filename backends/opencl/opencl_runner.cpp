// SPDX-License-Identifier: GPL-3.0-or-later
#include "opencl_runner.h"

#include "kernel_constants.h"
#include "kernel_source.h"
#include "opencl_paths.h"

#include "fpx/bench/measurement.h"
#include "fpx/bench/sizes.h"
#include "fpx/bench/verification.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace fpx::opencl {

namespace {

using bench::BenchRequest;
using bench::BenchResult;
using bench::DeviceInfo;
using bench::Direction;
using bench::Operation;
using bench::ProgressSink;
using bench::ResultSink;
using bench::Statistics;
using bench::Verification;

using bench::kSeed;                   // stochastic rounding, as on every backend
constexpr std::size_t kGranule = 256; // launches and buffers are whole multiples of this
constexpr cl_uint kFmaIterations = 1024;
constexpr std::size_t kFmaItemsPerComputeUnit = 2048;

std::size_t roundUp(std::size_t count) {
    return std::max(kGranule, (count + kGranule - 1) / kGranule * kGranule);
}

// ---- devices ---------------------------------------------------------------------------

std::string bytesText(std::uint64_t bytes) {
    if (bytes >= (std::uint64_t{1} << 30) && bytes % (std::uint64_t{1} << 30) == 0)
        return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (std::uint64_t{1} << 20))
        return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes) + " B";
}

std::string deviceTypeText(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (type & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

// ---- the run -------------------------------------------------------------------------------

class Runner {
  public:
    Runner(const std::vector<Device>& devices, const BenchRequest& request, const ResultSink& sink,
           const ProgressSink& progress, const std::atomic<bool>* cancel)
        : devices_(devices), request_(request), sink_(sink), progress_(progress), cancel_(cancel) {}

    void run();

  private:
    struct DeviceRun {
        const Device* device = nullptr;
        Context context;
        Queue queue;
        Program program;
        std::string extensionKernelsFailed; // why fma_fp64 / fma_fp16 are not built
        // Adversarial outcome per plan and path, computed once per device.
        std::vector<std::vector<std::optional<Verification>>> adversarial;
    };
    struct Launch {
        Kernel kernel;
        Buffer table;
        std::size_t count = 0;
    };

    void runDevice(const Device& device);
    void runSize(DeviceRun& run, std::size_t requested);
    void runConversion(DeviceRun& run, std::size_t planIndex, std::size_t n, cl_mem input,
                       cl_mem output, cl_mem codes, const std::vector<std::uint32_t>& inputs,
                       const std::vector<std::uint32_t>& sample, double copyBandwidth,
                       const std::string& sizeNote);
    void runArithmetic(DeviceRun& run);

    Launch prepare(DeviceRun& run, const ConversionPlan& plan, const ConversionPath& path,
                   cl_mem in, cl_mem out, std::size_t n);
    void launch(DeviceRun& run, const Launch& l) {
        enqueue1d(run.queue.get(), l.kernel.get(), l.count);
        check(clFinish(run.queue.get()), "clFinish");
    }
    Verification adversarialCheck(DeviceRun& run, std::size_t planIndex, std::size_t pathIndex);
    Statistics timed(DeviceRun& run, const std::function<void()>& body, const std::string& what);

    BenchResult base(const Device& device) const {
        BenchResult r;
        r.backend = "opencl";
        r.device = device.info.name;
        r.deviceIndex = device.info.index;
        return r;
    }
    void emit(const BenchResult& r) {
        if (sink_)
            sink_(r);
    }
    bool cancelled() const { return cancel_ != nullptr && cancel_->load(); }
    void checkCancel() const {
        if (cancelled())
            throw Cancelled{};
    }
    void step(const std::string& what) {
        ++done_;
        report(0, what);
    }
    void report(double fraction, const std::string& what) {
        if (progress_ && units_ > 0)
            progress_(std::min(1.0, (static_cast<double>(done_) + fraction) / units_), what);
    }

    const std::vector<Device>& devices_;
    const BenchRequest& request_;
    const ResultSink& sink_;
    const ProgressSink& progress_;
    const std::atomic<bool>* cancel_;
    std::vector<ConversionPlan> plans_;
    double units_ = 0;
    double done_ = 0;
    std::size_t unitsPerDevice_ = 0;
};

void Runner::run() {
    // The copy ceiling belongs to the conversions: without them, no sizes are run at all.
    // Without sizes in the request, each device runs bench::defaultSizes (two of them).
    const std::size_t sizeCount = !request_.conversions    ? 0
                                  : request_.sizes.empty() ? 2
                                                           : request_.sizes.size();
    std::vector<const Device*> selected;
    for (const Device& d : devices_)
        if (request_.devices.empty() || std::find(request_.devices.begin(), request_.devices.end(),
                                                  d.info.index) != request_.devices.end())
            selected.push_back(&d);

    std::size_t perSize = 1; // the copy
    if (request_.conversions)
        for (const FormatSpec& format : request_.formats)
            for (const Direction direction : request_.directions) {
                plans_.push_back(planConversion(format, direction, request_.rounding, true));
                perSize += std::max<std::size_t>(1, plans_.back().paths.size());
            }
    unitsPerDevice_ = sizeCount * perSize + (request_.arithmetic ? 3 : 0);
    units_ = static_cast<double>(selected.size() * unitsPerDevice_);

    for (const Device* device : selected) {
        checkCancel();
        runDevice(*device);
    }
    if (progress_)
        progress_(1.0, "OpenCL: done");
}

void Runner::runDevice(const Device& device) {
    const double startUnits = done_;
    DeviceRun run;
    run.device = &device;
    try {
        cl_int status = CL_SUCCESS;
        const cl_context_properties properties[] = {
            CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(device.platform), 0};
        run.context =
            Context(clCreateContext(properties, 1, &device.id, nullptr, nullptr, &status));
        check(status, "clCreateContext");
        run.queue = Queue(clCreateCommandQueue(run.context.get(), device.id, 0, &status));
        check(status, "clCreateCommandQueue");
        report(0, device.info.name + ": building the OpenCL kernels");
        const std::string options = kernelConstantOptions();
        try {
            run.program = buildProgram(run.context.get(), device.id, kKernelSource, options);
        } catch (const ClError& e) {
            // A compiler that rejects the FP64 / FP16 kernels must not cost the conversions:
            // build again without them, and say why their rows are missing.
            if (!device.fp64 && !device.fp16)
                throw;
            run.program = buildProgram(run.context.get(), device.id, kKernelSource,
                                       options + " -DFPX_NO_FP64 -DFPX_NO_FP16");
            run.extensionKernelsFailed = e.what();
        }
    } catch (const std::exception& e) {
        BenchResult r = base(device);
        r.operation = Operation::Copy;
        r.format = "fp32";
        r.path = "none";
        r.note = std::string("OpenCL set-up failed on this device: ") + e.what();
        emit(r);
        done_ = startUnits + static_cast<double>(unitsPerDevice_);
        return;
    }
    run.adversarial.resize(plans_.size());
    for (std::size_t i = 0; i < plans_.size(); ++i)
        run.adversarial[i].resize(plans_[i].paths.size());

    std::vector<std::size_t> sizes;
    if (request_.conversions)
        sizes = request_.sizes.empty() ? bench::defaultSizes(device.info) : request_.sizes;
    for (const std::size_t size : sizes) {
        checkCancel();
        const double before = done_;
        try {
            runSize(run, size);
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            BenchResult r = base(device);
            r.operation = Operation::Copy;
            r.format = "fp32";
            r.path = "none";
            r.elements = size;
            r.note = "OpenCL run of " + std::to_string(size) + " elements failed: " + e.what();
            emit(r);
        }
        done_ = before + static_cast<double>(unitsPerDevice_ - (request_.arithmetic ? 3 : 0)) /
                             static_cast<double>(sizes.size());
    }
    if (request_.arithmetic)
        runArithmetic(run);
    done_ = startUnits + static_cast<double>(unitsPerDevice_);
}

Statistics Runner::timed(DeviceRun&, const std::function<void()>& body, const std::string& what) {
    checkCancel();
    report(0, what);
    const Statistics time =
        bench::measure(body, request_.plan, cancel_, [&](double f) { report(f, what); });
    if (cancelled())
        throw Cancelled{};
    if (time.samples == 0 || !(time.median > 0))
        throw std::runtime_error("the timing plan took no samples");
    return time;
}

void Runner::runSize(DeviceRun& run, std::size_t requested) {
    const Device& device = *run.device;
    // Input, output and the decode codes: three buffers of 4 bytes per element, each within
    // the device's largest allocation and together within three eighths of its memory (with
    // pocl that memory is the host's, which also holds the inputs and the check's sample).
    const std::size_t byAllocation = static_cast<std::size_t>(device.maxAllocation / 4);
    const std::size_t byMemory = static_cast<std::size_t>(device.globalMemory / 32);
    const std::size_t limit =
        std::max(kGranule, std::min(byAllocation, byMemory) / kGranule * kGranule);
    std::size_t n = roundUp(requested);
    std::string sizeNote;
    if (n > limit) {
        sizeNote = "capped from " + std::to_string(requested) + " to " + std::to_string(limit) +
                   " elements by the device's memory";
        n = limit;
    } else if (n != requested) {
        sizeNote = "rounded up from " + std::to_string(requested) + " to a multiple of " +
                   std::to_string(kGranule) + " elements";
    }
    const std::string where = device.info.name + ", " + std::to_string(n) + " elements";

    cl_context context = run.context.get();
    cl_command_queue queue = run.queue.get();
    Buffer input = createBuffer(context, CL_MEM_READ_WRITE, n * 4);
    Buffer output = createBuffer(context, CL_MEM_READ_WRITE, n * 4);
    Buffer codes;
    const bool anyDecode = std::any_of(plans_.begin(), plans_.end(), [](const auto& p) {
        return p.direction == Direction::Decode && !p.paths.empty();
    });
    if (anyDecode)
        codes = createBuffer(context, CL_MEM_READ_WRITE, n * 4);

    // Random FP32 inputs of the requested distribution, regenerated for every size.
    report(0, where + ": generating inputs");
    std::vector<std::uint32_t> inputs(n);
    {
        const std::vector<float> values =
            bench::randomInputs(n, request_.distribution, bench::randomInputSeed(n));
        std::memcpy(inputs.data(), values.data(), n * 4);
    }
    check(clEnqueueWriteBuffer(queue, input.get(), CL_TRUE, 0, n * 4, inputs.data(), 0, nullptr,
                               nullptr),
          "clEnqueueWriteBuffer");
    const std::vector<std::uint32_t> sample(
        inputs.begin(),
        inputs.begin() + static_cast<std::ptrdiff_t>(std::min(n, bench::kRandomSampleElements)));

    // The ceiling: the device's own copy of the same FP32 array (bytes read + written).
    BenchResult copy = base(device);
    copy.operation = Operation::Copy;
    copy.format = "fp32";
    copy.path = "clEnqueueCopyBuffer";
    copy.elements = n;
    copy.note = sizeNote;
    const auto copyOnce = [&] {
        check(
            clEnqueueCopyBuffer(queue, input.get(), output.get(), 0, 0, n * 4, 0, nullptr, nullptr),
            "clEnqueueCopyBuffer");
        check(clFinish(queue), "clFinish");
    };
    copyOnce();
    {
        std::vector<std::uint32_t> copied(sample.size());
        check(clEnqueueReadBuffer(queue, output.get(), CL_TRUE, 0, copied.size() * 4, copied.data(),
                                  0, nullptr, nullptr),
              "clEnqueueReadBuffer");
        copy.checked = copied.size();
        copy.verified = copied == sample;
        copy.mismatches = copy.verified ? 0 : 1;
    }
    copy.time = timed(run, copyOnce, where + ": copy bandwidth");
    copy.elementsPerSecond = static_cast<double>(n) / copy.time.median;
    copy.bytesPerSecond = 8.0 * static_cast<double>(n) / copy.time.median;
    emit(copy);
    step(where + ": copy bandwidth");

    for (std::size_t i = 0; i < plans_.size(); ++i) {
        checkCancel();
        runConversion(run, i, n, input.get(), output.get(), codes.get(), inputs, sample,
                      copy.bytesPerSecond, sizeNote);
    }
}

Runner::Launch Runner::prepare(DeviceRun& run, const ConversionPlan& plan,
                               const ConversionPath& path, cl_mem in, cl_mem out, std::size_t n) {
    Launch l;
    l.kernel = createKernel(run.program.get(), path.kernel.c_str());
    l.count = n;
    const cl_ulong seed = kSeed;
    const cl_ulong firstIndex = 0;
    cl_kernel k = l.kernel.get();
    switch (path.kind) {
    case PathKind::NativeEncode:
        setArgs(k, in, out, path.overflow);
        break;
    case PathKind::Encode:
        setArgs(k, in, out, path.encode, seed, firstIndex);
        break;
    case PathKind::Lookup:
        setArgs(k, in, out, path.lookup);
        break;
    case PathKind::NativeDecode:
        setArgs(k, in, out, path.overflow);
        break;
    case PathKind::Widen:
        setArgs(k, in, out, path.widen);
        break;
    case PathKind::Table: {
        l.table = createBuffer(run.context.get(), CL_MEM_READ_ONLY, plan.table.size() * 4);
        check(clEnqueueWriteBuffer(run.queue.get(), l.table.get(), CL_TRUE, 0,
                                   plan.table.size() * 4, plan.table.data(), 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
        const cl_uint mask = static_cast<cl_uint>(plan.table.size() - 1);
        const cl_mem table = l.table.get();
        setArgs(k, in, out, table, mask);
        break;
    }
    }
    return l;
}

Verification Runner::adversarialCheck(DeviceRun& run, std::size_t planIndex,
                                      std::size_t pathIndex) {
    std::optional<Verification>& cached = run.adversarial[planIndex][pathIndex];
    if (cached)
        return *cached;
    ConversionPlan& plan = plans_[planIndex];
    if (!plan.adversarial)
        plan.adversarial = bench::adversarialSet(plan.format, plan.options, plan.direction);
    const bench::AdversarialSet& set = *plan.adversarial;
    const std::size_t count = set.count;
    const std::size_t outSize = count * static_cast<std::size_t>(plan.outBytes());
    // The kernels have no bounds check: pad to whole launch granules (zeros, not compared).
    const std::size_t padded = roundUp(count);
    std::vector<std::uint8_t> input(padded * static_cast<std::size_t>(plan.inBytes()), 0);
    std::memcpy(input.data(), set.inputs.data(), set.inputs.size());
    Buffer in = createBuffer(run.context.get(), CL_MEM_READ_ONLY, input.size());
    Buffer out = createBuffer(run.context.get(), CL_MEM_READ_WRITE,
                              padded * static_cast<std::size_t>(plan.outBytes()));
    check(clEnqueueWriteBuffer(run.queue.get(), in.get(), CL_TRUE, 0, input.size(), input.data(), 0,
                               nullptr, nullptr),
          "clEnqueueWriteBuffer");
    const ConversionPath& path = plan.paths[pathIndex];
    const Launch l = prepare(run, plan, path, in.get(), out.get(), padded);
    launch(run, l);
    std::vector<std::uint8_t> actual(outSize);
    check(clEnqueueReadBuffer(run.queue.get(), out.get(), CL_TRUE, 0, outSize, actual.data(), 0,
                              nullptr, nullptr),
          "clEnqueueReadBuffer");
    const bench::DeviationJudge judge(plan.format, plan.options, plan.direction, path.deviations);
    cached = bench::verify(judge, set.inputs.data(), set.expected.data(), actual.data(), count);
    return *cached;
}

void Runner::runConversion(DeviceRun& run, std::size_t planIndex, std::size_t n, cl_mem input,
                           cl_mem output, cl_mem codes, const std::vector<std::uint32_t>& inputs,
                           const std::vector<std::uint32_t>& sample, double copyBandwidth,
                           const std::string& sizeNote) {
    const Device& device = *run.device;
    ConversionPlan& plan = plans_[planIndex];
    const std::string what = device.info.name + ": " +
                             (plan.direction == Direction::Encode ? "fp32 → " + plan.format.id
                                                                  : plan.format.id + " → fp32") +
                             ", " + std::to_string(n) + " elements";
    BenchResult r = base(device);
    r.operation = Operation::Convert;
    r.format = plan.format.id;
    r.direction = plan.direction;
    r.elements = n;
    if (plan.paths.empty()) {
        // Reported, not measured and not a failure: nothing ran.
        r.path = "none";
        r.exactByDesign = false;
        r.note = plan.unsupported;
        emit(r);
        step(what);
        return;
    }

    // The sample of timed inputs to check, and the exact core's answers for it.
    std::vector<std::uint8_t> sampleIn;
    std::vector<std::uint8_t> sampleExpected;
    cl_mem in = input;
    try {
        report(0, what + ": exact-core reference");
        if (plan.direction == Direction::Encode) {
            sampleIn.resize(sample.size() * 4);
            std::memcpy(sampleIn.data(), sample.data(), sampleIn.size());
        } else {
            in = codes;
            // The random inputs encoded, as on every backend (bench::decodeInputs); the
            // backends' shared random codes where the format has no bulk encoder.
            std::vector<std::uint8_t> encoded = bench::decodeInputs(plan.format, inputs.data(), n);
            if (encoded.empty())
                encoded = bench::randomCodes(plan.format, n);
            check(clEnqueueWriteBuffer(run.queue.get(), codes, CL_TRUE, 0, encoded.size(),
                                       encoded.data(), 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
            sampleIn.resize(sample.size() * static_cast<std::size_t>(plan.codeBytes));
            check(clEnqueueReadBuffer(run.queue.get(), codes, CL_TRUE, 0, sampleIn.size(),
                                      sampleIn.data(), 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
        }
        sampleExpected = bench::exactCoreOutputs(plan.format, plan.options, plan.direction,
                                                 sampleIn.data(), sample.size(), kSeed);
    } catch (const std::exception& e) {
        r.path = plan.paths.front().name;
        r.note = std::string("could not prepare the check: ") + e.what();
        emit(r);
        for (std::size_t i = 0; i < plan.paths.size(); ++i)
            step(what);
        return;
    }

    for (std::size_t pathIndex = 0; pathIndex < plan.paths.size(); ++pathIndex) {
        checkCancel();
        const ConversionPath& path = plan.paths[pathIndex];
        BenchResult result = r;
        result.path = path.name;
        result.hardware = path.hardware;
        const std::string pathWhat = what + ", " + path.name;
        try {
            report(0, pathWhat + ": checking against the exact core");
            Verification outcome = adversarialCheck(run, planIndex, pathIndex);
            const Launch l = prepare(run, plan, path, in, output, n);
            launch(run, l);
            std::vector<std::uint8_t> actual(sampleExpected.size());
            check(clEnqueueReadBuffer(run.queue.get(), output, CL_TRUE, 0, actual.size(),
                                      actual.data(), 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
            const bench::DeviationJudge judge(plan.format, plan.options, plan.direction,
                                              path.deviations);
            outcome.add(bench::verify(judge, sampleIn.data(), sampleExpected.data(), actual.data(),
                                      sample.size()));
            result.note = path.note;
            bench::recordVerification(result, outcome, path.deviations);
            // OpenCL leaves the NaN that vstore_half / vload_half produce to the
            // implementation (docs/behaviour.md, "Known hardware deviations").
            if (!result.verified && !result.exactByDesign)
                result.note = bench::joinNotes(result.note,
                                               "NaN payloads are implementation-defined in OpenCL");
            result.note = bench::joinNotes(result.note, sizeNote);

            result.time = timed(
                run, [&] { launch(run, l); }, pathWhat);
            const double seconds = result.time.median;
            result.elementsPerSecond = static_cast<double>(n) / seconds;
            result.bytesPerSecond = static_cast<double>(n) *
                                    static_cast<double>(plan.inBytes() + plan.outBytes()) / seconds;
            result.ceiling = copyBandwidth;
            result.ceilingName = "clEnqueueCopyBuffer, same device and size";
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            result.note = std::string("failed: ") + e.what();
        }
        emit(result);
        step(pathWhat);
    }
}

// Host replica of one work-item of fma_<type> (kernels.cl), W lanes wide: fma and addition are
// correctly rounded on both sides, so the device's result must match bit for bit.
template <typename T, int W> T fmaReference(std::size_t item, T a, T b, cl_uint iterations) {
    T x[kFmaChains][W];
    for (int w = 0; w < W; ++w) {
        const T base = (static_cast<T>(item & 7u) + static_cast<T>(w)) * static_cast<T>(0.125f);
        for (int c = 0; c < kFmaChains; ++c)
            x[c][w] = c == 0 ? base : base + static_cast<T>(c);
    }
    for (cl_uint k = 0; k < iterations; ++k)
        for (auto& chain : x)
            for (T& lane : chain)
                lane = std::fma(lane, a, b);
    T s[W];
    for (int w = 0; w < W; ++w)
        s[w] = ((x[0][w] + x[1][w]) + (x[2][w] + x[3][w])) +
               ((x[4][w] + x[5][w]) + (x[6][w] + x[7][w]));
    for (int width = W; width > 2; width /= 2) // s.lo + s.hi until two lanes are left
        for (int w = 0; w < width / 2; ++w)
            s[w] = s[w] + s[w + width / 2];
    return s[0] + s[1];
}

void Runner::runArithmetic(DeviceRun& run) {
    const Device& device = *run.device;
    struct Type {
        const char* id;
        const char* vector;
        int width;
        bool available;
        const char* extension;
        std::size_t bytes;
    };
    const Type types[] = {{"fp32", "float16", 16, true, "", 4},
                          {"fp64", "double8", 8, device.fp64, "cl_khr_fp64", 8},
                          {"fp16", "half16", 16, device.fp16, "cl_khr_fp16", 2}};
    const std::size_t items =
        static_cast<std::size_t>(std::max(1, device.info.computeUnits)) * kFmaItemsPerComputeUnit;
    const float a = 0.999f;
    const float b = 0.001f;
    for (const Type& type : types) {
        checkCancel();
        BenchResult r = base(device);
        r.operation = Operation::Arithmetic;
        r.format = type.id;
        r.path = std::string("OpenCL fma loop (") + type.vector + " × " +
                 std::to_string(kFmaChains) + " chains)";
        r.hardware = true;
        const double fmas = static_cast<double>(items) * kFmaIterations * kFmaChains * type.width;
        r.elements = static_cast<std::size_t>(fmas);
        const std::string what = device.info.name + ": " + type.id + " FMA throughput";
        if (!type.available) { // DeviceInfo::details says which extension is missing
            step(what);
            continue;
        }
        if (*type.extension != '\0' && !run.extensionKernelsFailed.empty()) {
            r.note = "failed: the " + std::string(type.extension) +
                     " kernels did not build: " + run.extensionKernelsFailed;
            emit(r);
            step(what);
            continue;
        }
        try {
            Buffer out = createBuffer(run.context.get(), CL_MEM_WRITE_ONLY, items * type.bytes);
            const Kernel kernel =
                createKernel(run.program.get(), (std::string("fma_") + type.id).c_str());
            const cl_mem outHandle = out.get();
            setArgs(kernel.get(), outHandle, a, b, kFmaIterations);
            const auto once = [&] {
                enqueue1d(run.queue.get(), kernel.get(), items);
                check(clFinish(run.queue.get()), "clFinish");
            };
            once();
            // Check the first work-items against the host's own fma.
            const std::size_t checkedItems = std::min<std::size_t>(items, 16);
            std::vector<std::uint8_t> got(checkedItems * type.bytes);
            check(clEnqueueReadBuffer(run.queue.get(), out.get(), CL_TRUE, 0, got.size(),
                                      got.data(), 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
            if (type.bytes == 4 || type.bytes == 8) {
                r.checked = checkedItems;
                for (std::size_t i = 0; i < checkedItems; ++i) {
                    bool same;
                    if (type.bytes == 4) {
                        const float want = fmaReference<float, 16>(i, a, b, kFmaIterations);
                        same = std::memcmp(&want, got.data() + i * 4, 4) == 0;
                    } else {
                        const double want =
                            fmaReference<double, 8>(i, double{a}, double{b}, kFmaIterations);
                        same = std::memcmp(&want, got.data() + i * 8, 8) == 0;
                    }
                    r.mismatches += same ? 0 : 1;
                }
                r.verified = r.mismatches == 0;
                if (!r.verified)
                    r.note = std::to_string(r.mismatches) + " of " + std::to_string(r.checked) +
                             " work-items differ from the host's fma";
            } else {
                r.verified = true; // as the CPU's FMA rows: nothing to compare on the host
                r.note = "not replayed on the host, which has no FP16 arithmetic";
            }
            r.time = timed(run, once, what);
            r.elementsPerSecond = fmas / r.time.median;
            r.operationsPerSecond = 2.0 * fmas / r.time.median;
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            r.note = std::string("failed: ") + e.what();
        }
        emit(r);
        step(what);
    }
}

} // namespace

Device describeDevice(cl_platform_id platform, cl_device_id id, int index) {
    Device d;
    d.platform = platform;
    d.id = id;
    d.fp16 = hasExtension(id, "cl_khr_fp16");
    d.fp64 = hasExtension(id, "cl_khr_fp64");
    d.maxAllocation = deviceValue<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    d.globalMemory = deviceValue<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
    DeviceInfo& info = d.info;
    info.backend = "opencl";
    info.index = index;
    info.name = deviceString(id, CL_DEVICE_NAME);
    info.driver =
        deviceString(id, CL_DEVICE_VERSION) + "; driver " + deviceString(id, CL_DRIVER_VERSION);
    info.computeUnits = static_cast<int>(deviceValue<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS));
    info.memoryBytes = d.globalMemory;
    info.lastLevelCacheBytes = deviceValue<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    info.details = deviceTypeText(deviceValue<cl_device_type>(id, CL_DEVICE_TYPE)) + "; platform " +
                   platformString(platform, CL_PLATFORM_NAME) + " (" +
                   platformString(platform, CL_PLATFORM_VERSION) + "); " +
                   deviceString(id, CL_DEVICE_OPENCL_C_VERSION) + "; " +
                   (d.fp16 ? "cl_khr_fp16" : "no cl_khr_fp16") + "; " +
                   (d.fp64 ? "cl_khr_fp64" : "no cl_khr_fp64") + "; " +
                   std::to_string(info.computeUnits) + " compute units at " +
                   std::to_string(deviceValue<cl_uint>(id, CL_DEVICE_MAX_CLOCK_FREQUENCY)) +
                   " MHz; max allocation " + bytesText(d.maxAllocation);
    return d;
}

void runOnDevices(const std::vector<Device>& devices, const BenchRequest& request,
                  const ResultSink& sink, const ProgressSink& progress,
                  const std::atomic<bool>* cancel) {
    Runner(devices, request, sink, progress, cancel).run();
}

} // namespace fpx::opencl
