// SPDX-License-Identifier: GPL-3.0-or-later
// fpx memory and fpx plot memory through the real binary: exact bytes worked by hand (70e9
// MXFP4 parameters: 35e9 bytes of 4-bit elements and 70e9 / 32 one-byte E8M0 scales; training
// recipes: BF16 mixed 2 + 2 + 4 + 4 + 4 bytes per parameter, FP8 the same plus a 1-byte copy
// and a 4-byte scale, QLoRA nf4_dq's bytes plus 12 per adapter parameter), JSON and text
// agreeing, the CSV of the plot, and bad input with its exit status and message.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QJsonObject formatNamed(const QJsonObject& doc, const QString& id) {
    const char* key = doc["mode"].toString() == "training" ? "recipes" : "formats";
    for (const auto& v : doc[key].toArray())
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
        const CliRun run = runFpx({"memory", "--params", "7B", "--recipe", "training", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject doc = json(run);
        QCOMPARE(doc["mode"].toString(), QString("training"));
        QCOMPARE(doc["recipes"].toArray().size(), 3);
        // BF16 mixed: 7e9 × 16.
        const QJsonObject bf16 = formatNamed(doc, "bf16-mixed");
        QCOMPARE(bf16["bytes"].toInteger(), 112'000'000'000LL);
        const QJsonArray parts = bf16["parts"].toArray();
        QCOMPARE(parts.size(), 5);
        QCOMPARE(parts[1].toObject()["name"].toString(), QString("gradients"));
        QCOMPARE(parts[1].toObject()["format"].toString(), QString("BF16"));
        QCOMPARE(parts[2].toObject()["name"].toString(), QString("master weights"));
        QCOMPARE(parts[2].toObject()["bytes"].toInteger(), 28'000'000'000LL);
        // FP8: 7e9 × 17 + one FP32 scale.
        QCOMPARE(formatNamed(doc, "fp8")["bytes"].toInteger(), 119'000'000'004LL);
        // QLoRA: 3.5e9 NF4 bytes + 109,375,000 absmax codes + 427,247 × 4 group scales + a
        // 4-byte offset, and 0.5 % × 7e9 = 35e6 adapter parameters at 12 bytes.
        QCOMPARE(doc["adapter_parameters"].toInteger(), 35'000'000LL);
        QCOMPARE(formatNamed(doc, "qlora")["bytes"].toInteger(),
                 3'500'000'000LL + 109'375'000LL + 427'247LL * 4 + 4 + 420'000'000LL);
        // --training is --recipe bf16-mixed.
        const CliRun alias =
            runFpx({"memory", "--params", "70B", "--training", "--adapter-params", "1%", "--json"});
        QCOMPARE(alias.exitCode, 2); // adapters without QLoRA
        const CliRun bf16Only = runFpx({"memory", "--params", "70B", "--training", "--json"});
        QVERIFY2(bf16Only.exitCode == 0, qPrintable(describe(bf16Only)));
        const QJsonObject one = json(bf16Only);
        QCOMPARE(one["recipes"].toArray().size(), 1);
        QCOMPARE(formatNamed(one, "bf16-mixed")["bytes"].toInteger(), 1'120'000'000'000LL);
    }

    void trainingText() {
        const CliRun run =
            runFpx({"memory", "--params", "7B", "--recipe", "qlora", "--adapter-params", "40M"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains("40000000 parameters"), qPrintable(out));
        // 40e6 adapter parameters: 80e6 bytes of BF16 adapters and as many of gradients.
        QVERIFY2(out.contains(QRegularExpression("adapter gradients +BF16 +0\\.08 +80000000")),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression("frozen weights +NF4 ")), qPrintable(out));
        QVERIFY2(!out.contains(QRegularExpression("\\bgradients +NF4")), qPrintable(out));
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
        const CliRun run =
            runFpx({"plot", "memory", "--params", "70B", "--formats", "bf16,mxfp4", "-o", csv});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.contains("bf16,70000000000,total,\"16 bits per parameter\",140000000000"),
                 qPrintable(text));
        QVERIFY2(text.contains("mxfp4,70000000000,weights,"), qPrintable(text));
        const QString recipes = dir.filePath("recipes.csv");
        const CliRun training =
            runFpx({"plot", "memory", "--params", "70B", "--recipe", "training", "-o", recipes});
        QVERIFY2(training.exitCode == 0, qPrintable(describe(training)));
        QFile recipeFile(recipes);
        QVERIFY(recipeFile.open(QIODevice::ReadOnly));
        const QString rows = QString::fromUtf8(recipeFile.readAll());
        QVERIFY2(rows.startsWith("recipe,parameters,part,"), qPrintable(rows));
        QVERIFY2(rows.contains("bf16-mixed,70000000000,gradients,\"BF16\",140000000000"),
                 qPrintable(rows));
        QVERIFY2(rows.contains("fp8,70000000000,FP8 weight copy,"), qPrintable(rows));
        QVERIFY2(rows.contains("qlora,70000000000,adapter gradients,\"BF16\",700000000"),
                 qPrintable(rows));
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
        run = runFpx({"memory", "--params", "7B", "--recipe", "fp4"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("unknown recipe 'fp4'"), run.err.constData());
        // A recipe fixes its formats: gradients are never "stored in" a format given here.
        run = runFpx({"memory", "--params", "7B", "--recipe", "bf16-mixed", "--formats", "mxfp4"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--formats is for inference"), run.err.constData());
        run = runFpx({"memory", "--params", "7B", "--recipe", "qlora", "--adapter-params", "101%"});
        QCOMPARE(run.exitCode, 2);
        run = runFpx({"memory", "--params", "7B", "--recipe", "qlora", "--training"});
        QCOMPARE(run.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestMemoryCli)
#include "tst_memory_cli.moc"
