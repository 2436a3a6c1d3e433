// SPDX-License-Identifier: GPL-3.0-or-later
// fpx bench's quantization section: every quantizer verified against the exact core and timed
// beside memcpy, the file check, the options that size or skip it, and their errors; and the
// ratios of the sums and quantizers in --json and --csv, row for row as the text prints them.
#include "cli_runner.h"
#include "test_support.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

using namespace fpx::test;

namespace {

// A short CPU run: conversions and arithmetic on (the quantization section needs both), no
// accumulation, tiny timings.
const QStringList kTiny = {"bench",  "--formats", "fp16", "--directions",
                           "encode", "--sizes",   "64k",  "--budget",
                           "0.005",  "--samples", "3",    "--no-accumulation"};

// The line of the text's table that starts with `start`, after `from`; empty when none.
QString lineStarting(const QString& text, const QString& start, qsizetype from = 0) {
    const qsizetype at = text.indexOf("\n" + start, from);
    if (at < 0)
        return {};
    const qsizetype end = text.indexOf('\n', at + 1);
    return text.mid(at + 1, end < 0 ? -1 : end - at - 1);
}

bool relativelyClose(double a, double b, double tolerance) {
    return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

// "0.52x", as fpx bench prints a ratio.
QString ratioText(double ratio) {
    return QString::asprintf("%.2fx", ratio);
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestBenchQuantization : public QObject {
    Q_OBJECT

  private slots:
    void quantizationSection();
    void optionsAndErrors();
    void jsonAndCsvHoldEveryRow();
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
    QVERIFY2(section.contains("fpx quantize --input FILE (8 FP32 tensors, the whole report) on "
                              "a .safetensors of 262144 bytes"),
             qPrintable(section));
    QVERIFY2(section.contains("page cache"), qPrintable(section));
    // MXFP4 alone, and six formats in one call.
    QVERIFY2(section.contains("\nmxfp4 "), qPrintable(section));
    QVERIFY2(section.contains("<= 3x"), qPrintable(section));
    QVERIFY2(section.contains("\nmxfp4,nvfp4,nf4,int8,fp8_e4m3,mxfp8_e4m3 "), qPrintable(section));
    QVERIFY2(section.contains("<= 8x"), qPrintable(section));
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

void TestBenchQuantization::jsonAndCsvHoldEveryRow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString jsonPath = dir.filePath("run.json");
    const QString csvPath = dir.filePath("run.csv");
    QStringList args = kTiny;
    args.removeOne("--no-accumulation");
    args << "--accumulation-terms"
         << "64k"
         << "--json" << jsonPath << "--csv" << csvPath;
    const CliRun run = runFpx(args);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString text = QString::fromUtf8(run.out);

    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(readAll(jsonPath), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(document["version"].toInt(), 2);
    const QJsonArray results = document["results"].toArray();
    const auto rows = parseCsv(readAll(csvPath).toStdString());
    QCOMPARE(rows.size(), static_cast<std::size_t>(results.size()) + 1);
    std::map<std::string, std::size_t> column;
    for (std::size_t i = 0; i < rows[0].size(); ++i)
        column[rows[0][i]] = i;
    for (const char* key :
         {"operation", "format", "path", "workload", "ratio", "goal_at_least", "goal_at_most",
          "passes", "bare_ratio", "ceiling_name", "reference_median_seconds"})
        QVERIFY2(column.count(key), key);

    std::map<QString, int> byOperation;
    const qsizetype accumulation = text.indexOf("\nAccumulation on one thread");
    const qsizetype quantization = text.indexOf("\nQuantization on ");
    const qsizetype file = text.indexOf("\nfpx quantize --input FILE");
    QVERIFY2(accumulation >= 0 && quantization > accumulation && file > quantization,
             qPrintable(text));
    for (qsizetype i = 0; i < results.size(); ++i) {
        const QJsonObject o = results[i].toObject();
        const std::vector<std::string>& row = rows[static_cast<std::size_t>(i) + 1];
        const QString operation = o["operation"].toString();
        ++byOperation[operation];
        // The CSV row is the JSON row.
        QCOMPARE(QString::fromStdString(row[column["operation"]]), operation);
        QCOMPARE(QString::fromStdString(row[column["format"]]), o["format"].toString());
        QCOMPARE(QString::fromStdString(row[column["workload"]]), o["workload"].toString());
        QCOMPARE(QString::fromStdString(row[column["passes"]]).toInt(), o["passes"].toInt());
        const double ratio = o["ratio"].toDouble();
        QVERIFY(relativelyClose(std::stod(row[column["ratio"]]), ratio, 1e-8));
        QVERIFY(relativelyClose(std::stod(row[column["bare_ratio"]]), o["bare_ratio"].toDouble(),
                                1e-8));
        const QString format = o["format"].toString();
        if (operation == "accumulate") {
            // The line of its workload's table, with the same ratio and goal.
            const qsizetype heading =
                text.indexOf(", " + o["workload"].toString() + ":\n", accumulation);
            QVERIFY2(heading > 0, qPrintable(o["workload"].toString()));
            const QString line = lineStarting(
                text, format == "exact" ? QString("exact sum") : format + " sequential", heading);
            QVERIFY2(!line.isEmpty(), qPrintable(format));
            QVERIFY2(ratio > 0 && line.contains(" " + ratioText(ratio) + " "), qPrintable(line));
            QVERIFY2(line.contains(QString::asprintf(">= %.2gx", o["goal_at_least"].toDouble())),
                     qPrintable(line));
            QVERIFY2(line.contains(" " + o["ceiling_name"].toString() + " "), qPrintable(line));
            QCOMPARE(o["threads"].toInt(), 1);
            QCOMPARE(o["elements"].toInt(), 65536);
            QVERIFY(o["verified"].toBool());
            QVERIFY(o["reference_median_seconds"].toDouble() > 0);
        } else if (operation == "quantize") {
            const QString line = lineStarting(text, format + " ", quantization);
            QVERIFY2(ratio > 0 && line.contains(" " + ratioText(ratio) + " "), qPrintable(line));
            QVERIFY2(line.contains(QString::asprintf(">= %.2gx", o["goal_at_least"].toDouble())),
                     qPrintable(line));
            // passes, then the bare loop's ratio, the last two cells.
            const QStringList cells = line.split(' ', Qt::SkipEmptyParts);
            QCOMPARE(cells[cells.size() - 2], QString::number(o["passes"].toInt()));
            QCOMPARE(cells.back(), ratioText(o["bare_ratio"].toDouble()));
            QCOMPARE(o["elements"].toInt(), 65536);
            QCOMPARE(o["workload"].toString(), QString("normal"));
            QVERIFY(o["ceiling_name"].toString().startsWith("memcpy alongside"));
            QVERIFY(o["verified"].toBool());
        } else if (operation == "quantize-file") {
            const QString line = lineStarting(text, o["format"].toString() + " ", file);
            QVERIFY2(line.contains(" " + ratioText(ratio) + " "), qPrintable(line));
            QVERIFY2(line.contains(QString::asprintf("<= %.2gx", o["goal_at_most"].toDouble())),
                     qPrintable(line));
            QCOMPARE(o["elements"].toInt(), 65536); // 262144 bytes of FP32
            QVERIFY(o["note"].toString().contains("page cache"));
        }
    }
    // Every row of the text: 3 accumulators on 2 workloads and the exact sum; 5 quantizers and
    // fpx quantize on the file, one format and six; and the conversions, copies and arithmetic.
    QCOMPARE(byOperation["accumulate"], 7);
    QCOMPARE(byOperation["quantize"], 5);
    QCOMPARE(byOperation["quantize-file"], 2);
    QVERIFY(byOperation["convert"] >= 1);
    QVERIFY(byOperation["copy"] >= 1);
}

QTEST_APPLESS_MAIN(TestBenchQuantization)
#include "tst_bench_quantization.moc"
