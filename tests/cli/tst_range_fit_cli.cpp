// SPDX-License-Identifier: GPL-3.0-or-later
// fpx range-fit through the real binary: FP16's boundaries in the JSON counts, the keys and
// fractions, --scale forms, saturate, a file input, BF16 against FP16 on lognormal gradients,
// and bad input with its exit status and message.
#include "fpx/data/tensor_file.h"

#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <vector>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

// FP16's boundaries (IEEE binary16): 2^−24 the smallest subnormal, 2^−25 the flush tie, just
// above it (as FP32 holds it), 2^−14 the smallest normal and the FP32 just below it (rounds up
// to it), 65504 the max, 65519.99 (FP32 65519.9902…) below the overflow tie 65520.
const QString kBoundaries =
    "0,2^-24,2^-25,2^-25+2^-48,2^-14,2^-14-2^-38,65504,65519.99,65520,-65520";

QJsonObject resultFor(const QJsonObject& root, const QString& format) {
    for (const auto& value : root["results"].toArray())
        if (value.toObject()["format"].toString() == format)
            return value.toObject();
    return {};
}

} // namespace

class TestRangeFitCli : public QObject {
    Q_OBJECT

  private slots:
    void fp16Boundaries();
    void saturateCountsTheSameOverflow();
    void scaleForms();
    void fileInput();
    void bf16AgainstFp16OnGradients();
    void stochasticRoundingOfDrawnValues();
    void textTable();
    void errors();
};

