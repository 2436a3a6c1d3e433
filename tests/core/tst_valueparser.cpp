// SPDX-License-Identifier: GPL-3.0-or-later
// Parsing of every accepted value form, exactly, and clear errors (with positions) for
// everything else — fast, whatever the input.
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/value_parser.h"

#include <QElapsedTimer>
#include <QTest>

#include <string>

using namespace fpx;

class TestValueParser : public QObject {
    Q_OBJECT

  private slots:
    void exactValues_data();
    void exactValues();
    void specials();
    void errors_data();
    void errors();
    void longDecimalIsExact();
    void hostileInputIsRefusedQuickly_data();
    void hostileInputIsRefusedQuickly();
    void zeroWithHugeExponent();
    void farAndLongInputsStandIn();
};

void TestValueParser::exactValues_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("exact"); // exact decimal expansion as fpx prints it
    QTest::addColumn<bool>("terminates");
    QTest::newRow("decimal") << "0.3952"
                             << "0.3952" << true;
    QTest::newRow("negative exponent") << "-1.5e-7"
                                       << "-1.5e-7" << true;
    QTest::newRow("long integer part") << "123456789012345678901234567890.5"
                                       << "123456789012345678901234567890.5" << true;
    QTest::newRow("leading dot") << ".5"
                                 << "0.5" << true;
    QTest::newRow("trailing dot") << "5."
                                  << "5" << true;
    QTest::newRow("plus sign") << "+2"
                               << "2" << true;
    QTest::newRow("blanks around") << "  \t0.25  "
                                   << "0.25" << true;
    QTest::newRow("capital E") << "1E3"
                               << "1000" << true;
    QTest::newRow("digit separators") << "1_000_000"
                                      << "1000000" << true;
    QTest::newRow("hex float") << "0x1.8p-3"
                               << "0.1875" << true;
    QTest::newRow("hex float upper") << "0X1.8P-3"
                                     << "0.1875" << true;
    QTest::newRow("hex integer") << "0xff"
                                 << "255" << true;
    QTest::newRow("hex min fp32 subnormal")
        << "0x1p-149"
        << "1."
           "401298464324817070923729583289916131280261941876515771757068283889791082685860601486638"
           "18836212158203125e-45"
        << true;
    QTest::newRow("power") << "2^-24"
                           << "5.9604644775390625e-8" << true;
    QTest::newRow("power double star") << "2**10"
                                       << "1024" << true;
    QTest::newRow("negative power base") << "-2^3"
                                         << "-8" << true;
    QTest::newRow("decimal power") << "10^-3"
                                   << "0.001" << true;
    QTest::newRow("fraction") << "1/4"
                              << "0.25" << true;
    QTest::newRow("third") << "1/3"
                           << "0.3333333333333333333333333333333333333333" << false;
    QTest::newRow("negative fraction") << "-22/7"
                                       << "-3.142857142857142857142857142857142857143" << false;
    QTest::newRow("product") << "3*2^-4"
                             << "0.1875" << true;
    QTest::newRow("times sign") << "3×2^-4"
                                << "0.1875" << true;
    QTest::newRow("left to right") << "1/2/2"
                                   << "0.25" << true;
    QTest::newRow("unicode minus") << "−0.5"
                                   << "-0.5" << true;
    QTest::newRow("hex over decimal") << "1.5/0x10"
                                      << "0.09375" << true;
    QTest::newRow("big") << "1e400"
                         << "1e400" << true;
    QTest::newRow("sum") << "1+2^-11"
                         << "1.00048828125" << true;
    QTest::newRow("difference") << "1 - 0.25"
                                << "0.75" << true;
    QTest::newRow("parentheses") << "(2-2^-10)*2^15"
                                 << "65504" << true;
    QTest::newRow("nested parentheses") << "((1+1)*(2+2))^2/4"
                                        << "16" << true;
    QTest::newRow("negative parenthesis") << "-(1/4)"
                                          << "-0.25" << true;
    QTest::newRow("tiny") << "1e-400"
                          << "1e-400" << true;
}

