// SPDX-License-Identifier: GPL-3.0-or-later
// fpx memory and fpx plot memory through the real binary: exact bytes worked by hand (70e9
// MXFP4 parameters: 35e9 bytes of 4-bit elements and 70e9 / 32 one-byte E8M0 scales; BF16
// training: 2 + 2 + 4 + 4 + 4 bytes per parameter), JSON and text agreeing, the CSV of the
// plot, and bad input with its exit status and message.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QJsonObject formatNamed(const QJsonObject& doc, const QString& id) {
    for (const auto& v : doc["formats"].toArray())
        if (v.toObject()["id"].toString() == id)
            return v.toObject();
    return {};
}

} // namespace

class TestMemoryCli : public QObject {
    Q_OBJECT

  private slots:
    void inferenceBytes() {
        const CliRun run = runFpx(
            {"memory", "--params", "70B", "--formats", "fp16,int4,mxfp4,nvfp4,nf4", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject doc = json(run);
        QCOMPARE(doc["parameters"].toInteger(), 70'000'000'000LL);
        QCOMPARE(doc["mode"].toString(), QString("inference"));
        QCOMPARE(formatNamed(doc, "fp16")["bytes"].toInteger(), 140'000'000'000LL);
        QCOMPARE(formatNamed(doc, "mxfp4")["bytes"].toInteger(), 37'187'500'000LL);
        QCOMPARE(formatNamed(doc, "nvfp4")["bytes"].toInteger(), 39'375'000'004LL);
        QCOMPARE(formatNamed(doc, "nf4")["bytes"].toInteger(), 39'375'000'000LL);
        QCOMPARE(formatNamed(doc, "int4")["bytes"].toInteger(), 35'000'000'004LL);
        QCOMPARE(formatNamed(doc, "mxfp4")["size"].toString(), QString("37.188"));
    }

    void trainingBytes() {
        const CliRun run =
            runFpx({"memory", "--params", "7B", "--formats", "bf16,fp32", "--training", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject doc = json(run);
        const QJsonObject bf16 = formatNamed(doc, "bf16");
        QCOMPARE(bf16["bytes"].toInteger(), 16 * 7'000'000'000LL);
        const QJsonArray parts = bf16["parts"].toArray();
        QCOMPARE(parts.size(), 5);
        QCOMPARE(parts[2].toObject()["name"].toString(), QString("master weights"));
        QCOMPARE(parts[2].toObject()["bytes"].toInteger(), 28'000'000'000LL);
        // FP32 weights are their own master copy: 4 + 4 + 4 + 4.
        QCOMPARE(formatNamed(doc, "fp32")["parts"].toArray().size(), 4);
        QCOMPARE(formatNamed(doc, "fp32")["bytes"].toInteger(), 16 * 7'000'000'000LL);
    }

    void textAndGib() {
        const CliRun run = runFpx({"memory", "--params", "70B", "--formats", "mxfp4", "--gib"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains("37187500000"), qPrintable(out));
        QVERIFY2(out.contains("34.63"), qPrintable(out)); // 37187500000 / 2^30
        QVERIFY(out.contains("GiB"));
    }

    void plotMemoryCsv() {
        QTemporaryDir dir;
        const QString csv = dir.filePath("memory.csv");
        const CliRun run = runFpx({"plot", "memory", "--params", "70B", "--training", "--formats",
                                   "bf16,mxfp4", "-o", csv});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.contains("bf16,70000000000,total,\"16 bits per parameter\",1120000000000"),
                 qPrintable(text));
        QVERIFY2(text.contains("mxfp4,70000000000,weights,"), qPrintable(text));
        const QString png = dir.filePath("memory.png");
        const CliRun image = runFpx({"plot", "memory", "--params", "405B", "--gib", "-o", png});
        QVERIFY2(image.exitCode == 0, qPrintable(describe(image)));
        QVERIFY(QFile(png).size() > 1000);
    }

    void badInput() {
        CliRun run = runFpx({"memory", "--params", "70X"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("unknown suffix"), run.err.constData());
        run = runFpx({"memory"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--params N is required"));
        run = runFpx({"memory", "--params", "7B", "--formats", "fp9_oops"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("fp9_oops"));
        QTemporaryDir dir;
        run = runFpx({"plot", "ulp", "--log", "-o", dir.filePath("u.png")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--log"), run.err.constData());
        run = runFpx({"plot", "memory", "--range", "1:2", "-o", dir.filePath("m.png")});
        QCOMPARE(run.exitCode, 2);
        run = runFpx({"plot", "error", "--params", "7B", "-o", dir.filePath("e.png")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("memory plot only"));
    }
};

QTEST_GUILESS_MAIN(TestMemoryCli)
#include "tst_memory_cli.moc"
