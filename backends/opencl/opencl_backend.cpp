// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenCL benchmark backend (libfpx_backend_opencl.so): bulk conversions between FP32 and
// the formats OpenCL can handle — FP16 with the device's own vstore_half / vload_half, every
// other format with the core's branch-free element kernels translated to OpenCL C
// (kernels.cl) — and FMA throughput in FP32, FP64 (cl_khr_fp64) and FP16 (cl_khr_fp16).
//
// Every kernel is checked bit for bit against the exact core before it is timed: over
// adversarial inputs (every exponent and rounding position, every value of the format and
// the midpoints between them, specials) and over a sample of the timed input. The portable
// path for AMD, Intel and Apple GPUs; with pocl it runs on the CPU, in CI and in the tests.
#include "cl_support.h"
#include "kernel_source.h"
#include "verification.h"

#include "fpx/bench/backend.h"
#include "fpx/bench/measurement.h"
#include "fpx/bulk_conversion.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

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
using bench::Support;

constexpr std::uint64_t kSeed = 0x6670785f6f70656eULL;     // random inputs and stochastic rounding
constexpr std::size_t kSampleLimit = std::size_t{1} << 20; // timed elements compared, per size
constexpr std::size_t kGranule = 256; // launches and buffers are whole multiples of this
const std::vector<std::size_t> kDefaultSizes = {std::size_t{1} << 20, std::size_t{1} << 26};
// FMA loop: kFmaChains independent chains of vectors per work-item (kernels.cl).
constexpr int kFmaChains = 8; // kernels.cl's chains (checked there via -DFPX_FMA_CHAINS)
constexpr cl_uint kFmaIterations = 1024;
constexpr std::size_t kFmaItemsPerComputeUnit = 2048;

std::size_t roundUp(std::size_t count) {
    return std::max(kGranule, (count + kGranule - 1) / kGranule * kGranule);
}

// ---- kernel parameters, laid out as kernels.cl declares them (32-bit fields only) --------

struct ClEncodeParams {
    cl_uint kind;
    cl_uint fractionShift;
    cl_uint normalRebias;
    cl_uint minNormalBits;
    cl_int smallShiftBase;
    cl_uint multiplier;
    cl_uint maxMagnitude;
    cl_uint maxNegativeMagnitude;
    cl_uint signBit;
    cl_uint codeMask;
    cl_uint nearestEvenAddend;
    cl_uint subnormalMagicBits;
    cl_uint zeroCode[2];
    cl_uint overflowCode[2];
    cl_uint nanCode[2];
    cl_uint infinityCode[2];
    cl_ulong reciprocalScaleBits; // a double, used by the CPU only
};
static_assert(sizeof(ClEncodeParams) == 22 * 4);

struct ClLookupParams {
    cl_uint count;
    cl_int breakpoints[32];
    cl_uint codes[33];
    cl_uint nanCode[2];
};
static_assert(sizeof(ClLookupParams) == 68 * 4);

struct ClWidenParams {
    cl_uint codeMask;
    cl_uint shift;
    cl_uint nanBits[2];
    cl_uint infinityBits[2];
};
static_assert(sizeof(ClWidenParams) == 6 * 4);
// kernels.cl translates element_conversion.h: a field added there must be added here too.
static_assert(sizeof(kernels::EncodeParams) == sizeof(ClEncodeParams),
              "EncodeParams changed: update ClEncodeParams and kernels.cl");
static_assert(sizeof(kernels::LookupParams) == sizeof(ClLookupParams),
              "LookupParams changed: update ClLookupParams and kernels.cl");
static_assert(sizeof(kernels::WidenParams) == sizeof(ClWidenParams),
              "WidenParams changed: update ClWidenParams and kernels.cl");

template <std::size_t N, typename T> void copyArray(cl_uint (&to)[N], const T (&from)[N]) {
    for (std::size_t i = 0; i < N; ++i)
        to[i] = static_cast<cl_uint>(from[i]);
}

