// SPDX-License-Identifier: GPL-3.0-or-later
// The benchmark engine's statistics, calibration, cancel and progress, and a tiny CPU run
// whose paths must verify against the exact core.
#include "fpx/bench/cpu_conversion_bench.h"
#include "fpx/bench/measurement.h"

#include "test_support.h"

#include <QTest>

#include <cmath>

using namespace fpx;
using namespace fpx::bench;

class TestBench : public QObject {
    Q_OBJECT

  private slots:
    void statistics();
    void calibrationFillsTheBudget();
    void cancelStops();
    void tinyCpuRunVerifies();
    void distributions();
};

void TestBench::statistics() {
    const Statistics odd = summarize({3, 1, 2}, 10);
    QCOMPARE(odd.median, 2.0);
    QCOMPARE(odd.min, 1.0);
    QCOMPARE(odd.max, 3.0);
    QCOMPARE(odd.samples, 3);
    QCOMPARE(odd.iterationsPerSample, std::uint64_t{10});
    QCOMPARE(summarize({4, 1, 3, 2}, 1).median, 2.5);
    QCOMPARE(summarize({}, 1).samples, 0);
}

void TestBench::calibrationFillsTheBudget() {
    volatile double sink = 0;
    TimingPlan plan;
    plan.budget = std::chrono::duration<double>(0.05);
    plan.samples = 5;
    std::vector<double> progress;
    const Statistics s = measure([&] { sink = sink + std::sqrt(static_cast<double>(sink) + 2.0); },
                                 plan, nullptr, [&](double f) { progress.push_back(f); });
    QCOMPARE(s.samples, 5);
    QVERIFY(s.iterationsPerSample > 100); // a cheap body is repeated to fill each sample
    QVERIFY(s.min <= s.median && s.median <= s.max);
    QCOMPARE(progress.size(), std::size_t{5});
    QCOMPARE(progress.back(), 1.0);
}

void TestBench::cancelStops() {
    std::atomic<bool> cancel{true};
    int runs = 0;
    const Statistics s = measure([&] { ++runs; }, {}, &cancel);
    QCOMPARE(s.samples, 0);
    QCOMPARE(runs, 0);
}

void TestBench::tinyCpuRunVerifies() {
    CpuBenchRequest request;
    request.targets = {test::lookUp("fp16"), test::lookUp("fp8_e4m3"), test::lookUp("int8")};
    request.sizes = {1024};
    request.plan.budget = std::chrono::duration<double>(0.01);
    request.plan.samples = 3;
    const std::vector<CpuResult> results = runCpuConversionBench(request);
    QCOMPARE(results.size(), std::size_t{4}); // memcpy + 3 targets
    QCOMPARE(QString::fromStdString(results[0].name), QString("memcpy"));
    QCOMPARE(QString::fromStdString(results[1].path), QString("integer kernel"));
    QCOMPARE(QString::fromStdString(results[3].path),
             QString("exact core")); // int8 has no kernel yet
    for (const CpuResult& r : results) {
        QVERIFY(r.verified);
        QVERIFY(r.elementsPerSecond > 0);
    }
}

void TestBench::distributions() {
    const auto subnormal = randomInputs(1000, InputDistribution::Subnormal, 1);
    for (float v : subnormal)
        QVERIFY(std::abs(v) < 1e-37f);
    const auto withNaN = randomInputs(1000, InputDistribution::WithNaN, 1);
    QVERIFY(std::count_if(withNaN.begin(), withNaN.end(), [](float v) { return std::isnan(v); }) >
            50);
    QVERIFY(randomInputs(16, InputDistribution::Normal, 1) !=
            randomInputs(16, InputDistribution::Normal, 2));
}

QTEST_APPLESS_MAIN(TestBench)
#include "tst_bench.moc"
