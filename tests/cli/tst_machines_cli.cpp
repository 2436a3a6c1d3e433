// SPDX-License-Identifier: GPL-3.0-or-later
// fpx gemm and fpx dot --machine on AMD's and Blackwell's block-scaled instructions, as a user
// runs them (docs/behaviour.md, "Machines"): error growing with K on Hopper's FP8 and
// promotion bounding it, the forms of the report, block formats quantized on the way in, and
// every bad command line refused with its reason.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

class TestMachinesCli : public QObject {
    Q_OBJECT

  private slots:
    void gemmShowsHopperFp8ErrorGrowingAndPromotionBoundingIt();
    void gemmCsvAndText();
    void gemmErrors_data();
    void gemmErrors();
    void dotOnBlockScaledAndAmdInstructions();
    void machinesOfOnesOwn();
};

namespace {

// The mean relative error of one row of `fpx gemm --json`.
double meanError(const QJsonArray& rows, const QString& machine, int k, int promote) {
    for (const QJsonValue& row : rows) {
        const QJsonObject r = row.toObject();
        const int every = r["promote"].isNull() ? 0 : r["promote"].toInt();
        if (r["machine"].toString() == machine && r["k"].toInt() == k && every == promote)
            return r["mean_rel_error"].toDouble();
    }
    return -1;
}

} // namespace