void TestValueParser::exactValues() {
    QFETCH(QString, input);
    QFETCH(QString, exact);
    QFETCH(bool, terminates);
    const ParsedValue parsed = parseValue(input.toStdString());
    QVERIFY2(parsed.value.has_value(), parsed.error.message.c_str());
    const DecimalText text = toDecimal(*parsed.value);
    QCOMPARE(QString::fromStdString(text.text), exact);
    QCOMPARE(text.exact, terminates);
}

void TestValueParser::specials() {
    for (const char* text : {"inf", "INF", "Infinity", "+inf"}) {
        const auto v = parseValue(text).value;
        QVERIFY(v && v->isInfinity() && !v->isNegative());
    }
    const auto minusInf = parseValue("-inf").value;
    QVERIFY(minusInf && minusInf->isInfinity() && minusInf->isNegative());
    const auto nan = parseValue("nan").value;
    QVERIFY(nan && nan->isNaN() && !nan->isNegative());
    const auto minusNan = parseValue("-NaN").value;
    QVERIFY(minusNan && minusNan->isNaN() && minusNan->isNegative());
    const auto minusZero = parseValue("-0").value;
    QVERIFY(minusZero && minusZero->isZero() && minusZero->isNegative());
    const auto minusZeroPoint = parseValue("-0.0e5").value;
    QVERIFY(minusZeroPoint && minusZeroPoint->isZero() && minusZeroPoint->isNegative());
}

void TestValueParser::errors_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<int>("position");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("empty") << "" << 0 << "empty";
    QTest::newRow("blank") << "   " << 3 << "empty";
    QTest::newRow("word") << "abc" << 0 << "expected a number";
    QTest::newRow("trailing garbage") << "1.5x" << 3 << "unexpected character 'x'";
    QTest::newRow("two dots") << "1.2.3" << 3 << "unexpected character '.'";
    QTest::newRow("exponent without digits") << "1e" << 2 << "exponent";
    QTest::newRow("exponent sign only") << "1e+" << 3 << "exponent";
    QTest::newRow("hex without digits") << "0x" << 0 << "hex digits";
    QTest::newRow("hex exponent missing") << "0x1p" << 4 << "binary exponent";
    QTest::newRow("division by zero") << "1/0" << 2 << "division by zero";
    QTest::newRow("division by zero value") << "1/0.000" << 2 << "division by zero";
    QTest::newRow("zero to negative power") << "0^-1" << 0 << "division by zero";
    QTest::newRow("fractional power") << "2^0.5" << 3 << "unexpected character '.'";
    QTest::newRow("power without exponent") << "2^" << 2 << "integer exponent";
    QTest::newRow("dangling operator") << "1/" << 2 << "expected a number";
    QTest::newRow("bad separator") << "1__0" << 1 << "separator";
    QTest::newRow("inf with garbage") << "infx" << 3 << "unexpected character 'x'";
    QTest::newRow("nan in expression") << "1/nan" << 2 << "expected a number";
    QTest::newRow("control byte") << "1\x01" << 1 << "unexpected byte 0x01";
    QTest::newRow("non-ascii") << "1é" << 1 << "unexpected byte";
    QTest::newRow("power too large") << "10^99999999" << 3 << "exponent too large";
    QTest::newRow("unclosed parenthesis") << "(1+2" << 0 << "unclosed '('";
    QTest::newRow("wrong closing") << "(1+2]" << 4 << "expected ')'";
    QTest::newRow("far value in expression") << "1e999999*2" << 0 << "cannot be combined";
    QTest::newRow("nesting") << QString(300, '(') + "1" + QString(300, ')') << 200
                             << "nested too deeply";
}

void TestValueParser::errors() {
    QFETCH(QString, input);
    QFETCH(int, position);
    QFETCH(QString, messagePart);
    const ParsedValue parsed = parseValue(input.toStdString());
    QVERIFY2(!parsed.value.has_value(), "input should be refused");
    const QString message = QString::fromStdString(parsed.error.message);
    QVERIFY2(message.contains(messagePart), qPrintable(message));
    QCOMPARE(static_cast<int>(parsed.error.position), position);
}

void TestValueParser::longDecimalIsExact() {
    // 2000 digits: still exact, and the value keeps every digit.
    std::string digits = "0.";
    for (int i = 0; i < 2000; ++i)
        digits += static_cast<char>('1' + i % 9);
    const ParsedValue parsed = parseValue(digits);
    QVERIFY(parsed.value.has_value());
    QCOMPARE(toDecimal(*parsed.value).text, digits);
}

