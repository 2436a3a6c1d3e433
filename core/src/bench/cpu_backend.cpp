// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend: copy bandwidth, bulk conversions through every path this CPU has, and
// FMA/dot-product throughput, on one thread and on all of them.
#include "cpu_arithmetic.h"
#include "fpx/bench/backend.h"
#include "fpx/bulk_conversion.h"
#include "fpx/format_catalogue.h"
#include "thread_team.h"

#include "../kernels/x86_hardware.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>
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

// "in cache": 32 Ki elements (128 KiB of FP32 in, L2-resident on one core). "far beyond":
// input of at least twice the last-level cache, a power of two, at most 1/8 of memory.
std::vector<std::size_t> defaultSizes() {
    const std::uint64_t llc = lastLevelCacheBytes();
    std::uint64_t far = std::max<std::uint64_t>(std::bit_ceil(2 * llc / 4), 16u << 20);
    if (const std::uint64_t memory = physicalMemoryBytes(); memory > 0)
        while (far > (16u << 20) && far * 4 * 3 > memory / 2)
            far /= 2;
    return {32u << 10, static_cast<std::size_t>(far)};
}

std::string sizeLabel(std::size_t elements) {
    if (elements % (1u << 20) == 0)
        return std::to_string(elements >> 20) + "M";
    if (elements % (1u << 10) == 0)
        return std::to_string(elements >> 10) + "k";
    return std::to_string(elements);
}

// A first mismatch, as hex, for the note of an unverified path.
std::string hexWord(std::uint64_t value) {
    std::ostringstream out;
    out << "0x" << std::hex << value;
    return out.str();
}

std::uint64_t readPacked(const std::vector<std::uint8_t>& bytes, std::size_t index, int width) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data() + index * static_cast<std::size_t>(width),
                static_cast<std::size_t>(width));
    return value;
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

