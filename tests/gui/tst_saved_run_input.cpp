// SPDX-License-Identifier: GPL-3.0-or-later
// Saved benchmark runs with hostile numbers (cases of the saved_run fuzz target):
// a count or index that no integer of its type holds is refused with a message naming the
// field, instead of being converted (undefined behaviour); counts in range load as written.
// The sums' and quantizers' rows load with their ratios; a run saved without them (version 1)
// loads as it is.
#include "pages/benchmarks/saved_run.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace fpx::gui;

namespace {

// One result with everything a saved run needs; `extra` replaces or adds fields.
QByteArray runWith(const char* extra) {
    return QByteArray(R"({"format": "fpx-bench", "results": [{"backend": "cpu", "device": "x",
        "operation": "convert", "format": "fp16", "direction": "encode", "path": "exact",
        "bytes_per_second": 1e9, "elements": 1048576, "threads": 2,
        "time": {"median": 0.001, "samples": 15}, "checked": 9007199254740992)") +
           extra + "}]}";
}

// A run as fpx bench --json writes it: two sums of one accumulator on its two workloads, a
// quantizer and the file check, with their ratios.
constexpr const char* kSumsAndQuantizers = R"json({"format": "fpx-bench", "version": 2, "results": [
    {"backend": "cpu", "device": "x", "operation": "accumulate", "format": "fp16",
     "direction": "encode", "path": "fp32 hardware", "elements": 65536, "threads": 1,
     "median_seconds": 4e-6, "bytes_per_second": 6.5e10, "elements_per_second": 1.6e10,
     "ceiling": 2.6e11, "ceiling_name": "float loop", "verified": true,
     "checked": 65536, "workload": "uniform:0:1", "reference_median_seconds": 1e-6,
     "ratio": 0.25, "goal_at_least": 0.25, "goal_at_most": 0, "passes": 0,
     "bare_ratio": 0},
    {"backend": "cpu", "device": "x", "operation": "accumulate", "format": "fp16",
     "direction": "encode", "path": "fp32 hardware", "elements": 65536, "threads": 1,
     "median_seconds": 8e-6, "bytes_per_second": 3.2e10, "ceiling": 2.6e11,
     "ceiling_name": "float loop", "workload": "normal:0:1", "ratio": 0.125,
     "goal_at_least": 0.25},
    {"backend": "cpu", "device": "x", "operation": "quantize", "format": "nvfp4",
     "path": "NV blocks (AVX2)", "elements": 65536, "threads": 2,
     "median_seconds": 1e-4, "bytes_per_second": 3.3e9, "ceiling": 1.0e10,
     "ceiling_name": "memcpy alongside, 64 Ki, 2 threads", "workload": "normal",
     "reference_median_seconds": 5e-5, "ratio": 0.33, "goal_at_least": 0.5,
     "passes": 2, "bare_ratio": 0.8125},
    {"backend": "cpu", "device": "x", "operation": "quantize-file", "format": "mxfp4",
     "path": "load + quantize", "elements": 65536, "threads": 2,
     "median_seconds": 5e-4, "bytes_per_second": 5.2e8, "ceiling": 1.3e9,
     "workload": "normal", "reference_median_seconds": 2e-4, "ratio": 2.5,
     "goal_at_most": 3}]})json";

// A run as version 1 wrote it: a copy and a conversion, none of the ratio keys.
constexpr const char* kVersion1 = R"json({"format": "fpx-bench", "version": 1, "results": [
    {"backend": "cpu", "device": "x", "operation": "copy", "format": "fp32",
     "direction": "encode", "path": "memcpy", "elements": 32768, "threads": 1,
     "median_seconds": 1e-6, "bytes_per_second": 2.6e11, "ceiling": 2.6e11,
     "ceiling_name": "memcpy, 32 Ki, 1 thread", "verified": true},
    {"backend": "cpu", "device": "x", "operation": "convert", "format": "fp16",
     "direction": "decode", "path": "F16C", "elements": 32768, "threads": 1,
     "median_seconds": 2e-6, "bytes_per_second": 9.8e10, "ceiling": 2.6e11,
     "verified": true, "checked": 32768}]})json";

constexpr const char* kUnknownOperation = R"json({"format": "fpx-bench", "results": [
    {"backend": "cpu", "operation": "sum", "format": "fp16", "bytes_per_second": 1e9}]})json";

} // namespace

class TestSavedRunInput : public QObject {
    Q_OBJECT

  private slots:
    void countsInRangeLoad() {
        const auto run = load(runWith(""));
        QVERIFY2(run.has_value(), qPrintable(error_));
        QCOMPARE(run->results.size(), std::size_t{1});
        const fpx::bench::BenchResult& r = run->results.front();
        QCOMPARE(r.elements, std::size_t{1048576});
        QCOMPARE(r.threads, 2);
        QCOMPARE(r.time.samples, 15);
        QCOMPARE(r.checked, std::uint64_t{9007199254740992}); // 2^53, exact in JSON's double
        QCOMPARE(r.deviceIndex, 0);
    }

