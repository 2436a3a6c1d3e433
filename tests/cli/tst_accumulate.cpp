// SPDX-License-Identifier: GPL-3.0-or-later
// fpx accumulate and fpx dot through the real binary: the issue's known results (worked by
// hand), the JSON, CSV and text forms, files of terms, and every kind of bad input with its
// exit status and message.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <vector>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

// The result for one accumulator and method in `fpx accumulate --json`.
QJsonObject resultFor(const QJsonObject& root, const QString& accumulator, const QString& method) {
    for (const auto& value : root["results"].toArray()) {
        const QJsonObject r = value.toObject();
        if (r["accumulator"].toString() == accumulator && r["method"].toString() == method)
            return r;
    }
    return {};
}

// A little-endian float64 .npy file, version 1.0, written byte by byte.
QByteArray npyFloat64(const std::vector<double>& values) {
    QByteArray header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                        QByteArray::number(qulonglong(values.size())) + ",), }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    QByteArray bytes("\x93NUMPY\x01\x00", 8);
    bytes += char(header.size() & 0xff);
    bytes += char(header.size() >> 8);
    bytes += header;
    bytes += QByteArray(reinterpret_cast<const char*>(values.data()),
                        qsizetype(values.size() * sizeof(double)));
    return bytes;
}

// A .safetensors file: the header's length (8 bytes, little-endian), the JSON header, the data.
QByteArray safetensors(const QByteArray& header, const QByteArray& data) {
    QByteArray bytes;
    for (int shift = 0; shift < 64; shift += 8)
        bytes += char((quint64(header.size()) >> shift) & 0xff);
    return bytes + header + data;
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

} // namespace

class TestAccumulate : public QObject {
    Q_OBJECT

  private slots:
    void onesInEveryMethod();
    void traceAndCsv();
    void textTable();
    void blockedPromotesToFp32();
    void elementFormatAndPath();
    void stochasticRoundingIsReproducible();
    void filesOfTerms();
    void randomDistributions_data();
    void randomDistributions();
    void usageErrors_data();
    void usageErrors();
    void dotKnownResults();
    void dotStagesAndDistributions();
    void dotErrors_data();
    void dotErrors();
    void dotOnAMachine();
    void benchReportsAccumulationRatios();
};