ClEncodeParams toCl(const kernels::EncodeParams& p) {
    ClEncodeParams c{};
    c.kind = p.kind == kernels::EncodeKind::BinaryFloat ? 0u : 1u;
    c.fractionShift = p.fractionShift;
    c.normalRebias = p.normalRebias;
    c.minNormalBits = p.minNormalBits;
    c.smallShiftBase = p.smallShiftBase;
    c.multiplier = p.multiplier;
    c.maxMagnitude = p.maxMagnitude;
    c.maxNegativeMagnitude = p.maxNegativeMagnitude;
    c.signBit = p.signBit;
    c.codeMask = p.codeMask;
    c.nearestEvenAddend = p.nearestEvenAddend;
    c.subnormalMagicBits = p.subnormalMagicBits;
    copyArray(c.zeroCode, p.zeroCode);
    copyArray(c.overflowCode, p.overflowCode);
    copyArray(c.nanCode, p.nanCode);
    copyArray(c.infinityCode, p.infinityCode);
    c.reciprocalScaleBits = std::bit_cast<cl_ulong>(p.reciprocalScale);
    return c;
}

ClLookupParams toCl(const kernels::LookupParams& p) {
    ClLookupParams c{};
    c.count = p.count;
    static_assert(kernels::LookupParams::kMaxBreakpoints == 32, "kernels.cl has 32");
    for (std::size_t i = 0; i < 32; ++i)
        c.breakpoints[i] = p.breakpoints[i];
    copyArray(c.codes, p.codes);
    copyArray(c.nanCode, p.nanCode);
    return c;
}

ClWidenParams toCl(const kernels::WidenParams& p) {
    ClWidenParams c{};
    c.codeMask = p.codeMask;
    c.shift = p.shift;
    copyArray(c.nanBits, p.nanBits);
    copyArray(c.infinityBits, p.infinityBits);
    return c;
}

// ---- what runs for a format and direction ------------------------------------------------

bool isFp16(const FormatSpec& s) {
    return s.kind == FormatKind::BinaryFloat && s.isSigned && s.exponentBits == 5 &&
           s.fractionBits == 10 && s.bias == 15 && s.specials == SpecialEncoding::Ieee &&
           !s.explicitIntegerBit && s.exponentZeroIsSubnormal;
}

const char* modeSuffix(RoundingMode mode) {
    switch (mode) {
    case RoundingMode::NearestEven:
        return "rne";
    case RoundingMode::NearestAway:
        return "rna";
    case RoundingMode::TowardZero:
        return "rtz";
    case RoundingMode::TowardPositive:
        return "rup";
    case RoundingMode::TowardNegative:
        return "rdn";
    case RoundingMode::Stochastic:
        return "sr";
    case RoundingMode::ToOdd:
        return "rto";
    }
    return "rne";
}

// vstore_half_<suffix>: the rounding modes OpenCL's own FP16 conversion offers.
const char* nativeSuffix(RoundingMode mode) {
    switch (mode) {
    case RoundingMode::NearestEven:
        return "rte";
    case RoundingMode::TowardZero:
        return "rtz";
    case RoundingMode::TowardPositive:
        return "rtp";
    case RoundingMode::TowardNegative:
        return "rtn";
    default:
        return nullptr;
    }
}

const char* widthSuffix(int bytes) {
    return bytes == 1 ? "u8" : bytes == 2 ? "u16" : "u32";
}

enum class PathKind { NativeEncode, Encode, Lookup, NativeDecode, Widen, Table };

struct ConversionPath {
    PathKind kind = PathKind::Encode;
    std::string name; // BenchResult::path
    bool hardware = false;
    std::string kernel; // kernels.cl entry point
    std::string note;
    ClEncodeParams encode{};
    ClLookupParams lookup{};
    ClWidenParams widen{};
    cl_uint saturate = 0;
};

struct ConversionPlan {
    FormatSpec format;
    Direction direction = Direction::Encode;
    RoundingOptions options; // what the exact core is asked for
    int codeBits = 0;
    int codeBytes = 0;
    std::vector<ConversionPath> paths;
    std::string unsupported;          // why there is no path
    std::vector<std::uint32_t> table; // FP32 bits of every code (≤ 16-bit formats)

    // The adversarial check, shared by every path and device: inputs and the exact core's
    // answers (computed on first use).
    bool adversarialReady = false;
    std::vector<std::uint8_t> adversarialIn;
    std::vector<std::uint8_t> adversarialExpected;

    int inBytes() const { return direction == Direction::Encode ? 4 : codeBytes; }
    int outBytes() const { return direction == Direction::Encode ? codeBytes : 4; }
};

