// SPDX-License-Identifier: GPL-3.0-or-later
// Saved benchmark runs with hostile numbers (cases of the saved_run fuzz target):
// a count or index that no integer of its type holds is refused with a message naming the
// field, instead of being converted (undefined behaviour); counts in range load as written.
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
    }
    void countsOutOfRangeAreRefused() {
        QFETCH(QByteArray, extra);
        QFETCH(QString, field);
        const auto run = load(runWith(extra.constData()));
        QVERIFY(!run.has_value());
        QVERIFY2(error_.contains("result 1: \"" + field + "\""), qPrintable(error_));
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
