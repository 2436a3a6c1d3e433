// SPDX-License-Identifier: GPL-3.0-or-later
// fpx sgd through the real binary: the master-weights lesson worked by hand (BF16 loses an
// update of half its gap below 1, FP32 and FP16 keep it, the FP32 master recovers it), the lr
// taken as a Python float, lists and distributions of gradients, the trajectory, the text
// table, and every kind of bad input with its exit status and message.
#include "cli_runner.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/exact_value.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <string>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QStringList sgd(const QString& options) {
    return QStringList{"sgd"} + options.split(' ', Qt::SkipEmptyParts);
}

QJsonArray resultsOf(const CliRun& run) {
    return json(run)["results"].toArray();
}

} // namespace

class TestSgdCli : public QObject {
    Q_OBJECT

  private slots:
    // w = 1, lr·g = 2^-9 for 100 steps: exact 1 − 100·2^-9 = 0.8046875. BF16's gap below 1 is
    // 2^-8, so each update is a tie that rounds back to 1 (even); FP16's gap is 2^-11 and
    // FP32's 2^-24, so both keep every update; with the FP32 master BF16 ends exact too.
    void masterWeightsLesson() {
        const CliRun run = runFpx(sgd("--weight 1 --lr 2^-9 --grads 1 --steps 100 "
                                      "--formats fp32,bf16,fp16 --master fp32 --json"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject root = json(run);
        QCOMPARE(root["steps"].toInt(), 100);
        QCOMPARE(root["lr"].toString(), QString("0.001953125"));
        QCOMPARE(root["exact"].toString(), QString("0.8046875"));
        const QJsonArray results = resultsOf(run);
        QCOMPARE(results.size(), 5);
        const QString formats[] = {"fp32", "bf16", "fp16", "bf16", "fp16"};
        for (int i = 0; i < 5; ++i) {
            const QJsonObject r = results[i].toObject();
            QCOMPARE(r["format"].toString(), formats[i]);
            QCOMPARE(r["final_exact"].toString(), QString("0.8046875"));
            if (i < 3)
                QVERIFY(r["master"].isNull());
            else
                QCOMPARE(r["master"].toString(), QString("fp32"));
            QVERIFY(!r.contains("trajectory"));
            if (i == 1) {
                QCOMPARE(r["final"].toString(), QString("1"));
                QCOMPARE(r["lost_updates"].toInt(), 100);
                QCOMPARE(r["error"].toString(), QString("0.1953125"));
                QCOMPARE(r["relative_error"].toDouble(), 0.1953125 / 0.8046875);
            } else {
                QCOMPARE(r["final"].toString(), QString("0.8046875"));
                QCOMPARE(r["lost_updates"].toInt(), 0);
                QCOMPARE(r["error"].toString(), QString("0"));
                QCOMPARE(r["relative_error"].toDouble(), 0.0);
            }
        }
        // A format that is the master itself is not run twice.
        const CliRun same = runFpx(sgd("--weight 1 --lr 2^-9 --grads 1 --steps 3 "
                                       "--formats fp32 --master fp32 --json"));
        QCOMPARE(resultsOf(same).size(), 1);
    }

    // PyTorch's lr is a Python float: 0.1 becomes the double nearest 0.1, and 1 − lr·1 held in
    // FP64 is what Python's 1 - 0.1 gives, 0.9 (the double nearest 0.9). --exact-lr keeps 0.1.
    void lrIsTheNearestDouble() {
        const CliRun run =
            runFpx(sgd("--weight 1 --lr 0.1 --grads 1 --steps 1 --formats fp64 --json"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject root = json(run);
        QCOMPARE(root["lr"].toString(),
                 QString("0.1000000000000000055511151231257827021181583404541015625"));
        QVERIFY(root["lr_as_double"].toBool());
        const QJsonObject r = resultsOf(run)[0].toObject();
        QCOMPARE(r["final"].toString(),
                 QString("0.90000000000000002220446049250313080847263336181640625"));
        QCOMPARE(r["final_exact"].toString(),
                 QString("0.8999999999999999944488848768742172978818416595458984375"));
        QCOMPARE(r["final"].toString().toDouble(), 1 - 0.1);

        const CliRun exact =
            runFpx(sgd("--weight 1 --lr 0.1 --exact-lr --grads 1 --steps 1 --formats fp64 --json"));
        QVERIFY2(exact.exitCode == 0, qPrintable(describe(exact)));
        QCOMPARE(json(exact)["lr"].toString(), QString("0.1"));
        QVERIFY(!json(exact)["lr_as_double"].toBool());
        QCOMPARE(resultsOf(exact)[0].toObject()["final_exact"].toString(), QString("0.9"));

        const CliRun text = runFpx(sgd("--weight 1 --lr 0.1 --grads 1 --steps 1 --formats fp64"));
        QVERIFY2(text.out.contains("the double nearest 0.1"), qPrintable(describe(text)));
    }

    // A list is used in turn and repeated; without --steps it runs once through.
    void gradientLists() {
        const CliRun cycled =
            runFpx(sgd("--weight 1 --lr 2^-2 --grads 1,-1,2^-1 --steps 7 --formats fp32 --json"));
        QVERIFY2(cycled.exitCode == 0, qPrintable(describe(cycled)));
        // Σg over 1, −1, 1/2, 1, −1, 1/2, 1 = 2, so 1 − 2/4.
        QCOMPARE(json(cycled)["exact"].toString(), QString("0.5"));
        const CliRun once =
            runFpx(sgd("--weight 1 --lr 2^-2 --grads 1,-1,2^-1 --formats fp32 --json"));
        QCOMPARE(json(once)["steps"].toInt(), 3);
        QCOMPARE(json(once)["exact"].toString(), QString("0.875"));
        // Gradients rounded into BF16 first: 1 + 2^-10 becomes 1, the exact run keeps it.
        const CliRun rounded = runFpx(
            sgd("--weight 1 --lr 1 --grads 1+2^-10 --steps 1 --formats fp32 --grad-format bf16 "
                "--json"));
        QVERIFY2(rounded.exitCode == 0, qPrintable(describe(rounded)));
        QCOMPARE(json(rounded)["grad_format"].toString(), QString("bf16"));
        const QJsonObject r = resultsOf(rounded)[0].toObject();
        QCOMPARE(r["final"].toString(), QString("0"));
        QCOMPARE(r["final_exact"].toString(), QString("-0.0009765625"));
        QCOMPARE(r["error"].toString(), QString("0.0009765625"));
        QVERIFY(r["relative_error"].toDouble() == 1.0);
    }

    // Gradients drawn from a distribution as doubles, from --seed, used exactly: the exact
    // weight is W − lr·Σg over the same draws, summed here in exact arithmetic.
    void gradientDistribution() {
        const CliRun run = runFpx(sgd("--weight 0.5 --lr 2^-10 --grads normal:0:1 --steps 500 "
                                      "--seed 11 --formats bf16,fp16 --master fp32 --json"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        std::string error;
        const auto distribution = fpx::parseValueDistribution("normal:0:1", error);
        QVERIFY(distribution);
        fpx::ExactValue sum;
        for (std::size_t i = 0; i < 500; ++i)
            sum = sum + fpx::exactFromDouble(fpx::drawValue(*distribution, 11, i));
        const fpx::ExactValue exact =
            fpx::ExactValue::dyadic(false, 1, -1) - sum.timesPowerOfTwo(-10);
        QCOMPARE(json(run)["exact"].toString(), QString::fromStdString(fpx::toDecimal(exact).text));
        QCOMPARE(resultsOf(run).size(), 4);
        // The same seed, the same run; another seed, other gradients.
        QCOMPARE(runFpx(sgd("--weight 0.5 --lr 2^-10 --grads normal:0:1 --steps 500 --seed 11 "
                            "--formats bf16,fp16 --master fp32 --json"))
                     .out,
                 run.out);
        QVERIFY(runFpx(sgd("--weight 0.5 --lr 2^-10 --grads normal:0:1 --steps 500 --seed 12 "
                           "--formats bf16,fp16 --master fp32 --json"))
                    .out != run.out);
    }

    // Stochastic rounding: reproducible from --seed, and unlike nearest-even it does not lose
    // every quarter-gap update of BF16 at 1.
    void stochasticRounding() {
        const QString options = "--weight 1 --lr 2^-10 --grads 1 --steps 1000 --formats bf16 "
                                "--round sr --seed 5 --json";
        const CliRun a = runFpx(sgd(options));
        QVERIFY2(a.exitCode == 0, qPrintable(describe(a)));
        QCOMPARE(runFpx(sgd(options)).out, a.out);
        QCOMPARE(json(a)["round"].toString(), QString("sr"));
        const int lost = resultsOf(a)[0].toObject()["lost_updates"].toInt();
        QVERIFY2(lost > 0 && lost < 1000, qPrintable(describe(a)));
        const CliRun rne =
            runFpx(sgd("--weight 1 --lr 2^-10 --grads 1 --steps 1000 --formats bf16 --json"));
        QCOMPARE(resultsOf(rne)[0].toObject()["lost_updates"].toInt(), 1000);
    }

    // --trajectory N: N evenly spaced steps in each result, the first and last included.
    void trajectory() {
        const CliRun run = runFpx(sgd("--weight 1 --lr 2^-9 --grads 1 --steps 100 --formats bf16 "
                                      "--master fp32 --trajectory 3 --json"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        for (const auto& value : resultsOf(run)) {
            const QJsonArray points = value.toObject()["trajectory"].toArray();
            QCOMPARE(points.size(), 3);
            QCOMPARE(points[0].toObject()["step"].toInt(), 0);
            QCOMPARE(points[1].toObject()["step"].toInt(), 50);
            QCOMPARE(points[2].toObject()["step"].toInt(), 100);
            QCOMPARE(points[1].toObject()["exact"].toDouble(), 1 - 50.0 / 512);
        }
        const QJsonArray plain = resultsOf(run)[0].toObject()["trajectory"].toArray();
        QCOMPARE(plain[2].toObject()["weight"].toDouble(), 1.0); // every update lost
        const QJsonArray mastered = resultsOf(run)[1].toObject()["trajectory"].toArray();
        QCOMPARE(mastered[2].toObject()["weight"].toDouble(), 1 - 100.0 / 512);
        const CliRun text = runFpx(sgd("--weight 1 --lr 2^-9 --grads 1 --steps 100 "
                                       "--formats bf16 --master fp32 --trajectory 3"));
        QVERIFY2(text.out.contains("0.8046875"), qPrintable(describe(text)));
        QVERIFY2(text.out.contains("step"), qPrintable(describe(text)));
    }

    void textTable() {
        const CliRun run = runFpx(sgd("--weight 1 --lr 2^-9 --grads 1 --steps 100 "
                                      "--formats bf16,fp16 --master fp32"));
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        for (const char* expected : {"lost updates", "bf16 + fp32 master", "fp16 + fp32 master",
                                     "exact final", "0.8046875", "0.195312", "100 steps"})
            QVERIFY2(run.out.contains(expected),
                     qPrintable(expected + QString("\n") + describe(run)));
    }

    // w = 1 in BF16, g = 1, lr = 2^-9 + 2^-40 kept exact. Exact: 1 − 2^-9 − 2^-40 lies just
    // below the midpoint 1 − 2^-9 of BF16's gap under 1, so it rounds down to 1 − 2^-8.
    // FP32 arithmetic first rounds lr to 2^-9 (24 bits), and 1 − 2^-9 is then a tie that goes
    // to the even 1: the update is lost, and PyTorch's CPU kernel (lr cast to BF16 through
    // FP32, one FP32 FMA) loses it too.
    void updateRules() {
        const QString base = "--weight 1 --lr 2^-9+2^-40 --exact-lr --grads 1 --formats bf16";
        const CliRun exact = runFpx(sgd(base + " --json"));
        QVERIFY2(exact.exitCode == 0, qPrintable(describe(exact)));
        QCOMPARE(json(exact)["update"].toObject()["rule"].toString(), QString("exact"));
        QCOMPARE(json(exact)["update"].toObject()["formula"].toString(), QString("F(w - lr*g)"));
        QCOMPARE(resultsOf(exact)[0].toObject()["final"].toString(), QString("0.99609375"));
        QCOMPARE(resultsOf(exact)[0].toObject()["update_formula"].toString(),
                 QString("bf16(w - lr*g)"));
        // Naming the default changes nothing.
        const CliRun named = runFpx(sgd(base + " --json --update exact"));
        QCOMPARE(resultsOf(named), resultsOf(exact));
        for (const char* rule : {"fp32-opmath", "pytorch-cpu", "bf16(fp32(w+bf16(fp32(-lr))*g))"}) {
            const CliRun run = runFpx(sgd(base + " --json --update " + rule));
            QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
            const QJsonObject r = resultsOf(run)[0].toObject();
            QCOMPARE(r["final"].toString(), QString("1"));
            QCOMPARE(r["lost_updates"].toInt(), 1);
        }
        const CliRun pytorch = runFpx(sgd(base + " --json --update pytorch-cpu --formats "
                                                 "bf16,fp16,fp32 --master fp64"));
        QVERIFY2(pytorch.exitCode == 0, qPrintable(describe(pytorch)));
        const QJsonObject update = json(pytorch)["update"].toObject();
        QCOMPARE(update["rule"].toString(), QString("pytorch-cpu"));
        QVERIFY(update["description"].toString().contains("add_"));
        const QStringList formulas = {"bf16(fp32(w + bf16(fp32(-lr))*g))",
                                      "fp16(w + fp16(fp16(fp32(-lr))*g))",
                                      "fp32(w + fp32(-lr)*g)",
                                      "fp64(w - lr*g)",
                                      "fp64(w - lr*g)",
                                      "fp64(w - lr*g)"};
        const QJsonArray results = resultsOf(pytorch);
        QCOMPARE(results.size(), formulas.size());
        for (int i = 0; i < results.size(); ++i)
            QCOMPARE(results[i].toObject()["update_formula"].toString(), formulas[i]);
        const CliRun text = runFpx(sgd(base + " --update fp32-opmath --formats bf16,fp16"));
        for (const char* expected :
             {"update rule     fp32-opmath", "    bf16          bf16(fp32(w + fp32(-lr)*g))",
              "    fp16          fp16(fp32(w + fp32(-lr)*g))"})
            QVERIFY2(text.out.contains(expected),
                     qPrintable(expected + QString("\n") + describe(text)));
    }

    void usageErrors_data() {
        QTest::addColumn<QString>("options");
        QTest::addColumn<QString>("message");
        const QString base = "--weight 1 --lr 0.01 --grads 1 --steps 3";
        QTest::newRow("no weight") << "--lr 1 --grads 1 --formats fp16"
                                   << "--weight is required";
        QTest::newRow("no formats") << base << "--formats is required";
        QTest::newRow("nf4") << base + " --formats nf4"
                             << "--formats nf4: nf4 has no arithmetic";
        QTest::newRow("e8m0 master") << base + " --formats bf16 --master e8m0"
                                     << "--master fp8_e8m0: fp8_e8m0 has no arithmetic";
        QTest::newRow("nf4 gradients") << base + " --formats bf16 --grad-format nf4"
                                       << "--grad-format nf4";
        QTest::newRow("unknown format") << base + " --formats fp99"
                                        << "--formats: unknown format";
        QTest::newRow("bad lr") << "--weight 1 --lr 1e-3x --grads 1 --formats fp16"
                                << "--lr '1e-3x': column";
        QTest::newRow("lr too large") << "--weight 1 --lr 1e400 --grads 1 --formats fp16"
                                      << "beyond the range of a double";
        QTest::newRow("infinite weight") << "--weight inf --lr 1 --grads 1 --formats fp16"
                                         << "--weight must be a finite";
        QTest::newRow("empty item") << "--weight 1 --lr 1 --grads 1,,2 --formats fp16"
                                    << "--grads '' (item 2, column 3)";
        QTest::newRow("bad item") << "--weight 1 --lr 1 --grads 1,2,x --formats fp16"
                                  << "--grads 'x' (item 3, column 5)";
        QTest::newRow("nan gradient") << "--weight 1 --lr 1 --grads nan --formats fp16"
                                      << "a gradient must be finite";
        QTest::newRow("distribution without steps")
            << "--weight 1 --lr 1 --grads normal:0:1 --formats fp16"
            << "a distribution needs a number of steps";
        QTest::newRow("unknown distribution")
            << "--weight 1 --lr 1 --grads gauss:0:1 --steps 3 --formats fp16"
            << "--grads";
        QTest::newRow("zero steps") << "--weight 1 --lr 1 --grads 1 --steps 0 --formats fp16"
                                    << "--steps: expected a count";
        QTest::newRow("too many steps") << "--weight 1 --lr 1 --grads 1 --steps 2e6 --formats fp16"
                                        << "use at most";
        QTest::newRow("trajectory of one") << base + " --formats fp16 --trajectory 1"
                                           << "--trajectory: expected a number of points";
        QTest::newRow("bad round") << base + " --formats fp16 --round sideways"
                                   << "--round: unknown rounding mode";
        QTest::newRow("stray argument") << base + " --formats fp16 extra"
                                        << "unexpected argument 'extra'";
        QTest::newRow("bad formula") << base + " --formats bf16 --update bf16(w+*g)"
                                     << "--update 'bf16(w+*g)': column 8: expected a number";
        QTest::newRow("unknown format in formula")
            << base + " --formats bf16 --update bf17(w-lr*g)"
            << "--update 'bf17(w-lr*g)': column 1: unknown format 'bf17'";
        QTest::newRow("unknown variable") << base + " --formats bf16 --update F(w-eta*g)"
                                          << "column 5: unknown variable 'eta': use w, lr or g";
        QTest::newRow("unknown rule") << base + " --formats bf16 --update pytorch"
                                      << "unknown update rule 'pytorch': use exact, pytorch-cpu";
        QTest::newRow("rule without the format")
            << base + " --formats fp8_e4m3 --update pytorch-cpu"
            << "--update: the update rule pytorch-cpu is defined for bf16, fp16, fp32, fp64 "
               "weights, not fp8_e4m3";
    }

    void usageErrors() {
        QFETCH(QString, options);
        QFETCH(QString, message);
        const CliRun run = runFpx(sgd(options));
        QVERIFY2(run.exitCode == 2, qPrintable(describe(run)));
        QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(describe(run)));
        QVERIFY2(run.err.startsWith("fpx sgd: "), qPrintable(describe(run)));
        QVERIFY(run.out.isEmpty());
    }

    void help() {
        const CliRun run = runFpx({"sgd", "--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("Python float"));
        QVERIFY(run.out.contains("--update RULE"));
        QVERIFY(run.out.contains("pytorch-cpu"));
        QVERIFY(run.out.contains("fp32-opmath"));
        QVERIFY(runFpx({"--help"}).out.contains("fpx sgd"));
    }
};

QTEST_APPLESS_MAIN(TestSgdCli)
#include "tst_sgd_cli.moc"