// Decoding rounds only the values FP32 cannot hold (INT8's k/127) and saturates ±∞ under the
// saturating policy; stochastic rounding becomes nearest-even there, since a table of results
// cannot be stochastic. The CPU backend decodes by the same options.
RoundingOptions decodeOptions(RoundingOptions options) {
    if (options.mode == RoundingMode::Stochastic)
        options.mode = RoundingMode::NearestEven;
    return options;
}

ConversionPlan planConversion(const FormatSpec& spec, Direction direction,
                              const RoundingOptions& requested, bool withTable) {
    ConversionPlan plan;
    plan.format = spec;
    plan.direction = direction;
    plan.options = direction == Direction::Encode ? requested : decodeOptions(requested);
    const RoundingOptions& options = plan.options;
    try {
        plan.codeBits = spec.totalBits();
        if (plan.codeBits > 32) {
            plan.unsupported = spec.id + " has " + std::to_string(plan.codeBits) +
                               "-bit codes; the OpenCL kernels handle at most 32 bits";
            return plan;
        }
        plan.codeBytes = packedBytes(spec);
        if (withTable && plan.codeBits <= 16)
            plan.table = decodeTable(spec, options);
        const bool saturate = options.overflow == OverflowPolicy::Saturate;
        if (direction == Direction::Encode) {
            const char* native = nativeSuffix(options.mode);
            if (isFp16(spec) && native != nullptr) {
                ConversionPath path;
                path.kind = PathKind::NativeEncode;
                path.name =
                    std::string("OpenCL vstore_half_") + native + (saturate ? " + clamp" : "");
                path.hardware = true;
                path.kernel = std::string("encode_native_") + native;
                path.saturate = saturate ? 1u : 0u;
                if (saturate)
                    path.note = "saturation by clamping to ±65504 before vstore_half";
                plan.paths.push_back(std::move(path));
            }
            if (const auto params = encodeParams(spec, options)) {
                ConversionPath path;
                path.kind = PathKind::Encode;
                path.name = "OpenCL bit trick";
                path.kernel = std::string("encode_") + modeSuffix(options.mode) + "_" +
                              widthSuffix(plan.codeBytes);
                path.encode = toCl(*params);
                plan.paths.push_back(std::move(path));
            } else if (const auto params = lookupParams(spec, options)) {
                ConversionPath path;
                path.kind = PathKind::Lookup;
                path.name = "OpenCL breakpoint lookup";
                path.kernel = std::string("lookup_") + widthSuffix(plan.codeBytes);
                path.lookup = toCl(*params);
                plan.paths.push_back(std::move(path));
            }
            if (plan.paths.empty())
                plan.unsupported =
                    options.mode == RoundingMode::Stochastic
                        ? "no OpenCL kernel for stochastic rounding into " + spec.id
                        : "no OpenCL kernel for FP32 → " + spec.id +
                              " (the core gives no element-kernel parameters for it)";
        } else {
            if (isFp16(spec)) {
                ConversionPath path;
                path.kind = PathKind::NativeDecode;
                path.name = std::string("OpenCL vload_half") + (saturate ? " + clamp" : "");
                path.hardware = true;
                path.kernel = "decode_native_fp16";
                path.saturate = saturate ? 1u : 0u;
                if (saturate)
                    path.note = "saturation by clamping ±∞ to ±FLT_MAX after vload_half";
                plan.paths.push_back(std::move(path));
            }
            const auto widen = widenParams(spec, options);
            if (widen) {
                ConversionPath path;
                path.kind = PathKind::Widen;
                path.name = "OpenCL bit trick";
                path.kernel = std::string("decode_widen_") + widthSuffix(plan.codeBytes);
                path.widen = toCl(*widen);
                plan.paths.push_back(std::move(path));
            } else if (plan.codeBits <= 16 && (!withTable || !plan.table.empty())) {
                ConversionPath path;
                path.kind = PathKind::Table;
                path.name = "OpenCL table lookup";
                path.kernel = std::string("decode_table_") + widthSuffix(plan.codeBytes);
                plan.paths.push_back(std::move(path));
            }
            if (plan.paths.empty())
                plan.unsupported = "no OpenCL kernel for " + spec.id + " → FP32";
        }
    } catch (const std::exception& e) {
        plan.paths.clear();
        plan.unsupported = std::string("the core could not prepare the kernel: ") + e.what();
    }
    return plan;
}

