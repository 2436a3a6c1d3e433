// SPDX-License-Identifier: GPL-3.0-or-later
// fpx mixed-precision through the real binary: the stages of the stories with their codes
// (FP16's and FP32's worked out by a separate rounding in Python's Fraction arithmetic, as in
// tst_mixed_precision_step.cpp), the skip, the options over a story, the text form with its
// bits, and bad input with its exit status and message.
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QStringList step(const QString& options) {
    return QStringList{"mixed-precision"} + options.split(' ', Qt::SkipEmptyParts);
}

// The stage of that id in the JSON document.
QJsonObject stage(const QJsonObject& root, const QString& id) {
    for (const QJsonValue& s : root["stages"].toArray())
        if (s.toObject()["stage"].toString() == id)
            return s.toObject();
    qFatal("no stage %s", qPrintable(id));
}

} // namespace

class TestMixedPrecisionCli : public QObject {
    Q_OBJECT

  private slots:
    void defaultStorySurvives() {
        const CliRun run = runFpx(step("--json"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject root = json(run);
        QCOMPARE(root["gradient"].toString(), QString("1e-8"));
        QCOMPARE(root["scale"].toString(), QString("65536"));
        QCOMPARE(root["half"].toString(), QString("fp16"));
        QCOMPARE(root["master"].toString(), QString("fp32"));
        const QJsonArray stages = root["stages"].toArray();
        QCOMPARE(stages.size(), 9);
        const int recipe[] = {1, 2, 4, 5, 6, 0, 7, 7, 2};
        for (int i = 0; i < 9; ++i)
            QCOMPARE(stages[i].toObject()["recipe_step"].toInt(), recipe[i]);
        const QJsonObject scaled = stage(root, "scaled-gradient");
        QCOMPARE(scaled["format"].toString(), QString("fp16"));
        QCOMPARE(scaled["exact"].toString(), QString("0.00065536"));
        QCOMPARE(scaled["value"].toString(), QString("0.00065517425537109375")); // 687/2^20
        QCOMPARE(scaled["code"].toString(), QString("0x115e"));
        QCOMPARE(scaled["bits"].toString(), QString("0 00100 0101011110"));
        QCOMPARE(scaled["class"].toString(), QString("normal"));
        QCOMPARE(scaled["outcome"].toString(), QString("rounded"));
        QCOMPARE(stage(root, "unscaled")["code"].toString(), QString("0x322bc000"));
        QCOMPARE(stage(root, "unscaled")["outcome"].toString(), QString("exact"));
        QCOMPARE(stage(root, "check")["outcome"].toString(), QString("passed"));
        QCOMPARE(stage(root, "master-update")["code"].toString(), QString("0x3c23d709"));
        QCOMPARE(stage(root, "master-update")["outcome"].toString(), QString("update-kept"));
        QCOMPARE(stage(root, "next-half-copy")["outcome"].toString(), QString("copy-unchanged"));
        QCOMPARE(root["skipped"].toBool(), false);
        QCOMPARE(root["next_scale"].toString(), QString("65536"));
    }

    void overflowSkipsTheStep() {
        const CliRun run = runFpx(step("--preset overflow --json"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject root = json(run);
        QCOMPARE(stage(root, "scaled-gradient")["code"].toString(), QString("0x7c00"));
        QCOMPARE(stage(root, "scaled-gradient")["value"].toString(), QString("inf"));
        QCOMPARE(stage(root, "scaled-gradient")["flags"].toString(), QString("inexact,overflow"));
        QCOMPARE(stage(root, "scaled-gradient")["outcome"].toString(), QString("overflow"));
        QCOMPARE(stage(root, "check")["outcome"].toString(), QString("skipped"));
        QCOMPARE(stage(root, "master-update")["outcome"].toString(), QString("skipped"));
        QCOMPARE(root["skipped"].toBool(), true);
        QCOMPARE(root["next_scale"].toString(), QString("32768"));
        // Options override the story: S = 2^13 passes.
        const QJsonObject halved = json(runFpx(step("--preset overflow --scale 2^13 --json")));
        QCOMPARE(halved["skipped"].toBool(), false);
        QCOMPARE(stage(halved, "scaled-gradient")["code"].toString(), QString("0x7800"));
    }

    void noScaleFlushes() {
        const QJsonObject root = json(runFpx(step("--scale 1 --json")));
        QCOMPARE(stage(root, "scaled-gradient")["code"].toString(), QString("0x0000"));
        QCOMPARE(stage(root, "scaled-gradient")["outcome"].toString(), QString("flushed"));
        QCOMPARE(stage(root, "master-update")["outcome"].toString(), QString("no-update"));
        // BF16 passes keep it.
        const QJsonObject bf16 = json(runFpx(step("--scale 1 --half bf16 --json")));
        QCOMPARE(stage(bf16, "scaled-gradient")["format"].toString(), QString("bf16"));
        QCOMPARE(stage(bf16, "scaled-gradient")["outcome"].toString(), QString("rounded"));
    }

    void clipAndDecay() {
        const QJsonObject root = json(runFpx(step("--preset clip-decay --json")));
        QCOMPARE(root["clip"].toString(), QString("1"));
        QCOMPARE(root["decay"].toString(), QString("0.01"));
        QCOMPARE(stage(root, "processed")["exact"].toString(), QString("1.01"));
        QCOMPARE(stage(root, "processed")["code"].toString(), QString("0x3f8147ae"));
        QCOMPARE(stage(root, "master-update")["code"].toString(), QString("0x3f6624dd"));
        QCOMPARE(stage(root, "next-half-copy")["code"].toString(), QString("0x3b31"));
    }

    // The text form: each stage with its recipe step, code, bits and what happened; the story
    // in one sentence at the end.
    void textForm() {
        const CliRun run = runFpx(step("--preset overflow --no-color"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QString out = QString::fromUtf8(run.out);
        QVERIFY(out.contains("5  Backward, S·g  fp16 0x7c00  0 11111 0000000000"));
        QVERIFY(out.contains("= inf  (from 262144)"));
        QVERIFY(out.contains("above FP16's largest value 65504: overflow to ∞"));
        QVERIFY(out.contains("-  Check, next S  fp32 0x47000000"));
        QVERIFY(out.trimmed().endsWith("Step skipped: S·g overflowed FP16, so the weights stay and "
                                       "the next step uses S = 32768 = 2^15."));
    }

    void badInput() {
        CliRun run = runFpx(step("--preset nothing"));
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--preset 'nothing': use survives, flushed, overflow"));
        run = runFpx(step("--scale 0"));
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("the loss scale must be a positive number"));
        run = runFpx(step("--gradient 1e-"));
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--gradient '1e-': column"));
        run = runFpx(step("--half nf4"));
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("binary float with arithmetic"));
        run = runFpx(step("extra"));
        QCOMPARE(run.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestMixedPrecisionCli)
#include "tst_mixed_precision_cli.moc"
