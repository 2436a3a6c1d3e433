// SPDX-License-Identifier: GPL-3.0-or-later
// fpx loss-scale and fpx fp8-scaling through the real binary: the GradScaler traces
// (FP16, amax 1, scale 2^16: overflow at step 0; growth after exactly 2000 clean steps), trace
// files and their errors with line and column, static scaling, the CSV form, per-step flushed
// fractions; FP8 recipes from files and from a distribution, checked against scales worked
// here by hand ((448 / amax) / 2^margin) and a delayed history replayed here; bad input with
// its exit status and message.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(text);
    return path;
}

QStringList strings(const QJsonArray& array) {
    QStringList list;
    for (const auto& v : array)
        list << v.toString();
    return list;
}

QList<int> integers(const QJsonArray& array) {
    QList<int> list;
    for (const auto& v : array)
        list << v.toInt();
    return list;
}

} // namespace

class TestTrainingCli : public QObject {
    Q_OBJECT

  private slots:
    void overflowAtTheFirstStep() {
        const CliRun run = runFpx(
            {"loss-scale", "--steps", "3", "--amax", "constant:1", "--format", "fp16", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject doc = json(run);
        QCOMPARE(doc["steps"].toInt(), 3);
        QCOMPARE(integers(doc["skipped"].toArray()), QList<int>{0});
        QCOMPARE(strings(doc["scales"].toArray()), (QStringList{"65536", "32768", "32768"}));
        QCOMPARE(doc["options"].toObject()["growth_interval"].toInt(), 2000);
        QCOMPARE(doc["options"].toObject()["init_scale"].toString(), QString("65536"));
        QVERIFY(!doc.contains("flushed"));
    }

    void growthAfterExactly2000CleanSteps() {
        const CliRun run =
            runFpx({"loss-scale", "--steps", "2003", "--amax", "constant:1", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QStringList scales = strings(json(run)["scales"].toArray());
        QCOMPARE(scales.size(), 2003);
        QCOMPARE(scales[2000], QString("32768")); // 2000 clean steps: 1 … 2000
        QCOMPARE(scales[2001], QString("65536"));
        QCOMPARE(integers(json(run)["skipped"].toArray()), (QList<int>{0, 2001}));

        const CliRun text = runFpx({"loss-scale", "--steps", "2003", "--amax", "constant:1"});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("overflowed 2, skipped 2"), text.out.constData());
        QVERIFY2(text.out.contains("2001"), text.out.constData());
    }

    void traceFileAndOptions() {
        QTemporaryDir dir;
        const QString trace =
            writeFile(dir, "amax.csv", "step,amax\n0,0.5\n1,0.5\n2,inf\n3,0.5\n4,nan\n5,0.5\n");
        const CliRun run =
            runFpx({"loss-scale", "--amax-trace", trace, "--init", "1024", "--interval", "2",
                    "--growth-factor", "4", "--backoff", "0.25", "--csv"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QStringList lines = QString::fromUtf8(run.out).trimmed().split('\n');
        QCOMPARE(lines[0], QString("step,amax,scale,overflow,skipped"));
        // 1024, 1024 → grows ×4 after 2 clean steps: 4096 at step 2, which overflows (inf):
        // 1024 at step 3, then nan: 256, then 256.
        QCOMPARE(lines.size(), 7);
        QCOMPARE(lines[1], QString("0,0.5,1024,0,0"));
        QCOMPARE(lines[2], QString("1,0.5,1024,0,0"));
        QCOMPARE(lines[3], QString("2,inf,4096,1,1"));
        QCOMPARE(lines[4], QString("3,0.5,1024,0,0"));
        QCOMPARE(lines[5], QString("4,nan,1024,1,1"));
        QCOMPARE(lines[6], QString("5,0.5,256,0,0"));
    }

    void staticScaling() {
        const CliRun run = runFpx({"loss-scale", "--steps", "4", "--amax",
                                   "constant:1,spike-at:2:1000", "--static", "2^10", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject doc = json(run);
        QCOMPARE(strings(doc["scales"].toArray()), (QStringList{"1024", "1024", "1024", "1024"}));
        QVERIFY(doc["skipped"].toArray().isEmpty());
        QCOMPARE(integers(doc["overflow"].toArray()), QList<int>{2});
        QCOMPARE(doc["options"].toObject()["mode"].toString(), QString("static"));
    }

    void flushedFractions() {
        // BF16 beside FP16 with tiny gradients and no loss scale: FP16 flushes many, BF16
        // (FP32's range) none.
        const QStringList common{"loss-scale",    "--steps",  "3",    "--amax",
                                 "constant:1e-6", "--static", "1",    "--dist",
                                 "normal:0:1",    "--count",  "2000", "--json"};
        const CliRun fp16 = runFpx(common + QStringList{"--format", "fp16"});
        const CliRun bf16 = runFpx(common + QStringList{"--format", "bf16"});
        QVERIFY2(fp16.exitCode == 0, qPrintable(describe(fp16)));
        QVERIFY2(bf16.exitCode == 0, qPrintable(describe(bf16)));
        const QJsonArray flushed16 = json(fp16)["flushed"].toArray();
        const QJsonArray flushedBf = json(bf16)["flushed"].toArray();
        QCOMPARE(flushed16.size(), 3);
        for (int t = 0; t < 3; ++t) {
            // |g| ≤ 2^−25 flushes in FP16: with amax 10^−6 that is |d| ≤ 0.0298·max|d|, about
            // |d| < 0.1 for 2000 normal draws, some 8 % of them.
            QVERIFY2(flushed16[t].toDouble() > 0.03 && flushed16[t].toDouble() < 0.15,
                     qPrintable(QString::number(flushed16[t].toDouble())));
            QCOMPARE(flushedBf[t].toDouble(), 0.0);
        }
        QCOMPARE(json(fp16)["subnormal"].toArray().size(), 3);
    }

    void lossScaleErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message");
        QTest::newRow("no source") << QStringList{"--format", "fp16"} << 2
                                   << "give --amax-trace FILE, or --steps N with --amax SPEC";
        QTest::newRow("both") << QStringList{"--amax-trace", "x", "--steps", "3"} << 2
                              << "give --amax-trace FILE";
        QTest::newRow("amax spec") << QStringList{"--steps", "3", "--amax", "geometric:1:x"} << 2
                                   << "--amax: geometric:1:x: END 'x' is not a number";
        QTest::newRow("steps") << QStringList{"--steps", "0", "--amax", "constant:1"} << 2
                               << "--steps: expected a count";
        QTest::newRow("format") << QStringList{"--steps",    "3",        "--amax",
                                               "constant:1", "--format", "fp17"}
                                << 2 << "--format";
        QTest::newRow("static with init")
            << QStringList{"--steps", "3", "--amax", "constant:1", "--static", "8", "--init", "4"}
            << 2 << "--init is a dynamic scaler's option";
        QTest::newRow("growth") << QStringList{"--steps",         "3",  "--amax", "constant:1",
                                               "--growth-factor", "0.5"}
                                << 2 << "--growth-factor must be above 1";
        QTest::newRow("backoff") << QStringList{"--steps",    "3",         "--amax",
                                                "constant:1", "--backoff", "2"}
                                 << 2 << "--backoff must be below 1";
        QTest::newRow("init range")
            << QStringList{"--steps", "3", "--amax", "constant:1", "--init", "1e39"} << 2
            << "--init: '1e39' is outside FP32's range";
        QTest::newRow("count alone")
            << QStringList{"--steps", "3", "--amax", "constant:1", "--count", "5"} << 2
            << "--count goes with --dist";
        QTest::newRow("dist") << QStringList{"--steps",    "3",      "--amax",
                                             "constant:1", "--dist", "normal:0"}
                              << 2 << "--dist:";
        QTest::newRow("json and csv")
            << QStringList{"--steps", "3", "--amax", "constant:1", "--json", "--csv"} << 2
            << "choose one of --json and --csv";
    }
    void lossScaleErrors() {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        QFETCH(QString, message);
        const CliRun run = runFpx(QStringList{"loss-scale"} + args);
        QCOMPARE(run.exitCode, status);
        QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(describe(run)));
        QVERIFY(run.out.isEmpty());
    }

    void traceFileErrors() {
        QTemporaryDir dir;
        const QString bad = writeFile(dir, "bad.txt", "1\n2\n  abc\n");
        const CliRun run = runFpx({"loss-scale", "--amax-trace", bad});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains((bad + ":3:3: 'abc' is not a number").toUtf8()),
                 qPrintable(describe(run)));
        const CliRun missing = runFpx({"loss-scale", "--amax-trace", dir.filePath("none.txt")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains("cannot open"), qPrintable(describe(missing)));
    }

    void fp8FromFiles() {
        // Three tensors with amax 2, 4 and 1: current scaling gives 448/2, 448/4, 448; delayed
        // (max of the previous steps, 1 at the first) 1, 224, 224; margin 1 halves them.
        QTemporaryDir dir;
        const QString a = writeFile(dir, "a.txt", "2\n-1\n0.5\n0\n");
        const QString b = writeFile(dir, "b.txt", "-4\n1\n3\n");
        const QString c = writeFile(dir, "c.txt", "1\n0.25\n-0.125\n");
        const CliRun run = runFpx({"fp8-scaling", "--inputs", a + "," + b + "," + c, "--recipe",
                                   "current,delayed:2:max,delayed:2:most_recent", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject doc = json(run);
        QCOMPARE(doc["format"].toString(), QString("fp8_e4m3"));
        QCOMPARE(doc["overflow"].toString(), QString("saturate"));
        const QJsonArray results = doc["results"].toArray();
        QCOMPARE(results.size(), 3);
        auto scales = [&](int r) {
            QStringList list;
            for (const auto& step : results[r].toObject()["steps"].toArray())
                list << step.toObject()["scale"].toString();
            return list;
        };
        QCOMPARE(scales(0), (QStringList{"224", "112", "448"}));
        QCOMPARE(scales(1), (QStringList{"1", "224", "112"}));
        QCOMPARE(scales(2), (QStringList{"1", "224", "112"}));
        // Step 1 of the delayed recipes: 4·224 = 896 > 464 overflows, 3·224 = 672 too.
        const QJsonObject delayedStep1 = results[1].toObject()["steps"].toArray()[1].toObject();
        QCOMPARE(delayedStep1["overflow_fraction"].toDouble(), 2.0 / 3.0);
        QCOMPARE(delayedStep1["amax_used"].toDouble(), 2.0);
        QCOMPARE(delayedStep1["amax"].toDouble(), 4.0);
        // The exact cast of current scaling at step 0: 2·224 = 448, 0.5·224 = 112: no error.
        const QJsonObject currentStep0 = results[0].toObject()["steps"].toArray()[0].toObject();
        QCOMPARE(currentStep0["sqnr_db"].toString(), QString("inf"));

        const CliRun margin = runFpx({"fp8-scaling", "--inputs", a + "," + b, "--recipe", "current",
                                      "--margin", "1", "--csv"});
        QVERIFY2(margin.exitCode == 0, qPrintable(describe(margin)));
        const QStringList lines = QString::fromUtf8(margin.out).trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[1].startsWith("current,0,2,2,112,0,0,"), qPrintable(lines[1]));
        QVERIFY2(lines[2].startsWith("current,1,4,4,56,0,0,"), qPrintable(lines[2]));
    }

    void fp8FromADistribution() {
        const CliRun run =
            runFpx({"fp8-scaling", "--steps", "12", "--dist", "normal:0:1", "--count", "4096",
                    "--drift", "geometric:1:1000", "--recipe", "current,delayed:4:max", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonArray results = json(run)["results"].toArray();
        const QJsonArray current = results[0].toObject()["steps"].toArray();
        const QJsonArray delayed = results[1].toObject()["steps"].toArray();
        QCOMPARE(current.size(), 12);
        std::vector<double> amaxes;
        for (int t = 0; t < 12; ++t) {
            const QJsonObject c = current[t].toObject();
            const QJsonObject d = delayed[t].toObject();
            // Current scaling: amax·scale ≈ 448 (FP32 rounding), nothing overflows.
            const double amax = c["amax"].toDouble();
            QVERIFY(std::fabs(amax * c["scale"].toString().toDouble() / 448 - 1) < 1e-6);
            QCOMPARE(c["overflow_fraction"].toDouble(), 0.0);
            // Delayed: the same tensors, the amax of the previous steps; a growing drift
            // means every step after the first sees an amax larger than its history's.
            QCOMPARE(d["amax"].toDouble(), amax);
            double windowMax = 0; // the previous 4 steps' amaxes (none at step 0)
            for (int back = 1; back <= 4 && back <= t; ++back)
                windowMax = std::max(windowMax, amaxes[std::size_t(t - back)]);
            QCOMPARE(d["amax_used"].toDouble(), windowMax);
            if (t > 0)
                QVERIFY(d["overflow_fraction"].toDouble() > 0);
            amaxes.push_back(amax);
        }

        const CliRun text = runFpx({"fp8-scaling", "--steps", "3", "--dist", "laplace:1", "--count",
                                    "1000", "--recipe", "current", "--format", "fp8_e5m2"});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("FP8 scaling into fp8_e5m2"), text.out.constData());
        QVERIFY2(text.out.contains("[1] current"), text.out.constData());
    }

    void fp8Errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message");
        QTest::newRow("no source")
            << QStringList{"--recipe", "current"} << 2 << "give --inputs FILES, or --steps N";
        QTest::newRow("no recipe")
            << QStringList{"--steps", "2", "--dist", "normal:0:1", "--count", "10"} << 2
            << "--recipe R,... is required";
        QTest::newRow("recipe") << QStringList{"--steps", "2",  "--dist",   "normal:0:1",
                                               "--count", "10", "--recipe", "current,delayed:4:min"}
                                << 2 << "--recipe: 'delayed:4:min': the history rule";
        QTest::newRow("count") << QStringList{"--steps",    "2",        "--dist",
                                              "normal:0:1", "--recipe", "current"}
                               << 2 << "--count N is required with --dist";
        QTest::newRow("drift") << QStringList{"--steps",  "2",      "--dist",  "normal:0:1",
                                              "--count",  "10",     "--drift", "linear:1",
                                              "--recipe", "current"}
                               << 2 << "--drift: 'linear:1'";
        QTest::newRow("margin") << QStringList{"--steps",  "2",  "--dist",   "normal:0:1",
                                               "--count",  "10", "--recipe", "current",
                                               "--margin", "-1"}
                                << 2 << "--margin: expected an integer";
        QTest::newRow("format") << QStringList{"--steps",  "2",   "--dist",   "normal:0:1",
                                               "--count",  "10",  "--recipe", "current",
                                               "--format", "int8"}
                                << 2 << "is not a signed float format";
        QTest::newRow("steps with inputs")
            << QStringList{"--inputs", "a.txt", "--steps", "2", "--recipe", "current"} << 2
            << "--steps goes with --dist";
        QTest::newRow("missing file")
            << QStringList{"--inputs", "/nonexistent/a.npy", "--recipe", "current"} << 1
            << "/nonexistent/a.npy";
    }
    void fp8Errors() {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        QFETCH(QString, message);
        const CliRun run = runFpx(QStringList{"fp8-scaling"} + args);
        QCOMPARE(run.exitCode, status);
        QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(describe(run)));
        QVERIFY(run.out.isEmpty());
    }

    void helpAndUsage() {
        for (const char* command : {"loss-scale", "fp8-scaling"}) {
            const CliRun help = runFpx({command, "--help"});
            QCOMPARE(help.exitCode, 0);
            QVERIFY(help.out.contains(QByteArray("usage: fpx ") + command));
        }
        const CliRun top = runFpx({"--help"});
        QVERIFY(top.out.contains("fpx loss-scale") && top.out.contains("fpx fp8-scaling"));
    }
};

QTEST_GUILESS_MAIN(TestTrainingCli)
#include "tst_training_cli.moc"
