// SPDX-License-Identifier: GPL-3.0-or-later
// readCode, the one parser of codes that every front end uses (fpx show --bits, fpx convert
// --from, the explorer's code column and its same-bits dialog): what it reads, with each code
// worked out by hand from its digits, and what it refuses, with where and why. Codes made only
// of digit separators ("_", "0x___", "0b_") are refused, not read as 0.
#include "fpx/exact/code_parser.h"

#include <QTest>

#include <string>

using namespace fpx;

namespace {

QString hex(Code code) {
    return QString::fromStdString(codeToHex(code, 128));
}

} // namespace

class TestCodeParsing : public QObject {
    Q_OBJECT

  private slots:
    void reads_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("bits");
        QTest::addColumn<quint64>("high");
        QTest::addColumn<quint64>("low");
        QTest::newRow("hex with 0x") << "0x3c00" << 16 << quint64(0) << quint64(0x3c00);
        QTest::newRow("hex, upper case") << "0X3C0F" << 16 << quint64(0) << quint64(0x3c0f);
        QTest::newRow("bare hex") << "ff" << 8 << quint64(0) << quint64(0xff);
        QTest::newRow("binary") << "0b0_01111_0000000000" << 16 << quint64(0) << quint64(0x3c00);
        QTest::newRow("binary, separators '") << "0b1'0'1" << 3 << quint64(0) << quint64(5);
        QTest::newRow("0b alone is hex") << "0b" << 8 << quint64(0) << quint64(0x0b);
        QTest::newRow("0b then hex digits is hex") << "0b3f" << 16 << quint64(0) << quint64(0x0b3f);
        QTest::newRow("separator first") << "_1" << 4 << quint64(0) << quint64(1);
        QTest::newRow("blanks around") << " \t0x1_2 \r" << 8 << quint64(0) << quint64(0x12);
        QTest::newRow("leading zeros beyond the width")
            << "0x0001" << 1 << quint64(0) << quint64(1);
        QTest::newRow("5 bits in two hex digits") << "0x1f" << 5 << quint64(0) << quint64(0x1f);
        QTest::newRow("128 bits") << "0xffffffffffffffff_0000000000000001" << 128
                                  << quint64(0xffffffffffffffffULL) << quint64(1);
    }
    void reads() {
        QFETCH(QString, text);
        QFETCH(int, bits);
        QFETCH(quint64, high);
        QFETCH(quint64, low);
        const ParsedCode parsed = readCode(text.toStdString(), bits);
        QVERIFY2(parsed, parsed.error.c_str());
        const Code expected = (Code(high) << 64) | Code(low);
        QCOMPARE(hex(*parsed.code), hex(expected));
        QVERIFY(parsed.error.empty());
        QCOMPARE(hex(*parseCode(text.toStdString(), bits)), hex(expected));
    }

    void refuses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("position");
        QTest::addColumn<QString>("error");
        // Only separators: no digit at all where one was expected.
        QTest::newRow("_") << "_" << 16 << 0 << "expected a hex digit";
        QTest::newRow("'") << "'" << 16 << 0 << "expected a hex digit";
        QTest::newRow("0x___") << "0x___" << 16 << 2 << "expected a hex digit";
        QTest::newRow("0x_ _") << "0x_ _" << 16 << 2 << "expected a hex digit";
        QTest::newRow("0b_") << "0b_" << 16 << 2 << "expected a binary digit";
        QTest::newRow("0b__'") << "0b__'" << 16 << 2 << "expected a binary digit";
        QTest::newRow("blanks, then 0x_") << "  0x_" << 16 << 4 << "expected a hex digit";
        QTest::newRow("0x") << "0x" << 16 << 2 << "expected a hex digit";
        QTest::newRow("empty") << "" << 16 << 0 << "expected a hex (0x…) or binary (0b…) code";
        QTest::newRow("blanks") << " \t " << 16 << 3 << "expected a hex (0x…) or binary (0b…) code";
        // Other characters, named where printable.
        QTest::newRow("g") << "0x3g" << 16 << 3 << "'g' is not a hex digit";
        QTest::newRow("z after a digit") << "0x_2z" << 16 << 4 << "'z' is not a hex digit";
        QTest::newRow("not ASCII") << "0x1\xc3\xa9" << 16 << 3 << "expected a hex digit";
        // Too wide for the format.
        QTest::newRow("9 bits for 8") << "0x1ff" << 8 << 2 << "wider than 8 bits";
        QTest::newRow("binary, 3 bits for 2") << "0b100" << 2 << 2 << "wider than 2 bits";
        QTest::newRow("129 bits") << "0x1_00000000000000000000000000000000" << 128 << 2
                                  << "wider than 128 bits";
    }
    void refuses() {
        QFETCH(QString, text);
        QFETCH(int, bits);
        QFETCH(int, position);
        QFETCH(QString, error);
        const std::string utf8 = text.toStdString();
        const ParsedCode parsed = readCode(utf8, bits);
        QVERIFY2(!parsed, qPrintable(hex(parsed.code.value_or(0))));
        QCOMPARE(int(parsed.errorPosition), position);
        QCOMPARE(QString::fromStdString(parsed.error), error);
        QVERIFY(!parseCode(utf8, bits));
    }
};

QTEST_GUILESS_MAIN(TestCodeParsing)
#include "tst_code_parsing.moc"
