// SPDX-License-Identifier: GPL-3.0-or-later
// The catalogue against the table of docs/behaviour.md, "Format facts": limits derived from each
// FormatSpec must equal the published facts, typed here independently as powers of two and
// decimals.
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/value_parser.h"

#include "test_support.h"

#include <QTest>

using namespace fpx;

namespace {

ExactValue value(const QString& text) {
    return fpx::test::exactValue(text);
}

QString exact(const ExactValue& v) {
    return QString::fromStdString(toDecimal(v).text);
}

} // namespace

class TestFormatCatalogue : public QObject {
    Q_OBJECT

  private slots:
    void limits_data();
    void limits();
    void integerLimits_data();
    void integerLimits();
    void nf4Levels();
    void aliases_data();
    void aliases();
    void customSpecs_data();
    void customSpecs();
    void customSpecMatchesBuiltin_data();
    void customSpecMatchesBuiltin();
    void invalidSpecs_data();
    void invalidSpecs();
    void formatList();
};

void TestFormatCatalogue::limits_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("bias");
    QTest::addColumn<QString>("max");
    QTest::addColumn<QString>("minNormal");
    QTest::addColumn<QString>("minSubnormal"); // empty: none
    QTest::addColumn<QString>("epsilon");
    QTest::addColumn<bool>("hasInf");
    QTest::addColumn<bool>("hasNaN");
    QTest::addColumn<bool>("negativeZero");
    // docs/behaviour.md, "Format facts", row by row.
    QTest::newRow("fp64") << "fp64" << 64 << 1023 << "(2-2^-52)*2^1023"
                          << "2^-1022"
                          << "2^-1074"
                          << "2^-52" << true << true << true;
    QTest::newRow("fp32") << "fp32" << 32 << 127 << "(2-2^-23)*2^127"
                          << "2^-126"
                          << "2^-149"
                          << "2^-23" << true << true << true;
    QTest::newRow("tf32") << "tf32" << 19 << 127 << "(2-2^-10)*2^127"
                          << "2^-126"
                          << "2^-136"
                          << "2^-10" << true << true << true;
    QTest::newRow("bf16") << "bf16" << 16 << 127 << "(2-2^-7)*2^127"
                          << "2^-126"
                          << "2^-133"
                          << "2^-7" << true << true << true;
    QTest::newRow("fp16") << "fp16" << 16 << 15 << "65504"
                          << "2^-14"
                          << "2^-24"
                          << "2^-10" << true << true << true;
    QTest::newRow("fp8_e4m3") << "fp8_e4m3" << 8 << 7 << "448"
                              << "2^-6"
                              << "2^-9"
                              << "2^-3" << false << true << true;
    QTest::newRow("fp8_e5m2") << "fp8_e5m2" << 8 << 15 << "57344"
                              << "2^-14"
                              << "2^-16"
                              << "2^-2" << true << true << true;
    QTest::newRow("fp8_e4m3fnuz") << "fp8_e4m3fnuz" << 8 << 8 << "240"
                                  << "2^-7"
                                  << "2^-10"
                                  << "2^-3" << false << true << false;
    QTest::newRow("fp8_e5m2fnuz") << "fp8_e5m2fnuz" << 8 << 16 << "57344"
                                  << "2^-15"
                                  << "2^-17"
                                  << "2^-2" << false << true << false;
    QTest::newRow("fp8_e4m3b11fnuz") << "fp8_e4m3b11fnuz" << 8 << 11 << "30"
                                     << "2^-10"
                                     << "2^-13"
                                     << "2^-3" << false << true << false;
    QTest::newRow("fp8_e3m4") << "fp8_e3m4" << 8 << 3 << "15.5"
                              << "0.25"
                              << "2^-6"
                              << "2^-4" << true << true << true;
    QTest::newRow("fp8_e8m0") << "fp8_e8m0" << 8 << 127 << "2^127"
                              << "2^-127"
                              << ""
                              << "1" << false << true << false;
    QTest::newRow("fp6_e3m2") << "fp6_e3m2" << 6 << 3 << "28"
                              << "0.25"
                              << "0.0625"
                              << "0.25" << false << false << true;
    QTest::newRow("fp6_e2m3") << "fp6_e2m3" << 6 << 1 << "7.5"
                              << "1"
                              << "0.125"
                              << "0.125" << false << false << true;
    QTest::newRow("fp4_e2m1") << "fp4_e2m1" << 4 << 1 << "6"
                              << "1"
                              << "0.5"
                              << "0.5" << false << false << true;
    QTest::newRow("fp80") << "fp80" << 80 << 16383 << "(2-2^-63)*2^16383"
                          << "2^-16382"
                          << "2^-16445"
                          << "2^-63" << true << true << true;
    QTest::newRow("fp128") << "fp128" << 128 << 16383 << "(2-2^-112)*2^16383"
                           << "2^-16382"
                           << "2^-16494"
                           << "2^-112" << true << true << true;
}

