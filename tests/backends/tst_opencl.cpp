// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenCL backend plugin, loaded as fpx loads it (loadBackends, FPX_BACKEND_DIR): it lists
// the OpenCL devices (pocl's CPU device here), its conversion kernels agree bit for bit with
// the exact core for every format, direction, several rounding modes, both overflow policies
// and every input distribution (on random inputs and on the bench library's adversarial set:
// every exponent and rounding position, every value of the format, the midpoints between
// them, ±0, ±∞, NaNs), its FMA kernels run, progress advances and cancel stops a run.
//
// Skips when no OpenCL platform is installed, unless pocl's ICD is: then OpenCL must work.
#include "fpx/bench/backend.h"
#include "fpx/exact/format_catalogue.h"

#include "test_support.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace fpx;
using namespace fpx::bench;

namespace {

const char* const kFormats[] = {"fp16",     "bf16",     "fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz",
                                "fp6_e3m2", "fp4_e2m1", "int8",     "int4",     "nf4"};
constexpr std::size_t kElements = std::size_t{1} << 16;

// pocl's entry in the ICD loader's vendor directory (OCL_ICD_VENDORS moves it).
QString poclIcd() {
    return qEnvironmentVariable("OCL_ICD_VENDORS", "/etc/OpenCL/vendors") + "/pocl.icd";
}

QString describe(const BenchResult& r) {
    return QString("%1 %2 %3 [%4]: checked %5, mismatches %6, note '%7'")
        .arg(QString::fromStdString(std::string(operationId(r.operation))),
             QString::fromStdString(r.format),
             QString::fromStdString(std::string(directionId(r.direction))),
             QString::fromStdString(r.path))
        .arg(r.checked)
        .arg(r.mismatches)
        .arg(QString::fromStdString(r.note));
}

} // namespace

class TestOpenCl : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void listsDevices();
    void support();
    void conversionsAgreeWithTheExactCore_data();
    void conversionsAgreeWithTheExactCore();
    void arithmeticRuns();
    void unsupportedFormatsAreReported();
    void cancelStops();

  private:
    Backend* openCl() const { return opencl_; }
    BenchRequest tinyRequest() const;

    LoadedBackends loaded_;
    Backend* opencl_ = nullptr;
};

void TestOpenCl::initTestCase() {
    qputenv("FPX_BACKEND_DIR", FPX_BACKEND_DIR);
    loaded_ = loadBackends();
    for (const auto& backend : loaded_.backends)
        if (backend->id() == "opencl")
            opencl_ = backend.get();
    const bool poclInstalled = QFile::exists(poclIcd());
    if (opencl_ == nullptr) {
        QString problems;
        for (const std::string& p : loaded_.problems)
            problems += QString::fromStdString(p) + "; ";
        QFAIL(qPrintable("the OpenCL plugin did not load from " FPX_BACKEND_DIR ": " + problems));
    }
    const std::string reason = opencl_->unavailableReason();
    if (!reason.empty()) {
        if (poclInstalled)
            QFAIL(qPrintable("pocl is installed, yet OpenCL is unavailable: " +
                             QString::fromStdString(reason)));
        QSKIP(qPrintable("no OpenCL platform: " + QString::fromStdString(reason)));
    }
    QCOMPARE(QString::fromStdString(opencl_->id()), QString("opencl"));
    QCOMPARE(QString::fromStdString(opencl_->displayName()), QString("OpenCL"));
}

BenchRequest TestOpenCl::tinyRequest() const {
    BenchRequest request;
    request.sizes = {kElements};
    request.plan.budget = std::chrono::duration<double>(0.004);
    request.plan.samples = 2;
    request.plan.warmups = 1;
    request.arithmetic = false;
    // One device: pocl's when present (the CPU), else the first.
    const std::vector<DeviceInfo> devices = opencl_->devices();
    for (const DeviceInfo& d : devices)
        if (d.details.find("Portable Computing Language") != std::string::npos) {
            request.devices = {d.index};
            break;
        }
    if (request.devices.empty())
        request.devices = {devices.front().index};
    return request;
}