// Outputs that are NaN: FP32 bits for decodes, codes whose value is NaN for encodes.
std::function<bool(std::uint32_t)> nanTest(const ConversionPlan& plan) {
    if (plan.direction == Direction::Decode)
        return [](std::uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; };
    if (plan.table.empty())
        return {};
    const std::vector<std::uint32_t>* table = &plan.table;
    return [table](std::uint32_t code) {
        return code < table->size() && ((*table)[code] & 0x7fffffffu) > 0x7f800000u;
    };
}

// Exact-core answers for packed inputs of the plan's direction.
std::vector<std::uint8_t> expectedOutputs(const ConversionPlan& plan, const void* inputs,
                                          std::size_t count) {
    const RoundingOptions& options = plan.options;
    std::vector<std::uint8_t> out(count * static_cast<std::size_t>(plan.outBytes()));
    if (plan.direction == Direction::Encode)
        encodeWithExactCore(plan.format, options, static_cast<const std::uint32_t*>(inputs),
                            out.data(), count, kSeed, 0);
    else
        decodeWithExactCore(plan.format, options, inputs,
                            reinterpret_cast<std::uint32_t*>(out.data()), count);
    return out;
}

// ---- devices -------------------------------------------------------------------------------

struct Device {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    DeviceInfo info;
    bool fp16 = false;
    bool fp64 = false;
    cl_ulong maxAllocation = 0;
    cl_ulong globalMemory = 0;
};

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

// ---- the run -------------------------------------------------------------------------------

struct Cancelled {};

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
        std::vector<std::vector<std::optional<CheckOutcome>>> adversarial;
    };
    struct Launch {
        Kernel kernel;
        Buffer table;
        std::size_t count = 0;
    };

    void runDevice(const Device& device);
    void runSize(DeviceRun& run, std::size_t requested);
    void runConversion(DeviceRun& run, std::size_t planIndex, std::size_t n, cl_mem input,
                       cl_mem output, cl_mem codes, const std::vector<std::uint32_t>& sample,
                       double copyBandwidth, const std::string& sizeNote);
    void runArithmetic(DeviceRun& run);

    Launch prepare(DeviceRun& run, const ConversionPlan& plan, const ConversionPath& path,
                   cl_mem in, cl_mem out, std::size_t n);
    void launch(DeviceRun& run, const Launch& l) {
        enqueue1d(run.queue.get(), l.kernel.get(), l.count);
        check(clFinish(run.queue.get()), "clFinish");
    }
    CheckOutcome adversarialCheck(DeviceRun& run, std::size_t planIndex, std::size_t pathIndex);
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
    std::vector<std::size_t> sizes_;
    std::vector<ConversionPlan> plans_;
    double units_ = 0;
    double done_ = 0;
    std::size_t unitsPerDevice_ = 0;
};

