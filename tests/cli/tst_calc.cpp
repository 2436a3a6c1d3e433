// SPDX-License-Identifier: GPL-3.0-or-later
// fpx calc and fpx show --round sr, run as the real binary: JSON keys and values, the teaching
// text of one format, formats without arithmetic, bad expressions (column, message, exit
// status), and stochastic rounding's neighbours, exact probability and observed fraction.
#include "cli_runner.h"
#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "test_support.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using Run = fpx::test::CliRun;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QString decimalOf(const fpx::ExactValue& v) {
    return QString::fromStdString(fpx::toDecimal(v).text);
}

// The exact value of a code, decoded here from the "0x…" text fpx printed.
fpx::ExactValue valueOfBits(const QString& format, const QString& bits) {
    const fpx::FormatSpec spec = fpx::test::lookUp(format);
    bool ok = false;
    const qulonglong code = bits.mid(2).toULongLong(&ok, 16);
    if (!ok)
        qFatal("not hex bits: %s", qPrintable(bits));
    return fpx::decodeCode(spec, fpx::Code(code)).value;
}

QStringList strings(const QJsonValue& array) {
    QStringList list;
    for (const QJsonValue& v : array.toArray())
        list << v.toString();
    return list;
}

} // namespace

class TestCalc : public QObject {
    Q_OBJECT

  private slots:
    void help();
    void jsonKeysAndValues();
    void defaultFormatsAreThoseWithArithmetic();
    void unsupportedFormatsAreListed();
    void oneFormatWritesTheStepsOut();
    void textTableForManyFormats();
    void sqrtSaysApproximate();
    void stochasticIsSeeded();
    void badExpressions_data();
    void badExpressions();
    void explicitRoundings();
    void explicitText();
    void explicitErrors_data();
    void explicitErrors();
    void showStochastic();
    void showStochasticErrors_data();
    void showStochasticErrors();
    void linesFromInput();
};

