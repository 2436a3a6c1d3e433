// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend: copy bandwidth, bulk conversions through every path this CPU has, and
// FMA/dot-product throughput, on one thread and on all of them.
#include "cpu_arithmetic.h"
#include "fpx/bench/backend.h"
#include "fpx/bench/sizes.h"
#include "fpx/bench/verification.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_encoding.h"
#include "fpx/kernels/bulk_conversion.h"
#include "thread_team.h"

#include "fpx/kernels/x86_hardware.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

namespace fpx::bench {

namespace {

std::string cpuModel() {
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line))
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
            return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

std::uint64_t readCacheSize(const std::string& file) {
    std::ifstream in(file);
    std::string text;
    if (!(in >> text) || text.empty())
        return 0;
    std::uint64_t value = std::strtoull(text.c_str(), nullptr, 10);
    if (text.back() == 'K')
        value <<= 10;
    else if (text.back() == 'M')
        value <<= 20;
    return value;
}

std::uint64_t lastLevelCacheBytes() {
    std::uint64_t largest = 0;
    for (int index = 0; index < 8; ++index)
        largest = std::max(largest, readCacheSize("/sys/devices/system/cpu/cpu0/cache/index" +
                                                  std::to_string(index) + "/size"));
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (largest == 0) {
        const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        largest = l3 > 0 ? static_cast<std::uint64_t>(l3) : 0;
    }
#endif
    return largest ? largest : (32u << 20);
}

std::uint64_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && pageSize > 0
               ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize)
               : 0;
}

std::string cpuFeatures() {
    std::string features;
    auto add = [&](bool present, const char* name) {
        if (!present)
            return;
        if (!features.empty())
            features += ' ';
        features += name;
    };
    add(kernels::hasAvx2(), "avx2");
    add(kernels::hasF16c(), "f16c");
    add(kernels::hasAvx512(), "avx512f/bw/vl/dq");
    add(kernels::hasAvx512Bf16(), "avx512_bf16");
    add(kernels::hasAvx512Fp16(), "avx512_fp16");
    if (features.empty())
        features = "no vector extensions detected";
    if (const std::string note = kernels::maxIsaNote(); !note.empty())
        features += " (" + note + ")";
    return features;
}

class CpuBackend final : public Backend {
  public:
    std::string id() const override { return "cpu"; }
    std::string displayName() const override { return "CPU"; }
    std::string unavailableReason() const override { return {}; }

    std::vector<DeviceInfo> devices() const override {
        DeviceInfo d;
        d.backend = "cpu";
        d.index = 0;
        d.name = cpuModel();
        d.driver = "";
        d.computeUnits = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        d.details = cpuFeatures();
        d.memoryBytes = physicalMemoryBytes();
        d.lastLevelCacheBytes = lastLevelCacheBytes();
        return {d};
    }

    Support support(int, const FormatSpec& format, Direction direction) const override {
        if (direction == Direction::Encode) {
            const auto encoder = BulkEncoder::create(format, {}, HardwareUse::Any);
            if (!encoder)
                return Support::Unsupported;
            return encoder->path().hardware ? Support::Native : Support::Emulated;
        }
        const auto decoder = BulkDecoder::create(format, {}, HardwareUse::Any);
        if (!decoder)
            return Support::Unsupported;
        return decoder->path().hardware ? Support::Native : Support::Emulated;
    }

    void run(const BenchRequest& request, const ResultSink& sink, const ProgressSink& progress,
             const std::atomic<bool>* cancel) override;
};

struct RunContext {
    const BenchRequest& request;
    const ResultSink& sink;
    const ProgressSink& progress;
    const std::atomic<bool>* cancel;
    std::string device;
    std::size_t total = 1; // measurements planned
    std::size_t done = 0;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    void report(const std::string& what, double fraction = 0) const {
        if (progress)
            progress(std::min(1.0, (static_cast<double>(done) + fraction) /
                                       static_cast<double>(std::max<std::size_t>(total, 1))),
                     what);
    }
};

