// SPDX-License-Identifier: GPL-3.0-or-later
// fpx bench's quantization section: every quantizer verified against the exact core and timed
// beside memcpy, the file check, the options that size or skip it, and their errors.
#include "cli_runner.h"

#include <QTest>

using namespace fpx::test;

namespace {

// A short CPU run: conversions and arithmetic on (the quantization section needs both), no
// accumulation, tiny timings.
const QStringList kTiny = {"bench",  "--formats", "fp16", "--directions",
                           "encode", "--sizes",   "64k",  "--budget",
                           "0.005",  "--samples", "3",    "--no-accumulation"};

} // namespace

class TestBenchQuantization : public QObject {
    Q_OBJECT

  private slots:
    void quantizationSection();
    void optionsAndErrors();
};

void TestBenchQuantization::quantizationSection() {
    const CliRun run = runFpx(kTiny);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString out = QString::fromUtf8(run.out);
    const qsizetype at = out.indexOf("Quantization on ");
    QVERIFY2(at >= 0, qPrintable(describe(run)));
    const QString section = out.mid(at);
    // --sizes sets the tensor, and the file check writes that tensor.
    QVERIFY2(section.contains("65536 FP32 values (normal), blocks of 128"), qPrintable(section));
    for (const char* format : {"mxfp8_e4m3", "mxfp4", "nvfp4", "nf4", "int4"}) {
        const qsizetype row = section.indexOf(QString("\n") + format + " ");
        QVERIFY2(row >= 0, qPrintable(section));
        const QString line = section.mid(row + 1, section.indexOf('\n', row + 1) - row - 1);
        QVERIFY2(line.contains(" yes "), qPrintable(line));
        QVERIFY2(line.contains("(AVX-512)") || line.contains("(AVX2)") ||
                     line.contains("(baseline)"),
                 qPrintable(line));
        QVERIFY2(line.contains(">= 0.5x"), qPrintable(line));
        // passes, then the bare loop's ratio: NVFP4 alone reads the tensor twice.
        const QStringList cells = line.split(' ', Qt::SkipEmptyParts);
        QVERIFY2(cells.size() >= 2, qPrintable(line));
        QCOMPARE(cells[cells.size() - 2], QString(format == std::string("nvfp4") ? "2" : "1"));
        QVERIFY2(cells.back().endsWith('x') && cells.back().chopped(1).toDouble() > 0,
                 qPrintable(line));
    }
    QVERIFY2(section.contains("bare loop: the same reads"), qPrintable(section));
    QVERIFY2(section.contains("memcpy's, the input read and its copy written"),
             qPrintable(section));
    QVERIFY2(section.contains("a .safetensors file of 262144 bytes"), qPrintable(section));
    QVERIFY2(section.contains("page cache"), qPrintable(section));
    QVERIFY2(section.contains("<= 3x"), qPrintable(section));
}

void TestBenchQuantization::optionsAndErrors() {
    CliRun run = runFpx(kTiny + QStringList{"--no-quantization"});
    QVERIFY2(run.exitCode == 0 && !run.out.contains("Quantization"), qPrintable(describe(run)));
    // Without arithmetic (or conversions) the section is left out, like the accumulation one.
    run = runFpx(kTiny + QStringList{"--no-arithmetic"});
    QVERIFY2(run.exitCode == 0 && !run.out.contains("Quantization"), qPrintable(describe(run)));
    run =
        runFpx(kTiny + QStringList{"--quantization-elements", "4k", "--quantize-file-bytes", "0"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("4096 FP32 values"), qPrintable(describe(run)));
    QVERIFY2(!run.out.contains(".safetensors"), qPrintable(describe(run)));
    for (const QStringList& bad : {QStringList{"--quantization-elements", "lots"},
                                   QStringList{"--quantization-elements", "0"},
                                   QStringList{"--quantize-file-bytes", "big"}}) {
        run = runFpx(kTiny + bad);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(bad.front().toUtf8()), qPrintable(describe(run)));
        QVERIFY2(run.out.isEmpty(), qPrintable(describe(run)));
    }
    run = runFpx({"bench", "--help"});
    QVERIFY2(run.exitCode == 0 && run.out.contains("--no-quantization"), qPrintable(describe(run)));
}

QTEST_APPLESS_MAIN(TestBenchQuantization)
#include "tst_bench_quantization.moc"