void TestMachinesCli::gemmShowsHopperFp8ErrorGrowingAndPromotionBoundingIt() {
    const CliRun run =
        runFpx({"gemm", "--machine", "nvidia-hopper,nvidia-blackwell", "--element", "fp8_e4m3",
                "--k", "32,4096", "--promote", "128", "--m", "4", "--n", "4", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject r = json(run);
    const QJsonArray rows = r["rows"].toArray();
    QCOMPARE(rows.size(), 8); // 2 machines × (none, 128) × 2 K
    QCOMPARE(r["element"].toString(), QString("fp8_e4m3"));
    QCOMPARE(rows[0].toObject()["results"].toInt(), 16);
    const double short32 = meanError(rows, "nvidia-hopper", 32, 0);
    const double long4096 = meanError(rows, "nvidia-hopper", 4096, 0);
    const double promoted = meanError(rows, "nvidia-hopper", 4096, 128);
    QVERIFY2(long4096 > 4 * short32, qPrintable(QString("%1 %2").arg(short32).arg(long4096)));
    QVERIFY2(promoted < long4096 / 4, qPrintable(QString("%1 %2").arg(promoted).arg(long4096)));
    // Blackwell's FP8 keeps 25 bits: far below Hopper's at every K.
    QVERIFY(meanError(rows, "nvidia-blackwell", 4096, 0) < long4096 / 100);
}

void TestMachinesCli::gemmCsvAndText() {
    const QStringList args{"gemm", "--machine", "amd-cdna3", "--element", "bf16", "--k",
                           "8,64", "--m",       "2",         "--n",       "3"};
    CliRun run = runFpx(args + QStringList{"--csv"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QList<QByteArray> lines = run.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], QByteArray("machine,element,promote,k,results,compared,max_rel_error,"
                                  "mean_rel_error,off_by_ulp,off_by_ulp_share,non_finite"));
    QVERIFY2(lines[1].startsWith("amd-cdna3,bf16,,8,6,"), lines[1].constData());
    run = runFpx(args);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("A 2×K and B K×3 from normal:0:1") && run.out.contains("amd-cdna3"),
             run.out.constData());
    // Block formats are drawn, quantized and compared with their dequantized product.
    run = runFpx({"gemm", "--machine", "nvidia-blackwell", "--element", "mxfp4", "--k", "64", "--m",
                  "2", "--n", "2", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["rows"].toArray().size(), 1);
}

void TestMachinesCli::gemmErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no machine") << QStringList{"--k", "16"} << "--machine is required";
    QTest::newRow("unknown machine")
        << QStringList{"--machine", "nvidia-x"} << "--machine: unknown machine 'nvidia-x'";
    QTest::newRow("element not taken")
        << QStringList{"--machine", "nvidia-volta", "--element", "bf16"}
        << "--element bf16: nvidia-volta has no instruction for it";
    QTest::newRow("promotion not a multiple")
        << QStringList{"--machine", "nvidia-hopper", "--element", "fp8_e4m3", "--promote", "48"}
        << "--promote 48: not a multiple of the 32 products";
    QTest::newRow("bad k") << QStringList{"--machine", "nvidia-hopper", "--k", "16,x"}
                           << "--k: expected counts from 1 to 65536";
    QTest::newRow("bad side") << QStringList{"--machine", "nvidia-hopper", "--m", "1000"}
                              << "--m: expected 1 to 256";
    QTest::newRow("bad dist") << QStringList{"--machine", "nvidia-hopper", "--dist", "normal:0"}
                              << "--dist:";
    QTest::newRow("too much work")
        << QStringList{"--machine", "nvidia-hopper,nvidia-ada,nvidia-ampere",
                       "--m",       "256",
                       "--n",       "256",
                       "--k",       "65536"}
        << "every product goes through the exact core";
    QTest::newRow("both forms") << QStringList{"--machine", "nvidia-hopper", "--json", "--csv"}
                                << "choose one of --json and --csv";
}

void TestMachinesCli::gemmErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CliRun run = runFpx(QStringList{"gemm"} + args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(QString::fromUtf8(run.err).contains(message), qPrintable(describe(run)));
}

void TestMachinesCli::dotOnBlockScaledAndAmdInstructions() {
    // MXFP4 on Blackwell: 1, 2, 3 and 4 share one E8M0 scale (amax 4 over E2M1's 6: 2^0 by
    // the floor rule), so the dequantized values are the inputs and the exact product 30 is
    // what the instruction gives.
    CliRun run = runFpx({"dot", "--machine", "nvidia-blackwell", "--element", "mxfp4", "--a",
                         "1,2,3,4", "--b", "1,2,3,4", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QJsonObject r = json(run);
    QCOMPARE(r["value"].toString(), QString("30"));
    QCOMPARE(r["dequantized_exact"].toString(), QString("30"));
    QCOMPARE(r["element"].toString(), QString("mxfp4"));
    // 5 is no E2M1 value: it is quantized to 4 or 6, and the error says so against the input.
    run = runFpx({"dot", "--machine", "nvidia-blackwell", "--element", "mxfp4", "--a", "5", "--b",
                  "1", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY(json(run)["value"].toString() != QString("5"));
    QCOMPARE(json(run)["exact"].toString(), QString("5"));
    // CDNA3's two-stage FP8 adder: 1 − 2^-26 comes out as 1 − 2^-24 (docs/behaviour.md).
    run = runFpx({"dot", "--machine", "amd-cdna3", "--element", "fp8_e5m2fnuz", "--a", "1,2^-13",
                  "--b", "1,-2^-13", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("0.999999940395355224609375"));
    // A block format on a machine without block-scaled instructions.
    run =
        runFpx({"dot", "--machine", "nvidia-hopper", "--element", "nvfp4", "--a", "1", "--b", "1"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("nvidia-hopper has no instruction for nvfp4"),
             qPrintable(describe(run)));
}

void TestMachinesCli::machinesOfOnesOwn() {
    // The catalogue as a machine file, renamed, is read back as machines of one's own, and
    // each computes as the built-in it copies.
    CliRun run = runFpx({"machines", "--file"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QByteArray text = run.out;
    text.replace("\nmachine ", "\nmachine my-");
    QTemporaryDir dir;
    const QString path = dir.filePath("mine.machines");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
    file.close();
    run = runFpx({"machines", "--machines", path, "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonArray machines = json(run)["machines"].toArray();
    QCOMPARE(machines[0].toObject()["name"].toString(), QString("my-nvidia-volta"));
    const QStringList vectors{"--element", "fp8_e4m3",       "--a",   "16,0.125,0.125",
                              "--b",       "16,0.125,0.125", "--json"};
    run = runFpx(QStringList{"dot", "--machines", path, "--machine", "my-nvidia-hopper"} + vectors);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("256"));
    QCOMPARE(json(run)["machine"].toString(), QString("my-nvidia-hopper"));
    run = runFpx({"gemm", "--machines", path, "--machine", "my-amd-cdna2,amd-cdna2", "--k", "64",
                  "--m", "3", "--n", "3", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonArray rows = json(run)["rows"].toArray();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].toObject()["mean_rel_error"], rows[1].toObject()["mean_rel_error"]);
    // A bad file: its line and column, exit 1, nothing on stdout.
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("machine mine\ninstruction fp16 products=4 fraction-bits=300\n");
    file.close();
    run = runFpx(QStringList{"dot", "--machines", path, "--machine", "mine"} + vectors);
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(
        run.err.contains((path + ":2:43: fraction-bits: expected 1 to 200, got '300'").toUtf8()),
        qPrintable(describe(run)));
}

QTEST_GUILESS_MAIN(TestMachinesCli)
#include "tst_machines_cli.moc"
