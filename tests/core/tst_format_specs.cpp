// SPDX-License-Identifier: GPL-3.0-or-later
// Custom format specs: the spec string of a format reads back as the same format, the same
// format is recognised under any name, names show bias and specials, and the one decision
// about short specs (`e3m2` is OCP FP6 E3M2, the IEEE-style one is `e3m2b3`) holds in the
// alias table, the parser and the README alike. Also the rows of "same bits in every format"
// and the ≈ rule for errors against a stand-in input.
#include "fpx/exact/approximate_error.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/same_bits.h"
#include "fpx/exact/value_parser.h"

#include "test_support.h"

#include <QFile>
#include <QTest>

using namespace fpx;
using fpx::test::exactValue;
using fpx::test::lookUp;

class TestFormatSpecs : public QObject {
    Q_OBJECT

  private slots:
    void specStringReadsBack();
    void specStringOfBuiltins_data();
    void specStringOfBuiltins();
    void sameEncodingUnderAnyName();
    void namesShowBiasAndSpecials();
    void shortSpecsNameBuiltins();
    void readmeSaysTheSame();
    void sameBitsRows();
    void approximateErrors();
    void widestSignedIntegersDecode();
};

void TestFormatSpecs::specStringReadsBack() {
    for (const char* text : {"e5m10", "e4m3b11fnuz", "e6m9b40", "e8m0fnu", "e3m2f", "e3m2b3",
                             "e4m3b7", "e2m5b-3fn", "e15m112", "int6", "uint3"}) {
        const FormatSpec spec = lookUp(text);
        const std::string string = specString(spec);
        const FormatLookup back = findFormat(string);
        QVERIFY2(back, qPrintable(QString::fromStdString(string + ": " + back.error)));
        QVERIFY2(sameEncoding(*back.spec, spec),
                 qPrintable(QString("%1 → %2").arg(text, QString::fromStdString(string))));
    }
    QCOMPARE(QString::fromStdString(specString(lookUp("e4m3b11fnuz"))), QString("e4m3b11fnuz"));
    QCOMPARE(QString::fromStdString(specString(lookUp("int6"))), QString("int6"));
}

void TestFormatSpecs::specStringOfBuiltins_data() {
    // The built-ins' fields as docs/behaviour.md, "Format facts" lists them.
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("spec");
    QTest::newRow("fp16") << "fp16"
                          << "e5m10b15";
    QTest::newRow("bf16") << "bf16"
                          << "e8m7b127";
    QTest::newRow("e4m3") << "fp8_e4m3"
                          << "e4m3b7fn";
    QTest::newRow("e5m2") << "fp8_e5m2"
                          << "e5m2b15";
    QTest::newRow("e4m3fnuz") << "fp8_e4m3fnuz"
                              << "e4m3b8fnuz";
    QTest::newRow("e8m0") << "fp8_e8m0"
                          << "e8m0b127fnu";
    QTest::newRow("fp6 e3m2") << "fp6_e3m2"
                              << "e3m2b3f";
    QTest::newRow("fp6 e2m3") << "fp6_e2m3"
                              << "e2m3b1f";
    QTest::newRow("fp4") << "fp4_e2m1"
                         << "e2m1b1f";
    QTest::newRow("int8") << "int8"
                          << "int8";
}

void TestFormatSpecs::specStringOfBuiltins() {
    QFETCH(QString, id);
    QFETCH(QString, spec);
    QCOMPARE(QString::fromStdString(specString(lookUp(id))), spec);
    // And the spec is the built-in's format, though it reads as a custom one.
    QVERIFY(sameEncoding(lookUp(spec), lookUp(id)));
}

void TestFormatSpecs::sameEncodingUnderAnyName() {
    QVERIFY(sameEncoding(lookUp("e5m10"), lookUp("fp16")));
    QVERIFY(sameEncoding(lookUp("e3m2f"), lookUp("fp6_e3m2")));
    QVERIFY(sameEncoding(lookUp("e4m3fn"), lookUp("float8_e4m3fn")));
    QVERIFY(sameEncoding(lookUp("torch.float8_e5m2"), lookUp("e5m2b15")));
    QVERIFY(!sameEncoding(lookUp("e4m3b7"), lookUp("e4m3"))); // IEEE vs OCP fn
    QVERIFY(!sameEncoding(lookUp("e4m3b8"), lookUp("e4m3b7")));
    QVERIFY(!sameEncoding(lookUp("e4m3fnuz"), lookUp("e4m3b8")));
    QVERIFY(!sameEncoding(lookUp("int8"), lookUp("uint8")));
    FormatSpec scaled = lookUp("int8");
    scaled.scale = exactValue("0.01");
    QVERIFY(!sameEncoding(scaled, lookUp("int8"))); // another scale: other values
    QVERIFY(sameEncoding(lookUp("qint8"), lookUp("int8")));
    QVERIFY(!sameEncoding(lookUp("fp80"), lookUp("e15m63b16383"))); // no explicit integer bit
}