void TestAccumulate::onesInEveryMethod() {
    const CliRun run =
        runFpx({"accumulate", "--terms", "4096", "--values", "ones", "--accumulator", "fp16,bf16",
                "--method", "sequential,pairwise", "--method", "kahan", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["terms"].toInt(), 4096);
    QCOMPARE(root["values"].toString(), QString("ones"));
    QCOMPARE(root["results"].toArray().size(), 6);
    // 2048 + 1 ties to the even 2048 in FP16 (ULP 2); BF16's ULP is 2 from 256 on.
    const QJsonObject fp16 = resultFor(root, "fp16", "sequential");
    QCOMPARE(fp16["sum"].toString(), QString("2048"));
    QCOMPARE(fp16["bits"].toString(), QString("0x6800"));
    QCOMPARE(fp16["exact_sum"].toString(), QString("4096"));
    QCOMPARE(fp16["error"].toString(), QString("-2048"));
    QCOMPARE(fp16["rel_error"].toString(), QString("-0.5"));
    QCOMPARE(fp16["stagnation_term"].toInt(), 2048);
    QVERIFY(fp16["trace"].toArray().isEmpty());
    const QJsonObject bf16 = resultFor(root, "bf16", "sequential");
    QCOMPARE(bf16["sum"].toString(), QString("256"));
    QCOMPARE(bf16["bits"].toString(), QString("0x4380"));
    QCOMPARE(bf16["stagnation_term"].toInt(), 256);
    for (const char* method : {"pairwise", "kahan"})
        for (const char* format : {"fp16", "bf16"}) {
            const QJsonObject r = resultFor(root, format, method);
            QCOMPARE(r["sum"].toString(), QString("4096"));
            QCOMPARE(r["error"].toString(), QString("0"));
            QVERIFY(r["stagnation_term"].isNull());
        }
    QCOMPARE(resultFor(root, "fp16", "pairwise")["bits"].toString(), QString("0x6c00"));
}

void TestAccumulate::traceAndCsv() {
    const CliRun run = runFpx({"accumulate", "--terms", "4096", "--values", "ones", "--accumulator",
                               "fp16", "--trace", "1024", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonArray trace = resultFor(json(run), "fp16", "sequential")["trace"].toArray();
    QCOMPARE(trace.size(), 4);
    const char* sums[] = {"1024", "2048", "2048", "2048"};
    for (int k = 0; k < 4; ++k) {
        const QJsonObject point = trace[k].toObject();
        QCOMPARE(point["terms"].toInt(), 1024 * (k + 1));
        QCOMPARE(point["sum"].toString(), QString(sums[k]));
        QCOMPARE(point["exact_sum"].toString(), QString::number(1024 * (k + 1)));
    }
    const CliRun csv = runFpx({"accumulate", "--terms", "4096", "--values", "ones", "--accumulator",
                               "fp16", "--trace", "2048", "--csv"});
    QVERIFY2(csv.exitCode == 0, qPrintable(describe(csv)));
    const QList<QByteArray> lines = csv.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], QByteArray("accumulator,method,terms,sum,exact_sum,error,rel_error"));
    QCOMPARE(lines[1], QByteArray("fp16,sequential,2048,2048,2048,0,0"));
    QCOMPARE(lines[2], QByteArray("fp16,sequential,4096,2048,4096,-2048,-0.5"));
}

void TestAccumulate::textTable() {
    const CliRun run = runFpx({"accumulate", "--terms", "4096", "--values", "ones", "--accumulator",
                               "fp16", "--method", "sequential,pairwise"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString out = QString::fromUtf8(run.out);
    QVERIFY2(out.contains("4096 terms of ones"), qPrintable(out));
    QVERIFY2(out.contains("exact sum") && out.contains("relative error") &&
                 out.contains("stagnation"),
             qPrintable(out));
    QVERIFY2(out.contains("term 2048"), qPrintable(out));
    QVERIFY2(out.contains("-0.5"), qPrintable(out));
    QVERIFY2(out.contains("n/a"), qPrintable(out)); // pairwise has no stagnation term
}

void TestAccumulate::blockedPromotesToFp32() {
    // BF16 blocks of 256 ones are exact (256 is representable and no step rounds); 16 block
    // sums of 256 make 4096 in the FP32 total. Blocks of 512 stagnate at 256 each: 8 · 256.
    const CliRun run = runFpx({"accumulate", "--terms", "4096", "--values", "ones", "--accumulator",
                               "bf16", "--method", "blocked:256,blocked:512", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject r256 = resultFor(json(run), "bf16", "blocked:256");
    QCOMPARE(r256["sum"].toString(), QString("4096"));
    QCOMPARE(r256["result_format"].toString(), QString("fp32"));
    QCOMPARE(r256["bits"].toString(), QString("0x45800000"));
    QCOMPARE(resultFor(json(run), "bf16", "blocked:512")["sum"].toString(), QString("2048"));
}

void TestAccumulate::elementFormatAndPath() {
    // 0.1 rounded into FP32 (13421773 · 2^−27), ten times, summed in FP64: exact, 1 + 2^−26.
    const CliRun run = runFpx({"accumulate", "--terms", "10", "--values", "const:0.1", "--element",
                               "fp32", "--accumulator", "fp64,fp16,fp80", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["element"].toString(), QString("fp32"));
    QCOMPARE(resultFor(root, "fp64", "sequential")["exact_sum"].toString(),
             QString("1.00000001490116119384765625"));
    QCOMPARE(resultFor(root, "fp64", "sequential")["error"].toString(), QString("0"));
    QCOMPARE(resultFor(root, "fp64", "sequential")["path"].toString(), QString("fp64 native"));
    QCOMPARE(resultFor(root, "fp16", "sequential")["path"].toString(), QString("double"));
    QCOMPARE(resultFor(root, "fp80", "sequential")["path"].toString(), QString("exact core"));
    QCOMPARE(resultFor(root, "fp80", "sequential")["error"].toString(), QString("0"));
}

void TestAccumulate::stochasticRoundingIsReproducible() {
    const QStringList args = {"accumulate", "--terms", "4096", "--values", "ones", "--accumulator",
                              "fp16",       "--round", "sr",   "--seed",   "7",    "--json"};
    const CliRun a = runFpx(args);
    const CliRun b = runFpx(args);
    QVERIFY2(a.exitCode == 0, qPrintable(describe(a)));
    QCOMPARE(a.out, b.out);
    const QJsonObject r = resultFor(json(a), "fp16", "sequential");
    QCOMPARE(r["path"].toString(), QString("exact core"));
    QVERIFY(r["sum"].toString() != "2048"); // ties now round up about half the time
}

void TestAccumulate::filesOfTerms() {
    QTemporaryDir dir;
    const QString text = dir.filePath("terms.txt");
    writeFile(text, "# three terms\n1e10\n1\n-1e10\n");
    CliRun run =
        runFpx({"accumulate", "--values", "file:" + text, "--accumulator", "fp32,fp64", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["terms"].toInt(), 3);
    QCOMPARE(resultFor(json(run), "fp32", "sequential")["sum"].toString(), QString("0"));
    QCOMPARE(resultFor(json(run), "fp32", "sequential")["exact_sum"].toString(), QString("1"));
    // 1e10 + 1 is a double: FP64 keeps the 1.
    QCOMPARE(resultFor(json(run), "fp64", "sequential")["sum"].toString(), QString("1"));

    const QString npy = dir.filePath("terms.npy");
    writeFile(npy, npyFloat64({0.5, 0.25, 0.125}));
    run = runFpx({"accumulate", "--values", "file:" + npy, "--accumulator", "fp16", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(resultFor(json(run), "fp16", "sequential")["sum"].toString(), QString("0.875"));

    // Two tensors: "a" (F32 1, 2^-24) is the first, "b" (F64 1e10, 1, -1e10) is named.
    const float a[] = {1.0f, 0x1p-24f};
    const double b[] = {1e10, 1, -1e10};
    const QByteArray data = QByteArray(reinterpret_cast<const char*>(a), sizeof a) +
                            QByteArray(reinterpret_cast<const char*>(b), sizeof b);
    const QString tensors = dir.filePath("terms.safetensors");
    writeFile(tensors, safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                   R"("b":{"dtype":"F64","shape":[3],"data_offsets":[8,32]}})",
                                   data));
    run = runFpx({"accumulate", "--values", "file:" + tensors, "--accumulator", "fp32", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["terms"].toInt(), 2);
    // 1 + 2^-24 is a tie between 1 and 1 + 2^-23 in FP32: it rounds to the even 1.
    QCOMPARE(resultFor(json(run), "fp32", "sequential")["sum"].toString(), QString("1"));
    QCOMPARE(resultFor(json(run), "fp32", "sequential")["exact_sum"].toString(),
             QString("1.000000059604644775390625"));
    run = runFpx(
        {"accumulate", "--values", "file:" + tensors + ":b", "--accumulator", "fp32", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["terms"].toInt(), 3);
    QCOMPARE(resultFor(json(run), "fp32", "sequential")["exact_sum"].toString(), QString("1"));
    run = runFpx({"accumulate", "--values", "file:" + tensors + ":c", "--accumulator", "fp32"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("no tensor named 'c'"), qPrintable(describe(run)));

    const QString bad = dir.filePath("bad.txt");
    writeFile(bad, "1\n2\n 3..5\n");
    run = runFpx({"accumulate", "--values", "file:" + bad, "--accumulator", "fp16"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains((bad + ":3:").toUtf8()), qPrintable(describe(run)));

    const QString broken = dir.filePath("broken.npy");
    writeFile(broken, npyFloat64({1, 2, 3}).chopped(4));
    run = runFpx({"accumulate", "--values", "file:" + broken, "--accumulator", "fp16"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("truncated"), qPrintable(describe(run)));

    run = runFpx({"accumulate", "--terms", "5", "--values", "file:" + text});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("holds 3 values"), qPrintable(describe(run)));
    run = runFpx({"accumulate", "--values", "file:" + dir.filePath("none.txt")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("cannot open"), qPrintable(describe(run)));
}

// Every distribution of the grammar of random values sums, as the quantizer draws from them.
void TestAccumulate::randomDistributions_data() {
    QTest::addColumn<QString>("values");
    // Magnitudes around e^-12 spread over many binades: FP16's subnormals and BF16's short
    // significand both lose terms, and still each accumulator gives a sum.
    QTest::newRow("lognormal") << "lognormal:-12:2";
    QTest::newRow("laplace") << "laplace:1";
    QTest::newRow("student") << "student:3";
}

void TestAccumulate::randomDistributions() {
    QFETCH(QString, values);
    const CliRun run = runFpx({"accumulate", "--values", values, "--terms", "1000", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["values"].toString(), values);
    QCOMPARE(root["results"].toArray().size(), 3);
    for (const char* accumulator : {"fp16", "bf16", "fp32"}) {
        const QJsonObject r = resultFor(root, accumulator, "sequential");
        QVERIFY2(!r["sum"].toString().isEmpty(), accumulator);
        QVERIFY2(!r["exact_sum"].toString().isEmpty(), accumulator);
    }
}

void TestAccumulate::usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QStringList ones = {"--terms", "16", "--values", "ones"};
    QTest::newRow("no values") << QStringList{"--terms", "4"} << "--values DIST is required";
    QTest::newRow("no terms") << QStringList{"--values", "ones"} << "--terms N is required";
    QTest::newRow("bad terms") << QStringList{"--terms", "-3", "--values", "ones"} << "--terms";
    QTest::newRow("fraction terms")
        << QStringList{"--terms", "2.5", "--values", "ones"} << "--terms";
    QTest::newRow("bad distribution")
        << QStringList{"--terms", "4", "--values", "uniform:2:1"} << "B must exceed A";
    QTest::newRow("unknown distribution")
        << QStringList{"--terms", "4", "--values", "zeros"} << "use ones, const:V";
    QTest::newRow("laplace without scale")
        << QStringList{"--terms", "4", "--values", "laplace:0"} << "laplace:B: B must be positive";
    QTest::newRow("bad method") << ones + QStringList{"--method", "blocked:0"}
                                << "'blocked:0' is not sequential";
    QTest::newRow("bad accumulator")
        << ones + QStringList{"--accumulator", "fp17"} << "--accumulator";
    QTest::newRow("no arithmetic")
        << ones + QStringList{"--accumulator", "nf4"} << "nf4 has no arithmetic";
    QTest::newRow("json and csv") << ones + QStringList{"--json", "--csv"}
                                  << "choose one of --json and --csv";
    QTest::newRow("exact core bound")
        << QStringList{"--terms", "5e7", "--values", "ones", "--accumulator", "fp80"}
        << "go through the exact core";
    QTest::newRow("absurd count") << QStringList{"--terms", "1e12", "--values", "ones"}
                                  << "at most 500000000 terms";
    QTest::newRow("stochastic bound") << QStringList{"--terms",       "1e8",  "--values", "ones",
                                                     "--accumulator", "fp16", "--round",  "sr"}
                                      << "go through the exact core";
    QTest::newRow("too many trace points")
        << QStringList{"--terms",       "1e7",  "--values", "ones",
                       "--accumulator", "fp16", "--trace",  "1"}
        << "trace points";
    QTest::newRow("bad round") << ones + QStringList{"--round", "sideways"} << "--round";
    QTest::newRow("positional") << ones + QStringList{"extra"} << "unexpected argument 'extra'";
}

void TestAccumulate::usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CliRun run = runFpx(QStringList{"accumulate"} + args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), qPrintable(describe(run)));
    QVERIFY(run.out.isEmpty());
}

void TestAccumulate::dotKnownResults() {
    CliRun run = runFpx({"dot", "--a", "1e10,1,-1e10", "--b", "1,1,1", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QJsonObject r = json(run);
    QCOMPARE(r["value"].toString(), QString("0"));
    QCOMPARE(r["exact"].toString(), QString("1"));
    QCOMPARE(r["error"].toString(), QString("-1"));
    QCOMPARE(r["accumulator"].toString(), QString("fp32"));
    QCOMPARE(r["product"].toString(), QString("exact"));
    QCOMPARE(r["bits"].toString(), QString("0x00000000"));
    run =
        runFpx({"dot", "--a", "1e10,1,-1e10", "--b", "1,1,1", "--accumulator", "exact", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    r = json(run);
    QCOMPARE(r["value"].toString(), QString("1"));
    QVERIFY(r["bits"].isNull());
    run = runFpx({"dot", "--a", "1e10,1,-1e10", "--b", "1,1,1"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("exact") && run.out.contains("0x00000000"), run.out.constData());
}

void TestAccumulate::dotStagesAndDistributions() {
    // ones · const:2 over 10 terms: 20, exact in every stage.
    CliRun run = runFpx({"dot", "--a", "ones", "--b", "const:2", "--terms", "10", "--element",
                         "fp16", "--product", "fp16", "--accumulator", "fp16", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("20"));
    QCOMPARE(json(run)["terms"].toInt(), 10);
    // A list fixes the length of a distribution on the other side.
    run = runFpx({"dot", "--a", "1,2,3", "--b", "const:0.5", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("3"));
    // Products rounded into FP8 E4M3: 1.125 · 1.125 = 1.265625 → 1.25.
    run = runFpx({"dot", "--a", "1.125", "--b", "1.125", "--element", "e4m3", "--product", "e4m3",
                  "--accumulator", "exact", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("1.25"));
    QCOMPARE(json(run)["exact"].toString(), QString("1.265625"));
    // Blocks of 2 in FP16 promoted into FP32: [2048, 1, 1, 1] · ones = 2048 + 2 = 2050.
    run = runFpx({"dot", "--a", "2048,1,1,1", "--b", "1,1,1,1", "--element", "fp16",
                  "--accumulator", "fp16", "--block", "2", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("2050"));
    QCOMPARE(json(run)["result_format"].toString(), QString("fp32"));
    QCOMPARE(json(run)["block"].toInt(), 2);
    // Any distribution of the grammar of random values is a DIST, not a malformed list.
    run = runFpx({"dot", "--a", "lognormal:0:1", "--b", "1,2,3", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["terms"].toInt(), 3);
}

void TestAccumulate::dotErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("lengths") << QStringList{"--a", "1,2", "--b", "1,2,3"} << 2
                             << "--a has 2 values and --b 3";
    QTest::newRow("bad item") << QStringList{"--a", "1,2x,3", "--b", "1,1,1"} << 2
                              << "item 2, column 4";
    QTest::newRow("missing b") << QStringList{"--a", "1"} << 2 << "--a and --b are required";
    QTest::newRow("distributions without terms")
        << QStringList{"--a", "ones", "--b", "ones"} << 2 << "needs --terms N";
    QTest::newRow("no arithmetic") << QStringList{"--a", "1", "--b", "1", "--accumulator", "nf4"}
                                   << 2 << "nf4 has no arithmetic";
    QTest::newRow("exact element")
        << QStringList{"--a", "1", "--b", "1", "--element", "exact"} << 2 << "--element";
    QTest::newRow("bad block") << QStringList{"--a", "1", "--b", "1", "--block", "0"} << 2
                               << "--block";
    QTest::newRow("too many terms")
        << QStringList{"--a", "ones", "--b", "ones", "--terms", "1e9"} << 2 << "at most";
    QTest::newRow("missing file") << QStringList{"--a", "file:/nonexistent/x.txt", "--b", "1"} << 1
                                  << "cannot open";
    QTest::newRow("unknown machine")
        << QStringList{"--machine", "nvidia-pascal", "--a", "1", "--b", "1"} << 2
        << "unknown machine 'nvidia-pascal'";
    QTest::newRow("machine without the element")
        << QStringList{"--machine", "nvidia-volta", "--element", "bf16", "--a", "1", "--b", "1"}
        << 2 << "no instruction for bf16 elements (its elements: fp16)";
    QTest::newRow("machine and accumulator")
        << QStringList{"--machine", "nvidia-ampere", "--accumulator", "fp16", "--a", "1", "--b",
                       "1"}
        << 2 << "--accumulator: the machine fixes";
    QTest::newRow("promotion not a multiple")
        << QStringList{"--machine", "nvidia-hopper", "--element", "fp8_e4m3", "--promote",
                       "100",       "--a",           "1",         "--b",      "1"}
        << 2 << "multiple of the 32 products";
    QTest::newRow("c without a machine")
        << QStringList{"--a", "1", "--b", "1", "--c", "1"} << 2 << "--c: only with --machine";
}

void TestAccumulate::dotOnAMachine() {
    // Hopper's FP8 instruction keeps 13 fraction bits below the largest exponent: beside
    // 16·16 = 2^8 the products 2^-3·2^-3 = 2^-6 lie below 2^-5 and vanish, where FP32 FMAs and
    // Blackwell (25 bits) keep them (docs/behaviour.md, "Machines").
    const QStringList vectors{"--a", "16,0.125,0.125", "--b", "16,0.125,0.125", "--json"};
    CliRun run =
        runFpx(QStringList{"dot", "--machine", "nvidia-hopper", "--element", "fp8_e4m3"} + vectors);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QJsonObject r = json(run);
    QCOMPARE(r["value"].toString(), QString("256"));
    QCOMPARE(r["exact"].toString(), QString("256.03125"));
    QCOMPARE(r["fp32_fma"].toString(), QString("256.03125"));
    QCOMPARE(r["result_format"].toString(), QString("e8m13"));
    QCOMPARE(r["machine"].toString(), QString("nvidia-hopper"));
    QCOMPARE(r["steps"].toInt(), 1);
    run = runFpx(QStringList{"dot", "--machine", "nvidia-blackwell", "--element", "fp8_e4m3"} +
                 vectors);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("256.03125"));
    QCOMPARE(json(run)["bits"].toString(), QString("0x43800400"));
    // K = 256 (8 instructions of 32): everything after the first large product is lost
    // without promotion; promoted every 128 the second block's 128 products add up to 2.
    const QStringList longer{"--machine", "nvidia-hopper",
                             "--element", "fp8_e4m3",
                             "--a",       "16," + QStringList(255, "0.125").join(','),
                             "--b",       "16," + QStringList(255, "0.125").join(','),
                             "--json"};
    run = runFpx(QStringList{"dot"} + longer);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("256"));
    QCOMPARE(json(run)["steps"].toInt(), 8);
    run = runFpx(QStringList{"dot", "--promote", "128"} + longer);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("258"));
    QCOMPARE(json(run)["result_format"].toString(), QString("fp32"));
    // --explain: each instruction's terms, as they came and as they were cut.
    run = runFpx(QStringList{"dot", "--machine", "nvidia-hopper", "--element", "fp8_e4m3", "--a",
                             "16,0.125", "--b", "16,0.125", "--explain", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonArray steps = json(run)["explain"].toArray();
    QCOMPARE(steps.size(), 1);
    const QJsonObject step = steps[0].toObject();
    QCOMPARE(step["alignment_exponent"].toInt(), 8);
    QCOMPARE(step["quantum_exponent"].toInt(), -5);
    const QJsonArray terms = step["terms"].toArray();
    QCOMPARE(terms.size(), 3); // c, then the two products
    QCOMPARE(terms[2].toObject()["value"].toString(), QString("0.015625"));
    QCOMPARE(terms[2].toObject()["kept"].toString(), QString("0"));
    QVERIFY(terms[2].toObject()["cut"].toBool());
    QVERIFY(!terms[1].toObject()["cut"].toBool());
    run = runFpx({"dot", "--a", "1", "--b", "1", "--explain"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("--explain: only with --machine"));
    // TF32 operands are FP32 values truncated, not rounded: 1 + 3·2^-12 becomes 1 (rounded to
    // nearest it would be 1 + 2^-10); the exact value is of the FP32 operands.
    run = runFpx({"dot", "--machine", "nvidia-ampere", "--element", "tf32", "--a", "1+3*2^-12",
                  "--b", "1", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["value"].toString(), QString("1"));
    QCOMPARE(json(run)["exact"].toString(), QString("1.000732421875"));
    // The element defaults to the machine's first; c is an accumulator value.
    run = runFpx({"dot", "--machine", "nvidia-volta", "--a", "1", "--b", "1", "--c", "0.5"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("elements fp16") && run.out.contains("value           1.5"),
             run.out.constData());
}

void TestAccumulate::dotErrors() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const CliRun run = runFpx(QStringList{"dot"} + args);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), qPrintable(describe(run)));
}

void TestAccumulate::benchReportsAccumulationRatios() {
    // The ratios themselves depend on the machine and are never asserted; the rows, their
    // verification and their references are.
    const QStringList tiny = {"bench",     "--formats", "fp16",    "--directions", "encode",
                              "--threads", "1",         "--sizes", "1k",           "--budget",
                              "0.005",     "--samples", "3"};
    CliRun run = runFpx(tiny + QStringList{"--accumulation-terms", "100000"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString out = QString::fromUtf8(run.out);
    QVERIFY2(out.contains("Accumulation on one thread, 100000 terms"), qPrintable(out));
    // Both workloads, each with every accumulator against the float loop; the exact sum once.
    const qsizetype positive = out.indexOf("positive terms (the sum settles), uniform:0:1:");
    const qsizetype zeroMean =
        out.indexOf("zero-mean terms (the sum wanders across binades), normal:0:1:");
    QVERIFY2(positive >= 0 && zeroMean > positive, qPrintable(out));
    const QString sections[] = {out.mid(positive, zeroMean - positive), out.mid(zeroMean)};
    for (const QString& section : sections) {
        for (const char* row :
             {"fp16 sequential", "bf16 sequential", "fp8_e4m3 sequential", "exact sum"}) {
            const qsizetype at = section.indexOf(row);
            if (QString(row) == "exact sum" && &section != &sections[0]) {
                QVERIFY2(at < 0, qPrintable(section));
                continue;
            }
            QVERIFY2(at >= 0, row);
            const QString line = section.mid(at, section.indexOf('\n', at) - at);
            QVERIFY2(line.contains(" yes "), qPrintable(line));
            QVERIFY2(line.contains(QString(row) == "exact sum" ? "memcpy" : "float loop"),
                     qPrintable(line));
        }
    }
    // FP8 sums go by the addition table.
    for (const QString& section : sections) {
        const qsizetype at = section.indexOf("fp8_e4m3 sequential");
        QVERIFY2(section.mid(at, section.indexOf('\n', at) - at).contains("addition table"),
                 qPrintable(section));
    }
    // --sizes alone sets the count; --no-accumulation and --no-conversions leave it out.
    run = runFpx(tiny);
    QVERIFY2(run.out.contains("Accumulation on one thread, 1024 terms"), run.out.constData());
    run = runFpx(tiny + QStringList{"--no-accumulation"});
    QVERIFY2(run.exitCode == 0 && !run.out.contains("Accumulation"), qPrintable(describe(run)));
    run = runFpx(tiny + QStringList{"--accumulation-terms", "lots"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("--accumulation-terms"), qPrintable(describe(run)));
}

QTEST_GUILESS_MAIN(TestAccumulate)
#include "tst_accumulate.moc"
