// SPDX-License-Identifier: GPL-3.0-or-later
// Exact arithmetic, decimal text (exact, rounded, shortest round trip) and the pieces of a
// conversion report: neighbours, ULP, rounding intervals, errors.
#include "fpx/exact/code_details.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/decode_explanation.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <QTest>

using namespace fpx;

namespace {

ExactValue v(const char* text) {
    return *parseValue(text).value;
}
QString dec(const ExactValue& x) {
    return QString::fromStdString(toDecimal(x).text);
}
FormatSpec format(const char* id) {
    return *findFormat(id).spec;
}
QString hex(Code code, const FormatSpec& spec) {
    return QString::fromStdString(codeToHex(code, spec.totalBits()));
}

} // namespace

class TestExactValue : public QObject {
    Q_OBJECT

  private slots:
    void arithmetic();
    void comparison();
    void floorLog2_data();
    void floorLog2();
    void decimalLayout_data();
    void decimalLayout();
    void roundedDigits();
    void shortestRoundTrip_data();
    void shortestRoundTrip();
    void neighboursAndUlp();
    void roundingIntervals_data();
    void roundingIntervals();
    void conversionReport();
    void explanations();
};

void TestExactValue::arithmetic() {
    QCOMPARE(dec(v("0.1") + v("0.2")), QString("0.3"));
    QCOMPARE(dec(v("0.1") - v("0.3")), QString("-0.2"));
    QCOMPARE(dec(v("1/3") * v("3")), QString("1"));
    QCOMPARE(dec(v("1/3") + v("2/3")), QString("1"));
    QCOMPARE(dec(v("2^-1074") * v("2^1074")), QString("1"));
    QCOMPARE(dec(v("1") / v("2^-3")), QString("8"));
    QVERIFY((v("1") / v("0")).isInfinity());
    QVERIFY((v("0") / v("0")).isNaN());
    QVERIFY((v("inf") - v("inf")).isNaN());
    QVERIFY((v("inf") * v("0")).isNaN());
    QVERIFY((v("-0") + v("-0")).isNegative());
    QVERIFY(!(v("1") - v("1")).isNegative());
    QCOMPARE(dec(midpoint(v("1"), v("1+2^-10"))), QString("1.00048828125"));
    // Representation invariants: odd numerator, odd denominator, reduced.
    const ExactValue x = v("12/8");
    QCOMPARE(x.numerator(), BigInt(3));
    QCOMPARE(x.denominator(), BigInt(1));
    QCOMPARE(x.exponent2(), std::int64_t{-1});
    const ExactValue y = v("10/6");
    QCOMPARE(y.numerator(), BigInt(5));
    QCOMPARE(y.denominator(), BigInt(3));
    QVERIFY(v("0.3952").hasTerminatingDecimal());
    QVERIFY(!v("1/3").hasTerminatingDecimal());
}

void TestExactValue::comparison() {
    QVERIFY(compare(v("0.1"), v("0.10000000000000000001")) < 0);
    QVERIFY(compare(v("-0.1"), v("-0.10000000000000000001")) > 0);
    QVERIFY(compare(v("-0"), v("0")) == 0);
    QVERIFY(!v("-0").isIdenticalTo(v("0")));
    QVERIFY(compare(v("-inf"), v("-1e4000")) < 0);
    QVERIFY(compare(v("inf"), v("1e4000")) > 0);
    QVERIFY(compare(v("1/3"), v("0.3333333333333333333333333333")) > 0);
    QVERIFY(compare(v("2^-16494"), v("0")) > 0);
}

void TestExactValue::floorLog2_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<int>("expected");
    QTest::newRow("1") << "1" << 0;
    QTest::newRow("just below 2") << "2-2^-60" << 0;
    QTest::newRow("2") << "2" << 1;
    QTest::newRow("0.3952") << "0.3952" << -2;
    QTest::newRow("1/3") << "1/3" << -2;
    QTest::newRow("negative") << "-1/3" << -2;
    QTest::newRow("power") << "2^-1074" << -1074;
    QTest::newRow("just below power") << "2^-10 - 2^-100" << -11;
    QTest::newRow("1e400") << "1e400" << 1328;
}