void TestFormatSpecs::namesShowBiasAndSpecials() {
    QCOMPARE(QString::fromStdString(fieldsName(lookUp("fp8_e4m3"))), QString("e4m3 b=7 fn"));
    QCOMPARE(QString::fromStdString(fieldsName(lookUp("fp16"))), QString("e5m10 b=15 ieee"));
    QCOMPARE(QString::fromStdString(fieldsName(lookUp("e4m3b11fnuz"))), QString("e4m3 b=11 fnuz"));
    QCOMPARE(QString::fromStdString(fieldsName(lookUp("fp8_e8m0"))), QString("e8m0 b=127 fnu"));
    QCOMPARE(QString::fromStdString(fieldsName(lookUp("fp4_e2m1"))), QString("e2m1 b=1 f"));
    QCOMPARE(QString::fromStdString(lookUp("e6m9b40").displayName),
             QString("e6m9 b=40 ieee (custom)"));
    QCOMPARE(QString::fromStdString(fieldsName(lookUp("int6"))), QString("int6"));
}

void TestFormatSpecs::shortSpecsNameBuiltins() {
    // The decision: built-in names come first. e3m2 is OCP FP6 E3M2 (every code finite,
    // max 28); the IEEE-style E3M2 (∞, NaN, max 14) is spelt with its bias.
    const FormatSpec ocp = lookUp("e3m2");
    QCOMPARE(QString::fromStdString(ocp.id), QString("fp6_e3m2"));
    QVERIFY(!ocp.hasInfinity() && !ocp.hasNaN());
    QCOMPARE(deriveLimits(ocp).max, exactValue("28"));
    const FormatSpec ieee = lookUp("e3m2b3");
    QVERIFY(ieee.isCustom && ieee.hasInfinity() && ieee.hasNaN());
    QCOMPARE(deriveLimits(ieee).max, exactValue("14"));
    QCOMPARE(QString::fromStdString(ieee.id), QString("e3m2b3"));

    const auto taken = shortSpecsTakenByBuiltins();
    QStringList names;
    for (const auto& [alias, id] : taken) {
        names << QString::fromStdString(alias);
        const FormatSpec spec = lookUp(QString::fromStdString(alias));
        QVERIFY(!spec.isCustom);
        QCOMPARE(spec.id, id);
    }
    for (const char* shortSpec :
         {"e4m3", "e5m2", "e3m4", "e3m2", "e2m3", "e2m1", "e8m0", "e4m3b11"})
        QVERIFY2(names.contains(shortSpec), shortSpec);
    QVERIFY(!names.contains("e5m10")); // not an alias: the IEEE rule gives FP16's encoding
    QVERIFY(lookUp("e5m10").isCustom);
}

void TestFormatSpecs::readmeSaysTheSame() {
    QFile readme(QStringLiteral(FPX_README));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    const qsizetype start = text.indexOf("\n## Formats");
    QVERIFY(start >= 0);
    const QString section = text.mid(start, text.indexOf("\n## ", start + 5) - start);
    // Every short spec that names a built-in is listed among its aliases in `fpx formats`.
    for (const auto& [alias, id] : shortSpecsTakenByBuiltins()) {
        const QString line =
            section.section('\n' + QString::fromStdString(id) + ' ', 1, 1).section('\n', 0, 0);
        QVERIFY2(line.contains(QString::fromStdString(alias)),
                 qPrintable(QString::fromStdString(id + " should list " + alias)));
    }
    // The rule, in words: e3m2 is OCP FP6, the IEEE-style one is e3m2b3.
    const QString words = section.simplified();
    QVERIFY(words.contains("`e3m2` is OCP FP6 E3M2"));
    QVERIFY(words.contains("`e3m2b3`"));
}

