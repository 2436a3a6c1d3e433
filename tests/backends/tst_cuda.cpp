// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend plugin. Everywhere: it loads (with dlopen, as fpx loads it), exports its
// entry points, and says why it cannot run when there is no driver or GPU instead of crashing.
// On a GPU: every conversion path (own kernels over the core's element conversions, and
// CUDA's intrinsics) agrees with the exact core bit for bit — outside the deviations a path
// declares, which are themselves checked (a NaN must still be a NaN) — for every format, every
// rounding mode (stochastic with a fixed seed) and both overflow policies, over adversarial
// inputs: every 16-bit prefix of FP32 extended by low halves that hit the ties of every
// target, both neighbours of every midpoint between adjacent values, ±0, ±inf, NaNs,
// subnormals, overflow, and 2^18 random bit patterns.
#include "conversion_runner.h"

#include "fpx/bench/backend.h"
#include "fpx/bench/verification.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/packed_codes.h"
#include "fpx/kernels/bulk_conversion.h"

#include <QTest>

#include <dlfcn.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <thread>
#include <vector>

using namespace fpx;
using bench::Direction;

namespace {

constexpr std::uint64_t kSeed = 0x0123456789abcdefULL;

const RoundingMode kModes[] = {RoundingMode::NearestEven,    RoundingMode::TowardZero,
                               RoundingMode::TowardPositive, RoundingMode::TowardNegative,
                               RoundingMode::NearestAway,    RoundingMode::ToOdd,
                               RoundingMode::Stochastic};

template <typename F> void parallelChunks(std::size_t count, const F& f) {
    const std::size_t chunks = std::clamp<std::size_t>(
        count / 16384, 1, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(chunks);
    for (std::size_t c = 0; c < chunks; ++c)
        threads.emplace_back([&, c] {
            try {
                f(count * c / chunks, count * (c + 1) / chunks);
            } catch (...) {
                errors[c] = std::current_exception();
            }
        });
    for (auto& t : threads)
        t.join();
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
}

std::uint32_t readCode(const std::vector<std::uint8_t>& data, std::size_t i, int bytes) {
    return readPackedCode(data.data(), bytes, i);
}

QString hex(std::uint32_t v) {
    return QStringLiteral("0x%1").arg(v, 0, 16);
}

// Every 16-bit prefix of FP32 (sign, exponent, 7 fraction bits) extended by low halves that
// put the dropped bits of every target at a tie, just below it, just above it, at zero and
// at all ones: ties of BF16 (bit 15), of FP16/TF32 (bit 12), and the carries into them.
const std::vector<std::uint32_t>& prefixInputs() {
    static const std::vector<std::uint32_t> inputs = [] {
        const std::uint32_t lows[] = {0x0000, 0x0001, 0x07ff, 0x0800, 0x0fff, 0x1000,
                                      0x1001, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001,
                                      0xefff, 0xf000, 0xf001, 0xffff};
        std::vector<std::uint32_t> v;
        v.reserve(65536 * (std::size(lows) + 1) + (1u << 18));
        std::mt19937 random(12345);
        for (std::uint32_t prefix = 0; prefix < 65536; ++prefix) {
            for (std::uint32_t low : lows)
                v.push_back(prefix << 16 | low);
            v.push_back(prefix << 16 | (random() & 0xffffu));
        }
        for (int i = 0; i < (1 << 18); ++i)
            v.push_back(static_cast<std::uint32_t>(random()));
        return v;
    }();
    return inputs;
}

// The prefix inputs plus, for formats of at most 16 bits, the midpoint between every two
// adjacent finite values and its FP32 neighbours, of both signs, and each value's neighbours.
std::vector<std::uint32_t> encodeInputs(const FormatSpec& format) {
    std::vector<std::uint32_t> v = prefixInputs();
    std::vector<float> values;
    for (std::uint32_t bits : decodeTable(format)) {
        const float f = std::bit_cast<float>(bits);
        if (std::isfinite(f))
            values.push_back(std::fabs(f));
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    auto addAround = [&](float f) {
        const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
        for (std::uint32_t b : {bits - 1, bits, bits + 1})
            if ((b & 0x7fffffffu) <= 0x7f800000u) {
                v.push_back(b);
                v.push_back(b | 0x80000000u);
            }
    };
    for (std::size_t i = 0; i < values.size(); ++i) {
        addAround(values[i]);
        if (i + 1 < values.size())
            addAround(static_cast<float>((static_cast<double>(values[i]) + values[i + 1]) / 2));
    }
    if (!values.empty()) // the tie between the largest value and the next one up, and beyond
        addAround(values.back() +
                  (values.back() - values[values.size() > 1 ? values.size() - 2 : 0]) / 2);
    v.push_back(0x7f7fffffu); // FLT_MAX, both signs
    v.push_back(0xff7fffffu);
    // 3 elements after the last 4-element vector: the kernels' per-element tail runs too.
    for (std::uint32_t b = 0x3f800000u; v.size() % 4 != 3; ++b)
        v.push_back(b);
    return v;
}

// The plugin as built beside this test, or from $FPX_BACKEND_DIR where that is set: a GPU
// machine without the build tools runs a prebuilt bundle of both (tools/gpu_bundle.sh).
std::string pluginDir() {
    if (const char* dir = std::getenv("FPX_BACKEND_DIR"); dir && *dir)
        return dir;
    return FPX_BACKEND_DIR;
}

std::string pluginPath() {
    return pluginDir() + "/libfpx_backend_cuda.so";
}

} // namespace

class TestCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void identity();
    void withoutDevice();
    void devices();
    void loadBackendsFindsThePlugin();
    void encode_data();
    void encode();
    void decode_data();
    void decode();
    void benchmarkVerifies();

  private:
    bool gpu() const { return reason_.empty(); }
    // Compares every path for one format, options and direction; returns the failures.
    void checkPaths(const FormatSpec& format, const RoundingOptions& options, Direction direction,
                    const std::vector<std::uint8_t>& inputs, int inBytes,
                    const std::vector<std::uint8_t>& expected, int outBytes, std::size_t count);

    void* handle_ = nullptr;
    std::unique_ptr<bench::Backend> backend_;
    std::unique_ptr<cuda::ConversionRunner> runner_;
    std::string reason_;
};

void TestCuda::initTestCase() {
    // The plugin must load wherever the CUDA libraries are installed, GPU or not.
    handle_ = dlopen(pluginPath().c_str(), RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(handle_ != nullptr, dlerror());
    using AbiVersion = int (*)();
    using CreateBackend = bench::Backend* (*)();
    using CreateRunner = cuda::ConversionRunner* (*)();
    auto abi = reinterpret_cast<AbiVersion>(dlsym(handle_, "fpx_backend_abi_version"));
    auto create = reinterpret_cast<CreateBackend>(dlsym(handle_, "fpx_create_backend"));
    auto createRunner =
        reinterpret_cast<CreateRunner>(dlsym(handle_, cuda::kConversionRunnerSymbol));
    QVERIFY(abi != nullptr);
    QVERIFY(create != nullptr);
    QVERIFY(createRunner != nullptr);
    QCOMPARE(abi(), bench::kBackendAbiVersion);
    backend_.reset(create());
    runner_.reset(createRunner());
    QVERIFY(backend_ != nullptr);
    QVERIFY(runner_ != nullptr);
    reason_ = backend_->unavailableReason();
    QCOMPARE(runner_->unavailableReason(), reason_);
    if (!gpu())
        qInfo("CUDA unavailable here: %s", reason_.c_str());
    // The plugin stays loaded: objects from it are alive until the end (and the statically
    // linked CUDA runtime does its own clean-up at exit).
}

void TestCuda::identity() {
    QCOMPARE(backend_->id(), std::string("cuda"));
    QCOMPARE(backend_->displayName(), std::string("CUDA"));
}

void TestCuda::withoutDevice() {
    if (gpu())
        QSKIP("a CUDA device is present (see devices())");
    QVERIFY(backend_->devices().empty());
    const FormatSpec fp16 = *findFormat("fp16").spec;
    QCOMPARE(backend_->support(0, fp16, Direction::Encode), bench::Support::Unsupported);
    bench::BenchRequest request;
    request.formats = {fp16};
    int results = 0;
    double lastProgress = -1;
    backend_->run(
        request, [&](const bench::BenchResult&) { ++results; },
        [&](double fraction, const std::string&) { lastProgress = fraction; }, nullptr);
    QCOMPARE(results, 0);
    QCOMPARE(lastProgress, 1.0);
    QVERIFY(runner_->paths(fp16, {}, Direction::Encode).empty());
    std::uint32_t in = 0x3f800000u, out = 0;
    QCOMPARE(runner_->convert(fp16, {}, Direction::Encode, 0, &in, &out, 1, 0), reason_);
}

void TestCuda::devices() {
    if (!gpu())
        QSKIP(reason_.c_str());
    const auto list = backend_->devices();
    QVERIFY(!list.empty());
    for (const bench::DeviceInfo& d : list) {
        qInfo("device %d: %s, %s\n  %s", d.index, d.name.c_str(), d.driver.c_str(),
              d.details.c_str());
        QCOMPARE(d.backend, std::string("cuda"));
        QVERIFY(!d.name.empty());
        QVERIFY(d.computeUnits > 0);
        QVERIFY(d.memoryBytes > 0);
        for (const auto& [id, peak] : d.datasheetPeaks)
            QVERIFY2(findFormat(id) && peak > 0, id.c_str());
    }
    const FormatSpec fp16 = *findFormat("fp16").spec;
    QCOMPARE(backend_->support(0, fp16, Direction::Encode), bench::Support::Native);
}

void TestCuda::loadBackendsFindsThePlugin() {
    qputenv("FPX_BACKEND_DIR", QByteArray::fromStdString(pluginDir()));
    const bench::LoadedBackends loaded = bench::loadBackends();
    const bench::Backend* cuda = nullptr;
    for (const auto& b : loaded.backends)
        if (b->id() == "cuda")
            cuda = b.get();
    std::string problems;
    for (const std::string& p : loaded.problems)
        problems += p + "; ";
    QVERIFY2(cuda != nullptr, problems.c_str());
    QCOMPARE(cuda->unavailableReason(), reason_);
}

void TestCuda::checkPaths(const FormatSpec& format, const RoundingOptions& options,
                          Direction direction, const std::vector<std::uint8_t>& inputs, int inBytes,
                          const std::vector<std::uint8_t>& expected, int outBytes,
                          std::size_t count) {
    const std::vector<cuda::PathDescription> paths = runner_->paths(format, options, direction);
    QVERIFY2(!paths.empty(), "no GPU path for a format the core has element parameters for");
    QVERIFY(paths.front().ownKernel);
    // Every path is checked before the verdict, so that one run reports all of them.
    QStringList failures;
    for (std::size_t p = 0; p < paths.size(); ++p) {
        const cuda::PathDescription& path = paths[p];
        if (path.ownKernel)
            QVERIFY(path.deviations.empty()); // own kernels never deviate
        std::vector<std::uint8_t> got(count * static_cast<std::size_t>(outBytes), 0xa5);
        const std::string error = runner_->convert(format, options, direction, p, inputs.data(),
                                                   got.data(), count, kSeed);
        if (!error.empty()) {
            failures << QString::fromStdString(path.name + ": " + error);
            continue;
        }

        const bench::DeviationJudge judge(format, options, direction, path.deviations);
        std::size_t unexplained = 0, explained = 0;
        QStringList examples;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint32_t g = readCode(got, i, outBytes), e = readCode(expected, i, outBytes);
            if (g == e)
                continue;
            const std::uint32_t input = readCode(inputs, i, inBytes);
            if (judge.explains(input, g, e)) {
                ++explained;
                continue;
            }
            if (++unexplained <= 8)
                examples
                    << QStringLiteral("%1 -> %2 (exact core %3)").arg(hex(input), hex(g), hex(e));
        }
        if (explained > 0)
            qInfo("%s %s %s/%s %s: %zu of %zu differ within the documented deviations (%s)",
                  format.id.c_str(), bench::directionId(direction).data(),
                  roundingModeId(options.mode).data(), overflowPolicyId(options.overflow).data(),
                  path.name.c_str(), explained, count, path.note.c_str());
        if (unexplained > 0)
            failures << QStringLiteral("%1%2: %3 of %4 differ: %5")
                            .arg(QString::fromStdString(path.name))
                            .arg(path.ownKernel ? QStringLiteral(" (own kernel)") : QString())
                            .arg(unexplained)
                            .arg(count)
                            .arg(examples.join(QStringLiteral(", ")));
    }
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QStringLiteral("; "))));
}