void TestOpenCl::listsDevices() {
    const std::vector<DeviceInfo> devices = openCl()->devices();
    QVERIFY(!devices.empty());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const DeviceInfo& d = devices[i];
        QCOMPARE(QString::fromStdString(d.backend), QString("opencl"));
        QCOMPARE(d.index, static_cast<int>(i));
        QVERIFY(!d.name.empty());
        QVERIFY2(d.driver.find("OpenCL") != std::string::npos, d.driver.c_str());
        QVERIFY(d.computeUnits > 0);
        QVERIFY(d.memoryBytes > 0);
        // The extensions that decide the arithmetic rows are spelled out, present or not.
        QVERIFY2(d.details.find("cl_khr_fp16") != std::string::npos, d.details.c_str());
        QVERIFY2(d.details.find("cl_khr_fp64") != std::string::npos, d.details.c_str());
        qInfo("OpenCL device %d: %s; %s; %s", d.index, d.name.c_str(), d.driver.c_str(),
              d.details.c_str());
    }
    if (QFile::exists(poclIcd()))
        QVERIFY2(std::any_of(devices.begin(), devices.end(),
                             [](const DeviceInfo& d) {
                                 return d.details.find("Portable Computing Language") !=
                                        std::string::npos;
                             }),
                 "pocl is installed but its device is not listed");
}

void TestOpenCl::support() {
    Backend* b = openCl();
    QCOMPARE(b->support(0, test::lookUp("fp16"), Direction::Encode), Support::Native);
    QCOMPARE(b->support(0, test::lookUp("fp16"), Direction::Decode), Support::Native);
    for (const char* id : kFormats) {
        if (QString(id) == "fp16")
            continue;
        QCOMPARE(b->support(0, test::lookUp(id), Direction::Encode), Support::Emulated);
        QCOMPARE(b->support(0, test::lookUp(id), Direction::Decode), Support::Emulated);
    }
    QCOMPARE(b->support(0, test::lookUp("fp80"), Direction::Encode), Support::Unsupported);
    QCOMPARE(b->support(0, test::lookUp("fp64"), Direction::Decode), Support::Unsupported);
    QCOMPARE(b->support(-1, test::lookUp("fp16"), Direction::Encode), Support::Unsupported);
    QCOMPARE(b->support(static_cast<int>(b->devices().size()), test::lookUp("fp8_e4m3"),
                        Direction::Encode),
             Support::Unsupported);
}

void TestOpenCl::conversionsAgreeWithTheExactCore_data() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("policy");
    QTest::addColumn<int>("distribution");
    const auto row = [](const char* name, RoundingMode mode, OverflowPolicy policy,
                        InputDistribution distribution) {
        QTest::newRow(name) << static_cast<int>(mode) << static_cast<int>(policy)
                            << static_cast<int>(distribution);
    };
    row("rne ieee normal", RoundingMode::NearestEven, OverflowPolicy::Ieee,
        InputDistribution::Normal);
    row("rtz saturate subnormal", RoundingMode::TowardZero, OverflowPolicy::Saturate,
        InputDistribution::Subnormal);
    row("rup ieee overflow", RoundingMode::TowardPositive, OverflowPolicy::Ieee,
        InputDistribution::Overflowing);
    row("rdn saturate nan", RoundingMode::TowardNegative, OverflowPolicy::Saturate,
        InputDistribution::WithNaN);
    row("rna saturate overflow", RoundingMode::NearestAway, OverflowPolicy::Saturate,
        InputDistribution::Overflowing);
    row("rto ieee subnormal", RoundingMode::ToOdd, OverflowPolicy::Ieee,
        InputDistribution::Subnormal);
    row("sr saturate normal", RoundingMode::Stochastic, OverflowPolicy::Saturate,
        InputDistribution::Normal);
    row("rne saturate nan", RoundingMode::NearestEven, OverflowPolicy::Saturate,
        InputDistribution::WithNaN);
}