void TestExactValue::floorLog2() {
    QFETCH(QString, value);
    QFETCH(int, expected);
    QCOMPARE(v(value.toUtf8().constData()).floorLog2(), std::int64_t{expected});
}

void TestExactValue::decimalLayout_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("integer") << "65504"
                             << "65504";
    QTest::newRow("fp32 max plain") << "(2-2^-23)*2^127"
                                    << "340282346638528859811704183484516925440";
    QTest::newRow("1e40 scientific") << "1e40"
                                     << "1e40";
    QTest::newRow("small plain") << "0.000001"
                                 << "0.000001";
    QTest::newRow("smaller scientific") << "0.0000001"
                                        << "1e-7";
    QTest::newRow("2^-24") << "2^-24"
                           << "5.9604644775390625e-8";
    QTest::newRow("negative") << "-0.375"
                              << "-0.375";
    QTest::newRow("zero") << "0"
                          << "0";
    QTest::newRow("negative zero") << "-0"
                                   << "-0";
    QTest::newRow("inf") << "-inf"
                         << "-inf";
    QTest::newRow("nan") << "nan"
                         << "nan";
}

void TestExactValue::decimalLayout() {
    QFETCH(QString, value);
    QFETCH(QString, text);
    QCOMPARE(dec(v(value.toUtf8().constData())), text);
}

void TestExactValue::roundedDigits() {
    const DecimalText third = toDecimal(v("1/3"));
    QVERIFY(!third.exact);
    QCOMPARE(QString::fromStdString(third.text),
             QString("0.3333333333333333333333333333333333333333"));
    const DecimalText twoThirds = toDecimal(v("2/3"), 5);
    QCOMPARE(QString::fromStdString(twoThirds.text), QString("0.66667"));
    QCOMPARE(QString::fromStdString(toSignificantDigits(v("0.3952"), 2)), QString("0.4"));
    QCOMPARE(QString::fromStdString(toSignificantDigits(v("9.96"), 2)), QString("10"));
    // Ties at the last digit go to even.
    QCOMPARE(QString::fromStdString(toSignificantDigits(v("0.125"), 2)), QString("0.12"));
    QCOMPARE(QString::fromStdString(toSignificantDigits(v("0.375"), 2)), QString("0.38"));
    // The fp64 minimum subnormal has 751 significant digits, printed in full.
    const std::string minSub = toDecimal(v("2^-1074")).text;
    QVERIFY(minSub.starts_with(
        "4."
        "940656458412465441765687928682213723650598026143247644255856825006755072702087518652998363"
        "616359923797965646954457177309266567103559397963987747960107818781263007131903114045278458"
        "171678489821036887186360569987307230500063874091535649843873124733972731696151400317153853"
        "980741262385655911710266585566867681870395603106249319452715914924553293054565444011274801"
        "297099995419319894090804165633245247571478690147267801593552386115501348035264934720193790"
        "268107107491703332226844753335720832431936092382893458368060106011506169809753078342277318"
        "329247904982524730776375927247874656084778203734469699533647017972677717585125660551199131"
        "504891101451037862738167250955837389733598993664809941164205702637090279242767544565229087"
        "538682506419718265533447265625"));
    QVERIFY(minSub.ends_with("e-324"));
}

