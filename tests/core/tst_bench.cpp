// SPDX-License-Identifier: GPL-3.0-or-later
// The benchmark engine: statistics, calibration, cancel and progress of measure(); the random
// input distributions; the CPU backend (devices, support, a tiny run whose exact paths must
// verify against the exact core, streaming, progress and cancel); JSON/CSV output in any
// locale, the CPU's sums and quantizers among them with their ratios; loading backends where no
// plugin exists; and what every backend shares: the sizes (parsing, labels, defaults) and the
// verifier (inputs, deviation classes, verdicts).
#include "fpx/bench/backend.h"
#include "fpx/bench/measurement.h"
#include "fpx/bench/ratio_results.h"
#include "fpx/bench/result_io.h"
#include "fpx/bench/sizes.h"
#include "fpx/bench/verification.h"
#include "fpx/kernels/bulk_conversion.h"

#include "fpx/kernels/x86_hardware.h"

#include "test_support.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <chrono>
#include <clocale>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

using namespace fpx;
using namespace fpx::bench;

namespace {

using Clock = std::chrono::steady_clock;

// Busy-waits for `seconds` of wall time: a body of known cost that sleeping cannot give
// precisely on a loaded machine (a spin never returns early).
void spinFor(double seconds) {
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(seconds));
    while (Clock::now() < until) {
    }
}

