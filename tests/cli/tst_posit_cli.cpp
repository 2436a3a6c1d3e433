// SPDX-License-Identifier: GPL-3.0-or-later
// Posits from the command line: fpx show takes a code apart into sign, regime (with its run),
// exponent and fraction, fpx table lists every code with its fields grouped, fpx convert rounds
// by the standard's rule, and the commands that cannot take a posit say so. The expected
// figures are worked out by hand from the Posit Standard (2022).
#include "cli_runner.h"

#include <QJsonArray>
#include <QTest>

class TestPositCli : public QObject {
    Q_OBJECT

    static QJsonObject shown(const QString& value, const QString& format) {
        const fpx::test::CliRun run =
            fpx::test::runFpx({"show", value, "--formats", format, "--json"});
        if (run.exitCode != 0)
            qFatal("%s", run.err.constData());
        return QJsonDocument::fromJson(run.out).object()["results"].toArray()[0].toObject();
    }

  private slots:
    // 40 = 2^5 × 1.25 in posit8: 0 110 01 01, a run of two ones (r = 1), e = 1, f = 1/4.
    void showTakesTheCodeApart() {
        const QJsonObject r = shown("40", "posit8");
        QCOMPARE(r["bits"].toString(), QString("0x65"));
        QCOMPARE(r["binary"].toString(), QString("0 110 01 01"));
        QCOMPARE(r["value"].toString(), QString("40"));
        const QJsonObject p = r["posit"].toObject();
        QCOMPARE(p["regime_run"].toInt(), 2);
        QCOMPARE(p["regime"].toInt(), 1);
        QCOMPARE(p["exponent"].toInt(), 1);
        QCOMPARE(p["fraction_bits"].toInt(), 2);
        QCOMPARE(p["scale"].toInt(), 5);
        // 2^22 lies where exponent bits are cut: the tie of 2^20 and 2^24, kept at the even code.
        const QJsonObject tie = shown("4194304", "posit8");
        QCOMPARE(tie["bits"].toString(), QString("0x7e"));
        QCOMPARE(tie["value"].toString(), QString("1048576"));
        QCOMPARE(tie["interval"].toObject()["high"].toString(), QString("4194304"));
        // Past maxpos: saturated, never NaR.
        QCOMPARE(shown("1e30", "posit16")["bits"].toString(), QString("0x7fff"));
        QCOMPARE(shown("inf", "posit16")["bits"].toString(), QString("0x8000"));
        const fpx::test::CliRun text = fpx::test::runFpx({"show", "-1.125", "--formats", "posit8"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("01: a run of 1 zero → r = -1"), text.out.constData());
        QVERIFY2(text.out.contains("negation of its two's complement 0x41"), text.out.constData());
    }

    // Every one of posit8's 256 codes, NaR included, in ascending code order.
    void tableListsEveryCode() {
        const fpx::test::CliRun run = fpx::test::runFpx({"table", "posit8", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray codes = QJsonDocument::fromJson(run.out).object()["codes"].toArray();
        QCOMPARE(codes.size(), 256);
        QCOMPARE(codes[0x40].toObject()["value"].toString(), QString("1"));
        QCOMPARE(codes[0x7f].toObject()["value"].toString(), QString("16777216"));
        QCOMPARE(codes[0x80].toObject()["class"].toString(), QString("nan"));
        QCOMPARE(codes[0x01].toObject()["binary"].toString(), QString("0 0000001"));
        QCOMPARE(codes[0xc0].toObject()["value"].toString(), QString("-1"));
    }

    void convertRoundsToNearestEvenInTheBitString() {
        const fpx::test::CliRun run = fpx::test::runFpx(
            {"convert", "--to", "posit8", "--round", "rne"}, "4194304\n4194305\n1.0625\n1e-30\n");
        QCOMPARE(run.exitCode, 0);
        const QList<QByteArray> lines = run.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QVERIFY2(lines[0].contains("0x7e"), lines[0].constData());
        QVERIFY2(lines[1].contains("0x7f"), lines[1].constData());
        // 1.0625 is the tie of 1 (0x40) and 1.125 (0x41): the even code.
        QVERIFY2(lines[2].contains("0x40"), lines[2].constData());
        QVERIFY2(lines[3].contains("0x01"), lines[3].constData());
    }

    void badNamesAndUnsupportedUsesSaySo() {
        const fpx::test::CliRun bad = fpx::test::runFpx({"show", "1", "--formats", "posit40"});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains("n = 3 to 32"), bad.err.constData());
        const fpx::test::CliRun calc = fpx::test::runFpx({"calc", "1 + 2", "--formats", "posit16"});
        QVERIFY2(calc.exitCode != 0 || calc.out.contains("no arithmetic"),
                 (calc.out + calc.err).constData());
    }
};

QTEST_GUILESS_MAIN(TestPositCli)
#include "tst_posit_cli.moc"