void TestCuda::encode_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("policy");
    if (!gpu()) {
        QTest::newRow("no CUDA device") << QString() << 0 << 0;
        return;
    }
    for (const FormatSpec& f : builtinFormats())
        for (RoundingMode mode : kModes)
            for (OverflowPolicy policy : {OverflowPolicy::Ieee, OverflowPolicy::Saturate}) {
                const RoundingOptions options{mode, policy, 0};
                if (!encodeParams(f, options) && !lookupParams(f, options))
                    continue; // no own kernel: no GPU path either
                QTest::addRow("%s %s %s", f.id.c_str(), roundingModeId(mode).data(),
                              overflowPolicyId(policy).data())
                    << QString::fromStdString(f.id) << static_cast<int>(mode)
                    << static_cast<int>(policy);
            }
}

void TestCuda::encode() {
    if (!gpu())
        QSKIP(reason_.c_str());
    QFETCH(QString, format);
    QFETCH(int, mode);
    QFETCH(int, policy);
    const FormatSpec spec = *findFormat(format.toStdString()).spec;
    const RoundingOptions options{static_cast<RoundingMode>(mode),
                                  static_cast<OverflowPolicy>(policy), 0};
    const std::vector<std::uint32_t> bits = encodeInputs(spec);
    const std::size_t count = bits.size();
    const int codeBytes = packedBytes(spec);
    std::vector<std::uint8_t> inputs(count * 4);
    std::memcpy(inputs.data(), bits.data(), inputs.size());
    std::vector<std::uint8_t> expected(count * static_cast<std::size_t>(codeBytes));
    parallelChunks(count, [&](std::size_t begin, std::size_t end) {
        encodeWithExactCore(spec, options, bits.data() + begin,
                            expected.data() + begin * static_cast<std::size_t>(codeBytes),
                            end - begin, kSeed, begin);
    });
    checkPaths(spec, options, Direction::Encode, inputs, 4, expected, codeBytes, count);
}