// Decoding rounds only values that FP32 cannot hold (INT8's k/127): by the request's mode,
// except that stochastic rounding would make a table of results meaningless.
RoundingOptions decodeOptions(const BenchRequest& request) {
    RoundingOptions options = request.rounding;
    if (options.mode == RoundingMode::Stochastic)
        options.mode = RoundingMode::NearestEven;
    return options;
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

// Compares `sample` elements with the exact core's (differs(i)) and records the count and the
// first difference (describe(i): "input → got, expected …") in the result.
template <typename Differs, typename Describe>
void verifySample(BenchResult& r, std::size_t sample, const Differs& differs,
                  const Describe& describe) {
    r.checked = sample;
    std::size_t first = sample;
    for (std::size_t i = 0; i < sample; ++i)
        if (differs(i)) {
            ++r.mismatches;
            first = std::min(first, i);
        }
    r.verified = r.mismatches == 0;
    if (!r.verified)
        r.note += (r.note.empty() ? "" : "; ") + std::to_string(r.mismatches) + " of " +
                  std::to_string(sample) + " differ from the exact core, first: " + describe(first);
}

bool isScalarPath(const KernelPath& path) {
    return path.name == "scalar reference" || path.name.find("(scalar)") != std::string::npos;
}

void finishThroughput(BenchResult& r, double bytesPerElement) {
    r.elementsPerSecond = r.time.median > 0 ? static_cast<double>(r.elements) / r.time.median : 0;
    r.bytesPerSecond = r.elementsPerSecond * bytesPerElement;
}

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
    const std::vector<std::size_t> sizes = request.sizes.empty() ? defaultSizes() : request.sizes;

    // What will be measured, for the progress bar.
    std::size_t pathsPerSize = 0;
    if (request.conversions)
        for (const FormatSpec& format : request.formats)
            for (Direction direction : request.directions)
                pathsPerSize += direction == Direction::Encode
                                    ? BulkEncoder::allPaths(format, request.rounding).size() + 3
                                    : BulkDecoder::allPaths(format, decodeOptions(request)).size();
    const std::vector<ArithmeticKernel> arithmetic =
        request.arithmetic ? cpuArithmeticKernels() : std::vector<ArithmeticKernel>{};
    ctx.total = threadCounts.size() *
                ((request.conversions ? sizes.size() * (pathsPerSize + 1) : 0) + arithmetic.size());

    const std::uint64_t seed = 0x5eed0f00d;
    constexpr std::size_t kVerifySample = 1u << 16;

    for (int threads : threadCounts) {
        ThreadTeam team(threads);
        if (request.conversions)
            for (std::size_t size : sizes) {
                if (ctx.cancelled())
                    return;
                ctx.report("generating " + sizeLabel(size) + " random inputs");
                std::vector<std::uint32_t> input(size);
                {
                    const std::vector<float> values =
                        randomInputs(size, request.distribution, seed + size);
                    std::memcpy(input.data(), values.data(), size * sizeof(float));
                }
                std::vector<std::uint32_t> output(size);
                const std::size_t sample = std::min(size, kVerifySample);
                const std::string where = sizeLabel(size) + ", " + std::to_string(threads) +
                                          (threads == 1 ? " thread" : " threads");

                // The copy bandwidth: memcpy of the FP32 array, read + written. Each
                // conversion's ceiling is the same copy timed between its own samples
                // (timeOnTeamAlongside), so that the ratio does not take in the drift of a
                // shared machine's memory between two measurements.
                BenchResult copy = baseResult(ctx, Operation::Copy, size, threads);
                copy.format = "fp32";
                copy.path = "memcpy";
                copy.verified = true;
                const auto copyPart = [&](std::size_t b, std::size_t e) {
                    std::memcpy(output.data() + b, input.data() + b, (e - b) * 4);
                };
                copy.time = timeOnTeam(ctx, team, copyPart, size, "memcpy, " + where);
                if (ctx.cancelled())
                    return;
                finishThroughput(copy, 8);
                copy.ceiling = copy.bytesPerSecond;
                copy.ceilingName = "memcpy, " + where;
                sink(copy);

                for (const FormatSpec& format : request.formats)
                    for (Direction direction : request.directions) {
                        const int width = packedBytes(format);
                        if (width > 4)
                            continue; // FP64, FP80, FP128: no bulk path (support: unsupported)
                        std::vector<std::uint8_t> codes(size * static_cast<std::size_t>(width));
                        std::vector<std::uint8_t> expected(sample *
                                                           static_cast<std::size_t>(width));
                        std::vector<std::uint32_t> expectedFp32(sample);
                        std::vector<std::uint8_t> randomCodes;
                        if (direction == Direction::Encode) {
                            encodeWithExactCore(format, request.rounding, input.data(),
                                                expected.data(), sample, seed, 0);
                        } else {
                            // Decode inputs: the random FP32 inputs of the chosen distribution
                            // encoded (nearest-even), so that NaNs, subnormals and overflow
                            // are as frequent as the distribution says, not as uniformly
                            // random codes would make them (3 % NaN for FP16).
                            randomCodes.resize(codes.size());
                            const auto source = BulkEncoder::create(format, {});
                            if (!source)
                                continue;
                            source->encode(input.data(), randomCodes.data(), size);
                            decodeWithExactCore(format, decodeOptions(request), randomCodes.data(),
                                                expectedFp32.data(), sample);
                        }

                        // A conversion timed with the copy alongside (timeOnTeamAlongside):
                        // its ceiling is that copy's.
                        auto record = [&](BenchResult r, const StatisticsAlongside& timed,
                                          double perElement) {
                            r.time = timed.body;
                            finishThroughput(r, perElement);
                            r.ceiling =
                                timed.reference.median > 0
                                    ? 8.0 * static_cast<double>(size) / timed.reference.median
                                    : 0;
                            r.ceilingName = std::string(kCopyAlongside) + ", " + where;
                            sink(r);
                        };

                        if (direction == Direction::Encode) {
                            std::vector<BulkEncoder> paths =
                                BulkEncoder::allPaths(format, request.rounding, seed);
                            for (const BulkEncoder& path : paths) {
                                if (ctx.cancelled())
                                    return;
                                // The one-element-at-a-time paths are compared in cache; far
                                // beyond it they would take minutes and say nothing new.
                                if (size > kInCacheOnlyLimit && isScalarPath(path.path())) {
                                    ++ctx.done;
                                    continue;
                                }
                                BenchResult r =
                                    pathResult(ctx, size, threads, format, direction, path.path());
                                path.encode(input.data(), codes.data(), sample, 0);
                                verifySample(
                                    r, sample,
                                    [&](std::size_t i) {
                                        return readPacked(codes, i, width) !=
                                               readPacked(expected, i, width);
                                    },
                                    [&](std::size_t i) {
                                        return hexWord(input[i]) + " gave " +
                                               hexWord(readPacked(codes, i, width)) +
                                               ", expected " +
                                               hexWord(readPacked(expected, i, width));
                                    });
                                const StatisticsAlongside timed = timeOnTeamAlongside(
                                    ctx, team,
                                    [&](std::size_t b, std::size_t e) {
                                        path.encode(input.data() + b,
                                                    codes.data() +
                                                        b * static_cast<std::size_t>(width),
                                                    e - b, b);
                                    },
                                    copyPart, size,
                                    "fp32→" + format.id + " " + r.path + ", " + where);
                                if (ctx.cancelled())
                                    return;
                                record(r, timed, 4.0 + width);
                            }
                            // The bare instruction loops the hardware paths are measured against.
                            auto bare = [&](const char* name, bool present,
                                            void (*loop)(const std::uint32_t*, std::uint16_t*,
                                                         std::size_t)) {
                                ++ctx.done; // counted whether or not it runs
                                // In cache only, like the scalar paths: they are the reference
                                // for the hardware paths' cost over the instruction. Far beyond
                                // the cache their ordinary stores would be measured against the
                                // paths' streaming ones.
                                if (!present || width != 2 || size > kInCacheOnlyLimit ||
                                    ctx.cancelled())
                                    return;
                                --ctx.done; // timeOnTeam counts it
                                BenchResult r = baseResult(ctx, Operation::Convert, size, threads);
                                r.format = format.id;
                                r.direction = direction;
                                r.path = name;
                                r.hardware = true;
                                r.exactByDesign = false;
                                r.note = "the instruction alone, without the NaN fix-up: the "
                                         "reference for the hardware path's overhead";
                                loop(input.data(), reinterpret_cast<std::uint16_t*>(codes.data()),
                                     sample);
                                r.checked = sample;
                                for (std::size_t i = 0; i < r.checked; ++i)
                                    r.mismatches +=
                                        readPacked(codes, i, 2) != readPacked(expected, i, 2);
                                r.verified = r.mismatches == 0;
                                if (!r.verified)
                                    r.note += "; " + std::to_string(r.mismatches) + " of " +
                                              std::to_string(sample) +
                                              " differ from the exact core (NaN payloads" +
                                              (format.id == "bf16" ? ", flushed subnormals)" : ")");
                                const StatisticsAlongside timed = timeOnTeamAlongside(
                                    ctx, team,
                                    [&](std::size_t b, std::size_t e) {
                                        loop(input.data() + b,
                                             reinterpret_cast<std::uint16_t*>(codes.data()) + b,
                                             e - b);
                                    },
                                    copyPart, size,
                                    "fp32→" + format.id + " " + name + ", " + where);
                                if (!ctx.cancelled())
                                    record(r, timed, 6.0);
                            };
                            const bool rne = request.rounding.mode == RoundingMode::NearestEven;
                            bare("F16C bare loop", format.id == "fp16" && rne && kernels::hasF16c(),
                                 &kernels::f16cEncodeBare);
                            bare("AVX512-FP16 bare loop",
                                 format.id == "fp16" && rne && kernels::hasAvx512Fp16(),
                                 &kernels::avx512Fp16EncodeBare);
                            bare("AVX512-BF16 bare loop",
                                 format.id == "bf16" && rne && kernels::hasAvx512Bf16(),
                                 &kernels::avx512Bf16EncodeBare);
                        } else {
                            for (const BulkDecoder& path :
                                 BulkDecoder::allPaths(format, decodeOptions(request))) {
                                if (ctx.cancelled())
                                    return;
                                BenchResult r =
                                    pathResult(ctx, size, threads, format, direction, path.path());
                                if (request.rounding.mode == RoundingMode::Stochastic)
                                    r.note += std::string(r.note.empty() ? "" : "; ") +
                                              "decoded with nearest-even (stochastic rounding "
                                              "applies to encoding)";
                                path.decode(randomCodes.data(), output.data(), sample);
                                verifySample(
                                    r, sample,
                                    [&](std::size_t i) { return output[i] != expectedFp32[i]; },
                                    [&](std::size_t i) {
                                        return "code " +
                                               hexWord(readPacked(randomCodes, i, width)) +
                                               " gave " + hexWord(output[i]) + ", expected " +
                                               hexWord(expectedFp32[i]);
                                    });
                                const StatisticsAlongside timed = timeOnTeamAlongside(
                                    ctx, team,
                                    [&](std::size_t b, std::size_t e) {
                                        path.decode(randomCodes.data() +
                                                        b * static_cast<std::size_t>(width),
                                                    output.data() + b, e - b);
                                    },
                                    copyPart, size, format.id + "→fp32 " + r.path + ", " + where);
                                if (ctx.cancelled())
                                    return;
                                record(r, timed, 4.0 + width);
                            }
                        }
                    }
            }

        for (const ArithmeticKernel& kernel : arithmetic) {
            if (ctx.cancelled())
                return;
            BenchResult r = baseResult(ctx, Operation::Arithmetic, 0, threads);
            r.format = kernel.format;
            r.path = kernel.path;
            r.hardware = true;
            r.verified = true;
            r.note = "register-only FMA/dot-product chains: the core's peak, not a memory figure";
            std::vector<double> sinks(static_cast<std::size_t>(threads) * 8);
            const std::string what = kernel.format + " " + kernel.path + ", " +
                                     std::to_string(threads) +
                                     (threads == 1 ? " thread" : " threads");
            ctx.report(what);
            r.time = measure(
                [&] {
                    team.run(
                        [&](int t) { sinks[static_cast<std::size_t>(t) * 8] += kernel.run(); });
                },
                request.plan, cancel, [&](double f) { ctx.report(what, f); });
            ++ctx.done;
            if (ctx.cancelled())
                return;
            r.operationsPerSecond =
                r.time.median > 0 ? kernel.operationsPerCall * threads / r.time.median : 0;
            sink(r);
        }
    }
    ctx.done = ctx.total;
    ctx.report("done");
}

std::unique_ptr<Backend> createCpuBackend() {
    return std::make_unique<CpuBackend>();
}

} // namespace fpx::bench