void TestOpenCl::conversionsAgreeWithTheExactCore() {
    QFETCH(int, mode);
    QFETCH(int, policy);
    QFETCH(int, distribution);
    const auto roundingMode = static_cast<RoundingMode>(mode);

    BenchRequest request = tinyRequest();
    for (const char* id : kFormats)
        request.formats.push_back(test::lookUp(id));
    request.rounding.mode = roundingMode;
    request.rounding.overflow = static_cast<OverflowPolicy>(policy);
    request.distribution = static_cast<InputDistribution>(distribution);

    std::vector<BenchResult> results;
    std::vector<double> progress;
    openCl()->run(
        request, [&](const BenchResult& r) { results.push_back(r); },
        [&](double fraction, const std::string&) { progress.push_back(fraction); }, nullptr);

    // Progress only moves forward and ends at 1.
    QVERIFY(!progress.empty());
    QVERIFY(std::is_sorted(progress.begin(), progress.end()));
    QCOMPARE(progress.back(), 1.0);

    // The copy ceiling first, verified.
    QVERIFY(!results.empty());
    QCOMPARE(results.front().operation, Operation::Copy);
    QVERIFY(results.front().verified);
    QVERIFY(results.front().bytesPerSecond > 0);
    const double ceiling = results.front().bytesPerSecond;

    // Under stochastic rounding NF4 has no encode kernel: its breakpoints need a deterministic
    // rounding. (Decoding rounds to nearest-even instead, as the CPU backend does.)
    const std::set<std::pair<std::string, Direction>> noStochasticKernel = {
        {"nf4", Direction::Encode}};

    std::map<std::pair<std::string, Direction>, int> measured;
    for (const BenchResult& r : results) {
        if (r.operation != Operation::Convert)
            continue;
        QCOMPARE(QString::fromStdString(r.backend), QString("opencl"));
        QCOMPARE(r.elements, kElements);
        const auto key = std::make_pair(r.format, r.direction);
        if (r.path == "none") {
            QVERIFY2(roundingMode == RoundingMode::Stochastic && noStochasticKernel.count(key),
                     qPrintable(describe(r)));
            QVERIFY2(!r.note.empty() && !r.exactByDesign, qPrintable(describe(r)));
            continue;
        }
        QVERIFY2(r.note.find("failed") == std::string::npos, qPrintable(describe(r)));
        // Every element of the timed sample (all of it at this size) plus the adversarial set.
        const std::uint64_t adversarialAtLeast =
            r.direction == Direction::Decode
                ? (r.format == "fp16" || r.format == "bf16" ? 65536u : 16u)
                : 20000u;
        QVERIFY2(r.checked >= kElements + adversarialAtLeast, qPrintable(describe(r)));
        if (r.exactByDesign) {
            QVERIFY2(r.verified, qPrintable(describe(r)));
            QCOMPARE(r.mismatches, std::uint64_t{0});
        } else {
            // Only OpenCL's own FP16 conversions declare a deviation, and only NaN payloads:
            // they agree, or every difference is one.
            QVERIFY2(r.hardware && r.format == "fp16", qPrintable(describe(r)));
            QVERIFY2(r.verified || r.note.find("all NaN payloads") != std::string::npos,
                     qPrintable(describe(r)));
            if (!r.verified)
                qInfo("%s", qPrintable(describe(r)));
        }
        QVERIFY2(r.elementsPerSecond > 0 && r.bytesPerSecond > 0, qPrintable(describe(r)));
        QVERIFY(r.time.samples > 0);
        QCOMPARE(r.ceiling, ceiling);
        QVERIFY(!r.ceilingName.empty());
        ++measured[key];
    }
    // Every format, both directions: measured, or (stochastic only) reported as unsupported.
    for (const char* id : kFormats)
        for (const Direction direction : {Direction::Encode, Direction::Decode}) {
            const auto key = std::make_pair(std::string(id), direction);
            if (roundingMode == RoundingMode::Stochastic && noStochasticKernel.count(key))
                continue;
            QVERIFY2(measured[key] >= 1, qPrintable(QString("no result for %1 %2")
                                                        .arg(id, QString::fromStdString(std::string(
                                                                     directionId(direction))))));
        }
    // FP16 gets OpenCL's own conversions next to the bit trick, where OpenCL has the mode.
    const bool nativeMode = roundingMode == RoundingMode::NearestEven ||
                            roundingMode == RoundingMode::TowardZero ||
                            roundingMode == RoundingMode::TowardPositive ||
                            roundingMode == RoundingMode::TowardNegative;
    QCOMPARE(measured[std::make_pair(std::string("fp16"), Direction::Encode)], nativeMode ? 2 : 1);
    QCOMPARE(measured[std::make_pair(std::string("fp16"), Direction::Decode)], 2);
}