BenchResult baseResult(const RunContext& ctx, Operation operation, std::size_t elements,
                       int threads) {
    BenchResult r;
    r.backend = "cpu";
    r.device = ctx.device;
    r.operation = operation;
    r.elements = elements;
    r.threads = threads;
    return r;
}

// One pass of `work` over [0, count), split among the team's threads.
void runOnTeam(ThreadTeam& team, const std::function<void(std::size_t, std::size_t)>& work,
               std::size_t count) {
    const int threads = team.size();
    team.run([&](int t) {
        const std::size_t chunk =
            (count + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
        // Chunks aligned to 64 elements: no two threads write one cache line.
        const std::size_t aligned = (chunk + 63) & ~std::size_t{63};
        const std::size_t begin = std::min(count, aligned * static_cast<std::size_t>(t));
        const std::size_t end = std::min(count, begin + aligned);
        if (begin < end)
            work(begin, end);
    });
}

// Times `work` (one pass over all elements by every thread of the team) by the request's plan.
Statistics timeOnTeam(RunContext& ctx, ThreadTeam& team,
                      const std::function<void(std::size_t, std::size_t)>& work, std::size_t count,
                      const std::string& what) {
    ctx.report(what);
    const auto pass = [&] { runOnTeam(team, work, count); };
    Statistics s = measure(pass, ctx.request.plan, ctx.cancel,
                           [&](double fraction) { ctx.report(what, fraction); });
    ++ctx.done;
    return s;
}

// The same for a conversion, with the copy of the same arrays (`copy`) timed between its
// samples (measureAlongside): its ceiling, measured over the same stretch of time.
StatisticsAlongside timeOnTeamAlongside(RunContext& ctx, ThreadTeam& team,
                                        const std::function<void(std::size_t, std::size_t)>& work,
                                        const std::function<void(std::size_t, std::size_t)>& copy,
                                        std::size_t count, const std::string& what) {
    ctx.report(what);
    const auto onTeam = [&](const std::function<void(std::size_t, std::size_t)>& job) {
        return [&] { runOnTeam(team, job, count); };
    };
    StatisticsAlongside s =
        measureAlongside(onTeam(work), onTeam(copy), ctx.request.plan, ctx.cancel,
                         [&](double fraction) { ctx.report(what, fraction); });
    ++ctx.done;
    return s;
}

// Arrays larger than this are not given to the paths timed in cache only: the scalar ones and
// the bare instruction loops.
constexpr std::size_t kInCacheOnlyLimit = 1u << 20;

// A conversion result of one path, before it is verified and timed.
BenchResult pathResult(const RunContext& ctx, std::size_t size, int threads,
                       const FormatSpec& format, Direction direction, const KernelPath& path) {
    BenchResult r = baseResult(ctx, Operation::Convert, size, threads);
    r.format = format.id;
    r.direction = direction;
    r.path = path.name;
    r.hardware = path.hardware;
    r.exactByDesign = path.bitExact;
    r.note = path.note;
    return r;
}

bool isScalarPath(const KernelPath& path) {
    return path.name == "scalar reference" || path.name.find("(scalar)") != std::string::npos;
}

void finishThroughput(BenchResult& r, double bytesPerElement) {
    r.elementsPerSecond = r.time.median > 0 ? static_cast<double>(r.elements) / r.time.median : 0;
    r.bytesPerSecond = r.elementsPerSecond * bytesPerElement;
}

// The deviations a CPU path declares. The core's only path that is not bit-exact is
// AVX512-BF16's vcvtneps2bf16, which flushes subnormal inputs (docs/behaviour.md, "Known hardware
// deviations"); any other difference of such a path fails it.
Deviations declaredDeviations(const KernelPath& path) {
    return path.bitExact ? Deviations{} : Deviations{Deviation::SubnormalInputFlushed};
}

// A bare instruction loop: the reference for a hardware path's cost over the instruction.
struct BareLoop {
    const char* name;
    bool present;
    Deviations deviations;
    void (*loop)(const std::uint32_t*, std::uint16_t*, std::size_t);
};

// The FP32 arrays of one size, shared by the copy and every conversion of the size.
struct SizeArrays {
    std::size_t size = 0;
    std::size_t sample = 0; // the first elements, compared with the exact core
    std::vector<std::uint32_t> input;
    std::vector<std::uint32_t> output;
    std::string where; // "32 Ki, 1 thread"
    std::function<void(std::size_t, std::size_t)> copyPart;
};

// The adversarial set of a format and direction, made once per run; and each path's outcome on
// it, which does not depend on the size or the threads.
struct AdversarialChecks {
    AdversarialSet set;
    std::map<std::string, Verification> byPath;
};

// One run of a request: the steps of CpuBackend::run.
class CpuRun {
  public:
    CpuRun(RunContext& ctx, std::vector<int> threadCounts, std::vector<std::size_t> sizes)
        : ctx_(ctx), request_(ctx.request), threadCounts_(std::move(threadCounts)),
          sizes_(std::move(sizes)) {}

    void run() {
        planProgress();
        for (int threads : threadCounts_) {
            ThreadTeam team(threads);
            if (request_.conversions)
                for (std::size_t size : sizes_)
                    if (!conversionsOfSize(team, threads, size))
                        return;
            if (!arithmetic(team, threads))
                return;
        }
        ctx_.done = ctx_.total;
        ctx_.report("done");
    }

  private:
    // What will be measured, for the progress bar.
    void planProgress() {
        std::size_t pathsPerSize = 0;
        if (request_.conversions)
            for (const FormatSpec& format : request_.formats)
                for (Direction direction : request_.directions)
                    pathsPerSize +=
                        direction == Direction::Encode
                            ? BulkEncoder::allPaths(format, request_.rounding).size() + 3
                            : BulkDecoder::allPaths(format, decodeOptions()).size();
        if (request_.arithmetic)
            kernels_ = cpuArithmeticKernels();
        ctx_.total =
            threadCounts_.size() *
            ((request_.conversions ? sizes_.size() * (pathsPerSize + 1) : 0) + kernels_.size());
    }

    RoundingOptions decodeOptions() const {
        return exactCoreOptions(request_.rounding, Direction::Decode);
    }

    // The copy, then every path of every format and direction. False when cancelled.
    bool conversionsOfSize(ThreadTeam& team, int threads, std::size_t size) {
        if (ctx_.cancelled())
            return false;
        SizeArrays arrays;
        makeArrays(arrays, threads, size);
        if (!measureCopy(team, threads, arrays))
            return false;
        for (std::size_t f = 0; f < request_.formats.size(); ++f)
            for (Direction direction : request_.directions) {
                const FormatSpec& format = request_.formats[f];
                if (packedBytes(format) > 4)
                    continue; // FP64, FP80, FP128: no bulk path (support: unsupported)
                const bool finished = direction == Direction::Encode
                                          ? encodePaths(team, threads, arrays, f)
                                          : decodePaths(team, threads, arrays, f);
                if (!finished)
                    return false;
            }
        return true;
    }

    void makeArrays(SizeArrays& a, int threads, std::size_t size) {
        ctx_.report("generating " + sizeLabel(size) + " random inputs");
        a.size = size;
        a.sample = std::min(size, kRandomSampleElements);
        a.input.resize(size);
        const std::vector<float> values =
            randomInputs(size, request_.distribution, randomInputSeed(size));
        std::memcpy(a.input.data(), values.data(), size * sizeof(float));
        a.output.resize(size);
        a.where = sizeLabel(size) + ", " + std::to_string(threads) +
                  (threads == 1 ? " thread" : " threads");
        a.copyPart = [&a](std::size_t b, std::size_t e) {
            std::memcpy(a.output.data() + b, a.input.data() + b, (e - b) * 4);
        };
    }

    // The copy bandwidth: memcpy of the FP32 array, read + written. Each conversion's ceiling
    // is the same copy timed between its own samples (timeOnTeamAlongside), so that the ratio
    // does not take in the drift of a shared machine's memory between two measurements.
    bool measureCopy(ThreadTeam& team, int threads, SizeArrays& a) {
        BenchResult copy = baseResult(ctx_, Operation::Copy, a.size, threads);
        copy.format = "fp32";
        copy.path = "memcpy";
        copy.verified = true;
        copy.time = timeOnTeam(ctx_, team, a.copyPart, a.size, "memcpy, " + a.where);
        if (ctx_.cancelled())
            return false;
        finishThroughput(copy, 8);
        copy.ceiling = copy.bytesPerSecond;
        copy.ceilingName = "memcpy, " + a.where;
        ctx_.sink(copy);
        return true;
    }

    // A conversion timed with the copy alongside (timeOnTeamAlongside): its ceiling is that
    // copy's.
    void record(BenchResult r, const SizeArrays& a, const StatisticsAlongside& timed,
                double perElement) {
        r.time = timed.body;
        finishThroughput(r, perElement);
        r.ceiling = timed.reference.median > 0
                        ? 8.0 * static_cast<double>(a.size) / timed.reference.median
                        : 0;
        r.ceilingName = std::string(kCopyAlongside) + ", " + a.where;
        ctx_.sink(r);
    }

    AdversarialChecks& adversarialChecks(std::size_t formatIndex, Direction direction) {
        const auto key = std::make_pair(formatIndex, direction);
        const auto found = adversarial_.find(key);
        if (found != adversarial_.end())
            return found->second;
        const FormatSpec& format = request_.formats[formatIndex];
        AdversarialChecks checks{
            adversarialSet(format, exactCoreOptions(request_.rounding, direction), direction), {}};
        return adversarial_.emplace(key, std::move(checks)).first->second;
    }

    // A path's outcome on the adversarial set (run once per run) plus on the sample of the
    // timed inputs (`convert` runs the path over `count` inputs into an output array).
    Verification verifyPath(std::size_t formatIndex, Direction direction, const std::string& name,
                            Deviations declared, const void* sampleIn,
                            const std::vector<std::uint8_t>& sampleExpected, std::size_t sample,
                            const std::function<void(const void*, void*, std::size_t)>& convert) {
        const FormatSpec& format = request_.formats[formatIndex];
        const DeviationJudge judge(format, exactCoreOptions(request_.rounding, direction),
                                   direction, declared);
        AdversarialChecks& checks = adversarialChecks(formatIndex, direction);
        const AdversarialSet& set = checks.set;
        auto found = checks.byPath.find(name);
        if (found == checks.byPath.end()) {
            std::vector<std::uint8_t> out(set.expected.size());
            convert(set.inputs.data(), out.data(), set.count);
            found = checks.byPath
                        .emplace(name, verify(judge, set.inputs.data(), set.expected.data(),
                                              out.data(), set.count))
                        .first;
        }
        Verification outcome = found->second;
        std::vector<std::uint8_t> out(sampleExpected.size());
        convert(sampleIn, out.data(), sample);
        outcome.add(verify(judge, sampleIn, sampleExpected.data(), out.data(), sample));
        return outcome;
    }

    bool encodePaths(ThreadTeam& team, int threads, SizeArrays& a, std::size_t formatIndex) {
        const FormatSpec& format = request_.formats[formatIndex];
        const int width = packedBytes(format);
        std::vector<std::uint8_t> codes(a.size * static_cast<std::size_t>(width));
        const std::vector<std::uint8_t> expected = exactCoreOutputs(
            format, request_.rounding, Direction::Encode, a.input.data(), a.sample, kSeed);
        for (const BulkEncoder& path : BulkEncoder::allPaths(format, request_.rounding, kSeed)) {
            if (ctx_.cancelled())
                return false;
            // The one-element-at-a-time paths are compared in cache; far beyond it they would
            // take minutes and say nothing new.
            if (a.size > kInCacheOnlyLimit && isScalarPath(path.path())) {
                ++ctx_.done;
                continue;
            }
            BenchResult r =
                pathResult(ctx_, a.size, threads, format, Direction::Encode, path.path());
            const Verification outcome =
                verifyPath(formatIndex, Direction::Encode, path.path().name,
                           declaredDeviations(path.path()), a.input.data(), expected, a.sample,
                           [&](const void* in, void* out, std::size_t count) {
                               path.encode(static_cast<const std::uint32_t*>(in), out, count, 0);
                           });
            recordVerification(r, outcome, declaredDeviations(path.path()));
            const StatisticsAlongside timed = timeOnTeamAlongside(
                ctx_, team,
                [&](std::size_t b, std::size_t e) {
                    path.encode(a.input.data() + b,
                                codes.data() + b * static_cast<std::size_t>(width), e - b, b);
                },
                a.copyPart, a.size, "fp32→" + format.id + " " + r.path + ", " + a.where);
            if (ctx_.cancelled())
                return false;
            record(r, a, timed, 4.0 + width);
        }
        return bareLoops(team, threads, a, formatIndex, codes, expected);
    }

    // The bare instruction loops the hardware paths are measured against.
    bool bareLoops(ThreadTeam& team, int threads, SizeArrays& a, std::size_t formatIndex,
                   std::vector<std::uint8_t>& codes, const std::vector<std::uint8_t>& expected) {
        const FormatSpec& format = request_.formats[formatIndex];
        const bool rne = request_.rounding.mode == RoundingMode::NearestEven;
        const bool fp16 = rne && isFp16Encoding(format);
        const bool bf16 = rne && isBf16Encoding(format);
        // The instructions alone: without the paths' NaN fix-up (NaN payloads differ) and their
        // saturation (±inf beyond the largest finite value); vcvtneps2bf16 also flushes
        // subnormal inputs.
        const Deviations instruction{Deviation::NanPayload, Deviation::InfinityInput,
                                     Deviation::OverflowInput};
        const BareLoop loops[] = {
            {"F16C bare loop", fp16 && kernels::hasF16c(), instruction, &kernels::f16cEncodeBare},
            {"AVX512-FP16 bare loop", fp16 && kernels::hasAvx512Fp16(), instruction,
             &kernels::avx512Fp16EncodeBare},
            {"AVX512-BF16 bare loop", bf16 && kernels::hasAvx512Bf16(),
             instruction | Deviations{Deviation::SubnormalInputFlushed},
             &kernels::avx512Bf16EncodeBare},
        };
        auto* codes16 = reinterpret_cast<std::uint16_t*>(codes.data());
        for (const BareLoop& bare : loops) {
            // In cache only, like the scalar paths: they are the reference for the hardware
            // paths' cost over the instruction. Far beyond the cache their ordinary stores
            // would be measured against the paths' streaming ones.
            if (!bare.present || a.size > kInCacheOnlyLimit || ctx_.cancelled()) {
                ++ctx_.done; // counted whether or not it runs
                continue;
            }
            BenchResult r = baseResult(ctx_, Operation::Convert, a.size, threads);
            r.format = format.id;
            r.direction = Direction::Encode;
            r.path = bare.name;
            r.hardware = true;
            r.note = "the instruction alone, without the NaN fix-up: the reference for the "
                     "hardware path's overhead";
            const Verification outcome = verifyPath(
                formatIndex, Direction::Encode, bare.name, bare.deviations, a.input.data(),
                expected, a.sample, [&](const void* in, void* out, std::size_t count) {
                    bare.loop(static_cast<const std::uint32_t*>(in),
                              static_cast<std::uint16_t*>(out), count);
                });
            recordVerification(r, outcome, bare.deviations);
            const StatisticsAlongside timed = timeOnTeamAlongside(
                ctx_, team,
                [&](std::size_t b, std::size_t e) {
                    bare.loop(a.input.data() + b, codes16 + b, e - b);
                },
                a.copyPart, a.size, "fp32→" + format.id + " " + bare.name + ", " + a.where);
            if (ctx_.cancelled())
                return false;
            record(r, a, timed, 6.0);
        }
        return true;
    }

    bool decodePaths(ThreadTeam& team, int threads, SizeArrays& a, std::size_t formatIndex) {
        const FormatSpec& format = request_.formats[formatIndex];
        const int width = packedBytes(format);
        const std::vector<std::uint8_t> codes = decodeInputs(format, a.input.data(), a.size);
        if (codes.empty())
            return true;
        const std::vector<std::uint8_t> expected =
            exactCoreOutputs(format, decodeOptions(), Direction::Decode, codes.data(), a.sample);
        for (const BulkDecoder& path : BulkDecoder::allPaths(format, decodeOptions())) {
            if (ctx_.cancelled())
                return false;
            BenchResult r =
                pathResult(ctx_, a.size, threads, format, Direction::Decode, path.path());
            if (request_.rounding.mode == RoundingMode::Stochastic)
                r.note = joinNotes(r.note, "decoded with nearest-even (stochastic rounding "
                                           "applies to encoding)");
            const Verification outcome =
                verifyPath(formatIndex, Direction::Decode, path.path().name,
                           declaredDeviations(path.path()), codes.data(), expected, a.sample,
                           [&](const void* in, void* out, std::size_t count) {
                               path.decode(in, static_cast<std::uint32_t*>(out), count);
                           });
            recordVerification(r, outcome, declaredDeviations(path.path()));
            const StatisticsAlongside timed = timeOnTeamAlongside(
                ctx_, team,
                [&](std::size_t b, std::size_t e) {
                    path.decode(codes.data() + b * static_cast<std::size_t>(width),
                                a.output.data() + b, e - b);
                },
                a.copyPart, a.size, format.id + "→fp32 " + r.path + ", " + a.where);
            if (ctx_.cancelled())
                return false;
            record(r, a, timed, 4.0 + width);
        }
        return true;
    }

    // Register-only FMA/dot-product chains on every thread of the team. False when cancelled.
    bool arithmetic(ThreadTeam& team, int threads) {
        for (const ArithmeticKernel& kernel : kernels_) {
            if (ctx_.cancelled())
                return false;
            BenchResult r = baseResult(ctx_, Operation::Arithmetic, 0, threads);
            r.format = kernel.format;
            r.path = kernel.path;
            r.hardware = true;
            r.verified = true;
            r.note = "register-only FMA/dot-product chains: the core's peak, not a memory figure";
            std::vector<double> sinks(static_cast<std::size_t>(threads) * 8);
            const std::string what = kernel.format + " " + kernel.path + ", " +
                                     std::to_string(threads) +
                                     (threads == 1 ? " thread" : " threads");
            ctx_.report(what);
            r.time = measure(
                [&] {
                    team.run(
                        [&](int t) { sinks[static_cast<std::size_t>(t) * 8] += kernel.run(); });
                },
                request_.plan, ctx_.cancel, [&](double f) { ctx_.report(what, f); });
            ++ctx_.done;
            if (ctx_.cancelled())
                return false;
            r.operationsPerSecond =
                r.time.median > 0 ? kernel.operationsPerCall * threads / r.time.median : 0;
            ctx_.sink(r);
        }
        return true;
    }

    RunContext& ctx_;
    const BenchRequest& request_;
    std::vector<int> threadCounts_;
    std::vector<std::size_t> sizes_;
    std::vector<ArithmeticKernel> kernels_;
    std::map<std::pair<std::size_t, Direction>, AdversarialChecks> adversarial_;
};

} // namespace

void CpuBackend::run(const BenchRequest& request, const ResultSink& sink,
                     const ProgressSink& progress, const std::atomic<bool>* cancel) {
    RunContext ctx{request, sink, progress, cancel, cpuModel()};
    const int hardwareThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<int> threadCounts = request.threads;
    if (threadCounts.empty())
        threadCounts =
            hardwareThreads > 1 ? std::vector<int>{1, hardwareThreads} : std::vector<int>{1};
    for (int& t : threadCounts)
        t = std::clamp(t, 1, 1024);
    std::vector<std::size_t> sizes =
        request.sizes.empty() ? defaultSizes(devices().front()) : request.sizes;
    CpuRun(ctx, std::move(threadCounts), std::move(sizes)).run();
}

std::unique_ptr<Backend> createCpuBackend() {
    return std::make_unique<CpuBackend>();
}

} // namespace fpx::bench