void TestFormatSpecs::sameBitsRows() {
    // 0x80 read in every 8-bit format (values typed from the formats' definitions).
    const FormatSpec custom = lookUp("e2m5b0");
    const std::vector<SameBitsRow> rows = readInEveryFormat(0x80, 8, {custom, lookUp("fp16")});
    auto row = [&](const QString& id) -> const SameBitsRow* {
        for (const SameBitsRow& r : rows)
            if (QString::fromStdString(r.spec.id) == id)
                return &r;
        return nullptr;
    };
    QVERIFY(row("fp8_e4m3") && row("fp8_e4m3")->decoded.value == exactValue("-0"));
    QVERIFY(row("fp8_e4m3fnuz") && row("fp8_e4m3fnuz")->className == "nan");
    QVERIFY(row("int8") && row("int8")->decoded.value == exactValue("-128"));
    QVERIFY(row("fp8_e8m0") && row("fp8_e8m0")->decoded.value == exactValue("2"));
    QVERIFY(row("e2m5b0")); // the custom format of that width joins
    QVERIFY(!row("fp16"));  // another width does not
    for (const SameBitsRow& r : rows)
        QCOMPARE(r.spec.totalBits(), 8);
    // A custom format equal to a built-in is listed once.
    const auto once = readInEveryFormat(0x80, 8, {lookUp("e4m3b7fn")});
    QCOMPARE(once.size(), readInEveryFormat(0x80, 8, {}).size());
    const std::vector<int> widths = formatWidths({custom, lookUp("e6m9b40")});
    QVERIFY(std::find(widths.begin(), widths.end(), 16) != widths.end());
    QVERIFY(std::is_sorted(widths.begin(), widths.end()));
    // qNaN and sNaN told apart.
    const auto nans = readInEveryFormat(0x7c01, 16, {});
    for (const SameBitsRow& r : nans)
        if (r.spec.id == "fp16")
            QCOMPARE(QString::fromStdString(r.className), QString("sNaN"));
}

void TestFormatSpecs::approximateErrors() {
    const ParsedValue far = parseValue("1e30000");
    QVERIFY(far && !far.exact);
    const ParsedValue near = parseValue("1e300");
    QVERIFY(near && near.exact);
    QVERIFY(errorIsApproximate(far.exact, exactValue("-1e-20001")));
    QVERIFY(!errorIsApproximate(near.exact, exactValue("-1e-20")));
    QVERIFY(!errorIsApproximate(far.exact, ExactValue::infinity(false)));
    QVERIFY(!errorIsApproximate(far.exact, ExactValue::nan()));
    QCOMPARE(QString::fromStdString(markApproximate("+1e-5", true)), QString("≈+1e-5"));
    QCOMPARE(QString::fromStdString(markApproximate("+1e-5", false)), QString("+1e-5"));
}

// A fuzzing finding (fuzz/corpus/format_spec/int63_overflow): int63's negative codes were
// worked out as a signed subtraction that overflows. Checked against the definition: the code's
// value minus 2^bits, in exact arithmetic, for the widest signed integers.
void TestFormatSpecs::widestSignedIntegersDecode() {
    for (int bits : {8, 62, 63, 64}) {
        const FormatSpec spec = lookUp(QString("int%1").arg(bits));
        const ExactValue two = ExactValue::integer(BigInt(2));
        ExactValue power = ExactValue::integer(BigInt(1));
        for (int i = 0; i < bits; ++i)
            power = power * two;
        const Code top = Code(1) << (bits - 1);
        const Code all = (Code(1) << bits) - 1;
        for (Code code : {Code(0), Code(1), top - 1, top, top + 1, all - 1, all}) {
            const ExactValue unsignedValue =
                ExactValue::integer(BigInt(static_cast<std::uint64_t>(code)));
            const ExactValue expected =
                (code >= top ? unsignedValue - power : unsignedValue) * spec.scale;
            const DecodedCode decoded = decodeCode(spec, code);
            QVERIFY2(
                decoded.value.isIdenticalTo(expected),
                qPrintable(QString("int%1 code %2").arg(bits).arg(static_cast<qulonglong>(code))));
            QCOMPARE(decoded.sign, code >= top);
        }
    }
}

QTEST_APPLESS_MAIN(TestFormatSpecs)
#include "tst_format_specs.moc"