void TestExactValue::shortestRoundTrip_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("shortest");
    QTest::newRow("fp64 0.1") << "fp64"
                              << "0.1"
                              << "0.1";
    QTest::newRow("fp64 1/3") << "fp64"
                              << "1/3"
                              << "0.3333333333333333";
    QTest::newRow("fp64 min subnormal") << "fp64"
                                        << "2^-1074"
                                        << "5e-324";
    QTest::newRow("fp64 max") << "fp64"
                              << "(2-2^-52)*2^1023"
                              << "1.7976931348623157e308";
    QTest::newRow("fp32 0.1") << "fp32"
                              << "0.1"
                              << "0.1";
    QTest::newRow("fp32 1/3") << "fp32"
                              << "1/3"
                              << "0.33333334";
    QTest::newRow("fp16 0.3952") << "fp16"
                                 << "0.3952"
                                 << "0.3953";
    QTest::newRow("fp16 max") << "fp16"
                              << "65504"
                              << "65500";
    QTest::newRow("bf16 0.3952") << "bf16"
                                 << "0.3952"
                                 << "0.395";
    QTest::newRow("e4m3 0.3952") << "fp8_e4m3"
                                 << "0.3952"
                                 << "0.4";
    QTest::newRow("fp4 6") << "fp4_e2m1"
                           << "6"
                           << "6";
    QTest::newRow("zero") << "fp16"
                          << "-0"
                          << "-0";
}

void TestExactValue::shortestRoundTrip() {
    QFETCH(QString, id);
    QFETCH(QString, value);
    QFETCH(QString, shortest);
    const FormatSpec spec = format(id.toUtf8().constData());
    const Code code = roundToFormat(v(value.toUtf8().constData()), spec).code;
    QCOMPARE(QString::fromStdString(fpx::shortestRoundTrip(spec, code)), shortest);
}

void TestExactValue::neighboursAndUlp() {
    const FormatSpec fp16 = format("fp16");
    auto up = nextUp(fp16, 0x3c00);
    QVERIFY(up);
    QCOMPARE(hex(up->code, fp16), QString("0x3c01"));
    auto down = nextDown(fp16, 0x3c00);
    QCOMPARE(hex(down->code, fp16), QString("0x3bff"));
    QCOMPARE(dec(*unitInLastPlace(fp16, 0x3c00)), QString("0.0009765625"));
    QCOMPARE(hex(nextUp(fp16, 0x7bff)->code, fp16), QString("0x7c00")); // max → inf
    QVERIFY(!nextUp(fp16, 0x7c00));                                     // nothing past inf
    QCOMPARE(hex(nextDown(fp16, 0x7c00)->code, fp16), QString("0x7bff"));
    QCOMPARE(hex(nextUp(fp16, 0x8000)->code, fp16), QString("0x0001")); // −0 → min subnormal
    QCOMPARE(hex(nextUp(fp16, 0x8001)->code, fp16), QString("0x8000")); // → −0
    QVERIFY(!nextUp(fp16, 0x7e00));                                     // NaN has none
    const FormatSpec e4m3 = format("fp8_e4m3");
    QVERIFY(!nextUp(e4m3, 0x7e)); // 448: the next code is NaN
    const FormatSpec fp4 = format("fp4_e2m1");
    QVERIFY(!nextUp(fp4, 0x7));
    QCOMPARE(hex(nextDown(fp4, 0x0)->code, fp4), QString("0x9"));
    const FormatSpec e8m0 = format("fp8_e8m0");
    QVERIFY(!nextDown(e8m0, 0x00));
    QCOMPARE(dec(*unitInLastPlace(e8m0, 0x7f)), QString("1"));
    const FormatSpec int8 = format("int8");
    QCOMPARE(hex(nextUp(int8, 0xff)->code, int8), QString("0x00"));
    QVERIFY(!nextUp(int8, 0x7f));
    const FormatSpec nf4 = format("nf4");
    QCOMPARE(hex(nextUp(nf4, 7)->code, nf4), QString("0x8"));
    QCOMPARE(hex(nextDown(nf4, 7)->code, nf4), QString("0x6"));
}