void TestFormatCatalogue::limits() {
    QFETCH(QString, id);
    QFETCH(int, bits);
    QFETCH(int, bias);
    QFETCH(QString, max);
    QFETCH(QString, minNormal);
    QFETCH(QString, minSubnormal);
    QFETCH(QString, epsilon);
    QFETCH(bool, hasInf);
    QFETCH(bool, hasNaN);
    QFETCH(bool, negativeZero);
    const FormatLookup lookup = findFormat(id.toStdString());
    QVERIFY2(lookup.spec.has_value(), lookup.error.c_str());
    const FormatSpec& spec = *lookup.spec;
    QCOMPARE(spec.totalBits(), bits);
    QCOMPARE(spec.bias, bias);
    const FormatLimits l = deriveLimits(spec);
    QCOMPARE(exact(l.max), exact(value(max)));
    QVERIFY(l.minNormal.has_value());
    QCOMPARE(exact(*l.minNormal), exact(value(minNormal)));
    if (minSubnormal.isEmpty()) {
        QVERIFY(!l.minSubnormal.has_value());
    } else {
        QVERIFY(l.minSubnormal.has_value());
        QCOMPARE(exact(*l.minSubnormal), exact(value(minSubnormal)));
    }
    QCOMPARE(exact(*l.epsilon), exact(value(epsilon)));
    QCOMPARE(spec.hasInfinity(), hasInf);
    QCOMPARE(spec.hasNaN(), hasNaN);
    QCOMPARE(spec.hasNegativeZero(), negativeZero);
    // The max code decodes to max; one code further is not a larger finite value.
    QCOMPARE(exact(decodeCode(spec, l.maxCode).value), exact(l.max));
    // Signed formats are symmetric.
    if (spec.isSigned)
        QCOMPARE(exact(l.lowest), exact(l.max.negated()));
    // Code counts add up.
    QCOMPARE(l.codeCount, BigInt(1) << bits);
    QCOMPARE(l.finiteCount + l.nanCount + l.infinityCount, l.codeCount);
}

void TestFormatCatalogue::integerLimits_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("lowest");
    QTest::addColumn<int>("highest");
    QTest::newRow("int8") << "int8" << -128 << 127;
    QTest::newRow("int4") << "int4" << -8 << 7;
    QTest::newRow("int2") << "int2" << -2 << 1;
    QTest::newRow("uint8") << "uint8" << 0 << 255;
    QTest::newRow("uint4") << "uint4" << 0 << 15;
    QTest::newRow("int6 custom") << "int6" << -32 << 31;
    QTest::newRow("uint3 custom") << "uint3" << 0 << 7;
}

void TestFormatCatalogue::integerLimits() {
    QFETCH(QString, id);
    QFETCH(int, lowest);
    QFETCH(int, highest);
    FormatSpec spec = *findFormat(id.toStdString()).spec;
    // Default scale 1/qmax: ±1.0 spans the range.
    QCOMPARE(exact(deriveLimits(spec).max), QString("1"));
    QCOMPARE(exact(spec.scale * ExactValue::integer(highest)), QString("1"));
    spec.scale = ExactValue::integer(1);
    const FormatLimits l = deriveLimits(spec);
    QCOMPARE(exact(l.lowest), QString::number(lowest));
    QCOMPARE(exact(l.max), QString::number(highest));
    QCOMPARE(decodeCode(spec, l.lowestCode).level, lowest);
    QCOMPARE(decodeCode(spec, l.maxCode).level, highest);
}

void TestFormatCatalogue::nf4Levels() {
    // docs/behaviour.md, "Format facts" lists the levels as decimals; each is the float32
    // nearest to its text.
    const auto& levels = fpx::test::kNf4Decimals;
    const FormatSpec nf4 = *findFormat("nf4").spec;
    QCOMPARE(nf4.totalBits(), 4);
    for (int code = 0; code < 16; ++code) {
        const float f = std::strtof(levels[code], nullptr);
        const double asDouble = f; // exact
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%a", asDouble); // hex: exact
        const ExactValue expected = *parseValue(buffer).value;
        QCOMPARE(exact(decodeCode(nf4, static_cast<Code>(code)).value), exact(expected));
        // and the shortest double text of that float32 is the text listed there
        QCOMPARE(std::strtod(levels[code], nullptr), asDouble);
    }
}

