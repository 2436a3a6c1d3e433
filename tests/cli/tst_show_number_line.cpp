// SPDX-License-Identifier: GPL-3.0-or-later
// fpx show, run as the real binary, on the facts of the Explorer's number line of rounding:
// the shortest decimal reads back under the rounding mode in force (the same text the
// Explorer's Details show, shortestRoundTrip), for every code of FP4 in every mode and of FP6
// toward zero and to odd; the input's neighbours and the half-way point between them, in text
// and JSON.
#include "cli_runner.h"
#include "test_support.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;
using namespace fpx;

class TestShowNumberLine : public QObject {
    Q_OBJECT

  private slots:
    void shortestUnderTheModeInForce();
    void shortestForEveryCodeAndMode_data();
    void shortestForEveryCodeAndMode();
    void neighboursAndHalfWay();
};

// 0.375 in E4M3 reads back as 0.37 to nearest, but 0.37 truncates to 0x2b: toward zero its
// shortest is 0.4, and the text says which mode it reads back under.
void TestShowNumberLine::shortestUnderTheModeInForce() {
    const CliRun rtz = runFpx({"show", "0.37", "--formats", "fp8_e4m3", "--round", "rtz"});
    QVERIFY2(rtz.exitCode == 0, qPrintable(describe(rtz)));
    QVERIFY2(QString::fromUtf8(rtz.out).contains("0x2b"), qPrintable(rtz.out));
    const CliRun code = runFpx({"show", "--bits", "0x2c", "--as", "fp8_e4m3", "--formats",
                                "fp8_e4m3", "--round", "rtz", "--json"});
    QVERIFY2(code.exitCode == 0, qPrintable(describe(code)));
    const QJsonObject r = json(code)["results"].toArray()[0].toObject();
    QCOMPARE(r["shortest"].toString(), QString("0.4"));
    QCOMPARE(r["shortest_round"].toString(), QString("rtz"));
    const CliRun text = runFpx(
        {"show", "--bits", "0x2c", "--as", "fp8_e4m3", "--formats", "fp8_e4m3", "--round", "rtz"});
    QVERIFY2(QString::fromUtf8(text.out).contains(
                 QRegularExpression("shortest +0\\.4  \\(reads back as this code "
                                    "under rtz\\)")),
             qPrintable(text.out));
    const CliRun sr = runFpx({"show", "--bits", "0x2c", "--as", "fp8_e4m3", "--formats", "fp8_e4m3",
                              "--round", "sr", "--json"});
    const QJsonObject s = json(sr)["results"].toArray()[0].toObject();
    QCOMPARE(s["shortest"].toString(), QString("0.37"));
    QCOMPARE(s["shortest_round"].toString(), QString("rne"));
}

void TestShowNumberLine::shortestForEveryCodeAndMode_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("mode");
    // FP4 in every mode; FP6 in the modes whose read-back differs most from nearest.
    for (const char* mode : {"rne", "rna", "rtz", "rup", "rdn", "rto", "sr"})
        QTest::newRow((std::string("fp4_e2m1 ") + mode).c_str()) << "fp4_e2m1" << mode;
    for (const char* mode : {"rtz", "rto"})
        QTest::newRow((std::string("fp6_e2m3 ") + mode).c_str()) << "fp6_e2m3" << mode;
}

// Every code read with --bits under the mode: the CLI's shortest is the core's, which
// tst_rounding_neighbourhood checks against every short decimal.
void TestShowNumberLine::shortestForEveryCodeAndMode() {
    QFETCH(QString, id);
    QFETCH(QString, mode);
    const FormatSpec spec = *findFormat(id.toStdString()).spec;
    RoundingOptions options;
    options.mode = *parseRoundingMode(mode.toStdString());
    for (Code code = 0; code < (Code(1) << spec.totalBits()); ++code) {
        const QString hex = QString::fromStdString(codeToHex(code, spec.totalBits()));
        const CliRun run =
            runFpx({"show", "--bits", hex, "--as", id, "--formats", id, "--round", mode, "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject r = json(run)["results"].toArray()[0].toObject();
        QCOMPARE(r["bits"].toString(), hex);
        QCOMPARE(r["shortest"].toString(),
                 QString::fromStdString(shortestRoundTrip(spec, code, options)));
    }
}

void TestShowNumberLine::neighboursAndHalfWay() {
    const CliRun run = runFpx({"show", "0.37", "--formats", "fp8_e4m3", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject line = json(run)["results"].toArray()[0].toObject()["number_line"].toObject();
    QCOMPARE(line["low"].toString(), QString("0.34375"));
    QCOMPARE(line["low_bits"].toString(), QString("0x2b"));
    QCOMPARE(line["high"].toString(), QString("0.375"));
    QCOMPARE(line["high_bits"].toString(), QString("0x2c"));
    QCOMPARE(line["midpoint"].toString(), QString("0.359375"));
    QCOMPARE(line["midpoint_bits"].toString(), QString("0x2c")); // the tie goes to the even code
    // (0.37 − 0.34375) / (0.375 − 0.34375) = 0.02625 / 0.03125 = 0.84
    QCOMPARE(line["input_position"].toString(), QString("0.84"));
    const CliRun text = runFpx({"show", "0.37", "--formats", "fp8_e4m3"});
    QVERIFY2(QString::fromUtf8(text.out).contains(
                 QRegularExpression("between +0x2b  0\\.34375  and  0x2c  0\\.375")),
             qPrintable(text.out));
    QVERIFY2(QString::fromUtf8(text.out).contains(
                 QRegularExpression("half-way +0\\.359375  \\(a tie rounds to 0x2c\\)")),
             qPrintable(text.out));
    // Past the range: the step beyond has no code.
    const CliRun over = runFpx({"show", "65520", "--formats", "fp16", "--json"});
    const QJsonObject o = json(over)["results"].toArray()[0].toObject()["number_line"].toObject();
    QCOMPARE(o["high"].toString(), QString("65536"));
    QVERIFY(o["high_bits"].isNull());
    QCOMPARE(o["midpoint_bits"].toString(), QString("0x7c00"));
}

QTEST_GUILESS_MAIN(TestShowNumberLine)
#include "tst_show_number_line.moc"