void TestCuda::decode_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("policy");
    if (!gpu()) {
        QTest::newRow("no CUDA device") << QString() << 0 << 0;
        return;
    }
    for (const FormatSpec& f : builtinFormats()) {
        const int bytes = packedBytes(f);
        if (bytes > 4 || (f.totalBits() > 16 && !widenParams(f)))
            continue;
        // Stochastic rounding is left out: decoding rounds only values that are not FP32
        // values (INT8's k/127), and those formats have no stochastic decode path.
        for (RoundingMode mode : kModes)
            for (OverflowPolicy policy : {OverflowPolicy::Ieee, OverflowPolicy::Saturate}) {
                if (mode == RoundingMode::Stochastic)
                    continue;
                // Binary floats decode alike in every mode; only ±inf depends on the policy.
                if (f.kind == FormatKind::BinaryFloat &&
                    (mode != RoundingMode::NearestEven ||
                     (policy == OverflowPolicy::Saturate && !f.hasInfinity())))
                    continue;
                // Integers and lookup formats have no ±inf: the policy changes nothing.
                if (f.kind != FormatKind::BinaryFloat && policy == OverflowPolicy::Saturate)
                    continue;
                QTest::addRow("%s %s %s", f.id.c_str(), roundingModeId(mode).data(),
                              overflowPolicyId(policy).data())
                    << QString::fromStdString(f.id) << static_cast<int>(mode)
                    << static_cast<int>(policy);
            }
    }
}