void TestFormatCatalogue::aliases_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("id");
    const char* rows[][2] = {
        {"float64", "fp64"},
        {"double", "fp64"},
        {"float32", "fp32"},
        {"float", "fp32"},
        {"half", "fp16"},
        {"float16", "fp16"},
        {"bfloat16", "bf16"},
        {"BF16", "bf16"},
        {"e4m3", "fp8_e4m3"},
        {"e5m2", "fp8_e5m2"},
        {"float8_e4m3fn", "fp8_e4m3"},
        {"float8_e5m2", "fp8_e5m2"},
        {"float8_e4m3fnuz", "fp8_e4m3fnuz"},
        {"float8_e5m2fnuz", "fp8_e5m2fnuz"},
        {"float8_e4m3b11fnuz", "fp8_e4m3b11fnuz"},
        {"float8_e8m0fnu", "fp8_e8m0"},
        {"float6_e3m2fn", "fp6_e3m2"},
        {"float6_e2m3fn", "fp6_e2m3"},
        {"float4_e2m1fn", "fp4_e2m1"},
        {"torch.float8_e4m3fn", "fp8_e4m3"},
        {"torch.bfloat16", "bf16"},
        {"np.float16", "fp16"},
        {"ml_dtypes.float8_e3m4", "fp8_e3m4"},
        {"  Float32  ", "fp32"},
        {"torch.float4_e2m1fn_x2", "fp4_e2m1"},
        {"tensorfloat32", "tf32"},
        {"x87", "fp80"},
        {"binary128", "fp128"},
        {"quad", "fp128"},
        {"torch.int8", "int8"},
        {"NF4", "nf4"},
        {"float8_e4m3", "e4m3b7"}, // ml_dtypes' IEEE-style E4M3 is not OCP E4M3FN
    };
    for (const auto& row : rows)
        QTest::newRow(row[0]) << row[0] << row[1];
}

void TestFormatCatalogue::aliases() {
    QFETCH(QString, name);
    QFETCH(QString, id);
    const FormatLookup lookup = findFormat(name.toStdString());
    QVERIFY2(lookup.spec.has_value(), lookup.error.c_str());
    QCOMPARE(QString::fromStdString(lookup.spec->id), id);
}

void TestFormatCatalogue::customSpecs_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("bias");
    QTest::addColumn<QString>("max");
    QTest::addColumn<QString>("minPositive");
    QTest::newRow("e3m3") << "e3m3"
                          << "e3m3" << 7 << 3 << "15"
                          << "2^-5";
    QTest::newRow("e6m9b40") << "e6m9b40"
                             << "e6m9b40" << 16 << 40 << "(2-2^-9)*2^22"
                             << "2^-48";
    QTest::newRow("e5m10 is fp16-like") << "E5M10"
                                        << "e5m10" << 16 << 15 << "65504"
                                        << "2^-24";
    QTest::newRow("e4m3b7 IEEE") << "e4m3b7"
                                 << "e4m3b7" << 8 << 7 << "240"
                                 << "2^-9";
    QTest::newRow("e3m2f finite") << "e3m2f"
                                  << "e3m2f" << 6 << 3 << "28"
                                  << "0.0625";
    QTest::newRow("e5m2fnuz") << "e5m2fnuz"
                              << "fp8_e5m2fnuz" << 8 << 16 << "57344"
                              << "2^-17";
    QTest::newRow("e4m3b11fnuz") << "e4m3b11fnuz"
                                 << "fp8_e4m3b11fnuz" << 8 << 11 << "30"
                                 << "2^-13";
    QTest::newRow("e8m0fnu") << "e8m0fnu"
                             << "fp8_e8m0" << 8 << 127 << "2^127"
                             << "2^-127";
    QTest::newRow("e5m0fnu") << "e5m0fnu"
                             << "e5m0fnu" << 5 << 15 << "2^15"
                             << "2^-15";
    QTest::newRow("e15m112 like fp128") << "e15m112"
                                        << "e15m112" << 128 << 16383 << "(2-2^-112)*2^16383"
                                        << "2^-16494";
    QTest::newRow("negative bias") << "e4m3b-2"
                                   << "e4m3b-2" << 8 << -2 << "(2-2^-3)*2^16"
                                   << "2^0";
}