void TestExactValue::roundingIntervals_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("overflow");
    QTest::addColumn<QString>("interval");
    QTest::newRow("fp16 odd code rne") << "fp16"
                                       << "0x3653"
                                       << "rne"
                                       << "ieee"
                                       << "(0.3951416015625, 0.3953857421875)";
    QTest::newRow("fp16 even code rne") << "fp16"
                                        << "0x3652"
                                        << "rne"
                                        << "ieee"
                                        << "[0.3948974609375, 0.3951416015625]";
    QTest::newRow("fp16 1.0 binade edge") << "fp16"
                                          << "0x3c00"
                                          << "rne"
                                          << "ieee"
                                          << "[0.999755859375, 1.00048828125]";
    QTest::newRow("fp16 max rne") << "fp16"
                                  << "0x7bff"
                                  << "rne"
                                  << "ieee"
                                  << "(65488, 65520)"; // odd code: ties leave
    QTest::newRow("fp16 inf rne") << "fp16"
                                  << "0x7c00"
                                  << "rne"
                                  << "ieee"
                                  << "[65520, inf]";
    QTest::newRow("fp16 max saturate") << "fp16"
                                       << "0x7bff"
                                       << "rne"
                                       << "saturate"
                                       << "(65488, inf]";
    QTest::newRow("fp16 +0") << "fp16"
                             << "0x0000"
                             << "rne"
                             << "ieee"
                             << "[0, 2.98023223876953125e-8]";
    QTest::newRow("fp16 -0") << "fp16"
                             << "0x8000"
                             << "rne"
                             << "ieee"
                             << "[-2.98023223876953125e-8, -0]";
    QTest::newRow("fp16 rdn") << "fp16"
                              << "0x3c00"
                              << "rdn"
                              << "ieee"
                              << "[1, 1.0009765625)";
    QTest::newRow("fp16 rup") << "fp16"
                              << "0x3c00"
                              << "rup"
                              << "ieee"
                              << "(0.99951171875, 1]";
    QTest::newRow("fp16 rtz negative") << "fp16"
                                       << "0xbc00"
                                       << "rtz"
                                       << "ieee"
                                       << "(-1.0009765625, -1]";
    QTest::newRow("e4m3 max rne") << "fp8_e4m3"
                                  << "0x7e"
                                  << "rne"
                                  << "ieee"
                                  << "[432, 464]";
    QTest::newRow("e5m2 max rne") << "fp8_e5m2"
                                  << "0x7b"
                                  << "rne"
                                  << "ieee"
                                  << "(53248, 61440)";
    QTest::newRow("fnuz zero") << "fp8_e4m3fnuz"
                               << "0x00"
                               << "rne"
                               << "ieee"
                               << "[-0.00048828125, 0.00048828125]";
    QTest::newRow("fp4 max") << "fp4_e2m1"
                             << "0x7"
                             << "rne"
                             << "ieee"
                             << "(5, inf]";
    // Toward zero every finite overflow lands on max; ∞ itself stays ∞.
    QTest::newRow("fp16 max rtz") << "fp16"
                                  << "0x7bff"
                                  << "rtz"
                                  << "ieee"
                                  << "[65504, inf)";
    QTest::newRow("e4m3 max rdn") << "fp8_e4m3"
                                  << "0x7e"
                                  << "rdn"
                                  << "ieee"
                                  << "[448, inf)";
    QTest::newRow("fp16 -max rup") << "fp16"
                                   << "0xfbff"
                                   << "rup"
                                   << "ieee"
                                   << "(-inf, -65504]";
    // Round-to-odd: only an exact input gives an even code, zero included.
    QTest::newRow("fp16 zero rto") << "fp16"
                                   << "0x0000"
                                   << "rto"
                                   << "ieee"
                                   << "[0, 0]";
    QTest::newRow("int8 zero rto") << "int8"
                                   << "0x00"
                                   << "rto"
                                   << "ieee"
                                   << "[0, 0]";
    QTest::newRow("e8m0 rto truncates") << "fp8_e8m0"
                                        << "0x81"
                                        << "rto"
                                        << "ieee"
                                        << "[4, 8)";
    // E8M0 has no zero: its smallest value takes everything below it.
    QTest::newRow("e8m0 smallest rdn") << "fp8_e8m0"
                                       << "0x00"
                                       << "rdn"
                                       << "ieee"
                                       << "(0, "
                                          "1."
                                          "17549435082228750796873653722224567781866555677208752150"
                                          "87517062784172594547271728515625e-38)";
    QTest::newRow("int8 level 1") << "int8"
                                  << "0x01"
                                  << "rne"
                                  << "ieee"
                                  << "(0.0039370078740157480314960629921259842519685, "
                                     "0.011811023622047244094488188976377952755906)";
}