void TestCalc::help() {
    const Run run = runFpx({"calc", "--help"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("fpx calc EXPR"));
    const Run usage = runFpx({"--help"});
    QVERIFY(usage.out.contains("fpx calc EXPR"));
}

void TestCalc::jsonKeysAndValues() {
    const Run run = runFpx({"calc", "0.1+0.2", "--formats", "fp64,fp16", "--json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject doc = json(run);
    QCOMPARE(doc["expression"].toString(), QString("0.1+0.2"));
    QCOMPARE(doc["exact"].toString(), QString("0.3"));
    const QJsonArray results = doc["results"].toArray();
    QCOMPARE(results.size(), 2);
    // FP64: 0.1 and 0.2 rounded, then their sum rounded: one ulp above the double nearest 0.3.
    const QJsonObject fp64 = results[0].toObject();
    QCOMPARE(fp64["format"].toString(), QString("fp64"));
    QCOMPARE(fp64["bits"].toString(), QString("0x3fd3333333333334"));
    QCOMPARE(fp64["value"].toString(), decimalOf(valueOfBits("fp64", "0x3fd3333333333334")));
    const fpx::ExactValue error =
        valueOfBits("fp64", "0x3fd3333333333334") - fpx::test::exactValue("0.3");
    QCOMPARE(fp64["error"].toString(), decimalOf(error));
    QCOMPARE(strings(fp64["flags"]), QStringList{"inexact"});
    const QJsonArray operations = fp64["operations"].toArray();
    QCOMPARE(operations.size(), 1);
    const QJsonObject add = operations[0].toObject();
    for (const char* key : {"op", "operands", "exact", "value", "bits", "flags", "ulp_error"})
        QVERIFY2(add.contains(key), key);
    QCOMPARE(add["op"].toString(), QString("+"));
    const QStringList operands = strings(add["operands"]);
    QCOMPARE(operands.size(), 2);
    QCOMPARE(operands[0], decimalOf(valueOfBits("fp64", "0x3fb999999999999a")));
    QCOMPARE(add["exact"].toString(), decimalOf(valueOfBits("fp64", "0x3fb999999999999a") +
                                                valueOfBits("fp64", "0x3fc999999999999a")));
    QCOMPARE(add["bits"].toString(), QString("0x3fd3333333333334"));
    QCOMPARE(add["ulp_error"].toString(), QString("0.5"));
    // Several formats: no teaching text in the JSON; FP16 rounds to 0x34cc.
    QVERIFY(!add.contains("explanation"));
    QCOMPARE(results[1].toObject()["bits"].toString(), QString("0x34cc"));
    // One format: each operation carries its explanation.
    const QJsonObject one = json(runFpx({"calc", "1+2^-11", "--formats", "fp16", "--json"}));
    const QJsonObject step = one["results"][0]["operations"][0].toObject();
    QVERIFY(strings(step["explanation"]).join('\n').contains("tie → to even"));
}

void TestCalc::defaultFormatsAreThoseWithArithmetic() {
    const QJsonObject doc = json(runFpx({"calc", "1/3", "--json"}));
    QStringList expected;
    for (const fpx::FormatSpec& spec : fpx::builtinFormats())
        if (!fpx::arithmeticUnsupported(spec))
            expected << QString::fromStdString(spec.id);
    QStringList got;
    for (const QJsonValue& r : doc["results"].toArray()) {
        got << r.toObject()["format"].toString();
        QVERIFY(!r.toObject().contains("unsupported"));
    }
    QCOMPARE(got, expected);
    QVERIFY(!got.contains("nf4") && !got.contains("fp8_e8m0"));
    // 1/3 has no terminating decimal: the exact text says so.
    QVERIFY(!doc["exact_decimal_complete"].toBool());
    QVERIFY(!doc["exact_approximate"].toBool());
}

void TestCalc::unsupportedFormatsAreListed() {
    const Run run = runFpx({"calc", "1+1", "--formats", "fp16,nf4,fp8_e8m0", "--json"});
    QCOMPARE(run.exitCode, 1);
    const QJsonArray results = json(run)["results"].toArray();
    QCOMPARE(results.size(), 3);
    QCOMPARE(results[0].toObject()["bits"].toString(), QString("0x4000"));
    for (int i = 1; i < 3; ++i) {
        const QJsonObject r = results[i].toObject();
        QVERIFY(r["unsupported"].toString().contains("has no arithmetic"));
        QVERIFY(!r.contains("bits"));
    }
    const Run text = runFpx({"calc", "1+1", "--formats", "nf4"});
    QCOMPARE(text.exitCode, 1);
    QVERIFY2(text.out.contains("nf4 has no arithmetic"), text.out.constData());
}

// 1 + 1.1b × 2^-11 in FP16: b shifted right 11 places, G=1 R=1 S=0, rounded up to 0x3c01.
void TestCalc::oneFormatWritesTheStepsOut() {
    const Run run = runFpx({"calc", "1 + 0x1.8p-11", "--formats", "fp16"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString out = QString::fromUtf8(run.out);
    for (const char* part :
         {"literals", "0x1.8p-11  →  0x1200", "step 1", "a = +1.0000000000 × 2^0  (0x3c00)",
          "b = +1.1000000000 × 2^-11  (0x1200)", "shift b's significand right 11 places",
          "+0.0000000000|11000000000 × 2^0", "exact sum = +1.0000000000|11000000000 × 2^0",
          "G=1 R=1 S=0", "G=1, R|S=1 → above half an ulp: round up",
          "result = +1.0000000001 × 2^0 = 1.0009765625  (0x3c01)", "0.25 ulp"})
        QVERIFY2(out.contains(QString::fromUtf8(part)), qPrintable(part + QString("\n") + out));
    // Overflow in words: 65504 + 16 ties to even, carries, and overflows to ∞.
    const QString overflow =
        QString::fromUtf8(runFpx({"calc", "65504+16", "--formats", "fp16"}).out);
    QVERIFY2(overflow.contains("the last kept bit is 1, round up"), qPrintable(overflow));
    QVERIFY(overflow.contains("the increment carries"));
    QVERIFY(overflow.contains("overflow: rounded with an unbounded exponent"));
    // Cancellation: normalization shifts left.
    const QString cancel =
        QString::fromUtf8(runFpx({"calc", "1 - 0.99951171875", "--formats", "fp16"}).out);
    QVERIFY2(cancel.contains("normalize: shift left 11 (leading bits cancelled)"),
             qPrintable(cancel));
    // Integer formats speak of levels.
    const QString levels = QString::fromUtf8(runFpx({"calc", "0.5*0.5", "--formats", "int8"}).out);
    QVERIFY2(levels.contains("levels × scale 1/127"), qPrintable(levels));
    QVERIFY(levels.contains("result = level 32"));
}

void TestCalc::textTableForManyFormats() {
    const Run run = runFpx({"calc", "fma(0.1, 10, -1)", "--formats", "fp64,fp32,bf16"});
    QCOMPARE(run.exitCode, 0);
    const QString out = QString::fromUtf8(run.out);
    QVERIFY(out.contains("exact       0\n"));
    QVERIFY(out.contains("operations"));
    QVERIFY(out.contains("fp64") && out.contains("bf16"));
    // fma rounds once: FP64 keeps 2^-54 = 5.55111512312578270211815834045410156e-17.
    QVERIFY2(out.contains("0x3c90000000000000"), qPrintable(out));
}

void TestCalc::sqrtSaysApproximate() {
    const QJsonObject doc = json(runFpx({"calc", "sqrt(2)", "--formats", "fp32", "--json"}));
    QVERIFY(doc["exact_approximate"].toBool());
    QVERIFY(doc["exact"].toString().startsWith("1.41421356237309504880168872420969807"));
    const QJsonObject r = doc["results"][0].toObject();
    QCOMPARE(r["bits"].toString(), QString("0x3fb504f3"));
    QVERIFY(!r["error_exact"].toBool());
    QVERIFY(r["operations"][0].toObject()["exact_approximate"].toBool());
    const QString text = QString::fromUtf8(runFpx({"calc", "sqrt(2)", "--formats", "fp32"}).out);
    QVERIFY(text.contains("approximate: a square root"));
}

void TestCalc::stochasticIsSeeded() {
    const QStringList args = {"calc",    "0.1+0.2+0.3", "--formats", "fp8_e4m3",
                              "--round", "sr",          "--json"};
    const QJsonObject first = json(runFpx(args + QStringList{"--seed", "7"}));
    const QJsonObject again = json(runFpx(args + QStringList{"--seed", "7"}));
    QCOMPARE(first, again);
    QCOMPARE(first["seed"].toInt(), 7);
    QCOMPARE(first["round"].toString(), QString("sr"));
    // Over many seeds both neighbours of the sum turn up.
    QSet<QString> seen;
    for (int seed = 0; seed < 24; ++seed)
        seen << json(runFpx(args + QStringList{"--seed", QString::number(seed)}))["results"][0]
                    .toObject()["bits"]
                    .toString();
    QVERIFY2(seen.size() >= 2, "stochastic rounding never changed the result");
}

void TestCalc::badExpressions_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("unclosed") << QStringList{"calc", "1+(2*3"} << 1
                              << "fpx calc: cannot read EXPR '1+(2*3' at column 7: expected ')' "
                                 "to close the '(' at column 3";
    QTest::newRow("unknown function")
        << QStringList{"calc", "2*exp(1)"} << 1
        << "fpx calc: cannot read EXPR '2*exp(1)' at column 3: unknown name 'exp'";
    QTest::newRow("arguments") << QStringList{"calc", "min(1)"} << 1
                               << "at column 6: min takes 2 arguments, found 1";
    QTest::newRow("garbage") << QStringList{"calc", "1 + 2 $"} << 1
                             << "at column 7: unexpected character '$'";
    QTest::newRow("no expression") << QStringList{"calc"} << 2 << "expected an expression";
    QTest::newRow("bad mode") << QStringList{"calc", "1", "--round", "upward"} << 2
                              << "unknown rounding mode";
    QTest::newRow("bad format") << QStringList{"calc", "1", "--formats", "fp7"} << 2 << "--formats";
    QTest::newRow("too long") << QStringList{"calc", QString(5000, '1')} << 1
                              << "longer than 4096 bytes";
}

void TestCalc::badExpressions() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Run run = runFpx(args);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    QVERIFY(run.out.isEmpty());
}

// Written roundings, everything else exact: bf16(0.1) = 0x3dcd = 0.10009765625 and
// bf16(0.2) = 0x3e4d = 0.2001953125 add up exactly to 0.30029296875; 2^-30 is far below half
// FP32's ULP of 1 (2^-24), so fp32(1 + 2^-30) is 1.
void TestCalc::explicitRoundings() {
    const Run sum = runFpx({"calc", "--explicit", "bf16(0.1)+bf16(0.2)", "--json"});
    QVERIFY2(sum.exitCode == 0, sum.err.constData());
    const QJsonObject root = json(sum);
    QVERIFY(root["explicit"].toBool());
    QCOMPARE(root["value"].toString(), QString("0.30029296875"));
    QVERIFY(root["value_decimal_complete"].toBool());
    QCOMPARE(root["unrounded"].toString(), QString("0.3"));
    QCOMPARE(root["difference"].toString(), QString("0.00029296875"));
    QVERIFY(root["result_format"].isNull());
    QCOMPARE(strings(root["flags"]), QStringList{"inexact"});
    const QJsonArray roundings = root["roundings"].toArray();
    QCOMPARE(roundings.size(), 2);
    const QJsonObject first = roundings[0].toObject();
    QCOMPARE(first["text"].toString(), QString("bf16(0.1)"));
    QCOMPARE(first["format"].toString(), QString("bf16"));
    QCOMPARE(first["mode"].toString(), QString("rne"));
    QCOMPARE(first["argument"].toString(), QString("0.1"));
    QCOMPARE(first["bits"].toString(), QString("0x3dcd"));
    QCOMPARE(first["value"].toString(), QString("0.10009765625"));
    QCOMPARE(roundings[1].toObject()["bits"].toString(), QString("0x3e4d"));

    const Run one = runFpx({"calc", "--explicit", "fp32(1 + 2^-30)", "--json"});
    QVERIFY2(one.exitCode == 0, one.err.constData());
    const QJsonObject oneRoot = json(one);
    QCOMPARE(oneRoot["value"].toString(), QString("1"));
    QCOMPARE(oneRoot["result_format"].toString(), QString("fp32"));
    QCOMPARE(oneRoot["result_bits"].toString(), QString("0x3f800000"));
    QCOMPARE(oneRoot["unrounded"].toString(), QString("1.000000000931322574615478515625"));
    QCOMPARE(oneRoot["difference"].toString(), QString("-9.31322574615478515625e-10"));

    // A written mode, and --round for the roundings that name none: 1/3 lies between BF16's
    // 0x3eaa and 0x3eab.
    const Run modes =
        runFpx({"calc", "--explicit", "bf16(1/3, rtz) + bf16(1/3)", "--round", "rup", "--json"});
    QVERIFY2(modes.exitCode == 0, modes.err.constData());
    const QJsonArray modeRoundings = json(modes)["roundings"].toArray();
    QCOMPARE(modeRoundings[0].toObject()["bits"].toString(), QString("0x3eaa"));
    QCOMPARE(modeRoundings[0].toObject()["mode"].toString(), QString("rtz"));
    QCOMPARE(modeRoundings[1].toObject()["bits"].toString(), QString("0x3eab"));
    QCOMPARE(modeRoundings[1].toObject()["mode"].toString(), QString("rup"));
    // Stochastic rounding is seeded: the same seed, the same draws.
    const QStringList sr = {"calc", "--explicit", "fp16(0.1)+fp16(0.2)", "--round", "sr", "--seed",
                            "5",    "--json"};
    QCOMPARE(runFpx(sr).out, runFpx(sr).out);
}

void TestCalc::explicitText() {
    const Run run = runFpx({"calc", "--explicit", "bf16(0.1)+bf16(0.2)"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString out = QString::fromUtf8(run.out);
    for (const char* expected : {"bf16(0.1)", "0x3dcd", "0.10009765625", "0x3e4d", "0.30029296875",
                                 "0.00029296875", "rne, inexact"})
        QVERIFY2(out.contains(expected), qPrintable(expected + QString("\n") + out));
    const Run coded = runFpx({"calc", "--explicit", "fp32(sqrt(2))"});
    QVERIFY2(coded.exitCode == 0, coded.err.constData());
    QVERIFY2(coded.out.contains("0x3fb504f3 fp32  1.41421353816986083984375"),
             coded.out.constData());
}

void TestCalc::explicitErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("unclosed") << QStringList{"calc", "--explicit", "bf16(0.1"} << 1
                              << "at column 9: expected ')' to close the '(' at column 5";
    QTest::newRow("unknown format") << QStringList{"calc", "--explicit", "bf17(1)"} << 1
                                    << "at column 1: unknown format 'bf17'";
    QTest::newRow("no variables") << QStringList{"calc", "--explicit", "fp32(x)"} << 1
                                  << "at column 6: unknown name 'x'";
    QTest::newRow("unknown mode") << QStringList{"calc", "--explicit", "fp32(1, up-ish)"} << 1
                                  << "at column 9: unknown rounding mode 'up-ish'";
    QTest::newRow("with formats") << QStringList{"calc", "--explicit", "1", "--formats", "bf16"}
                                  << 2 << "--formats does not go with --explicit";
}

void TestCalc::explicitErrors() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Run run = runFpx(args);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    QVERIFY(run.out.isEmpty());
}

// 0.1 lies 0.4 of the way from FP16's 0x2e66 to 0x2e67: p_up is exactly 0.4, and the fraction
// of seeded draws that go up is close to it.
void TestCalc::showStochastic() {
    const Run run = runFpx({"show", "0.1", "--round", "sr", "--formats", "fp16,bf16", "--json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject fp16 = json(run)["results"][0].toObject();
    const QJsonObject s = fp16["stochastic"].toObject();
    QCOMPARE(s["down_bits"].toString(), QString("0x2e66"));
    QCOMPARE(s["up_bits"].toString(), QString("0x2e67"));
    QCOMPARE(s["down"].toString(), decimalOf(valueOfBits("fp16", "0x2e66")));
    QCOMPARE(s["up"].toString(), decimalOf(valueOfBits("fp16", "0x2e67")));
    // (0.1 − down) / (up − down), exactly.
    const fpx::ExactValue p = (fpx::test::exactValue("0.1") - valueOfBits("fp16", "0x2e66")) /
                              (valueOfBits("fp16", "0x2e67") - valueOfBits("fp16", "0x2e66"));
    QCOMPARE(decimalOf(p), QString("0.4"));
    QCOMPARE(s["p_up"].toString(), QString("0.4"));
    QVERIFY(!s.contains("draws"));
    QVERIFY(json(run)["results"][1].toObject().contains("stochastic"));

    const int draws = 40000;
    const QJsonObject drawn = json(runFpx({"show", "0.1", "--round", "sr", "--formats", "fp16",
                                           "--draws", QString::number(draws), "--json"}));
    const QJsonObject d = drawn["results"][0].toObject()["stochastic"].toObject();
    QCOMPARE(d["draws"].toInt(), draws);
    // Binomial: the standard deviation is √(0.4·0.6/40000) ≈ 0.0025; allow six of them.
    const double observed = d["observed_p_up"].toString().toDouble();
    QVERIFY2(observed > 0.385 && observed < 0.415, qPrintable(d["observed_p_up"].toString()));
    // The text view of one format says the same.
    const QString text = QString::fromUtf8(
        runFpx({"show", "0.1", "--round", "sr", "--formats", "fp16", "--draws", "1000"}).out);
    QVERIFY2(text.contains("p(up)       0.4"), qPrintable(text));
    QVERIFY(text.contains("of 1000 seeded draws went up"));
    // Without sr there is nothing stochastic to show; a value of the format has one outcome.
    QVERIFY(!json(runFpx({"show", "0.1", "--formats", "fp16", "--json"}))["results"][0]
                 .toObject()
                 .contains("stochastic"));
    const QJsonObject exact =
        json(runFpx({"show", "0.5", "--round", "sr", "--formats", "fp16", "--json"}))["results"][0]
            .toObject()["stochastic"]
            .toObject();
    QCOMPARE(exact["p_up"].toString(), QString("0"));
    QCOMPARE(exact["down_bits"].toString(), exact["up_bits"].toString());
}

void TestCalc::showStochasticErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("without sr") << QStringList{"show", "0.1", "--draws", "10"}
                                << "needs --round sr";
    QTest::newRow("zero") << QStringList{"show", "0.1", "--round", "sr", "--draws", "0"}
                          << "from 1 to 10000000";
    QTest::newRow("too many") << QStringList{"show", "0.1", "--round", "sr", "--draws", "20000000"}
                              << "from 1 to 10000000";
    QTest::newRow("not a number") << QStringList{"show", "0.1", "--round", "sr", "--draws", "x"}
                                  << "from 1 to 10000000";
}

void TestCalc::showStochasticErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run run = runFpx(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
}

// `fpx calc -`: an EXPR a line; each line's JSON is the document `fpx calc EXPR` prints for it;
// a bad line is named by line and column and the others still run.
void TestCalc::linesFromInput() {
    const QByteArray input = "0.1+0.2\n\n# a comment\n  1/3  \n1+*2\nfma(2,3,1)\n";
    const Run run = runFpx({"calc", "-", "--formats", "fp16,bf16", "--json"}, input);
    QCOMPARE(run.exitCode, 1);
    const QList<QByteArray> lines = run.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    const QStringList expressions{"0.1+0.2", "1/3", "fma(2,3,1)"};
    for (int i = 0; i < 3; ++i) {
        const QJsonObject line = QJsonDocument::fromJson(lines[i]).object();
        const Run alone = runFpx({"calc", expressions[i], "--formats", "fp16,bf16", "--json"});
        QCOMPARE(line, json(alone));
    }
    QVERIFY2(run.err.contains("stdin:5:3:"), run.err.constData());
    QVERIFY(!run.err.contains("usage"));
    // Text, and --explicit, from the same stream.
    const Run text = runFpx({"calc", "-", "--formats", "fp16"}, "0.5+0.25\n1/3\n");
    QCOMPARE(text.exitCode, 0);
    QCOMPARE(text.out.count("expression"), 2);
    const Run explicitLines =
        runFpx({"calc", "-", "--explicit"}, "bf16(0.1)+bf16(0.2)\nfp16(1/3)\n");
    QCOMPARE(explicitLines.exitCode, 0);
    QCOMPARE(explicitLines.out.count("explicit roundings"), 2);
    // Nothing to read is no error; no EXPR at all says how to give one.
    QCOMPARE(runFpx({"calc", "-"}, "").exitCode, 0);
    const Run none = runFpx({"calc"});
    QCOMPARE(none.exitCode, 2);
    QVERIFY(none.err.contains("- to read"));
}

QTEST_APPLESS_MAIN(TestCalc)
#include "tst_calc.moc"