void TestFormatCatalogue::customSpecs() {
    QFETCH(QString, spec);
    QFETCH(QString, id);
    QFETCH(int, bits);
    QFETCH(int, bias);
    QFETCH(QString, max);
    QFETCH(QString, minPositive);
    const FormatLookup lookup = findFormat(spec.toStdString());
    QVERIFY2(lookup.spec.has_value(), lookup.error.c_str());
    QCOMPARE(QString::fromStdString(lookup.spec->id), id);
    QCOMPARE(lookup.spec->totalBits(), bits);
    QCOMPARE(lookup.spec->bias, bias);
    const FormatLimits l = deriveLimits(*lookup.spec);
    QCOMPARE(exact(l.max), exact(value(max)));
    QCOMPARE(exact(l.minPositive), exact(value(minPositive)));
}

void TestFormatCatalogue::customSpecMatchesBuiltin_data() {
    QTest::addColumn<QString>("custom");
    QTest::addColumn<QString>("builtin");
    QTest::newRow("e5m10 = fp16") << "e5m10"
                                  << "fp16";
    QTest::newRow("e4m3fn = fp8_e4m3") << "e4m3fn"
                                       << "fp8_e4m3";
    QTest::newRow("e8m7 = bf16") << "e8m7"
                                 << "bf16";
    QTest::newRow("e4m3fnuz = fp8_e4m3fnuz") << "e4m3fnuz"
                                             << "fp8_e4m3fnuz";
    QTest::newRow("e5m2b15 = fp8_e5m2") << "e5m2b15"
                                        << "fp8_e5m2";
    QTest::newRow("e3m2f = fp6_e3m2") << "e3m2f"
                                      << "fp6_e3m2";
}

void TestFormatCatalogue::customSpecMatchesBuiltin() {
    QFETCH(QString, custom);
    QFETCH(QString, builtin);
    const FormatSpec a = *findFormat(custom.toStdString()).spec;
    const FormatSpec b = *findFormat(builtin.toStdString()).spec;
    QCOMPARE(a.totalBits(), b.totalBits());
    for (Code code = 0; code < (Code(1) << a.totalBits()); ++code) {
        const DecodedCode da = decodeCode(a, code);
        const DecodedCode db = decodeCode(b, code);
        QVERIFY(da.valueClass == db.valueClass);
        QVERIFY(da.value.isIdenticalTo(db.value) || (da.value.isNaN() && db.value.isNaN()));
    }
}

void TestFormatCatalogue::invalidSpecs_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("unknown") << "fp7"
                             << "unknown format 'fp7'";
    QTest::newRow("empty") << ""
                           << "empty";
    QTest::newRow("zero exponent") << "e0m3"
                                   << "exponent bits";
    QTest::newRow("too many exponent bits") << "e16m3"
                                            << "exponent bits";
    QTest::newRow("too many mantissa bits") << "e5m113"
                                            << "mantissa bits";
    QTest::newRow("too wide") << "e15m113"
                              << "mantissa bits";
    QTest::newRow("ieee without mantissa") << "e5m0"
                                           << "IEEE-style";
    QTest::newRow("bad suffix") << "e4m3xyz"
                                << "unknown suffix";
    QTest::newRow("missing m") << "e4"
                               << "unknown format";
    QTest::newRow("missing mantissa count") << "e4m"
                                            << "mantissa";
    QTest::newRow("missing bias") << "e4m3b"
                                  << "bias";
    QTest::newRow("bias out of range") << "e4m3b99999"
                                       << "bias";
    QTest::newRow("int too wide") << "int65"
                                  << "integer width";
    QTest::newRow("int too narrow") << "int1"
                                    << "integer width";
    QTest::newRow("int garbage") << "int8x"
                                 << "unknown format";
    QTest::newRow("huge number") << "e99999999999999999999m3"
                                 << "unknown format";
}

void TestFormatCatalogue::invalidSpecs() {
    QFETCH(QString, spec);
    QFETCH(QString, messagePart);
    const FormatLookup lookup = findFormat(spec.toStdString());
    QVERIFY(!lookup.spec.has_value());
    QVERIFY2(QString::fromStdString(lookup.error).contains(messagePart), lookup.error.c_str());
}

void TestFormatCatalogue::formatList() {
    const FormatListLookup ok = findFormats("fp16, bf16,,e4m3");
    QVERIFY(ok.error.empty());
    QCOMPARE(ok.specs.size(), std::size_t{3});
    const FormatListLookup bad = findFormats("fp16,nope");
    QVERIFY(QString::fromStdString(bad.error).contains("nope"));
    QVERIFY(bad.specs.empty());
}

QTEST_APPLESS_MAIN(TestFormatCatalogue)
#include "tst_formatcatalogue.moc"