void TestCuda::decode() {
    if (!gpu())
        QSKIP(reason_.c_str());
    QFETCH(QString, format);
    QFETCH(int, mode);
    QFETCH(int, policy);
    const FormatSpec spec = *findFormat(format.toStdString()).spec;
    const RoundingOptions options{static_cast<RoundingMode>(mode),
                                  static_cast<OverflowPolicy>(policy), 0};
    const int codeBytes = packedBytes(spec);
    // Every code, twice (in opposite orders), repeated until the kernels' whole tiles of 4096
    // elements run too (byte formats have few codes), and a few more so that the last tile is
    // partial and the count leaves 3 elements after the last 4-element vector.
    const std::uint64_t codes = std::uint64_t{1} << spec.totalBits();
    std::vector<std::uint32_t> list;
    while (list.size() < 3 * 4096) {
        for (std::uint64_t c = 0; c < codes; ++c)
            list.push_back(static_cast<std::uint32_t>(c));
        for (std::uint64_t c = codes; c-- > 0;)
            list.push_back(static_cast<std::uint32_t>(c));
    }
    for (std::uint32_t c = 0; c < 7 || list.size() % 4 != 3; ++c)
        list.push_back(c % static_cast<std::uint32_t>(codes));
    const std::size_t count = list.size();
    std::vector<std::uint8_t> inputs(count * static_cast<std::size_t>(codeBytes));
    for (std::size_t i = 0; i < count; ++i)
        std::memcpy(inputs.data() + i * static_cast<std::size_t>(codeBytes), &list[i],
                    static_cast<std::size_t>(codeBytes));
    std::vector<std::uint32_t> bits(count);
    parallelChunks(count, [&](std::size_t begin, std::size_t end) {
        decodeWithExactCore(spec, options,
                            inputs.data() + begin * static_cast<std::size_t>(codeBytes),
                            bits.data() + begin, end - begin);
    });
    std::vector<std::uint8_t> expected(count * 4);
    std::memcpy(expected.data(), bits.data(), expected.size());
    checkPaths(spec, options, Direction::Decode, inputs, codeBytes, expected, 4, count);
}