    void countsOutOfRangeAreRefused_data() {
        QTest::addColumn<QByteArray>("extra");
        QTest::addColumn<QString>("field");
        QTest::newRow("device index 1e300")
            << QByteArray(R"(, "device_index": 1e300)") << QStringLiteral("device_index");
        QTest::newRow("negative elements")
            << QByteArray(R"(, "elements": -5)") << QStringLiteral("elements");
        QTest::newRow("threads NaN as text")
            << QByteArray(R"(, "threads": "nan")") << QStringLiteral("threads");
        QTest::newRow("threads 2^31")
            << QByteArray(R"(, "threads": 2147483648)") << QStringLiteral("threads");
        QTest::newRow("samples -1e30")
            << QByteArray(R"(, "samples": -1e30)") << QStringLiteral("samples");
        QTest::newRow("checked 2^64")
            << QByteArray(R"(, "checked": 18446744073709551616)") << QStringLiteral("checked");
        QTest::newRow("mismatches inf as text")
            << QByteArray(R"(, "mismatches": "inf")") << QStringLiteral("mismatches");
        QTest::newRow("passes 2^31")
            << QByteArray(R"(, "passes": 2147483648)") << QStringLiteral("passes");
        QTest::newRow("negative ratio")
            << QByteArray(R"(, "ratio": -0.5)") << QStringLiteral("ratio");
        QTest::newRow("bare ratio NaN as text")
            << QByteArray(R"(, "bare_ratio": "nan")") << QStringLiteral("bare_ratio");
        QTest::newRow("goal inf as text")
            << QByteArray(R"(, "goal_at_most": "inf")") << QStringLiteral("goal_at_most");
    }
    void countsOutOfRangeAreRefused() {
        QFETCH(QByteArray, extra);
        QFETCH(QString, field);
        const auto run = load(runWith(extra.constData()));
        QVERIFY(!run.has_value());
        QVERIFY2(error_.contains("result 1: \"" + field + "\""), qPrintable(error_));
    }

    void sumsAndQuantizersLoad() {
        const auto run = load(kSumsAndQuantizers);
        QVERIFY2(run.has_value(), qPrintable(error_));
        QCOMPARE(run->results.size(), std::size_t{4});
        const fpx::bench::BenchResult& sum = run->results[0];
        QCOMPARE(sum.operation, fpx::bench::Operation::Accumulate);
        QCOMPARE(sum.workload, std::string("uniform:0:1"));
        QCOMPARE(sum.ratio, 0.25);
        QCOMPARE(sum.goalAtLeast, 0.25);
        QCOMPARE(sum.referenceSeconds, 1e-6);
        QCOMPARE(sum.ceilingName, std::string("float loop"));
        QVERIFY(sum.verified);
        // One accumulator on two workloads: two measurements, two keys.
        QCOMPARE(run->results[1].workload, std::string("normal:0:1"));
        QVERIFY(resultKey(run->results[0]) != resultKey(run->results[1]));
        QVERIFY(resultKey(run->results[0], false) != resultKey(run->results[1], false));
        const fpx::bench::BenchResult& quantizer = run->results[2];
        QCOMPARE(quantizer.operation, fpx::bench::Operation::Quantize);
        QCOMPARE(quantizer.passes, 2);
        QCOMPARE(quantizer.bareRatio, 0.8125);
        QCOMPARE(quantizer.goalAtLeast, 0.5);
        QCOMPARE(quantizer.threads, 2);
        const fpx::bench::BenchResult& file = run->results[3];
        QCOMPARE(file.operation, fpx::bench::Operation::QuantizeFile);
        QCOMPARE(file.ratio, 2.5);
        QCOMPARE(file.goalAtMost, 3.0);
        QCOMPARE(file.goalAtLeast, 0.0);
        QCOMPARE(file.referenceSeconds, 2e-4);
    }

    void runWithoutRatiosLoads() {
        const auto run = load(kVersion1);
        QVERIFY2(run.has_value(), qPrintable(error_));
        QCOMPARE(run->results.size(), std::size_t{2});
        for (const fpx::bench::BenchResult& r : run->results) {
            QVERIFY(r.workload.empty());
            QCOMPARE(r.ratio, 0.0);
            QCOMPARE(r.goalAtLeast, 0.0);
            QCOMPARE(r.goalAtMost, 0.0);
            QCOMPARE(r.passes, 0);
            QCOMPARE(r.bareRatio, 0.0);
            QCOMPARE(r.referenceSeconds, 0.0);
        }
        QCOMPARE(run->results[1].direction, fpx::bench::Direction::Decode);
        // An operation fpx does not know is still refused, naming it.
        QVERIFY(!load(kUnknownOperation));
        QVERIFY2(error_.contains("unknown operation \"sum\""), qPrintable(error_));
    }

  private:
    std::optional<SavedRun> load(const QByteArray& json) {
        QFile file(dir_.filePath("run.json"));
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            qFatal("cannot write %s", qPrintable(file.fileName()));
        file.write(json);
        file.close();
        error_.clear();
        return loadSavedRun(file.fileName(), &error_);
    }

    QTemporaryDir dir_;
    QString error_;
};

QTEST_GUILESS_MAIN(TestSavedRunInput)
#include "tst_saved_run_input.moc"