void TestValueParser::hostileInputIsRefusedQuickly_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("1000000 digits") << QByteArray(1000000, '7') << true;
    QTest::newRow("100000 zeros then 1") << QByteArray("0.") + QByteArray(99990, '0') + "1" << true;
    QTest::newRow("huge exponent digits") << QByteArray("1e") + QByteArray(5000, '9') << true;
    QTest::newRow("power tower") << QByteArray("99999^99999") << false;
    QTest::newRow("many operators") << QByteArray(20000, '/') << false;
    QTest::newRow("many products") << (QByteArray("3") + QByteArray("*3").repeated(20000)) << true;
    QTest::newRow("costly products")
        << (QByteArray("3^30000/7^30000") + QByteArray("*1").repeated(1000)) << false;
    QByteArray harmonic = "1";
    for (int n = 3; n < 40000; n += 2)
        harmonic += "+1/" + QByteArray::number(n);
    QTest::newRow("costly sum") << harmonic << false;
    QTest::newRow("product blow-up")
        << QByteArray("1e90000*1e90000*1e90000*1e90000*1e90000*1e90000*1e90000*1e90000*1e90000*"
                      "1e90000*1e90000*1e90000")
        << false;
    QByteArray binary;
    for (int i = 0; i < 4096; ++i)
        binary.append(static_cast<char>(i * 37 % 256));
    QTest::newRow("binary garbage") << binary << false;
}

void TestValueParser::hostileInputIsRefusedQuickly() {
    QFETCH(QByteArray, input);
    QFETCH(bool, accepted);
    const ParsedValue parsed =
        parseValue(std::string_view(input.constData(), static_cast<std::size_t>(input.size())));
    QCOMPARE(parsed.value.has_value(), accepted);
    if (!accepted)
        QVERIFY(!parsed.error.message.empty());
}

void TestValueParser::zeroWithHugeExponent() {
    const auto zero = parseValue("0e999999999999").value;
    QVERIFY(zero && zero->isZero());
}

void TestValueParser::farAndLongInputsStandIn() {
    // Beyond 10^±20000 a value is replaced by 10^±20001, marked inexact: it overflows, or
    // rounds like any tiny value, in every format.
    const ParsedValue huge = parseValue("1e999999");
    QVERIFY(huge.value && !huge.exact);
    QCOMPARE(QString::fromStdString(toDecimal(*huge.value).text), QString("1e20001"));
    const ParsedValue tiny = parseValue("-0.5e-999999");
    QVERIFY(tiny.value && !tiny.exact && tiny.value->isNegative());
    QCOMPARE(QString::fromStdString(toDecimal(*tiny.value).text), QString("-1e-20001"));
    const ParsedValue farHex = parseValue("0x1p-99999999");
    QVERIFY(farHex.value && !farHex.exact);
    QVERIFY(farHex.value->floorLog2() < -66500);
    // Within range and under 40000 digits: exact.
    QVERIFY(parseValue("1e-19000").exact);

    // A long decimal keeps its first 40000 digits and a sticky digit for the rest: the
    // midpoint 1 + 2^-53 between two doubles followed by zeros and a 1 at digit 45000 is
    // still above the midpoint, and is flagged inexact.
    const std::string midpoint = "1.00000000000000011102230246251565404236316680908203125";
    std::string above = midpoint;
    above.append(45000 - above.size(), '0');
    above += '1';
    const ParsedValue parsedAbove = parseValue(above);
    QVERIFY(parsedAbove.value && !parsedAbove.exact);
    QVERIFY(compare(*parsedAbove.value, *parseValue(midpoint).value) > 0);
    QVERIFY(compare(*parsedAbove.value, *parseValue("1+2^-52").value) < 0);
    std::string justZeros = midpoint;
    justZeros.append(45000 - justZeros.size(), '0');
    const ParsedValue parsedZeros = parseValue(justZeros);
    QVERIFY(parsedZeros.value && parsedZeros.exact);
    QVERIFY(compare(*parsedZeros.value, *parseValue(midpoint).value) == 0);
}

QTEST_APPLESS_MAIN(TestValueParser)
#include "tst_valueparser.moc"