void TestCuda::benchmarkVerifies() {
    if (!gpu())
        QSKIP(reason_.c_str());
    // A short run through the Backend interface: every result arrives, the copies and the
    // own kernels verify, and a size that is not a multiple of 16 exercises the tails.
    bench::BenchRequest request;
    for (const char* id :
         {"fp16", "bf16", "tf32", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1", "int8", "nf4"})
        request.formats.push_back(*findFormat(id).spec);
    request.sizes = {(std::size_t{1} << 18) + 5};
    request.plan.budget = std::chrono::duration<double>(0.02);
    request.plan.samples = 3;
    request.arithmetic = false;
    request.distribution = bench::InputDistribution::WithNaN;
    std::vector<bench::BenchResult> results;
    backend_->run(
        request, [&](const bench::BenchResult& r) { results.push_back(r); }, {}, nullptr);
    int copies = 0, conversions = 0;
    for (const bench::BenchResult& r : results) {
        qInfo("%s %s %s %s: %.3g GB/s, %s", r.format.c_str(),
              bench::operationId(r.operation).data(), bench::directionId(r.direction).data(),
              r.path.c_str(), r.bytesPerSecond / 1e9, r.note.c_str());
        if (r.operation == bench::Operation::Copy) {
            ++copies;
            QVERIFY2(r.verified, r.note.c_str());
            QVERIFY(r.bytesPerSecond > 0);
        } else {
            ++conversions;
            QCOMPARE(r.checked, std::uint64_t{request.sizes.front()});
            if (r.exactByDesign)
                QVERIFY2(r.verified, (r.format + " " + r.path + ": " + r.note).c_str());
            QVERIFY(r.bytesPerSecond > 0);
            QVERIFY(r.ceiling > 0);
        }
    }
    QCOMPARE(copies, 2);
    QVERIFY(conversions >= 2 * static_cast<int>(request.formats.size()));
}

QTEST_GUILESS_MAIN(TestCuda)
#include "tst_cuda.moc"