void Runner::run() {
    // The copy ceiling belongs to the conversions: without them, no sizes are run at all.
    if (request_.conversions)
        sizes_ = request_.sizes.empty() ? kDefaultSizes : request_.sizes;
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
    unitsPerDevice_ = sizes_.size() * perSize + (request_.arithmetic ? 3 : 0);
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
        const std::string options = "-DFPX_FMA_CHAINS=" + std::to_string(kFmaChains);
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

    for (const std::size_t size : sizes_) {
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
                             static_cast<double>(sizes_.size());
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
    std::vector<std::uint32_t> sample;
    {
        const std::vector<float> inputs =
            bench::randomInputs(n, request_.distribution, kSeed ^ static_cast<std::uint64_t>(n));
        check(clEnqueueWriteBuffer(queue, input.get(), CL_TRUE, 0, n * 4, inputs.data(), 0, nullptr,
                                   nullptr),
              "clEnqueueWriteBuffer");
        sample.resize(std::min(n, kSampleLimit));
        std::memcpy(sample.data(), inputs.data(), sample.size() * 4);
    }

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
        runConversion(run, i, n, input.get(), output.get(), codes.get(), sample,
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
        setArgs(k, in, out, path.saturate);
        break;
    case PathKind::Encode:
        setArgs(k, in, out, path.encode, seed, firstIndex);
        break;
    case PathKind::Lookup:
        setArgs(k, in, out, path.lookup);
        break;
    case PathKind::NativeDecode:
        setArgs(k, in, out, path.saturate);
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

CheckOutcome Runner::adversarialCheck(DeviceRun& run, std::size_t planIndex,
                                      std::size_t pathIndex) {
    std::optional<CheckOutcome>& cached = run.adversarial[planIndex][pathIndex];
    if (cached)
        return *cached;
    ConversionPlan& plan = plans_[planIndex];
    if (!plan.adversarialReady) {
        if (plan.direction == Direction::Encode) {
            const std::vector<std::uint32_t> inputs = adversarialFp32(plan.table);
            plan.adversarialIn.resize(inputs.size() * 4);
            std::memcpy(plan.adversarialIn.data(), inputs.data(), plan.adversarialIn.size());
        } else {
            plan.adversarialIn = adversarialCodes(plan.codeBits, plan.codeBytes);
        }
        const std::size_t count =
            plan.adversarialIn.size() / static_cast<std::size_t>(plan.inBytes());
        plan.adversarialExpected = expectedOutputs(plan, plan.adversarialIn.data(), count);
        plan.adversarialReady = true;
    }
    const std::size_t count = plan.adversarialIn.size() / static_cast<std::size_t>(plan.inBytes());
    const std::size_t outSize = count * static_cast<std::size_t>(plan.outBytes());
    // The kernels have no bounds check: pad to whole launch granules (zeros, not compared).
    const std::size_t padded = roundUp(count);
    std::vector<std::uint8_t> input(padded * static_cast<std::size_t>(plan.inBytes()), 0);
    std::memcpy(input.data(), plan.adversarialIn.data(), plan.adversarialIn.size());
    Buffer in = createBuffer(run.context.get(), CL_MEM_READ_ONLY, input.size());
    Buffer out = createBuffer(run.context.get(), CL_MEM_READ_WRITE,
                              padded * static_cast<std::size_t>(plan.outBytes()));
    check(clEnqueueWriteBuffer(run.queue.get(), in.get(), CL_TRUE, 0, input.size(), input.data(), 0,
                               nullptr, nullptr),
          "clEnqueueWriteBuffer");
    const Launch l = prepare(run, plan, plan.paths[pathIndex], in.get(), out.get(), padded);
    launch(run, l);
    std::vector<std::uint8_t> actual(outSize);
    check(clEnqueueReadBuffer(run.queue.get(), out.get(), CL_TRUE, 0, outSize, actual.data(), 0,
                              nullptr, nullptr),
          "clEnqueueReadBuffer");
    cached =
        compareOutputs(plan.adversarialIn.data(), plan.inBytes(), plan.adversarialExpected.data(),
                       actual.data(), plan.outBytes(), count, nanTest(plan));
    return *cached;
}

void Runner::runConversion(DeviceRun& run, std::size_t planIndex, std::size_t n, cl_mem input,
                           cl_mem output, cl_mem codes, const std::vector<std::uint32_t>& sample,
                           double copyBandwidth, const std::string& sizeNote) {
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
            // Random codes, every code equally likely, made on the device.
            in = codes;
            const std::string kernel = std::string("random_codes_") + widthSuffix(plan.codeBytes);
            Kernel k = createKernel(run.program.get(), kernel.c_str());
            const cl_ulong seed = kSeed ^ 0xdec0deULL ^ static_cast<cl_ulong>(n);
            const cl_uint mask =
                plan.codeBits >= 32 ? 0xffffffffu : (cl_uint{1} << plan.codeBits) - 1u;
            setArgs(k.get(), codes, seed, mask);
            enqueue1d(run.queue.get(), k.get(), n);
            sampleIn.resize(sample.size() * static_cast<std::size_t>(plan.codeBytes));
            check(clEnqueueReadBuffer(run.queue.get(), codes, CL_TRUE, 0, sampleIn.size(),
                                      sampleIn.data(), 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
        }
        sampleExpected = expectedOutputs(plan, sampleIn.data(), sample.size());
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
            CheckOutcome outcome = adversarialCheck(run, planIndex, pathIndex);
            const Launch l = prepare(run, plan, path, in, output, n);
            launch(run, l);
            std::vector<std::uint8_t> actual(sampleExpected.size());
            check(clEnqueueReadBuffer(run.queue.get(), output, CL_TRUE, 0, actual.size(),
                                      actual.data(), 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
            outcome.add(compareOutputs(sampleIn.data(), plan.inBytes(), sampleExpected.data(),
                                       actual.data(), plan.outBytes(), sample.size(),
                                       nanTest(plan)));
            result.checked = outcome.checked;
            result.mismatches = outcome.mismatches;
            result.verified = outcome.mismatches == 0 && outcome.checked > 0;
            std::string note = path.note;
            // OpenCL leaves the NaN that vstore_half / vload_half produce to the
            // implementation: a hardware path whose only differences are NaN payloads is
            // reported, not failed. Any other difference stays a failure.
            if (path.hardware && outcome.mismatches > 0 &&
                outcome.mismatches == outcome.nanMismatches) {
                result.exactByDesign = false;
                note += std::string(note.empty() ? "" : "; ") +
                        "NaN payloads are implementation-defined in OpenCL";
            }
            for (const std::string& part : {outcome.describe(), sizeNote})
                if (!part.empty())
                    note += (note.empty() ? "" : "; ") + part;
            result.note = note;

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

// ---- the backend ---------------------------------------------------------------------------

class OpenClBackend final : public bench::Backend {
  public:
    OpenClBackend() {
        try {
            const std::vector<cl_platform_id> ids = platforms();
            if (ids.empty()) {
                reason_ = "no OpenCL platform is installed (clGetPlatformIDs found none)";
                return;
            }
            std::string platformNames;
            for (cl_platform_id platform : ids) {
                platformNames += (platformNames.empty() ? "" : ", ") +
                                 platformString(platform, CL_PLATFORM_NAME);
                for (cl_device_id id : devicesOf(platform)) {
                    try {
                        devices_.push_back(
                            describeDevice(platform, id, static_cast<int>(devices_.size())));
                    } catch (const ClError& e) {
                        skipped_ += std::string(skipped_.empty() ? "" : "; ") + e.what();
                    }
                }
            }
            if (devices_.empty())
                reason_ = "the OpenCL platforms (" + platformNames + ") have no usable devices" +
                          (skipped_.empty() ? std::string() : " (" + skipped_ + ")");
        } catch (const ClError& e) {
            devices_.clear();
            reason_ = e.code() == -1001
                          ? "no OpenCL platform is installed (" + std::string(e.what()) +
                                "); pocl-opencl-icd provides one that runs on the CPU"
                          : std::string("OpenCL does not work here: ") + e.what();
        } catch (const std::exception& e) {
            devices_.clear();
            reason_ = std::string("OpenCL does not work here: ") + e.what();
        }
    }

    std::string id() const override { return "opencl"; }
    std::string displayName() const override { return "OpenCL"; }
    std::string unavailableReason() const override { return reason_; }

    std::vector<DeviceInfo> devices() const override {
        std::vector<DeviceInfo> out;
        for (const Device& d : devices_)
            out.push_back(d.info);
        return out;
    }

    Support support(int device, const FormatSpec& format, Direction direction) const override {
        if (device < 0 || static_cast<std::size_t>(device) >= devices_.size())
            return Support::Unsupported;
        const ConversionPlan plan = planConversion(format, direction, {}, false);
        if (plan.paths.empty())
            return Support::Unsupported;
        return std::any_of(plan.paths.begin(), plan.paths.end(),
                           [](const ConversionPath& p) { return p.hardware; })
                   ? Support::Native
                   : Support::Emulated;
    }

    void run(const BenchRequest& request, const ResultSink& sink, const ProgressSink& progress,
             const std::atomic<bool>* cancel) override {
        if (!reason_.empty())
            return;
        try {
            Runner(devices_, request, sink, progress, cancel).run();
        } catch (const Cancelled&) {
            // Stopped between measurements, as asked.
        } catch (const std::exception& e) {
            BenchResult r;
            r.backend = "opencl";
            r.note = std::string("the OpenCL run stopped: ") + e.what();
            try {
                if (sink)
                    sink(r);
            } catch (...) {
            }
        } catch (...) {
        }
    }

  private:
    std::vector<Device> devices_;
    std::string reason_;
    std::string skipped_; // devices that could not be described
};

} // namespace

} // namespace fpx::opencl

#define FPX_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

FPX_PLUGIN_EXPORT int fpx_backend_abi_version() {
    return fpx::bench::kBackendAbiVersion;
}

FPX_PLUGIN_EXPORT fpx::bench::Backend* fpx_create_backend() {
    try {
        return new fpx::opencl::OpenClBackend();
    } catch (...) {
        return nullptr;
    }
}
