// SPDX-License-Identifier: GPL-3.0-or-later
// fpx bench --preset class through the real binary: what it measures (the four conversions,
// encode only, 32 Ki elements, one thread, no sums or quantizers), that its text shows each
// conversion once by the fastest bit-exact path of the JSON's rows, named as a class reads it,
// and the options a preset fixes refused.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::runFpx;

class TestBenchClassCli : public QObject {
    Q_OBJECT

  private slots:
    void classRun() {
        QTemporaryDir dir;
        const QString path = dir.filePath("class.json");
        const CliRun run = runFpx({"bench", "--preset", "class", "--json", path});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(file.readAll())["results"].toArray();
        // The fastest verified path of each format, from the rows (bare loops are references).
        QMap<QString, QPair<double, QString>> fastest;
        for (const auto& value : rows) {
            const QJsonObject row = value.toObject();
            const QString operation = row["operation"].toString();
            QVERIFY2(operation == "convert" || operation == "copy", qPrintable(operation));
            QCOMPARE(row["elements"].toInteger(), 32 * 1024);
            QCOMPARE(row["threads"].toInt(), 1);
            if (operation != "convert")
                continue;
            QCOMPARE(row["direction"].toString(), QString("encode"));
            const QString path = row["path"].toString();
            if (!row["verified"].toBool() || path.contains("bare loop"))
                continue;
            const double speed = row["bytes_per_second"].toDouble();
            auto& best = fastest[row["format"].toString()];
            if (speed > best.first)
                best = {speed, path};
        }
        QCOMPARE(fastest.keys(), QStringList({"bf16", "fp16", "fp4_e2m1", "fp8_e4m3"}));
        const QString out = QString::fromUtf8(run.out);
        const QMap<QString, QString> names = {
            {"bf16", "BF16"}, {"fp16", "FP16"}, {"fp4_e2m1", "FP4 E2M1"}, {"fp8_e4m3", "FP8 E4M3"}};
        for (auto it = fastest.begin(); it != fastest.end(); ++it) {
            // "bit trick (AVX-512)" is shown as "AVX-512", "F16C vcvtps2ph" as "F16C".
            const QString path = it.value().second;
            const QRegularExpression bracket("\\(([^)]+)\\)$");
            const QRegularExpressionMatch m = bracket.match(path);
            const QString isa = m.hasMatch() ? m.captured(1) : path.section(' ', 0, 0);
            const QString line = "FP32 → " + names[it.key()] + ", " + isa + " ";
            QVERIFY2(out.count(line) == 1, qPrintable(line + "\n" + out));
        }
        QVERIFY2(out.contains("FP32 copy (memcpy)"), qPrintable(out));
        QCOMPARE(out.count("FP32 → "), 4);
    }

    void presetFixesWhatIsMeasured() {
        CliRun run = runFpx({"bench", "--preset", "class", "--formats", "bf16"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--preset class fixes"), run.err.constData());
        run = runFpx({"bench", "--preset", "lecture"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("full or class"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestBenchClassCli)
#include "tst_bench_class_cli.moc"