void TestExactValue::roundingIntervals() {
    QFETCH(QString, id);
    QFETCH(QString, code);
    QFETCH(QString, mode);
    QFETCH(QString, overflow);
    QFETCH(QString, interval);
    const FormatSpec spec = format(id.toUtf8().constData());
    RoundingOptions options;
    options.mode = *parseRoundingMode(mode.toStdString());
    options.overflow = *parseOverflowPolicy(overflow.toStdString());
    const CodeDetails d =
        describeCode(spec, *parseCode(code.toStdString(), spec.totalBits()), options);
    QVERIFY(d.interval);
    const RoundingInterval& r = *d.interval;
    auto text = [](const ExactValue& x) {
        const DecimalText t = toDecimal(x, 41);
        return QString::fromStdString(t.text);
    };
    const QString actual = QString(r.lowClosed ? "[" : "(") + text(r.low) + ", " + text(r.high) +
                           (r.highClosed ? "]" : ")");
    QCOMPARE(actual, interval);
}

void TestExactValue::conversionReport() {
    const FormatSpec fp16 = format("fp16");
    const ConversionReport r = convertAndDescribe(v("0.3952"), fp16);
    QCOMPARE(hex(r.conversion.code, fp16), QString("0x3653"));
    QCOMPARE(dec(r.details.decoded.value), QString("0.395263671875"));
    QCOMPARE(dec(r.error), QString("0.000063671875"));
    QCOMPARE(dec(r.ulpError), QString("0.2608")); // 0.000063671875 × 2^12
    QVERIFY(r.conversion.flags.inexact);
    QVERIFY(!r.conversion.flags.underflow);
    const ConversionReport overflow = convertAndDescribe(v("1e6"), fp16);
    QVERIFY(overflow.details.decoded.value.isInfinity());
    QVERIFY(overflow.error.isInfinity());
    QVERIFY(overflow.conversion.flags.overflow);
    const ConversionReport inf = convertAndDescribe(v("inf"), fp16);
    QVERIFY(inf.error.isZero());
    QVERIFY(!inf.conversion.flags.any());
    const ConversionReport nan = convertAndDescribe(v("nan"), fp16);
    QVERIFY(nan.error.isNaN());
}

void TestExactValue::explanations() {
    const FormatSpec fp16 = format("fp16");
    QCOMPARE(QString::fromStdString(explainDecode(fp16, decodeCode(fp16, 0x3653))),
             QString("(-1)^0 × 2^(13 - 15) × (1 + 595/2^10) = 0.395263671875"));
    QCOMPARE(QString::fromStdString(explainDecode(fp16, decodeCode(fp16, 0x8001))),
             QString("subnormal: (-1)^1 × 2^(1 - 15) × (0 + 1/2^10) = -5.9604644775390625e-8"));
    QVERIFY(explainDecode(fp16, decodeCode(fp16, 0x7c00)).find("inf") != std::string::npos);
    const FormatSpec e4m3 = format("fp8_e4m3");
    QVERIFY(explainDecode(e4m3, decodeCode(e4m3, 0x7f)).find("NaN") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestExactValue)
#include "tst_exactvalue.moc"