void TestOpenCl::arithmeticRuns() {
    BenchRequest request = tinyRequest();
    request.conversions = false;
    request.arithmetic = true;
    std::vector<BenchResult> results;
    openCl()->run(
        request, [&](const BenchResult& r) { results.push_back(r); }, {}, nullptr);
    std::map<std::string, const BenchResult*> byFormat;
    for (const BenchResult& r : results) {
        QCOMPARE(r.operation, Operation::Arithmetic);
        byFormat[r.format] = &r;
    }
    // FP32 always; FP64 and FP16 where the device has cl_khr_fp64 / cl_khr_fp16.
    const DeviceInfo device = openCl()->devices()[static_cast<std::size_t>(request.devices[0])];
    const auto has = [&](const char* extension) {
        return device.details.find(std::string("; ") + extension) != std::string::npos;
    };
    QCOMPARE(byFormat.count("fp32"), std::size_t{1});
    QCOMPARE(byFormat.count("fp64"), has("cl_khr_fp64") ? std::size_t{1} : std::size_t{0});
    QCOMPARE(byFormat.count("fp16"), has("cl_khr_fp16") ? std::size_t{1} : std::size_t{0});
    for (const auto& [format, r] : byFormat) {
        qInfo("%s: %.3g GFLOP/s (%s)", format.c_str(), r->operationsPerSecond / 1e9,
              r->path.c_str());
        QVERIFY2(r->operationsPerSecond > 0, qPrintable(describe(*r)));
        QVERIFY(r->time.samples > 0);
        QVERIFY2(r->verified, qPrintable(describe(*r)));
        if (format != "fp16") // replayed on the host with std::fma
            QVERIFY2(r->checked > 0 && r->mismatches == 0, qPrintable(describe(*r)));
    }
}

void TestOpenCl::unsupportedFormatsAreReported() {
    BenchRequest request = tinyRequest();
    request.sizes = {1000}; // rounded up to whole launch granules, and said so
    request.formats = {test::lookUp("fp80"), test::lookUp("fp8_e5m2")};
    std::vector<BenchResult> results;
    openCl()->run(
        request, [&](const BenchResult& r) { results.push_back(r); }, {}, nullptr);
    int unsupported = 0;
    int measured = 0;
    for (const BenchResult& r : results) {
        if (r.operation != Operation::Convert)
            continue;
        QCOMPARE(r.elements, std::size_t{1024});
        if (r.format == "fp80") {
            QCOMPARE(QString::fromStdString(r.path), QString("none"));
            QVERIFY2(r.note.find("80-bit") != std::string::npos, qPrintable(describe(r)));
            QCOMPARE(r.elementsPerSecond, 0.0);
            QVERIFY(!r.verified && !r.exactByDesign); // reported, not a failure
            ++unsupported;
        } else {
            QVERIFY2(r.verified, qPrintable(describe(r)));
            QVERIFY2(r.note.find("rounded up from 1000") != std::string::npos,
                     qPrintable(describe(r)));
            ++measured;
        }
    }
    QCOMPARE(unsupported, 2);
    QCOMPARE(measured, 2);
}

void TestOpenCl::cancelStops() {
    BenchRequest request = tinyRequest();
    for (const char* id : kFormats)
        request.formats.push_back(test::lookUp(id));
    request.plan.budget = std::chrono::duration<double>(0.5); // a minute for the whole run
    request.plan.samples = 5;
    request.arithmetic = true;

    // Cancelled from the result sink: nothing is measured after the first result.
    {
        std::atomic<bool> cancel{false};
        std::vector<BenchResult> results;
        openCl()->run(
            request,
            [&](const BenchResult& r) {
                results.push_back(r);
                cancel = true;
            },
            {}, &cancel);
        QCOMPARE(results.size(), std::size_t{1});
        QCOMPARE(results.front().operation, Operation::Copy);
    }

    // Cancelled from another thread in the middle of a measurement: the run returns within a
    // sample or two and emits no half-measured row.
    {
        std::atomic<bool> cancel{false};
        std::atomic<bool> measuring{false};
        std::atomic<bool> finished{false};
        std::mutex mutex;
        std::vector<BenchResult> results;
        std::thread runner([&] {
            openCl()->run(
                request,
                [&](const BenchResult& r) {
                    std::lock_guard lock(mutex);
                    results.push_back(r);
                },
                [&](double fraction, const std::string&) {
                    if (fraction > 0)
                        measuring = true; // a first sample is done
                },
                &cancel);
            finished = true;
        });
        while (!measuring && !finished)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const bool finishedEarly = finished;
        const auto cancelledAt = std::chrono::steady_clock::now();
        cancel = true;
        runner.join();
        QVERIFY(!finishedEarly); // a minute's run cannot be over before its first sample
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelledAt).count();
        QVERIFY2(seconds < 2, qPrintable(QString::number(seconds)));
        QVERIFY2(results.size() <= 1, qPrintable(QString::number(results.size())));
        for (const BenchResult& r : results)
            QVERIFY(r.time.samples > 0);
    }
}

QTEST_GUILESS_MAIN(TestOpenCl)
#include "tst_opencl.moc"