void TestRangeFitCli::fp16Boundaries() {
    const CliRun run =
        runFpx({"range-fit", "--values", kBoundaries, "--formats", "fp16", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["count"].toInt(), 10);
    const QJsonObject fp16 = resultFor(root, "fp16");
    const QStringList keys{"format",
                           "scale",
                           "zero",
                           "flushed",
                           "subnormal",
                           "normal",
                           "overflow",
                           "non_finite",
                           "fractions",
                           "best_scales",
                           "max_relative_error",
                           "mean_relative_error"};
    QCOMPARE(fp16.keys().size(), keys.size());
    for (const QString& key : keys)
        QVERIFY2(fp16.contains(key), qPrintable(key));
    QCOMPARE(fp16["scale"].toString(), QString("1"));
    QCOMPARE(fp16["zero"].toInt(), 1);
    QCOMPARE(fp16["flushed"].toInt(), 1);   // 2^−25
    QCOMPARE(fp16["subnormal"].toInt(), 2); // 2^−24, just above 2^−25
    QCOMPARE(fp16["normal"].toInt(), 4);    // 2^−14, just below it, 65504, 65519.99
    QCOMPARE(fp16["overflow"].toInt(), 2);  // ±65520
    QCOMPARE(fp16["non_finite"].toInt(), 0);
    const QJsonObject fractions = fp16["fractions"].toObject();
    QCOMPARE(fractions.keys().size(), 5);
    QCOMPARE(fractions["normal"].toDouble(), 0.4);
    QCOMPARE(fractions["overflow"].toDouble(), 0.2);
    // Overflow at k = 0 (65520), so at most 2^−1; 2^−25 stops flushing at 2^1.
    const QJsonArray best = fp16["best_scales"].toArray();
    QCOMPARE(best.size(), 2);
    QCOMPARE(best[1].toInt(), -1);
    QVERIFY(best[0].toInt() <= best[1].toInt());
}

void TestRangeFitCli::saturateCountsTheSameOverflow() {
    for (const char* policy : {"ieee", "saturate"}) {
        const CliRun run = runFpx({"range-fit", "--values", kBoundaries, "--formats", "fp16",
                                   "--overflow", policy, "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject fp16 = resultFor(json(run), "fp16");
        QCOMPARE(fp16["overflow"].toInt(), 2);
        QCOMPARE(fp16["normal"].toInt(), 4);
    }
    // Toward zero, 65520 truncates to 65504: nothing overflows.
    const CliRun rtz = runFpx(
        {"range-fit", "--values", kBoundaries, "--formats", "fp16", "--round", "rtz", "--json"});
    QCOMPARE(resultFor(json(rtz), "fp16")["overflow"].toInt(), 0);
}

// 2^16 and 65536 are the same scale; 2^-10 multiplies 65520 into FP16's range; a decimal scale
// is kept exact in the JSON.
void TestRangeFitCli::scaleForms() {
    const CliRun a = runFpx(
        {"range-fit", "--values", "2^-32", "--formats", "fp16", "--scale", "2^16", "--json"});
    const CliRun b = runFpx(
        {"range-fit", "--values", "2^-32", "--formats", "fp16", "--scale", "65536", "--json"});
    QVERIFY2(a.exitCode == 0, qPrintable(describe(a)));
    QCOMPARE(resultFor(json(a), "fp16")["scale"].toString(), QString("65536"));
    QCOMPARE(resultFor(json(a), "fp16")["subnormal"].toInt(), 1); // 2^−16; unscaled it flushes
    QCOMPARE(json(a)["results"], json(b)["results"]);
    const CliRun down = runFpx(
        {"range-fit", "--values", "65520,1", "--formats", "fp16", "--scale", "2^-10", "--json"});
    QCOMPARE(resultFor(json(down), "fp16")["normal"].toInt(), 2);
    const CliRun milli =
        runFpx({"range-fit", "--values", "1000", "--formats", "fp16", "--scale", "1e-3", "--json"});
    QVERIFY2(milli.exitCode == 0, qPrintable(describe(milli)));
    const QJsonObject fp16 = resultFor(json(milli), "fp16");
    QCOMPARE(fp16["scale"].toString(), QString("0.001"));
    QCOMPARE(fp16["normal"].toInt(), 1);
    QCOMPARE(fp16["max_relative_error"].toDouble(), 0.0); // 1000 · 0.001 = 1, exactly
    // A scale without a terminating decimal stays exact as a fraction: 3 · 1/3 = 1.
    const CliRun third =
        runFpx({"range-fit", "--values", "3", "--formats", "fp16", "--scale", "1/3", "--json"});
    QCOMPARE(resultFor(json(third), "fp16")["scale"].toString(), QString("1/3"));
    QCOMPARE(resultFor(json(third), "fp16")["max_relative_error"].toDouble(), 0.0);
}

void TestRangeFitCli::fileInput() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("g.npy").toStdString();
    std::string error;
    QVERIFY(fpx::writeNpy(path, std::vector<double>{1e-9, -3e-6, 0.25, 1e5}, {4}, error));
    const CliRun run = runFpx(
        {"range-fit", "--input", QString::fromStdString(path), "--formats", "fp16,bf16", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject fp16 = resultFor(json(run), "fp16");
    QCOMPARE(fp16["flushed"].toInt(), 1);   // 1e−9 < 2^−25
    QCOMPARE(fp16["subnormal"].toInt(), 1); // 3e−6 < 2^−14
    QCOMPARE(fp16["normal"].toInt(), 1);
    QCOMPARE(fp16["overflow"].toInt(), 1); // 1e5 > 65520
    QCOMPARE(resultFor(json(run), "bf16")["normal"].toInt(), 4);
}

// Gradients around e^−16: FP16 flushes a share of them, BF16 none.
void TestRangeFitCli::bf16AgainstFp16OnGradients() {
    const CliRun run = runFpx({"range-fit", "--dist", "lognormal:-16:2.5", "--count", "100000",
                               "--seed", "3", "--formats", "fp16,bf16", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["count"].toInt(), 100000);
    const QJsonObject fp16 = resultFor(root, "fp16");
    const QJsonObject bf16 = resultFor(root, "bf16");
    QVERIFY(fp16["fractions"].toObject()["flushed"].toDouble() > 0.1);
    QCOMPARE(bf16["flushed"].toInt(), 0);
    QCOMPARE(bf16["normal"].toInt(), 100000);
    // The best scales for FP16 are large powers of two (loss scaling), for BF16 they include 1.
    const QJsonArray fp16Best = fp16["best_scales"].toArray();
    QVERIFY(fp16Best[0].toInt() > 0);
    const QJsonArray bf16Best = bf16["best_scales"].toArray();
    QVERIFY(bf16Best[0].toInt() <= 0 && bf16Best[1].toInt() >= 0);
}

// Values uniform on [0, 2^−26) round stochastically into FP16 up to 2^−24 with probability
// x / 2^−24, 1/8 on average: 87.5 % flush. Rounding each value with the bits that drew it would
// never round up (a draw u·2^−26 goes up only when u < u/4) and flush them all.
void TestRangeFitCli::stochasticRoundingOfDrawnValues() {
    const CliRun run =
        runFpx({"range-fit", "--dist", "uniform:0:1.4901161193847656e-08", "--count", "100000",
                "--seed", "5", "--round", "sr", "--formats", "fp16", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const double flushed =
        resultFor(json(run), "fp16")["fractions"].toObject()["flushed"].toDouble();
    // Six standard deviations of a binomial fraction with p = 7/8 over 10^5 values: 0.0063.
    QVERIFY2(std::fabs(flushed - 0.875) < 0.0063, qPrintable(QString::number(flushed)));
}

void TestRangeFitCli::textTable() {
    const CliRun run =
        runFpx({"range-fit", "--values", kBoundaries + ",nan", "--formats", "fp16,fp8_e4m3"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString out = QString::fromUtf8(run.out);
    for (const char* text : {"format", "flushed", "subnormal", "overflow", "best 2^k", "fp8_e4m3",
                             "1 NaN or infinite"})
        QVERIFY2(out.contains(text), qPrintable(out));
}

void TestRangeFitCli::errors() {
    struct Case {
        QStringList args;
        int exit;
        const char* message;
    };
    const std::vector<Case> cases{
        {{"--values", "1"}, 2, "--formats ID,... is required"},
        {{"--values", "1", "--formats", "fp99"}, 2, "--formats"},
        {{"--formats", "fp16"}, 2, "give exactly one of --input, --dist and --values"},
        {{"--values", "1", "--dist", "normal:0:1", "--formats", "fp16"}, 2, "exactly one"},
        {{"--dist", "normal:0:1", "--formats", "fp16"}, 2, "--count N is required"},
        {{"--dist", "lognormal:0", "--count", "5", "--formats", "fp16"},
         2,
         "expected lognormal:MU:SIGMA"},
        {{"--values", "1", "--seed", "3", "--formats", "fp16"}, 2, "--seed goes with --dist"},
        {{"--values", "1,x", "--formats", "fp16"}, 2, "--values: 'x'"},
        {{"--values", "1", "--formats", "fp16", "--scale", "0"}, 2, "finite positive"},
        {{"--values", "1", "--formats", "fp16", "--scale", "-2"}, 2, "finite positive"},
        {{"--values", "1", "--formats", "fp16", "--scale", "2^"}, 2, "--scale '2^'"},
        {{"--values", "1", "--formats", "fp16", "--round", "sideways"}, 2, "unknown rounding mode"},
        {{"--values", "1", "--formats", "fp16", "--overflow", "clip"}, 2, "unknown policy"},
        {{"--values", "1", "--formats", "fp16", "extra"}, 2, "unexpected argument 'extra'"},
        {{"--input", "/nonexistent/x.npy", "--formats", "fp16"}, 1, "/nonexistent/x.npy"},
    };
    for (const Case& c : cases) {
        const CliRun run = runFpx(QStringList{"range-fit"} + c.args);
        QVERIFY2(run.exitCode == c.exit, qPrintable(describe(run)));
        QVERIFY2(QString::fromUtf8(run.err).contains(c.message), qPrintable(describe(run)));
        QVERIFY(run.out.isEmpty());
    }
    const CliRun help = runFpx({"range-fit", "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(QString::fromUtf8(help.out).contains("lognormal:MU:SIGMA"));
}

QTEST_APPLESS_MAIN(TestRangeFitCli)
#include "tst_range_fit_cli.moc"
