// SPDX-License-Identifier: GPL-3.0-or-later
// `--round sr:N` from the command line: fpx show reports the probability N random bits give
// beside the ideal one, fpx convert rounds by it, and the commands that cannot honour it say so.
// The expected probabilities are worked out by hand from IEEE P3109's rules (docs/behaviour.md,
// "Stochastic rounding with N random bits"): 0.1 lies 0.8 of the way from BF16's 0.099609375
// to 0.10009765625, and 0.8 · 16 = 12.8.
#include "cli_runner.h"

#include <QJsonArray>
#include <QTest>

#include <cmath>

class TestStochasticBitsCli : public QObject {
    Q_OBJECT

    static QJsonObject stochasticOf(const QString& round) {
        const fpx::test::CliRun run = fpx::test::runFpx(
            {"show", "0.1", "--formats", "bf16", "--round", round, "--json", "--draws", "4000"});
        if (run.exitCode != 0)
            qFatal("%s", run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        if (json["round"].toString() != round.toLower())
            qFatal("round is %s", qPrintable(json["round"].toString()));
        return json["results"].toArray()[0].toObject()["stochastic"].toObject();
    }

  private slots:
    void showGivesTheProbabilityUnderNBitsBesideTheIdeal_data() {
        QTest::addColumn<QString>("round");
        QTest::addColumn<QString>("pUp");
        QTest::newRow("all bits") << "sr"
                                  << "0.8";
        QTest::newRow("A, 4 bits: 12/16") << "sr:4"
                                          << "0.75";
        QTest::newRow("B, 4 bits: (25 + 1) / 2 = 13") << "srb:4"
                                                      << "0.8125";
        QTest::newRow("C, 4 bits: RNITE(12.8) = 13") << "src:4"
                                                     << "0.8125";
        QTest::newRow("A, 1 bit") << "sr:1"
                                  << "0.5";
        QTest::newRow("C, 1 bit: RNITE(1.6) = 2") << "src:1"
                                                  << "1";
    }
    void showGivesTheProbabilityUnderNBitsBesideTheIdeal() {
        QFETCH(QString, round);
        QFETCH(QString, pUp);
        const QJsonObject s = stochasticOf(round);
        QCOMPARE(s["p_up"].toString(), pUp);
        QVERIFY(s["p_up_exact"].toBool());
        QCOMPARE(s["p_up_ideal"].toString(), QString("0.8"));
        const double observed = s["observed_p_up"].toString().toDouble();
        const double p = pUp.toDouble();
        QVERIFY2(std::abs(observed - p) <= 5 * std::sqrt(p * (1 - p) / 4000) + 1e-12,
                 qPrintable(s["observed_p_up"].toString()));
    }

    void showAuditsTheSeed() {
        const fpx::test::CliRun run =
            fpx::test::runFpx({"show", "0.1", "--formats", "bf16", "--round", "sr:8", "--seed",
                               "17", "--draws", "10000", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject audit =
            QJsonDocument::fromJson(run.out).object()["seed_audit"].toObject();
        QCOMPARE(audit["seed"].toInteger(), 17);
        QCOMPARE(audit["neighbour_seed"].toInteger(), 18);
        QCOMPARE(audit["compared_bits"].toInteger(), 80000);
        QVERIFY(audit["independent"].toBool());
        QVERIFY(std::abs(audit["agreeing_bits"].toInteger() - 40000) < 5 * std::sqrt(80000) / 2);
    }

    // 1 + 2^−10 in BF16 (ulp 2^−7): ν = 1/8, below 2^−2, so two random bits never round it up;
    // four give 2/16.
    void convertRoundsByTheRandomBits() {
        QByteArray input;
        for (int i = 0; i < 4000; ++i)
            input += "1.0009765625\n";
        auto ups = [&](const QString& round) {
            const fpx::test::CliRun run =
                fpx::test::runFpx({"convert", "--to", "bf16", "--round", round}, input);
            if (run.exitCode != 0)
                qFatal("%s", run.err.constData());
            return run.out.count("0x3f81");
        };
        QCOMPARE(ups("sr:2"), 0);
        for (const char* round : {"sr:4", "sr"}) {
            const int n = ups(round);
            QVERIFY2(std::abs(n - 500) < 5 * std::sqrt(4000 * 0.125 * 0.875),
                     qPrintable(QString("%1: %2 of 4000 up").arg(round).arg(n)));
        }
    }

    void badRandomBitCountsAreRefused() {
        for (const char* round : {"sr:0", "sr:33", "srb", "rne:3"}) {
            const fpx::test::CliRun run = fpx::test::runFpx({"show", "1.1", "--round", round});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(round), run.err.constData());
        }
        const fpx::test::CliRun bench = fpx::test::runFpx({"bench", "--round", "sr:8"});
        QCOMPARE(bench.exitCode, 2);
        QVERIFY(bench.err.contains("plain sr"));
    }
};

QTEST_GUILESS_MAIN(TestStochasticBitsCli)
#include "tst_stochastic_bits_cli.moc"