TimingPlan tinyPlan() {
    TimingPlan plan;
    plan.budget = std::chrono::duration<double>(0.005);
    plan.samples = 3;
    plan.warmups = 1;
    return plan;
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

// Everything a run hands out: results in order, progress fractions, and how many results had
// arrived at each progress report (the proof that results stream).
struct Recorded {
    std::vector<BenchResult> results;
    std::vector<double> fractions;
    std::vector<std::size_t> resultsAtProgress;
    std::vector<std::string> labels;
};

Recorded runRecorded(Backend& backend, const BenchRequest& request,
                     const std::atomic<bool>* cancel = nullptr,
                     const std::function<void(Recorded&)>& onProgress = {}) {
    Recorded rec;
    backend.run(
        request, [&](const BenchResult& r) { rec.results.push_back(r); },
        [&](double fraction, const std::string& what) {
            rec.fractions.push_back(fraction);
            rec.resultsAtProgress.push_back(rec.results.size());
            rec.labels.push_back(what);
            if (onProgress)
                onProgress(rec);
        },
        cancel);
    return rec;
}

std::uint32_t bitsOf(float value) {
    return std::bit_cast<std::uint32_t>(value);
}

bool relativelyClose(double a, double b, double tolerance) {
    return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

int bytesPerCode(const std::string& format) {
    if (format == "fp16" || format == "bf16")
        return 2;
    return 1; // fp8_e4m3, int8, nf4 (one code per byte)
}

// Switches LC_NUMERIC to a locale whose decimal point is a comma, for the life of the object;
// isActive() is false where no such locale is installed.
class CommaLocale {
  public:
    CommaLocale() {
        const char* previous = std::setlocale(LC_NUMERIC, nullptr);
        previous_ = previous ? previous : "C";
        for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8"})
            if (std::setlocale(LC_NUMERIC, name) && std::localeconv()->decimal_point[0] == ',') {
                active_ = true;
                return;
            }
        std::setlocale(LC_NUMERIC, previous_.c_str());
    }
    ~CommaLocale() { std::setlocale(LC_NUMERIC, previous_.c_str()); }
    CommaLocale(const CommaLocale&) = delete;
    CommaLocale& operator=(const CommaLocale&) = delete;
    bool isActive() const { return active_; }

  private:
    std::string previous_;
    bool active_ = false;
};

BenchResult syntheticResult(int i) {
    BenchResult r;
    r.backend = "cpu";
    r.device = "Test CPU, \"quoted\" \\ model ®";
    r.deviceIndex = 0;
    r.operation = i == 0 ? Operation::Copy : i == 3 ? Operation::Arithmetic : Operation::Convert;
    r.format = i == 0 ? "fp32" : i == 3 ? "fp32" : "fp16";
    r.direction = i == 2 ? Direction::Decode : Direction::Encode;
    r.path = i == 0 ? "memcpy" : i == 3 ? "AVX-512 vfmadd231ps" : "bit trick (AVX-512), fast";
    r.hardware = i == 3;
    r.elements = i == 3 ? 0 : 4096u << i;
    r.threads = i + 1;
    r.time.median = 1.25e-6 * (i + 1);
    r.time.min = 1.0e-6 * (i + 1);
    r.time.max = 2.5e-6 * (i + 1);
    r.time.samples = 3;
    r.time.iterationsPerSample = 1000 + static_cast<std::uint64_t>(i);
    r.elementsPerSecond = 3.2768123456e9 / (i + 1);
    r.bytesPerSecond = 1.96608765432e10 / (i + 1);
    r.operationsPerSecond = i == 3 ? 1.234567891e12 : 0;
    r.ceiling = 2.5e10 + 0.5;
    r.ceilingName = "memcpy, 4k, 1 thread";
    r.verified = i != 2;
    r.exactByDesign = i != 2;
    r.checked = 4096;
    r.mismatches = i == 2 ? 17 : 0;
    r.note = i == 2 ? "differs, says \"hi\"; first: 0x1 gave 0x0\nsecond line" : "";
    return r;
}

// The sums and quantizers of a run as their benchmarks hand them out: FP16 on both workloads
// and the exact sum, with a BF16 sum cut short before it was timed; MXFP4, an NVFP4 that
// failed its check, and the file check.
struct RatioRows {
    DeviceInfo cpu;
    std::vector<AccumulationBenchRow> sums;
    QuantizationBenchReport quantizers;
};

RatioRows syntheticRatioRows() {
    RatioRows rows;
    rows.cpu.backend = "cpu";
    rows.cpu.name = "Test CPU";
    const std::vector<AccumulationWorkload> workloads = accumulationWorkloads();
    const auto sum = [](const std::string& format, const AccumulationWorkload& workload,
                        const std::string& reference, double seconds, double referenceSeconds,
                        double goal) {
        AccumulationBenchRow r;
        r.what = format == "exact" ? "exact sum" : format + " sequential";
        r.format = format;
        r.workload = workload.label;
        r.path = format == "exact" ? "superaccumulator" : "fp32 hardware, rounded each step";
        r.reference = reference;
        r.verified = true;
        r.checked = 4096;
        r.time = {seconds, seconds * 0.9, seconds * 1.2, 10, 5};
        r.referenceTime = {referenceSeconds, referenceSeconds * 0.8, referenceSeconds, 40, 6};
        r.termsPerSecond = 4096 / seconds;
        r.referenceTermsPerSecond = 4096 / referenceSeconds;
        r.ratio = referenceSeconds / seconds;
        r.goal = goal;
        return r;
    };
    rows.sums = {sum("fp16", workloads[0], "float loop", 4e-6, 1e-6, 0.25),
                 sum("fp16", workloads[1], "float loop", 8e-6, 1e-6, 0.25),
                 sum("exact", workloads[0], "memcpy", 2e-5, 1.5e-6, 0.1)};
    AccumulationBenchRow cut = sum("bf16", workloads[1], "float loop", 1, 1, 0.25);
    cut.time = {};
    cut.termsPerSecond = cut.ratio = 0;
    rows.sums.push_back(cut);

    QuantizationBenchReport& report = rows.quantizers;
    report.elements = 65536;
    report.block = 128;
    report.threads = 2;
    const auto quantizer = [&](const std::string& format, int passes, double seconds) {
        QuantizationBenchRow r;
        r.format = format;
        r.path = format == "nvfp4" ? "NV blocks (AVX2)" : "MX blocks (AVX2)";
        r.verified = true;
        r.checked = 65536;
        r.time = {seconds, seconds * 0.95, seconds * 1.1, 3, 5};
        r.referenceTime = {5e-5, 4.5e-5, 6e-5, 7, 6};
        r.bytes = 65536 * 4 + 65536 + 512 * 4;
        r.referenceBytes = 2 * 65536 * 4;
        r.elementsPerSecond = 65536 / seconds;
        r.bytesPerSecond = r.bytes / seconds;
        r.referenceBytesPerSecond = r.referenceBytes / r.referenceTime.median;
        r.ratio = r.bytesPerSecond / r.referenceBytesPerSecond;
        r.goal = 0.5;
        r.passes = passes;
        r.bareTime = {seconds / 2, seconds / 2, seconds / 2, 3, 5};
        r.bareRatio = 0.8125;
        return r;
    };
    report.rows = {quantizer("mxfp4", 1, 1e-4), quantizer("nvfp4", 2, 3e-4)};
    report.rows[1].verified = false;
    report.rows[1].note = "on the first 65536 elements the codes differ";
    report.files.resize(1);
    QuantizationFileCheck& file = report.files.front();
    file.ran = true;
    file.format = "mxfp4";
    file.fileBytes = 262144;
    file.pageCache = "the file was just written, so both find it in the page cache";
    file.readTime = {2e-4, 1.9e-4, 2.4e-4, 5, 5};
    file.loadAndQuantizeTime = {5e-4, 4.9e-4, 6e-4, 2, 5};
    file.ratio = 2.5;
    file.goal = 3;
    return rows;
}

std::vector<BenchResult> ratioResults(const RatioRows& rows) {
    std::vector<BenchResult> results = accumulationResults(rows.sums, 4096, rows.cpu);
    for (const BenchResult& r : quantizationResults(rows.quantizers, rows.cpu))
        results.push_back(r);
    return results;
}

} // namespace

class TestBench : public QObject {
    Q_OBJECT

  private slots:
    void summarizeStatistics();
    void measureRunsWarmupsFirst();
    void measureCalibratesToTheBudget();
    void measureProgressAndCancel();
    void measureAlongsideInterleavesTheReference();
    void randomInputsAreDeterministic();
    void randomInputDistributions();
    void distributionIds();
    void cpuBackendDescribesItself();
    void cpuBackendSupport();
    void tinyCpuRun();
    void exactPathsVerifyOnEveryDistribution_data();
    void exactPathsVerifyOnEveryDistribution();
    void avx512Bf16DiffersOnSubnormals();
    void wideFormatsHaveNoPathsButDoNotBreakTheRun();
    void oddSizesAreCheckedBeforeVerified();
    void cancelStopsTheRun();
    void formatNumberIsLocaleIndependent();
    void formatNumberInEveryInstalledLocale();
    void jsonRoundTrips();
    void jsonReplacesInvalidUtf8();
    void csvHasOneColumnPerHeader();
    void sumsAndQuantizersAreResults();
    void sumsAndQuantizersReachJsonAndCsv();
    void describeRunStampsTheRequest();
    void loadBackendsWithoutPlugins();
    void sizesParseAndLabel();
    void defaultSizesAreShared();
    void deviationClassesExplainOnlyTheirDifferences();
    void verificationCountsAndRecords();
    void adversarialInputsCoverTheEdges();
    void adversarialSetAndRandomCodesAreShared();
};

// --- measurement -----------------------------------------------------------------------

void TestBench::summarizeStatistics() {
    const Statistics odd = summarize({3, 1, 2}, 10);
    QCOMPARE(odd.median, 2.0);
    QCOMPARE(odd.min, 1.0);
    QCOMPARE(odd.max, 3.0);
    QCOMPARE(odd.samples, 3);
    QCOMPARE(odd.iterationsPerSample, std::uint64_t{10});

    const Statistics even = summarize({4, 1, 3, 2}, 7);
    QCOMPARE(even.median, 2.5);
    QCOMPARE(even.min, 1.0);
    QCOMPARE(even.max, 4.0);
    QCOMPARE(even.samples, 4);

    const Statistics one = summarize({0.125}, 1);
    QCOMPARE(one.median, 0.125);
    QCOMPARE(one.min, 0.125);
    QCOMPARE(one.max, 0.125);

    // An outlier moves the maximum, not the median.
    const Statistics outlier = summarize({1e-3, 1.1e-3, 0.9e-3, 1.0, 1.05e-3}, 1);
    QCOMPARE(outlier.median, 1.05e-3);
    QCOMPARE(outlier.max, 1.0);
    QCOMPARE(outlier.min, 0.9e-3);

    const Statistics empty = summarize({}, 5);
    QCOMPARE(empty.samples, 0);
    QCOMPARE(empty.median, 0.0);
    QCOMPARE(empty.min, 0.0);
    QCOMPARE(empty.max, 0.0);
}

void TestBench::measureRunsWarmupsFirst() {
    // A body far longer than a sample is timed once per sample and once to calibrate; one
    // warm-up of it is enough (it outlasts a sample's share of the budget), so the number of
    // calls is exactly min(warm-ups, 1) + 1 + samples.
    for (int warmups : {0, 2, 5}) {
        TimingPlan plan;
        plan.budget = std::chrono::duration<double>(0.003);
        plan.samples = 3;
        plan.warmups = warmups;
        int calls = 0;
        std::vector<int> callsAtProgress;
        const Statistics s = measure(
            [&] {
                ++calls;
                spinFor(0.002);
            },
            plan, nullptr, [&](double) { callsAtProgress.push_back(calls); });
        const int warm = std::min(warmups, 1);
        QCOMPARE(calls, warm + 1 + 3);
        QCOMPARE(s.iterationsPerSample, std::uint64_t{1});
        QCOMPARE(s.samples, 3);
        // The first sample ends after the warm-ups, the calibration and its own call.
        QCOMPARE(callsAtProgress, (std::vector<int>{warm + 2, warm + 3, warm + 4}));
        QVERIFY(s.median >= 0.002);
    }
}

void TestBench::measureCalibratesToTheBudget() {
    // A body of known cost (1 ms of spinning): the median is that cost, not a multiple.
    {
        TimingPlan plan;
        plan.budget = std::chrono::duration<double>(0.03);
        plan.samples = 3;
        plan.warmups = 1;
        const Statistics s = measure([] { spinFor(0.001); }, plan);
        QCOMPARE(s.samples, 3);
        QVERIFY2(s.median >= 0.001 && s.median < 0.02, qPrintable(QString::number(s.median)));
        QVERIFY(s.min <= s.median && s.median <= s.max);
        QVERIFY(s.min >= 0.001);
        // About budget / samples = 10 ms per sample: 10 iterations, a few more or less.
        QVERIFY2(s.iterationsPerSample >= 1 && s.iterationsPerSample <= 20,
                 qPrintable(QString::number(s.iterationsPerSample)));
    }
    // A cheap body is repeated to fill each sample, and the whole takes about the budget.
    {
        volatile double sink = 1;
        TimingPlan plan;
        plan.budget = std::chrono::duration<double>(0.03);
        plan.samples = 5;
        const auto start = Clock::now();
        const Statistics s = measure([&] { sink = std::sqrt(sink + 2.0); }, plan);
        const double wall = std::chrono::duration<double>(Clock::now() - start).count();
        QCOMPARE(s.samples, 5);
        QVERIFY2(s.iterationsPerSample > 100, qPrintable(QString::number(s.iterationsPerSample)));
        QVERIFY(s.median > 0 && s.median < 1e-5);
        const double perSample = s.median * static_cast<double>(s.iterationsPerSample);
        QVERIFY2(perSample > 0.05 * 0.006 && perSample < 10 * 0.006,
                 qPrintable(QString::number(perSample)));
        // One preempted calibration batch shortens every sample, so only an upper bound.
        QVERIFY2(wall < 2.0, qPrintable(QString::number(wall)));
    }
}

void TestBench::measureProgressAndCancel() {
    const TimingPlan plan = [] {
        TimingPlan p;
        p.budget = std::chrono::duration<double>(0.005);
        p.samples = 4;
        p.warmups = 2;
        return p;
    }();
    volatile int sink = 0;
    auto cheap = [&] { sink = sink + 1; };

    // Progress: once per sample, strictly increasing, ending at exactly 1.
    std::vector<double> fractions;
    const Statistics s = measure(cheap, plan, nullptr, [&](double f) { fractions.push_back(f); });
    QCOMPARE(s.samples, 4);
    QCOMPARE(fractions.size(), std::size_t{4});
    for (std::size_t i = 1; i < fractions.size(); ++i)
        QVERIFY(fractions[i] > fractions[i - 1]);
    QVERIFY(fractions.front() > 0);
    QCOMPARE(fractions.back(), 1.0);

    // Cancelled before the start: no call of the body at all, zero statistics.
    {
        std::atomic<bool> cancel{true};
        int calls = 0;
        int progressCalls = 0;
        const Statistics c =
            measure([&] { ++calls; }, plan, &cancel, [&](double) { ++progressCalls; });
        QCOMPARE(c.samples, 0);
        QCOMPARE(c.median, 0.0);
        QCOMPARE(calls, 0);
        QCOMPARE(progressCalls, 0);
    }

    // Cancelled from inside progress after the first sample: stops there, keeps that sample.
    {
        std::atomic<bool> cancel{false};
        int progressCalls = 0;
        TimingPlan many = plan;
        many.samples = 50;
        const Statistics c = measure(cheap, many, &cancel, [&](double) {
            ++progressCalls;
            cancel = true;
        });
        QCOMPARE(progressCalls, 1);
        QCOMPARE(c.samples, 1);
        QVERIFY(c.median > 0);
        QCOMPARE(c.min, c.median);
    }

    // Cancelled from inside the body during warm-up: no samples.
    {
        std::atomic<bool> cancel{false};
        int calls = 0;
        const Statistics c = measure(
            [&] {
                ++calls;
                cancel = true;
            },
            plan, &cancel);
        QCOMPARE(c.samples, 0);
        QCOMPARE(calls, 1);
    }
}

void TestBench::measureAlongsideInterleavesTheReference() {
    // Bodies far longer than a sample (one call per sample): after the warm-ups and
    // calibrations, reference, body, reference, …, body, reference; the reference's samples
    // are half a body sample's share, and its statistics are its own.
    TimingPlan plan;
    plan.budget = std::chrono::duration<double>(0.003);
    plan.samples = 3;
    plan.warmups = 1;
    std::string order;
    std::vector<std::size_t> orderAtProgress;
    const StatisticsAlongside s = measureAlongside(
        [&] {
            order += 'b';
            spinFor(0.002);
        },
        [&] {
            order += 'r';
            spinFor(0.004);
        },
        plan, nullptr, [&](double) { orderAtProgress.push_back(order.size()); });
    // Warm-up and calibration of the reference, then of the body, then the samples.
    QCOMPARE(QString::fromStdString(order), QString("rrbbrbrbrbr"));
    QCOMPARE(orderAtProgress, (std::vector<std::size_t>{7, 9, 11}));
    QCOMPARE(s.body.samples, 3);
    QCOMPARE(s.reference.samples, 4);
    QVERIFY(s.body.median >= 0.002 && s.reference.median >= 0.004);
    QVERIFY2(s.reference.median > s.body.median,
             qPrintable(QString("%1 %2").arg(s.reference.median).arg(s.body.median)));

    // Cancelled before the start: neither is called.
    std::atomic<bool> cancel{true};
    int calls = 0;
    const StatisticsAlongside c =
        measureAlongside([&] { ++calls; }, [&] { ++calls; }, plan, &cancel);
    QCOMPARE(calls, 0);
    QCOMPARE(c.body.samples, 0);
    QCOMPARE(c.reference.samples, 0);
}

// --- random inputs ---------------------------------------------------------------------

void TestBench::randomInputsAreDeterministic() {
    for (InputDistribution d : {InputDistribution::Normal, InputDistribution::Subnormal,
                                InputDistribution::Overflowing, InputDistribution::WithNaN}) {
        const std::vector<float> a = randomInputs(4096, d, 42);
        const std::vector<float> b = randomInputs(4096, d, 42);
        const std::vector<float> c = randomInputs(4096, d, 43);
        QCOMPARE(a.size(), std::size_t{4096});
        // Bits, not values: NaN != NaN.
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
        std::size_t differing = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            differing += bitsOf(a[i]) != bitsOf(c[i]);
        QVERIFY2(differing > a.size() / 2, qPrintable(QString::number(differing)));
        // Not constant within an array.
        std::set<std::uint32_t> distinct;
        for (float v : a)
            distinct.insert(bitsOf(v));
        QVERIFY2(distinct.size() > 1000, qPrintable(QString::number(distinct.size())));
    }
    // Large arrays are filled by several threads; element i is the same however it is split.
    const std::vector<float> big = randomInputs((1u << 20) + 5, InputDistribution::Normal, 7);
    const std::vector<float> small = randomInputs(4096, InputDistribution::Normal, 7);
    QVERIFY(std::memcmp(big.data(), small.data(), small.size() * sizeof(float)) == 0);
    QVERIFY(std::isfinite(big.back()));
    QVERIFY(randomInputs(0, InputDistribution::Normal, 1).empty());
}

void TestBench::randomInputDistributions() {
    constexpr std::size_t n = 16384;
    {
        const auto v = randomInputs(n, InputDistribution::Normal, 1);
        double sum = 0, squares = 0;
        std::size_t negative = 0;
        for (float x : v) {
            QVERIFY(std::isfinite(x));
            QVERIFY(std::abs(x) < 4.0f);
            sum += x;
            squares += static_cast<double>(x) * x;
            negative += x < 0;
        }
        const double mean = sum / n;
        const double sd = std::sqrt(squares / n - mean * mean);
        QVERIFY2(std::abs(mean) < 0.05, qPrintable(QString::number(mean)));
        QVERIFY2(sd > 0.9 && sd < 1.1, qPrintable(QString::number(sd)));
        QVERIFY(negative > n / 3 && negative < 2 * n / 3);
    }
    {
        const auto v = randomInputs(n, InputDistribution::Subnormal, 1);
        std::size_t fp32Subnormals = 0, belowFp16 = 0, negative = 0;
        for (float x : v) {
            QVERIFY(std::isfinite(x));
            QVERIFY2(std::abs(x) < std::ldexp(1.0f, -9), qPrintable(QString::number(x)));
            const std::uint32_t bits = bitsOf(x) & 0x7fffffffu;
            fp32Subnormals += bits != 0 && bits < 0x00800000u;
            belowFp16 += bits != 0 && std::abs(x) < std::ldexp(1.0f, -24);
            negative += std::signbit(x);
        }
        QVERIFY2(fp32Subnormals > n / 20, qPrintable(QString::number(fp32Subnormals)));
        QVERIFY2(fp32Subnormals < n / 2, qPrintable(QString::number(fp32Subnormals)));
        QVERIFY(belowFp16 > n / 4);
        QVERIFY(negative > n / 3 && negative < 2 * n / 3);
    }
    {
        const auto v = randomInputs(n, InputDistribution::Overflowing, 1);
        std::size_t beyondFp16 = 0, infinities = 0, negative = 0;
        for (float x : v) {
            QVERIFY(!std::isnan(x));
            QVERIFY2(std::abs(x) >= 1.0f, qPrintable(QString::number(x)));
            beyondFp16 += std::abs(x) > 65504.0f;
            infinities += std::isinf(x);
            negative += std::signbit(x);
        }
        QVERIFY(beyondFp16 > n / 2);
        QVERIFY(infinities > 0 && infinities < n / 10);
        QVERIFY(negative > n / 3 && negative < 2 * n / 3);
    }
    {
        const auto v = randomInputs(n, InputDistribution::WithNaN, 1);
        std::size_t nans = 0, negativeNans = 0;
        std::set<std::uint32_t> payloads;
        for (float x : v) {
            if (std::isnan(x)) {
                ++nans;
                negativeNans += std::signbit(x);
                payloads.insert(bitsOf(x) & 0x7fffffu);
            } else {
                QVERIFY(std::isfinite(x));
            }
        }
        const double share = static_cast<double>(nans) / n;
        QVERIFY2(share > 0.1 && share < 0.15, qPrintable(QString::number(share)));
        QVERIFY(negativeNans > 0 && negativeNans < nans);
        QVERIFY(payloads.size() > nans / 2); // random payloads, not one canonical NaN
    }
}

void TestBench::distributionIds() {
    QCOMPARE(q(std::string(distributionId(InputDistribution::Normal))), QString("normal"));
    QCOMPARE(q(std::string(distributionId(InputDistribution::Subnormal))), QString("subnormal"));
    QCOMPARE(q(std::string(distributionId(InputDistribution::Overflowing))), QString("overflow"));
    QCOMPARE(q(std::string(distributionId(InputDistribution::WithNaN))), QString("nan"));
    for (InputDistribution d : {InputDistribution::Normal, InputDistribution::Subnormal,
                                InputDistribution::Overflowing, InputDistribution::WithNaN})
        QVERIFY(parseDistribution(distributionId(d)) == d);
    QVERIFY(!parseDistribution("weird"));
    QVERIFY(!parseDistribution(""));
    QCOMPARE(q(std::string(directionId(Direction::Encode))), QString("encode"));
    QCOMPARE(q(std::string(directionId(Direction::Decode))), QString("decode"));
    QCOMPARE(q(std::string(operationId(Operation::Copy))), QString("copy"));
    QCOMPARE(q(std::string(operationId(Operation::Convert))), QString("convert"));
    QCOMPARE(q(std::string(operationId(Operation::Arithmetic))), QString("arithmetic"));
    QCOMPARE(q(std::string(operationId(Operation::Accumulate))), QString("accumulate"));
    QCOMPARE(q(std::string(operationId(Operation::Quantize))), QString("quantize"));
    QCOMPARE(q(std::string(operationId(Operation::QuantizeFile))), QString("quantize-file"));
    for (Operation op : {Operation::Copy, Operation::Convert, Operation::Arithmetic,
                         Operation::Accumulate, Operation::Quantize, Operation::QuantizeFile})
        QVERIFY(parseOperation(operationId(op)) == op);
    QVERIFY(parseOperation("Quantize-File") == Operation::QuantizeFile);
    QVERIFY(!parseOperation("sum"));
    QVERIFY(!parseOperation(""));
    QCOMPARE(q(std::string(supportId(Support::Native))), QString("native"));
    QCOMPARE(q(std::string(supportId(Support::Emulated))), QString("emulated"));
    QCOMPARE(q(std::string(supportId(Support::Unsupported))), QString("unsupported"));
}

// --- the CPU backend -------------------------------------------------------------------

void TestBench::cpuBackendDescribesItself() {
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    QVERIFY(cpu);
    QCOMPARE(q(cpu->id()), QString("cpu"));
    QCOMPARE(q(cpu->displayName()), QString("CPU"));
    QVERIFY(cpu->unavailableReason().empty());
    const std::vector<DeviceInfo> devices = cpu->devices();
    QCOMPARE(devices.size(), std::size_t{1});
    QCOMPARE(q(devices[0].backend), QString("cpu"));
    QCOMPARE(devices[0].index, 0);
    QVERIFY(!devices[0].name.empty());
    QVERIFY(!devices[0].details.empty());
    QCOMPARE(devices[0].computeUnits,
             static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    QVERIFY(devices[0].memoryBytes > (64u << 20));
    QVERIFY(devices[0].lastLevelCacheBytes > 0);
}

void TestBench::cpuBackendSupport() {
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    for (Direction d : {Direction::Encode, Direction::Decode}) {
        QCOMPARE(cpu->support(0, test::lookUp("fp80"), d), Support::Unsupported);
        QCOMPARE(cpu->support(0, test::lookUp("fp128"), d), Support::Unsupported);
        QCOMPARE(cpu->support(0, test::lookUp("fp8_e4m3"), d), Support::Emulated);
        QCOMPARE(cpu->support(0, test::lookUp("fp8_e5m2"), d), Support::Emulated);
        QCOMPARE(cpu->support(0, test::lookUp("nf4"), d), Support::Emulated);
        QCOMPARE(cpu->support(0, test::lookUp("int8"), d), Support::Emulated);
        QCOMPARE(cpu->support(0, test::lookUp("fp4_e2m1"), d), Support::Emulated);
    }
    // FP16 has conversion instructions (F16C) on every x86-64 CPU of the last decade (the
    // kernels' check: FPX_MAX_ISA=baseline keeps them out).
    const Support fp16 = kernels::hasF16c() ? Support::Native : Support::Emulated;
    QCOMPARE(cpu->support(0, test::lookUp("fp16"), Direction::Encode), fp16);
    QCOMPARE(cpu->support(0, test::lookUp("fp16"), Direction::Decode), fp16);
    // BF16: decoding is a shift (emulated); encoding's only instruction is not bit-exact but
    // still a native path for a benchmark.
    QCOMPARE(cpu->support(0, test::lookUp("bf16"), Direction::Decode), Support::Emulated);
    QVERIFY(cpu->support(0, test::lookUp("bf16"), Direction::Encode) != Support::Unsupported);
}

void TestBench::tinyCpuRun() {
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    BenchRequest request;
    const QStringList formatIds = {"fp16", "fp8_e4m3", "int8", "nf4"};
    for (const QString& id : formatIds)
        request.formats.push_back(test::lookUp(id));
    request.sizes = {4096};
    request.threads = {1, 2};
    request.plan = tinyPlan();
    request.arithmetic = true;

    const auto start = Clock::now();
    const Recorded rec = runRecorded(*cpu, request);
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    qInfo("tiny run: %zu results, %zu progress reports, %.2f s", rec.results.size(),
          rec.fractions.size(), wall);
    const std::vector<BenchResult>& results = rec.results;
    QVERIFY(!results.empty());
    const std::string deviceName = cpu->devices().front().name;

    // One copy per size × threads, before the conversions of that size and thread count.
    std::map<int, const BenchResult*> copies; // threads → copy
    std::map<int, std::size_t> arithmeticPerThreads;
    std::set<std::tuple<int, std::string, Direction>> measuredConversions;
    const BenchResult* currentCopy = nullptr;
    for (const BenchResult& r : results) {
        const QString what = q(std::string(operationId(r.operation)) + " " + r.format + " " +
                               std::string(directionId(r.direction)) + " " + r.path + ", " +
                               std::to_string(r.threads) + " threads");
        QCOMPARE(q(r.backend), QString("cpu"));
        QCOMPARE(q(r.device), q(deviceName));
        QCOMPARE(r.deviceIndex, 0);
        QVERIFY2(r.threads == 1 || r.threads == 2, qPrintable(what));
        QVERIFY2(!r.path.empty(), qPrintable(what));
        QVERIFY2(r.throughput() > 0, qPrintable(what));
        QCOMPARE(r.time.samples, 3);
        QVERIFY2(r.time.iterationsPerSample > 0, qPrintable(what));
        QVERIFY2(r.time.median > 0 && r.time.min <= r.time.median && r.time.median <= r.time.max,
                 qPrintable(what));
        switch (r.operation) {
        case Operation::Copy:
            QVERIFY2(!copies.count(r.threads), qPrintable(what));
            copies[r.threads] = &r;
            currentCopy = &r;
            QCOMPARE(q(r.format), QString("fp32"));
            QCOMPARE(q(r.path), QString("memcpy"));
            QCOMPARE(r.elements, std::size_t{4096});
            QVERIFY(r.verified);
            QVERIFY(r.bytesPerSecond > 0);
            QCOMPARE(r.ceiling, r.bytesPerSecond);
            QVERIFY(relativelyClose(r.elementsPerSecond, 4096 / r.time.median, 1e-9));
            QVERIFY(relativelyClose(r.bytesPerSecond, 8 * r.elementsPerSecond, 1e-9));
            break;
        case Operation::Convert: {
            QVERIFY2(currentCopy && currentCopy->threads == r.threads, qPrintable(what));
            QVERIFY2(formatIds.contains(q(r.format)), qPrintable(what));
            QCOMPARE(r.elements, std::size_t{4096});
            QVERIFY2(r.checked > 0, qPrintable(what));
            QVERIFY2(r.verified == (r.mismatches == 0), qPrintable(what));
            if (r.exactByDesign) {
                QVERIFY2(r.verified, qPrintable(what + ": " + q(r.note)));
                QCOMPARE(r.mismatches, std::uint64_t{0});
                // Every timed element and the adversarial set: specials and every exponent
                // (encode), every code (decode; the formats here have at least 4 bits).
                QVERIFY2(r.checked >=
                             std::uint64_t{4096} + (r.direction == Direction::Encode ? 20000 : 16),
                         qPrintable(what));
            }
            // The bare F16C loop lacks the path's NaN fix-up: the adversarial NaNs differ in
            // their payloads, its declared deviation, and nothing else does.
            if (r.path == "F16C bare loop") {
                QVERIFY(!r.exactByDesign);
                QVERIFY(r.hardware);
                QVERIFY2(r.verified || q(r.note).contains("all NaN payloads"),
                         qPrintable(what + ": " + q(r.note)));
            }
            // The copy timed between the conversion's samples: its own ceiling.
            QVERIFY2(r.ceiling > 0 && std::isfinite(r.ceiling), qPrintable(what));
            QCOMPARE(q(r.ceilingName),
                     q(std::string(kCopyAlongside) +
                       currentCopy->ceilingName.substr(std::string("memcpy").size())));
            QVERIFY(relativelyClose(r.elementsPerSecond, 4096 / r.time.median, 1e-9));
            const double perElement = 4.0 + bytesPerCode(r.format);
            QVERIFY2(relativelyClose(r.bytesPerSecond, perElement * r.elementsPerSecond, 1e-9),
                     qPrintable(what));
            measuredConversions.insert({r.threads, r.format, r.direction});
            break;
        }
        case Operation::Arithmetic:
            QVERIFY2(r.operationsPerSecond > 0, qPrintable(what));
            QCOMPARE(r.throughput(), r.operationsPerSecond);
            QVERIFY(!r.format.empty());
            ++arithmeticPerThreads[r.threads];
            break;
        case Operation::Accumulate:
        case Operation::Quantize:
        case Operation::QuantizeFile:
            // The sums and quantizers are run beside a backend, never by one.
            QFAIL(qPrintable(what));
        }
    }
    QCOMPARE(copies.size(), std::size_t{2}); // 1 size × 2 thread counts
    QVERIFY(copies.count(1) && copies.count(2));
    QCOMPARE(copies[1]->ceilingName.find("1 thread") != std::string::npos, true);
    // Every format, both ways, on both thread counts, with at least one path.
    QCOMPARE(measuredConversions.size(), std::size_t{2 * 4 * 2});
    // Every path has an exact scalar reference among the encode paths.
    for (const QString& id : formatIds) {
        const bool hasReference = std::any_of(results.begin(), results.end(), [&](auto& r) {
            return q(r.format) == id && r.direction == Direction::Encode &&
                   r.path == "scalar reference" && r.verified;
        });
        QVERIFY2(hasReference, qPrintable(id));
    }
    QVERIFY(arithmeticPerThreads[1] > 0);
    QCOMPARE(arithmeticPerThreads[2], arithmeticPerThreads[1]);

    // Progress: within [0, 1], never going back, ending at 1.
    QVERIFY(!rec.fractions.empty());
    for (std::size_t i = 0; i < rec.fractions.size(); ++i) {
        QVERIFY(rec.fractions[i] >= 0 && rec.fractions[i] <= 1);
        if (i > 0)
            QVERIFY2(rec.fractions[i] >= rec.fractions[i - 1],
                     qPrintable(QString("%1 then %2 (%3)")
                                    .arg(rec.fractions[i - 1])
                                    .arg(rec.fractions[i])
                                    .arg(q(rec.labels[i]))));
        QVERIFY(!rec.labels[i].empty());
    }
    QCOMPARE(rec.fractions.back(), 1.0);
    // No long stretch at 100% before the end: the plan counted what it measured.
    const auto firstAtOne = std::find(rec.fractions.begin(), rec.fractions.end(), 1.0);
    QVERIFY2(rec.resultsAtProgress[static_cast<std::size_t>(firstAtOne - rec.fractions.begin())] >=
                 results.size() - 1,
             "progress reached 1 before the last measurement");

    // Results stream: a progress report was seen with every count of results so far, so each
    // result reached the sink before the next measurement began, not all at the end.
    const std::set<std::size_t> seen(rec.resultsAtProgress.begin(), rec.resultsAtProgress.end());
    for (std::size_t k = 0; k <= results.size(); ++k)
        QVERIFY2(seen.count(k), qPrintable(QString("no progress report after %1 results").arg(k)));
}

void TestBench::exactPathsVerifyOnEveryDistribution_data() {
    QTest::addColumn<int>("distribution");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("overflow");
    const int rne = static_cast<int>(RoundingMode::NearestEven);
    const int ieee = static_cast<int>(OverflowPolicy::Ieee);
    const int sat = static_cast<int>(OverflowPolicy::Saturate);
    QTest::newRow("normal rne") << static_cast<int>(InputDistribution::Normal) << rne << ieee;
    QTest::newRow("subnormal rne") << static_cast<int>(InputDistribution::Subnormal) << rne << ieee;
    QTest::newRow("overflow rne") << static_cast<int>(InputDistribution::Overflowing) << rne
                                  << ieee;
    QTest::newRow("overflow rne saturate")
        << static_cast<int>(InputDistribution::Overflowing) << rne << sat;
    QTest::newRow("nan rne") << static_cast<int>(InputDistribution::WithNaN) << rne << ieee;
    QTest::newRow("normal rtz") << static_cast<int>(InputDistribution::Normal)
                                << static_cast<int>(RoundingMode::TowardZero) << ieee;
    QTest::newRow("subnormal rup") << static_cast<int>(InputDistribution::Subnormal)
                                   << static_cast<int>(RoundingMode::TowardPositive) << ieee;
    QTest::newRow("normal sr") << static_cast<int>(InputDistribution::Normal)
                               << static_cast<int>(RoundingMode::Stochastic) << ieee;
}

void TestBench::exactPathsVerifyOnEveryDistribution() {
    QFETCH(int, distribution);
    QFETCH(int, mode);
    QFETCH(int, overflow);
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    BenchRequest request;
    for (const char* id : {"fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1", "int8", "nf4"})
        request.formats.push_back(test::lookUp(id));
    request.directions = {Direction::Encode, Direction::Decode};
    request.sizes = {4096};
    request.threads = {1};
    request.plan = tinyPlan();
    request.plan.budget = std::chrono::duration<double>(0.001);
    request.arithmetic = false;
    request.distribution = static_cast<InputDistribution>(distribution);
    request.rounding.mode = static_cast<RoundingMode>(mode);
    request.rounding.overflow = static_cast<OverflowPolicy>(overflow);
    const Recorded rec = runRecorded(*cpu, request);
    std::set<std::pair<std::string, Direction>> covered;
    QStringList failures;
    for (const BenchResult& r : rec.results) {
        if (r.operation != Operation::Convert)
            continue;
        covered.insert({r.format, r.direction});
        QVERIFY(r.checked > 0);
        if (r.exactByDesign && !(r.verified && r.mismatches == 0))
            failures << q(r.format + " " + std::string(directionId(r.direction)) + " " + r.path +
                          ": " + r.note);
    }
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    // Every format and direction that has a bulk path was measured (NF4 has no encoder for
    // stochastic rounding; decoding never rounds stochastically).
    RoundingOptions decodeOptions = request.rounding;
    if (decodeOptions.mode == RoundingMode::Stochastic)
        decodeOptions.mode = RoundingMode::NearestEven;
    for (const FormatSpec& format : request.formats) {
        QCOMPARE(covered.count({format.id, Direction::Encode}) == 1,
                 !BulkEncoder::allPaths(format, request.rounding).empty());
        QCOMPARE(covered.count({format.id, Direction::Decode}) == 1,
                 !BulkDecoder::allPaths(format, decodeOptions).empty());
        QVERIFY(covered.count({format.id, Direction::Decode}));
    }
}

void TestBench::avx512Bf16DiffersOnSubnormals() {
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    BenchRequest request;
    request.formats = {test::lookUp("bf16")};
    request.directions = {Direction::Encode};
    request.sizes = {4096};
    request.threads = {1};
    request.plan = tinyPlan();
    request.arithmetic = false;
    request.distribution = InputDistribution::Subnormal;
    const Recorded rec = runRecorded(*cpu, request);
    bool sawBitTrick = false;
    bool sawAvx512Bf16 = false;
    for (const BenchResult& r : rec.results) {
        if (r.operation != Operation::Convert)
            continue;
        const QString what = q(r.path + ": " + r.note);
        QCOMPARE(q(r.format), QString("bf16"));
        if (r.path.find("AVX512-BF16") != std::string::npos) {
            sawAvx512Bf16 = true;
            // vcvtneps2bf16 flushes FP32 subnormals to zero: reported, not a failure.
            QVERIFY2(!r.verified, qPrintable(what));
            QVERIFY2(r.mismatches > 0, qPrintable(what));
            QVERIFY2(!r.exactByDesign, qPrintable(what));
            QVERIFY(r.hardware);
            QVERIFY(!r.note.empty());
            if (r.path.find("bare loop") == std::string::npos) {
                QVERIFY2(QString::fromStdString(r.note).contains("subnormal"), qPrintable(what));
                // The note names how many and the first one that differed.
                QVERIFY2(q(r.note).contains(QString::number(r.mismatches) + " of "),
                         qPrintable(what));
            }
            // About 5% of the timed inputs are FP32 subnormals that BF16 keeps as nonzero, and
            // the adversarial set has its own; the rest agrees.
            QVERIFY2(r.mismatches > 4096 / 100 && r.mismatches < r.checked / 4,
                     qPrintable(QString::number(r.mismatches)));
            if (r.path.find("bare loop") == std::string::npos)
                QVERIFY2(q(r.note).contains("all subnormal inputs flushed"), qPrintable(what));
        } else {
            QVERIFY2(r.exactByDesign, qPrintable(what));
            QVERIFY2(r.verified && r.mismatches == 0, qPrintable(what));
            QVERIFY(r.checked > 0);
            sawBitTrick = sawBitTrick || r.path.find("bit trick") != std::string::npos;
        }
    }
    QVERIFY(sawBitTrick);
    // The kernels' own check (the CPU's feature, unless FPX_MAX_ISA keeps AVX-512 out).
    if (kernels::hasAvx512Bf16())
        QVERIFY2(sawAvx512Bf16, "this CPU has AVX512-BF16 but no such path was measured");
    if (!sawAvx512Bf16)
        qInfo("no AVX512-BF16 on this CPU: only the software paths were checked");
}

void TestBench::wideFormatsHaveNoPathsButDoNotBreakTheRun() {
    // FP80/FP128 have no bulk path: the run measures the copy and goes on to the next format.
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    BenchRequest request;
    request.formats = {test::lookUp("fp80"), test::lookUp("fp128"), test::lookUp("fp8_e5m2")};
    request.sizes = {1024};
    request.threads = {1};
    request.plan = tinyPlan();
    request.arithmetic = false;
    const Recorded rec = runRecorded(*cpu, request);
    std::size_t e5m2 = 0;
    for (const BenchResult& r : rec.results) {
        QVERIFY(r.format != "fp80" && r.format != "fp128");
        if (r.format == "fp8_e5m2") {
            ++e5m2;
            QVERIFY(r.verified);
        }
    }
    QVERIFY(e5m2 >= 2);
    QCOMPARE(rec.fractions.back(), 1.0);
}

void TestBench::oddSizesAreCheckedBeforeVerified() {
    // Sizes that are not a multiple of a vector: every element is converted and checked, and
    // no path is called verified without a single element compared.
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    BenchRequest request;
    for (const char* id : {"fp16", "bf16", "fp8_e4m3", "nf4"})
        request.formats.push_back(test::lookUp(id));
    request.sizes = {10, 1000};
    request.threads = {1};
    request.plan = tinyPlan();
    request.plan.budget = std::chrono::duration<double>(0.001);
    request.arithmetic = false;
    const Recorded rec = runRecorded(*cpu, request);
    QStringList problems;
    for (const BenchResult& r : rec.results) {
        if (r.operation != Operation::Convert)
            continue;
        const QString what = q(r.format + " " + std::string(directionId(r.direction)) + " " +
                               r.path + " at " + std::to_string(r.elements));
        if (r.verified && r.checked == 0)
            problems << what + ": verified with nothing checked";
        if (r.exactByDesign && r.checked <= r.elements) // every element and the adversarial set
            problems << what + QString(": %1 of %2 checked").arg(r.checked).arg(r.elements);
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
}

void TestBench::cancelStopsTheRun() {
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    BenchRequest request;
    for (const char* id : {"fp16", "fp8_e4m3", "int8", "nf4"})
        request.formats.push_back(test::lookUp(id));
    request.sizes = {4096};
    request.threads = {1, 2};
    request.plan = tinyPlan();

    // The whole run, for the count a cancelled one must stay well under.
    const std::size_t full = runRecorded(*cpu, request).results.size();
    QVERIFY(full > 20);

    // Cancel from the progress callback once the first result has arrived.
    {
        std::atomic<bool> cancel{false};
        std::size_t reportsAfterCancel = 0;
        const Recorded rec = runRecorded(*cpu, request, &cancel, [&](Recorded& r) {
            if (cancel)
                ++reportsAfterCancel;
            if (!r.results.empty())
                cancel = true;
        });
        QVERIFY(!rec.results.empty());
        QVERIFY2(rec.results.size() <= 2, qPrintable(QString::number(rec.results.size())));
        QVERIFY(rec.results.size() < full / 4);
        QVERIFY2(reportsAfterCancel <= 3, qPrintable(QString::number(reportsAfterCancel)));
        // What reached the sink was measured in full, never a cut-off measurement.
        for (const BenchResult& r : rec.results) {
            QCOMPARE(r.time.samples, 3);
            QVERIFY(r.throughput() > 0);
        }
    }
    // Cancelled before the start: nothing measured.
    {
        std::atomic<bool> cancel{true};
        const Recorded rec = runRecorded(*cpu, request, &cancel);
        QVERIFY(rec.results.empty());
    }
    // Cancel during arithmetic (conversions off): stops after the first kernel.
    {
        BenchRequest arithmetic = request;
        arithmetic.conversions = false;
        std::atomic<bool> cancel{false};
        const Recorded rec = runRecorded(*cpu, arithmetic, &cancel, [&](Recorded& r) {
            if (!r.results.empty())
                cancel = true;
        });
        QCOMPARE(rec.results.size(), std::size_t{1});
        QVERIFY(rec.results[0].operation == Operation::Arithmetic);
        QCOMPARE(rec.results[0].time.samples, 3);
    }
}

// --- result files ----------------------------------------------------------------------

void TestBench::formatNumberIsLocaleIndependent() {
    QCOMPARE(q(formatNumber(0.5)), QString("0.5"));
    QCOMPARE(q(formatNumber(1234567.0, 9)), QString("1234567"));
    QCOMPARE(q(formatNumber(1.0 / 3.0)), QString("0.333333"));
    QCOMPARE(q(formatNumber(2.5e10, 3)), QString("2.5e+10"));
    QCOMPARE(q(formatNumber(-1.25e-7, 9)), QString("-1.25e-07"));
    QCOMPARE(q(formatNumber(0)), QString("0"));
    // JSON has no NaN or infinity: they must not leak into a document.
    QCOMPARE(q(formatNumber(std::numeric_limits<double>::quiet_NaN())), QString("0"));
    QCOMPARE(q(formatNumber(std::numeric_limits<double>::infinity())), QString("0"));
    QCOMPARE(q(formatNumber(-std::numeric_limits<double>::infinity())), QString("0"));

    CommaLocale comma;
    if (!comma.isActive()) {
        qInfo("no locale with a decimal comma installed: the comma case is not exercised");
        return;
    }
    char probe[32];
    std::snprintf(probe, sizeof probe, "%g", 2.5);
    QCOMPARE(QString(probe), QString("2,5")); // the locale really is active
    QCOMPARE(q(formatNumber(2.5)), QString("2.5"));
    QCOMPARE(q(formatNumber(1.96608765432e10, 9)), QString("1.96608765e+10"));
}

void TestBench::formatNumberInEveryInstalledLocale() {
    // Not only a comma: Pashto writes U+066B (Arabic decimal separator). Every locale that is
    // installed and whose decimal point is not '.' must still give a point.
    const char* previous = std::setlocale(LC_NUMERIC, nullptr);
    const std::string saved = previous ? previous : "C";
    QStringList tried;
    QStringList wrong;
    for (const char* name : {"de_DE.UTF-8", "fr_FR.UTF-8", "ru_RU.UTF-8", "pt_BR.UTF-8",
                             "ps_AF.UTF-8", "fa_IR.UTF-8", "ar_SA.UTF-8", "ar_EG.UTF-8"}) {
        if (!std::setlocale(LC_NUMERIC, name) ||
            std::strcmp(std::localeconv()->decimal_point, ".") == 0)
            continue;
        tried << name;
        const std::string text = formatNumber(2.5);
        if (text != "2.5")
            wrong << QString("%1: %2").arg(name, QString::fromUtf8(text.c_str()));
    }
    std::setlocale(LC_NUMERIC, saved.c_str());
    if (tried.isEmpty())
        qInfo("no locale without a decimal point '.' is installed: nothing to check");
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(", ")));
}

void TestBench::jsonRoundTrips() {
    std::vector<BenchResult> results;
    for (int i = 0; i < 4; ++i)
        results.push_back(syntheticResult(i));
    results[1].ceiling = std::numeric_limits<double>::infinity(); // must still be valid JSON
    BenchRequest request;
    request.plan = tinyPlan();
    request.distribution = InputDistribution::WithNaN;
    DeviceInfo device = createCpuBackend()->devices().front();
    device.name = "Test CPU, \"quoted\" \\ model ®";
    device.datasheetPeaks = {{"fp32", 1.5e12}, {"int8", 6e12}};
    device.datasheetBandwidth = 2.048e11;
    const RunMetadata metadata = describeRun(request, {device});

    for (bool commaLocale : {false, true}) {
        std::optional<CommaLocale> comma;
        if (commaLocale) {
            comma.emplace();
            if (!comma->isActive()) {
                qInfo("no locale with a decimal comma installed: JSON checked in C only");
                break;
            }
        }
        std::ostringstream out;
        writeResultsJson(out, metadata, results);
        const QByteArray text = QByteArray::fromStdString(out.str());
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(text, &error);
        QVERIFY2(error.error == QJsonParseError::NoError,
                 qPrintable(error.errorString() + "\n" + QString::fromUtf8(text)));
        const QJsonObject root = document.object();
        QCOMPARE(root["format"].toString(), QString("fpx-bench"));
        QCOMPARE(root["version"].toInt(), 2);
        QCOMPARE(root["distribution"].toString(), QString("nan"));
        QCOMPARE(root["rounding"].toString(), QString("rne"));
        QCOMPARE(root["overflow"].toString(), QString("ieee"));
        QCOMPARE(root["budget_seconds"].toDouble(), 0.005);
        QCOMPARE(root["samples"].toInt(), 3);
        QVERIFY(!root["fpx_version"].toString().isEmpty());
        QVERIFY(!root["build"].toString().isEmpty());
        QVERIFY(!root["host"].toString().isEmpty());

        const QJsonArray devices = root["devices"].toArray();
        QCOMPARE(devices.size(), 1);
        const QJsonObject d = devices[0].toObject();
        QCOMPARE(d["backend"].toString(), QString("cpu"));
        QCOMPARE(d["name"].toString(), QString::fromUtf8("Test CPU, \"quoted\" \\ model ®"));
        QCOMPARE(d["compute_units"].toInt(), device.computeUnits);
        QCOMPARE(d["memory_bytes"].toDouble(), static_cast<double>(device.memoryBytes));
        QCOMPARE(d["datasheet_bandwidth"].toDouble(), 2.048e11);
        QCOMPARE(d["datasheet_peaks"].toObject()["int8"].toDouble(), 6e12);
        QCOMPARE(d["datasheet_peaks"].toObject()["fp32"].toDouble(), 1.5e12);

        const QJsonArray array = root["results"].toArray();
        QCOMPARE(array.size(), static_cast<qsizetype>(results.size()));
        for (std::size_t i = 0; i < results.size(); ++i) {
            const BenchResult& r = results[i];
            const QJsonObject o = array[static_cast<qsizetype>(i)].toObject();
            QCOMPARE(o["backend"].toString(), QString("cpu"));
            QCOMPARE(o["device"].toString(), QString::fromUtf8(r.device.c_str()));
            QCOMPARE(o["operation"].toString(), q(std::string(operationId(r.operation))));
            QCOMPARE(o["format"].toString(), q(r.format));
            QCOMPARE(o["direction"].toString(), q(std::string(directionId(r.direction))));
            QCOMPARE(o["path"].toString(), q(r.path));
            QCOMPARE(o["hardware"].toBool(), r.hardware);
            QCOMPARE(o["elements"].toDouble(), static_cast<double>(r.elements));
            QCOMPARE(o["threads"].toInt(), r.threads);
            QCOMPARE(o["samples"].toInt(), 3);
            QCOMPARE(o["iterations_per_sample"].toDouble(),
                     static_cast<double>(r.time.iterationsPerSample));
            // Written in full: every double reads back exactly.
            QCOMPARE(o["median_seconds"].toDouble(), r.time.median);
            QCOMPARE(o["min_seconds"].toDouble(), r.time.min);
            QCOMPARE(o["max_seconds"].toDouble(), r.time.max);
            QCOMPARE(o["bytes_per_second"].toDouble(), r.bytesPerSecond);
            QCOMPARE(o["elements_per_second"].toDouble(), r.elementsPerSecond);
            QCOMPARE(o["operations_per_second"].toDouble(), r.operationsPerSecond);
            QCOMPARE(o["ceiling"].toDouble(), std::isfinite(r.ceiling) ? r.ceiling : 0.0);
            QVERIFY(o["ceiling"].isDouble());
            QCOMPARE(o["ceiling_name"].toString(), q(r.ceilingName));
            QCOMPARE(o["verified"].toBool(), r.verified);
            QCOMPARE(o["exact_by_design"].toBool(), r.exactByDesign);
            QCOMPARE(o["checked"].toDouble(), static_cast<double>(r.checked));
            QCOMPARE(o["mismatches"].toDouble(), static_cast<double>(r.mismatches));
            QCOMPARE(o["note"].toString(), q(r.note));
            // A conversion has no ratio of its own: the keys are there, empty.
            QCOMPARE(o["workload"].toString(), QString());
            QCOMPARE(o["ratio"].toDouble(-1), 0.0);
            QCOMPARE(o["goal_at_least"].toDouble(-1), 0.0);
            QCOMPARE(o["goal_at_most"].toDouble(-1), 0.0);
            QCOMPARE(o["passes"].toInt(-1), 0);
            QCOMPARE(o["bare_ratio"].toDouble(-1), 0.0);
            QCOMPARE(o["reference_median_seconds"].toDouble(-1), 0.0);
        }
        // Every number in the text uses a point: "1,5" would have broken the parse above or
        // split into two numbers; check the raw text too.
        QVERIFY(!QString::fromUtf8(text).contains(QRegularExpression(R"(:\s*-?\d+,\d)")));
        QVERIFY(text.contains("\"bytes_per_second\": 19660876543.2"));
    }
}

// Device names and notes come from drivers and the OS, in any bytes: the file must still be
// JSON, with U+FFFD for each byte that is not UTF-8 and valid UTF-8 kept as it is.
void TestBench::jsonReplacesInvalidUtf8() {
    BenchResult r = syntheticResult(1);
    r.device = "GPU \xff\xfe ®";
    r.note = "cut short \xe2\x82";
    DeviceInfo device;
    device.name = r.device;
    std::ostringstream out;
    writeResultsJson(out, describeRun(BenchRequest{}, {device}), {r});
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QString replaced = QString::fromUtf8("GPU \uFFFD\uFFFD ®");
    QCOMPARE(document["devices"][0]["name"].toString(), replaced);
    QCOMPARE(document["results"][0]["device"].toString(), replaced);
    QCOMPARE(document["results"][0]["note"].toString(), QString::fromUtf8("cut short \uFFFD"));
}

void TestBench::csvHasOneColumnPerHeader() {
    std::vector<BenchResult> results;
    for (int i = 0; i < 4; ++i)
        results.push_back(syntheticResult(i));
    results[0].note = "a comma, and a \"quote\"";
    for (bool commaLocale : {false, true}) {
        std::optional<CommaLocale> comma;
        if (commaLocale) {
            comma.emplace();
            if (!comma->isActive())
                break;
        }
        std::ostringstream out;
        writeResultsCsv(out, results);
        const auto rows = test::parseCsv(out.str());
        QCOMPARE(rows.size(), results.size() + 1);
        const std::vector<std::string>& header = rows[0];
        QCOMPARE(header.size(), std::size_t{30});
        std::map<std::string, std::size_t> column;
        for (std::size_t i = 0; i < header.size(); ++i)
            column[header[i]] = i;
        for (const char* name : {"backend", "device", "format", "path", "elements", "threads",
                                 "bytes_per_second", "verified", "mismatches", "note"})
            QVERIFY2(column.count(name), name);
        for (std::size_t i = 0; i < results.size(); ++i) {
            const std::vector<std::string>& row = rows[i + 1];
            QCOMPARE(row.size(), header.size());
            const BenchResult& r = results[i];
            QCOMPARE(q(row[column["device"]]), QString::fromUtf8(r.device.c_str()));
            QCOMPARE(q(row[column["path"]]), q(r.path));
            QCOMPARE(q(row[column["note"]]), q(r.note));
            QCOMPARE(q(row[column["elements"]]), QString::number(r.elements));
            QCOMPARE(q(row[column["threads"]]), QString::number(r.threads));
            QCOMPARE(q(row[column["verified"]]), QString(r.verified ? "true" : "false"));
            QCOMPARE(q(row[column["mismatches"]]), QString::number(r.mismatches));
            bool ok = false;
            const double bytes =
                QString::fromStdString(row[column["bytes_per_second"]]).toDouble(&ok);
            QVERIFY2(ok, row[column["bytes_per_second"]].c_str());
            QVERIFY(relativelyClose(bytes, r.bytesPerSecond, 1e-8));
        }
    }
    // No results: the header alone.
    std::ostringstream empty;
    writeResultsCsv(empty, {});
    QCOMPARE(test::parseCsv(empty.str()).size(), std::size_t{1});
}

// --- the sums and quantizers as results ---------------------------------------------------

void TestBench::sumsAndQuantizersAreResults() {
    const RatioRows rows = syntheticRatioRows();
    const std::vector<BenchResult> sums = accumulationResults(rows.sums, 4096, rows.cpu);
    // The BF16 sum cut short before it was timed has no figures: left out.
    QCOMPARE(sums.size(), std::size_t{3});
    const std::vector<AccumulationWorkload> workloads = accumulationWorkloads();
    for (std::size_t i = 0; i < sums.size(); ++i) {
        const BenchResult& r = sums[i];
        const AccumulationBenchRow& row = rows.sums[i];
        QCOMPARE(r.operation, Operation::Accumulate);
        QCOMPARE(q(r.backend), QString("cpu"));
        QCOMPARE(q(r.device), QString("Test CPU"));
        QCOMPARE(q(r.format), q(row.format));
        QCOMPARE(q(r.path), q(row.path));
        QCOMPARE(r.elements, std::size_t{4096});
        QCOMPARE(r.threads, 1);
        QCOMPARE(r.verified, true);
        QCOMPARE(r.checked, std::uint64_t{4096});
        QCOMPARE(r.time.median, row.time.median);
        QCOMPARE(r.referenceSeconds, row.referenceTime.median);
        QCOMPARE(r.elementsPerSecond, row.termsPerSecond);
        QCOMPARE(q(r.ceilingName), q(row.reference));
        // The ratio printed, and the speed against the reference's in bytes/s, agree.
        QCOMPARE(r.ratio, row.ratio);
        QVERIFY(relativelyClose(r.throughput() / r.ceiling, r.ratio, 1e-12));
        QCOMPARE(r.goalAtLeast, row.goal);
        QCOMPARE(r.goalAtMost, 0.0);
        QCOMPARE(r.passes, 0);
    }
    // The workload by its distribution: FP16 is timed on both, and the two rows differ in it.
    QCOMPARE(q(sums[0].workload), q(workloads[0].distribution));
    QCOMPARE(q(sums[1].workload), q(workloads[1].distribution));
    QCOMPARE(q(sums[2].format), QString("exact"));
    QCOMPARE(q(sums[2].ceilingName), QString("memcpy"));
    QCOMPARE(sums[0].ratio, 0.25);

    const std::vector<BenchResult> quantizers = quantizationResults(rows.quantizers, rows.cpu);
    QCOMPARE(quantizers.size(), std::size_t{3});
    for (std::size_t i = 0; i < 2; ++i) {
        const BenchResult& r = quantizers[i];
        const QuantizationBenchRow& row = rows.quantizers.rows[i];
        QCOMPARE(r.operation, Operation::Quantize);
        QCOMPARE(q(r.format), q(row.format));
        QCOMPARE(q(r.path), q(row.path));
        QCOMPARE(q(r.workload), QString("normal"));
        QCOMPARE(r.elements, std::size_t{65536});
        QCOMPARE(r.threads, 2);
        QCOMPARE(r.verified, row.verified);
        QCOMPARE(r.checked, std::uint64_t{65536});
        QCOMPARE(q(r.note), q(row.note));
        QCOMPARE(r.bytesPerSecond, row.bytesPerSecond);
        QCOMPARE(r.elementsPerSecond, row.elementsPerSecond);
        QCOMPARE(r.ceiling, row.referenceBytesPerSecond);
        QCOMPARE(q(r.ceilingName), QString("memcpy alongside, 64 Ki, 2 threads"));
        QCOMPARE(r.ratio, row.ratio);
        QCOMPARE(r.throughput() / r.ceiling, r.ratio);
        QCOMPARE(r.referenceSeconds, 5e-5);
        QCOMPARE(r.goalAtLeast, 0.5);
        QCOMPARE(r.passes, row.passes);
        QCOMPARE(r.bareRatio, 0.8125);
    }
    const BenchResult& file = quantizers[2];
    QCOMPARE(file.operation, Operation::QuantizeFile);
    QCOMPARE(q(file.format), QString("mxfp4"));
    QCOMPARE(file.elements, std::size_t{65536});
    QCOMPARE(file.threads, 2);
    QCOMPARE(file.ratio, 2.5);
    QCOMPARE(file.goalAtMost, 3.0);
    QCOMPARE(file.goalAtLeast, 0.0);
    QCOMPARE(file.time.median, 5e-4);
    QCOMPARE(file.referenceSeconds, 2e-4);
    QCOMPARE(file.bytesPerSecond, 262144 / 5e-4);
    QCOMPARE(file.ceiling, 262144 / 2e-4);
    // Its ratio is a time over the read's: the inverse of the speed against the read.
    QVERIFY(relativelyClose(file.ceiling / file.throughput(), file.ratio, 1e-12));
    QVERIFY(q(file.note).contains("page cache"));
    QVERIFY(!file.verified);
    QCOMPARE(file.checked, std::uint64_t{0});

    // A file check that did not run is a note of the text, no row.
    RatioRows notRun = syntheticRatioRows();
    notRun.quantizers.files.assign(1, {});
    notRun.quantizers.files.front().note = "cannot write the file";
    QCOMPARE(quantizationResults(notRun.quantizers, notRun.cpu).size(), std::size_t{2});
}

void TestBench::sumsAndQuantizersReachJsonAndCsv() {
    std::vector<BenchResult> results = {syntheticResult(1)};
    for (const BenchResult& r : ratioResults(syntheticRatioRows()))
        results.push_back(r);
    QCOMPARE(results.size(), std::size_t{7});

    std::ostringstream json;
    writeResultsJson(json, describeRun(BenchRequest{}, {}), results);
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromStdString(json.str()), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonArray array = document["results"].toArray();
    QCOMPARE(array.size(), static_cast<qsizetype>(results.size()));

    std::ostringstream csv;
    writeResultsCsv(csv, results);
    const auto rows = test::parseCsv(csv.str());
    QCOMPARE(rows.size(), results.size() + 1);
    std::map<std::string, std::size_t> column;
    for (std::size_t i = 0; i < rows[0].size(); ++i)
        column[rows[0][i]] = i;

    for (std::size_t i = 0; i < results.size(); ++i) {
        const BenchResult& r = results[i];
        const QJsonObject o = array[static_cast<qsizetype>(i)].toObject();
        const std::vector<std::string>& row = rows[i + 1];
        QCOMPARE(row.size(), rows[0].size());
        // The same keys in both, every double read back exactly from the JSON and to 9 digits
        // from the CSV.
        QCOMPARE(o["operation"].toString(), q(std::string(operationId(r.operation))));
        QCOMPARE(q(row[column["operation"]]), q(std::string(operationId(r.operation))));
        QCOMPARE(o["workload"].toString(), q(r.workload));
        QCOMPARE(q(row[column["workload"]]), q(r.workload));
        QCOMPARE(o["passes"].toInt(), r.passes);
        QCOMPARE(q(row[column["passes"]]), QString::number(r.passes));
        const std::pair<const char*, double> numbers[] = {
            {"ratio", r.ratio},
            {"goal_at_least", r.goalAtLeast},
            {"goal_at_most", r.goalAtMost},
            {"bare_ratio", r.bareRatio},
            {"reference_median_seconds", r.referenceSeconds},
            {"ceiling", r.ceiling},
            {"bytes_per_second", r.bytesPerSecond}};
        for (const auto& [key, value] : numbers) {
            QVERIFY2(o[key].isDouble(), key);
            QCOMPARE(o[key].toDouble(), value);
            QVERIFY2(relativelyClose(std::stod(row[column[key]]), value, 1e-8), key);
        }
        QCOMPARE(o["ceiling_name"].toString(), q(r.ceilingName));
        QCOMPARE(q(row[column["ceiling_name"]]), q(r.ceilingName));
    }
    // The rows fpx bench prints among the ratios, by what they measure.
    QCOMPARE(array[1].toObject()["operation"].toString(), QString("accumulate"));
    QCOMPARE(array[1].toObject()["ratio"].toDouble(), 0.25);
    QCOMPARE(array[4].toObject()["operation"].toString(), QString("quantize"));
    QCOMPARE(array[4].toObject()["bare_ratio"].toDouble(), 0.8125);
    QCOMPARE(array[5].toObject()["passes"].toInt(), 2);
    QCOMPARE(array[6].toObject()["operation"].toString(), QString("quantize-file"));
    QCOMPARE(array[6].toObject()["goal_at_most"].toDouble(), 3.0);
}

void TestBench::describeRunStampsTheRequest() {
    BenchRequest request;
    request.plan.budget = std::chrono::duration<double>(0.25);
    request.plan.samples = 9;
    request.distribution = InputDistribution::Subnormal;
    request.rounding.mode = RoundingMode::TowardZero;
    request.rounding.overflow = OverflowPolicy::Saturate;
    const std::vector<DeviceInfo> devices = createCpuBackend()->devices();
    const RunMetadata m = describeRun(request, devices);
    QCOMPARE(q(m.distribution), QString("subnormal"));
    QCOMPARE(q(m.rounding), QString("rtz"));
    QCOMPARE(q(m.overflow), QString("saturate"));
    QCOMPARE(m.budgetSeconds, 0.25);
    QCOMPARE(m.samples, 9);
    QCOMPARE(m.devices.size(), devices.size());
    QVERIFY(!m.fpxVersion.empty());
    QVERIFY(!m.build.empty());
    QVERIFY(!m.host.empty());
    QVERIFY2(
        QRegularExpression(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$)").match(q(m.startedAt)).hasMatch(),
        m.startedAt.c_str());
}

// --- plugins -----------------------------------------------------------------------------

void TestBench::loadBackendsWithoutPlugins() {
    const QByteArray saved = qgetenv("FPX_BACKEND_DIR");
    const bool wasSet = qEnvironmentVariableIsSet("FPX_BACKEND_DIR");
    struct Restore {
        QByteArray value;
        bool set;
        ~Restore() {
            if (set)
                qputenv("FPX_BACKEND_DIR", value);
            else
                qunsetenv("FPX_BACKEND_DIR");
        }
    } restore{saved, wasSet};

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    qputenv("FPX_BACKEND_DIR", QFile::encodeName(dir.path()));
    {
        const LoadedBackends loaded = loadBackends();
        QCOMPARE(loaded.backends.size(), std::size_t{1});
        QCOMPARE(q(loaded.backends.front()->id()), QString("cpu"));
        QVERIFY(loaded.backends.front()->unavailableReason().empty());
        QCOMPARE(loaded.problems.size(), std::size_t{2});
        QString all;
        for (const std::string& p : loaded.problems)
            all += q(p) + "\n";
        QVERIFY2(all.contains("cuda") && all.contains("opencl"), qPrintable(all));
        for (const std::string& p : loaded.problems)
            QVERIFY2(q(p).contains("not built"), p.c_str());
    }

    // Files that are not plugins: a problem each, never a crash, the CPU still first.
    {
        QFile garbage(dir.filePath("libfpx_backend_cuda.so"));
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        garbage.write("this is not an ELF file\n");
        garbage.close();
        // A real shared library without the plugin's entry points.
        QString foreign;
        for (const char* candidate :
             {"/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
              "/lib/aarch64-linux-gnu/libz.so.1", "/usr/lib/libz.so.1", "/lib64/libz.so.1"})
            if (QFile::exists(candidate)) {
                foreign = candidate;
                break;
            }
        if (!foreign.isEmpty())
            QVERIFY(QFile::copy(foreign, dir.filePath("libfpx_backend_opencl.so")));
        const LoadedBackends loaded = loadBackends();
        QCOMPARE(loaded.backends.size(), std::size_t{1});
        QCOMPARE(q(loaded.backends.front()->id()), QString("cpu"));
        QCOMPARE(loaded.problems.size(), std::size_t{2});
        QVERIFY(q(loaded.problems[0]).startsWith("cuda: "));
        QVERIFY2(!q(loaded.problems[0]).contains("not built"), loaded.problems[0].c_str());
        if (!foreign.isEmpty())
            QVERIFY2(q(loaded.problems[1]).contains("not a plugin"), loaded.problems[1].c_str());
    }
}

void TestBench::sizesParseAndLabel() {
    const SizeList list = parseSizes("32k,256M");
    QVERIFY2(list.error.empty(), list.error.c_str());
    QCOMPARE(list.sizes, (std::vector<std::size_t>{32768, 268435456}));
    const SizeList spaced = parseSizes("  4k, 1M;100000 2Ki 1g ");
    QVERIFY2(spaced.error.empty(), spaced.error.c_str());
    QCOMPARE(spaced.sizes, (std::vector<std::size_t>{4096, 1048576, 100000, 2048, 1073741824}));
    QCOMPARE(parseSizes("2G").sizes, std::vector<std::size_t>{std::size_t{1} << 31});
    for (const char* bad : {"", " ", "0", "3G", "2049M", "4x", "1.5k", "-4", "1k,,2k", ",1k", "1k,",
                            "k", "4kib", "99999999999999999999"}) {
        const SizeList parsed = parseSizes(bad);
        QVERIFY2(!parsed.error.empty() && parsed.sizes.empty(), bad);
    }
    QVERIFY(parseSizes("4k,4x").error.find("'4x'") != std::string::npos);
    QCOMPARE(q(sizeLabel(16384)), QString("16 Ki"));
    QCOMPARE(q(sizeLabel(std::size_t{64} << 20)), QString("64 Mi"));
    QCOMPARE(q(sizeLabel(std::size_t{1} << 31)), QString("2 Gi"));
    QCOMPARE(q(sizeLabel(1000)), QString("1000"));
    QCOMPARE(q(sizeLabel(1536)), QString("1536"));
    QCOMPARE(q(sizeLabel(1)), QString("1"));
}

void TestBench::defaultSizesAreShared() {
    QCOMPARE(kInCacheElements, std::size_t{32768});
    constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
    // Twice the cache in 4-byte inputs, a power of two, at least 16 Mi elements.
    QCOMPARE(beyondCacheElements(32 * MiB, 64 * 1024 * MiB), std::size_t{16} << 20);
    QCOMPARE(beyondCacheElements(60 * MiB, 0), std::size_t{32} << 20);
    QCOMPARE(beyondCacheElements(0, 0), std::size_t{16} << 20);
    // Three arrays within half of the memory, but never below 16 Mi.
    QCOMPARE(beyondCacheElements(512 * MiB, 1024 * MiB), std::size_t{32} << 20);
    QCOMPARE(beyondCacheElements(512 * MiB, 64 * MiB), std::size_t{16} << 20);
    DeviceInfo small;
    small.lastLevelCacheBytes = 8 * MiB;
    small.memoryBytes = 16 * 1024 * MiB;
    DeviceInfo large = small;
    large.lastLevelCacheBytes = 128 * MiB;
    QCOMPARE(defaultSizes(large), (std::vector<std::size_t>{32768, std::size_t{64} << 20}));
    // A request for several devices: the largest cache, so beyond it on each of them.
    QCOMPARE(beyondCacheElements(std::vector<DeviceInfo>{small, large}), std::size_t{64} << 20);
    // The CPU backend runs the same defaults.
    const std::unique_ptr<Backend> cpu = createCpuBackend();
    const std::vector<std::size_t> cpuDefaults = defaultSizes(cpu->devices().front());
    QCOMPARE(cpuDefaults.front(), std::size_t{32768});
    QVERIFY(std::has_single_bit(cpuDefaults.back()) && cpuDefaults.back() >= (16u << 20));
}

void TestBench::deviationClassesExplainOnlyTheirDifferences() {
    const FormatSpec fp16 = test::lookUp("fp16");
    const FormatSpec bf16 = test::lookUp("bf16");
    const RoundingOptions rne;
    RoundingOptions saturate;
    saturate.overflow = OverflowPolicy::Saturate;
    const Deviations all{Deviation::NanPayload, Deviation::NanInputAnyCode,
                         Deviation::InfinityInput, Deviation::OverflowInput,
                         Deviation::NanInputToInfinity};
    // Codes from the IEEE binary16 and bfloat16 layouts, written out by hand.
    const DeviationJudge none(bf16, rne, Direction::Encode, {});
    const DeviationJudge flush(bf16, rne, Direction::Encode, {Deviation::SubnormalInputFlushed});
    // The FP32 subnormal 0x00008001 is the BF16 subnormal 0x0001; flushed, +0.
    QVERIFY(!none.explain(0x00008001u, 0x0000u, 0x0001u));
    QCOMPARE(flush.explain(0x00008001u, 0x0000u, 0x0001u), Deviation::SubnormalInputFlushed);
    QCOMPARE(flush.explain(0x80008001u, 0x8000u, 0x8001u), Deviation::SubnormalInputFlushed);
    QVERIFY(!flush.explain(0x80008001u, 0x0000u, 0x8001u)); // the sign is kept
    QVERIFY(!flush.explain(0x3f800000u, 0x3f81u, 0x3f80u)); // a normal input never
    const DeviationJudge nan(fp16, rne, Direction::Encode, {Deviation::NanPayload});
    QCOMPARE(nan.explain(0x7f802000u, 0x7e01u, 0x7e00u), Deviation::NanPayload);
    QVERIFY(!nan.explain(0x7f802000u, 0x7c00u, 0x7e00u)); // a NaN became +inf
    const DeviationJudge overflow(fp16, saturate, Direction::Encode, all);
    // 70000 beyond 65504 (0x7bff): +inf where the saturating core gives max.
    QCOMPARE(overflow.explain(0x4788b800u, 0x7c00u, 0x7bffu), Deviation::OverflowInput);
    QCOMPARE(overflow.explain(0x7f800000u, 0x7c00u, 0x7bffu), Deviation::InfinityInput);
    QVERIFY(!overflow.explain(0x3f800000u, 0x3c01u, 0x3c00u)); // 1.0: no class explains it
    QVERIFY(!overflow.explain(0x477fe000u, 0x7c00u, 0x7bffu)); // 65504 itself is finite
    const DeviationJudge decode(fp16, saturate, Direction::Decode, all);
    // ±inf codes decoded to ±inf where the saturating core gives ±FLT_MAX.
    QCOMPARE(decode.explain(0xfc00u, 0xff800000u, 0xff7fffffu), Deviation::InfinityInput);
    QCOMPARE(decode.explain(0x7e01u, 0x7fc00000u, 0x7fc02000u), Deviation::NanPayload);
    QVERIFY(!decode.explain(0x3c00u, 0x3f800001u, 0x3f800000u));
    QCOMPARE(decode.inputBytes(), 2);
    QCOMPARE(decode.outputBytes(), 4);
    QVERIFY(Deviations{}.empty());
    QVERIFY((Deviations{Deviation::NanPayload} | Deviations{Deviation::OverflowInput})
                .contains(Deviation::OverflowInput));
    for (Deviation d : kDeviations) {
        QVERIFY(!deviationId(d).empty());
        QVERIFY(!deviationDescription(d).empty());
    }
}

void TestBench::verificationCountsAndRecords() {
    const FormatSpec bf16 = test::lookUp("bf16");
    const std::uint32_t inputs[] = {0x3f800000u, 0x00008001u, 0x7f802000u, 0x40000000u};
    const std::uint16_t expected[] = {0x3f80, 0x0001, 0x7fc0, 0x4000};
    const std::uint16_t flushed[] = {0x3f80, 0x0000, 0x7fc0, 0x4000};
    const std::uint16_t wrong[] = {0x3f80, 0x0000, 0x7fc0, 0x4001};
    const Deviations declared{Deviation::SubnormalInputFlushed};
    const DeviationJudge judge(bf16, {}, Direction::Encode, declared);

    const Verification same = verify(judge, inputs, expected, expected, 4);
    QCOMPARE(same.checked, std::uint64_t{4});
    QCOMPARE(same.mismatches, std::uint64_t{0});
    QVERIFY(same.describe().empty());

    const Verification within = verify(judge, inputs, expected, flushed, 4);
    QCOMPARE(within.mismatches, std::uint64_t{1});
    QCOMPARE(within.unexplained(), std::uint64_t{0});
    QVERIFY2(q(within.describe()).contains("1 of 4 checked elements differ"),
             within.describe().c_str());
    QVERIFY2(q(within.describe()).contains("all subnormal inputs flushed"),
             within.describe().c_str());
    QVERIFY2(q(within.describe()).contains("input 0x00008001 gave 0x0000, exact core 0x0001"),
             within.describe().c_str());
    BenchResult declaredPath;
    recordVerification(declaredPath, within, declared);
    QVERIFY(!declaredPath.verified && !declaredPath.exactByDesign); // reported, not failed

    Verification outside = verify(judge, inputs, expected, wrong, 4);
    QCOMPARE(outside.mismatches, std::uint64_t{2});
    QCOMPARE(outside.unexplained(), std::uint64_t{1});
    QVERIFY(q(outside.describe()).contains("1 outside the path's declared deviations"));
    BenchResult failing;
    recordVerification(failing, outside, declared);
    QVERIFY(!failing.verified && failing.exactByDesign); // a failure, declared or not

    outside.add(same);
    QCOMPARE(outside.checked, std::uint64_t{8});
    QCOMPARE(outside.mismatches, std::uint64_t{2});
    BenchResult exact;
    recordVerification(exact, same, {});
    QVERIFY(exact.verified && exact.exactByDesign && exact.note.empty());
    BenchResult nothing;
    recordVerification(nothing, Verification{}, {});
    QVERIFY(!nothing.verified); // nothing checked is never verified
}

void TestBench::adversarialInputsCoverTheEdges() {
    const FormatSpec fp16 = test::lookUp("fp16");
    const std::vector<std::uint32_t> inputs = adversarialFp32(fp16);
    QVERIFY(std::is_sorted(inputs.begin(), inputs.end()));
    QVERIFY(std::adjacent_find(inputs.begin(), inputs.end()) == inputs.end());
    const auto has = [&](std::uint32_t bits) {
        return std::binary_search(inputs.begin(), inputs.end(), bits);
    };
    // 65504 (FP16 max), the overflow tie 65520 and its neighbours, 1 + 2^-11 (a tie), signed
    // zeros, infinities, a signalling NaN with a payload, the smallest FP32 subnormal.
    for (const std::uint32_t bits :
         {0x477fe000u, 0x477ff000u, 0x477fefffu, 0x477ff001u, 0x3f801000u, 0xbf801000u, 0x0u,
          0x80000000u, 0x7f800000u, 0xff800000u, 0x7f800001u, 0x1u})
        QVERIFY2(has(bits), qPrintable(QString::number(bits, 16)));
    // Every exponent of FP32, both signs.
    for (std::uint32_t exponent = 0; exponent < 256; ++exponent)
        QVERIFY(has(exponent << 23) && has(0x80000000u | (exponent << 23)));

    const FormatSpec e4m3 = test::lookUp("fp8_e4m3");
    const std::vector<std::uint8_t> codes = adversarialCodes(e4m3);
    QCOMPARE(codes.size(), std::size_t{256});
    for (std::size_t i = 0; i < codes.size(); ++i)
        QCOMPARE(codes[i], static_cast<std::uint8_t>(i));
    // Wide formats: a spread of codes, as many as asked.
    QCOMPARE(adversarialCodes(test::lookUp("tf32"), 1000).size(), std::size_t{1000 * 4});
    // Decode inputs: the random inputs encoded with nearest-even, as the exact core does.
    const std::vector<float> values = randomInputs(5000, InputDistribution::WithNaN, 3);
    std::vector<std::uint32_t> bits(values.size());
    std::memcpy(bits.data(), values.data(), bits.size() * 4);
    const std::vector<std::uint8_t> decodeIn = decodeInputs(e4m3, bits.data(), bits.size());
    std::vector<std::uint8_t> exact(bits.size());
    encodeWithExactCore(e4m3, {}, bits.data(), exact.data(), bits.size());
    QVERIFY(decodeIn == exact);
    QVERIFY(randomInputSeed(1024) != randomInputSeed(2048)); // a new array for every size
    // Decoding never rounds stochastically; encoding keeps the request.
    RoundingOptions stochastic;
    stochastic.mode = RoundingMode::Stochastic;
    QCOMPARE(exactCoreOptions(stochastic, Direction::Decode).mode, RoundingMode::NearestEven);
    QCOMPARE(exactCoreOptions(stochastic, Direction::Encode).mode, RoundingMode::Stochastic);
}

QTEST_GUILESS_MAIN(TestBench)
void TestBench::adversarialSetAndRandomCodesAreShared() {
    const FormatSpec e4m3 = test::lookUp("fp8_e4m3");
    // The set every backend checks on: the adversarial inputs with the exact core's answers.
    const AdversarialSet encode = adversarialSet(e4m3, {}, Direction::Encode);
    QCOMPARE(encode.count, adversarialFp32(e4m3).size());
    QCOMPARE(encode.inputs.size(), encode.count * 4);
    QCOMPARE(encode.expected.size(), encode.count);
    const auto encodeAnswer = [&](std::uint32_t bits) {
        for (std::size_t i = 0; i < encode.count; ++i) {
            std::uint32_t input = 0;
            std::memcpy(&input, encode.inputs.data() + 4 * i, 4);
            if (input == bits)
                return int{encode.expected[i]};
        }
        return -1;
    };
    QCOMPARE(encodeAnswer(0x3f800000u), 0x38); // 1.0 = 0 0111 000
    QCOMPARE(encodeAnswer(0x43e00000u), 0x7e); // 448, the largest finite value
    const AdversarialSet decode = adversarialSet(e4m3, {}, Direction::Decode);
    QCOMPARE(decode.count, std::size_t{256});
    std::uint32_t one = 0;
    std::memcpy(&one, decode.expected.data() + 4 * 0x38, 4);
    QCOMPARE(one, 0x3f800000u);

    // Codes wider than 32 bits are spread over the whole code, not cut to 32 bits.
    const std::vector<std::uint8_t> wide = adversarialCodes(test::lookUp("fp64"), 16);
    QCOMPARE(wide.size(), std::size_t{16 * 8});
    QCOMPARE(wide[15 * 8 + 7], std::uint8_t{0xf0}); // 15 · 2^60

    // Random decode codes: every code of a small format, within its bits, the same for the
    // same size and another array for another size.
    const FormatSpec fp4 = test::lookUp("fp4_e2m1");
    const std::vector<std::uint8_t> codes = randomCodes(fp4, 4096);
    QCOMPARE(codes.size(), std::size_t{4096});
    std::set<std::uint8_t> seen(codes.begin(), codes.end());
    QCOMPARE(seen.size(), std::size_t{16});
    QCOMPARE(*seen.rbegin(), std::uint8_t{15});
    QVERIFY(randomCodes(fp4, 4096) == codes);
    const std::vector<std::uint8_t> other = randomCodes(fp4, 4097);
    QVERIFY(!std::equal(codes.begin(), codes.end(), other.begin()));
    // Filled in parts, as a backend splits the work, the codes are the same.
    std::vector<std::uint8_t> parts(codes.size());
    writeRandomCodes(fp4, 4096, parts.data(), 1000, 4096);
    writeRandomCodes(fp4, 4096, parts.data(), 0, 1000);
    QVERIFY(parts == codes);
    const std::vector<std::uint8_t> fp16 = randomCodes(test::lookUp("fp16"), 4096);
    QCOMPARE(fp16.size(), std::size_t{8192});
}

#include "tst_bench.moc"
