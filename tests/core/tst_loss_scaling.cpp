// SPDX-License-Identifier: GPL-3.0-or-later
// Step series (synthetic and from trace files) and loss scaling with GradScaler's rules.
//
// Expectations come from crafted traces worked by hand (FP16's overflow boundary 65520, the
// 2000-step growth interval), from a GradScaler written out plainly in this file (float
// arithmetic, overflow as |amax·S| ≥ 65520 with power-of-two scales, where the double
// product is exact), and from FP16's zone edges typed here (2^−25, 2^−14 − 2^−25).
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/training/loss_scaling.h"
#include "fpx/training/step_series.h"

#include "test_support.h"

#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>

using namespace fpx;
using namespace fpx::test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// GradScaler as its documentation states it, for FP16 with power-of-two factors.
struct ReferenceScaler {
    float scale = 65536.0f;
    float growth = 2.0f, backoff = 0.5f;
    std::size_t interval = 2000;
    std::size_t clean = 0;

    // Returns {scale used, overflow}.
    std::pair<float, bool> step(double amax) {
        const float used = scale;
        const bool overflow = !(amax * double(used) < 65520.0); // NaN and ∞ included
        if (overflow) {
            scale = scale * backoff;
            clean = 0;
        } else if (++clean == interval) {
            const float grown = scale * growth;
            if (std::isfinite(grown))
                scale = grown;
            clean = 0;
        }
        return {used, overflow};
    }
};

QString writeFile(const QTemporaryDir& dir, const char* name, const std::string& text) {
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString(), std::ios::binary) << text;
    return path;
}

} // namespace

class TestLossScaling : public QObject {
    Q_OBJECT

  private slots:
    void seriesShapes() {
        std::string error;
        const auto geometric = parseStepSeries("geometric:1:1e-4", error);
        QVERIFY2(geometric, error.c_str());
        const auto values = stepSeriesValues(*geometric, 5, 1);
        QCOMPARE(values.size(), std::size_t(5));
        QCOMPARE(values[0], 1.0);
        QCOMPARE(values[4], 1e-4);
        QVERIFY(std::fabs(values[2] / 1e-2 - 1) < 1e-12); // the geometric middle
        QVERIFY(values[1] > values[2] && values[2] > values[3]);

        const auto constant = parseStepSeries(" constant:0.25 ", error);
        QVERIFY2(constant, error.c_str());
        QCOMPARE(constant->text, std::string("constant:0.25"));
        for (double v : stepSeriesValues(*constant, 7, 3))
            QCOMPARE(v, 0.25);
        QCOMPARE(stepSeriesValues(*constant, 1, 3), std::vector<double>{0.25});
        QVERIFY(stepSeriesValues(*constant, 0, 3).empty());
    }

    void seriesSpikes() {
        std::string error;
        const auto spec =
            parseStepSeries("constant:2,spikes:0.1:1e4,spike-at:3:inf,spike-at:9:0.5", error);
        QVERIFY2(spec, error.c_str());
        const auto a = stepSeriesValues(*spec, 2000, 7);
        QCOMPARE(stepSeriesValues(*spec, 2000, 7), a);  // same seed, same series
        QVERIFY(stepSeriesValues(*spec, 2000, 8) != a); // another seed, other spikes
        // Step i depends only on the seed and i: a shorter run is a prefix of a longer one.
        const auto shorter = stepSeriesValues(*spec, 100, 7);
        QVERIFY(std::equal(shorter.begin(), shorter.end(), a.begin()));
        QCOMPARE(a[3], kInf);
        std::size_t spikes = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i == 3 || i == 9)
                continue;
            QVERIFY2(a[i] == 2 || a[i] == 2e4, qPrintable(QString::number(a[i])));
            spikes += a[i] == 2e4;
        }
        QVERIFY2(spikes > 140 && spikes < 260, qPrintable(QString::number(spikes)));
        QVERIFY(a[9] == 1 || a[9] == 1e4); // 0.5 times the step's value, spiked or not
        // spike-at beyond the run is simply not reached.
        const auto late = parseStepSeries("constant:1,spike-at:50:10", error);
        QCOMPARE(stepSeriesValues(*late, 10, 1), std::vector<double>(10, 1.0));
    }

    void seriesErrors_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        QTest::newRow("bad end") << "geometric:1:x"
                                 << "geometric:1:x: END 'x' is not a number";
        QTest::newRow("zero start") << "geometric:0:1"
                                    << "geometric:0:1: START must be positive";
        QTest::newRow("fields") << "geometric:1"
                                << "geometric:1: expected geometric:START:END";
        QTest::newRow("negative") << "constant:-1"
                                  << "constant:-1: V must be positive";
        QTest::newRow("shape") << "linear:1:2"
                               << "'linear:1:2': a series starts with";
        QTest::newRow("empty") << ""
                               << "empty series";
        QTest::newRow("empty part") << "constant:1,,spikes:0.1:2"
                                    << "empty part 2";
        QTest::newRow("probability") << "constant:1,spikes:1.5:2"
                                     << "spikes:1.5:2: P must be a probability from 0 to 1";
        QTest::newRow("factor") << "constant:1,spikes:0.1:abc"
                                << "spikes:0.1:abc: FACTOR 'abc' is not a number";
        QTest::newRow("index") << "constant:1,spike-at:x:2"
                               << "spike-at:x:2: I must be a step";
        QTest::newRow("modifier") << "constant:1,jitter:2"
                                  << "'jitter:2': expected spikes";
        QTest::newRow("infinite start") << "constant:inf"
                                        << "constant:inf: V must be a finite";
        QTest::newRow("too big") << "constant:1e400"
                                 << "V is beyond the range of a double";
    }
    void seriesErrors() {
        QFETCH(QString, spec);
        QFETCH(QString, message);
        std::string error;
        QVERIFY(!parseStepSeries(spec.toStdString(), error));
        QVERIFY2(QString::fromStdString(error).contains(message), error.c_str());
    }

    void traceFiles() {
        QTemporaryDir dir;
        std::string error;
        const auto plain =
            readStepTrace(writeFile(dir, "plain.txt",
                                    "# amax per step\n1.5\n\n  2^-3  \r\ninf # overflow\nnan\n0\n")
                              .toStdString(),
                          error);
        QVERIFY2(plain, error.c_str());
        QCOMPARE(plain->size(), std::size_t(5));
        QCOMPARE((*plain)[0], 1.5);
        QCOMPARE((*plain)[1], 0.125);
        QCOMPARE((*plain)[2], kInf);
        QVERIFY(std::isnan((*plain)[3]));
        QCOMPARE((*plain)[4], 0.0);

        const auto csv = readStepTrace(
            writeFile(dir, "trace.csv", "step,amax\n10,0.5\n11, 1e-3\n12,1e300\n").toStdString(),
            error);
        QVERIFY2(csv, error.c_str());
        QCOMPARE(*csv, (std::vector<double>{0.5, 1e-3, 1e300}));
    }

    void traceErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message"); // after "PATH:"
        QTest::newRow("word") << "1\n2\nabc\n"
                              << "3:1: 'abc' is not a number";
        QTest::newRow("indented") << "1\n   x1\n"
                                  << "2:4: 'x1' is not a number";
        QTest::newRow("negative") << "1\n-2\n"
                                  << "2:1: '-2' is negative";
        QTest::newRow("csv value") << "step,amax\n0,1\n1, zz\n"
                                   << "3:4: 'zz' is not a number";
        QTest::newRow("csv step") << "0,1\nq,2\n"
                                  << "2:1: 'q' is not a step number";
        QTest::newRow("gap") << "0,1\n1,2\n3,3\n"
                             << "3:1: step 3 where 2 was expected";
        QTest::newRow("mixed") << "0,1\n2\n"
                               << "2:1: expected two CSV fields";
        QTest::newRow("fields") << "0,1,2\n"
                                << "1:4: expected one value, or two CSV fields";
        QTest::newRow("missing") << "0,\n"
                                 << "1:3: a value is missing";
        QTest::newRow("too big") << "1e999\n"
                                 << "1:1: '1e999' is beyond the range of a double";
        QTest::newRow("header late") << "0,1\nstep,amax\n"
                                     << "2:1: 'step' is not a step number";
    }
    void traceErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = writeFile(dir, "bad.csv", text.toStdString());
        std::string error;
        QVERIFY(!readStepTrace(path.toStdString(), error));
        QVERIFY2(QString::fromStdString(error).startsWith(path + ":" + message), error.c_str());
    }

    void traceFileProblems() {
        QTemporaryDir dir;
        std::string error;
        QVERIFY(!readStepTrace(dir.filePath("absent.txt").toStdString(), error));
        QVERIFY2(QString::fromStdString(error).contains("absent.txt: cannot open"), error.c_str());
        QVERIFY(!readStepTrace(writeFile(dir, "empty.txt", "# nothing\n\n").toStdString(), error));
        QVERIFY2(QString::fromStdString(error).contains("empty.txt: no values"), error.c_str());
    }

    void overflowAtTheFirstStep() {
        // FP16, amax 1, scale 2^16: 65536 rounds to ∞, so step 0 overflows and is skipped,
        // and step 1 runs at 2^15.
        const FormatSpec fp16 = lookUp("fp16");
        const auto run = simulateLossScaling({1.0, 1.0, 1.0}, fp16, {});
        QCOMPARE(run.steps.size(), std::size_t(3));
        QCOMPARE(run.steps[0].scale, 65536.0f);
        QVERIFY(run.steps[0].overflow);
        QVERIFY(run.steps[0].skipped);
        QCOMPARE(run.steps[1].scale, 32768.0f);
        QVERIFY(!run.steps[1].overflow && !run.steps[1].skipped);
        QCOMPARE(run.steps[2].scale, 32768.0f);
        QCOMPARE(run.skipped, std::vector<std::size_t>{0});
        QVERIFY(!run.steps[0].flushedFraction);
    }

    void growthAfterExactlyTheInterval() {
        const FormatSpec fp16 = lookUp("fp16");
        // Steps 1 … 2000 are the 2000 clean steps after the overflow at step 0: the scale grows
        // for step 2001, not a step earlier, and then overflows again.
        const auto run = simulateLossScaling(std::vector<double>(2003, 1.0), fp16, {});
        for (std::size_t t = 1; t <= 2000; ++t)
            QCOMPARE(run.steps[t].scale, 32768.0f);
        QCOMPARE(run.steps[2001].scale, 65536.0f);
        QVERIFY(run.steps[2001].skipped);
        QCOMPARE(run.steps[2002].scale, 32768.0f);
        QCOMPARE(run.skipped, (std::vector<std::size_t>{0, 2001}));

        // With amax 0.5 no step overflows until the scale has grown: 2000 clean steps 0 … 1999.
        const auto half = simulateLossScaling(std::vector<double>(2001, 0.5), fp16, {});
        QCOMPARE(half.steps[1999].scale, 65536.0f);
        QCOMPARE(half.steps[2000].scale, 131072.0f);
        QVERIFY(half.steps[2000].overflow); // 0.5 · 2^17 = 65536
        QCOMPARE(half.skipped, std::vector<std::size_t>{2000});
    }

    void overflowRestartsTheCount() {
        const FormatSpec fp16 = lookUp("fp16");
        LossScalerOptions options;
        options.initScale = 1024;
        options.growthInterval = 3;
        std::vector<double> amaxes(12, 1.0);
        amaxes[2] = kNaN;
        amaxes[6] = kInf;
        const auto run = simulateLossScaling(amaxes, fp16, options);
        const std::vector<float> expected{1024, 1024, 1024, 512, 512,  512,
                                          1024, 512,  512,  512, 1024, 1024};
        for (std::size_t t = 0; t < amaxes.size(); ++t)
            QCOMPARE(run.steps[t].scale, expected[t]);
        QCOMPARE(run.skipped, (std::vector<std::size_t>{2, 6}));
    }

    void fp16OverflowBoundary() {
        const FormatSpec fp16 = lookUp("fp16");
        LossScalerOptions options;
        options.staticScale = 1.0f;
        const auto run = simulateLossScaling({65504, 65519.99, 65520, std::nextafter(65520.0, 0.0)},
                                             fp16, options);
        QVERIFY(!run.steps[0].overflow);
        QVERIFY(!run.steps[1].overflow);
        QVERIFY(run.steps[2].overflow); // the tie goes to the even code: ∞
        QVERIFY(!run.steps[3].overflow);
        QVERIFY(run.skipped.empty()); // static scaling skips nothing
        // BF16 has FP32's range: the same amax with 2^16 never overflows.
        const auto bf16 = simulateLossScaling({65520.0}, lookUp("bf16"), {});
        QVERIFY(!bf16.steps[0].overflow);
    }

    void staticScaling() {
        const FormatSpec fp16 = lookUp("fp16");
        LossScalerOptions options;
        options.staticScale = 128.0f;
        const auto run = simulateLossScaling({1, 1000, kInf, 0.5}, fp16, options);
        for (const auto& step : run.steps) {
            QCOMPARE(step.scale, 128.0f);
            QVERIFY(!step.skipped);
        }
        QVERIFY(!run.steps[0].overflow);
        QVERIFY(run.steps[1].overflow); // 128000
        QVERIFY(run.steps[2].overflow);
        QVERIFY(run.skipped.empty());
    }

    void scaleNeverGrowsPastFp32() {
        const FormatSpec fp16 = lookUp("fp16");
        LossScalerOptions options;
        options.initScale = 0x1p126f;
        options.growthInterval = 1;
        const auto run = simulateLossScaling(std::vector<double>(4, 0x1p-150), fp16, options);
        QCOMPARE(run.steps[1].scale, 0x1p127f);
        QCOMPARE(run.steps[2].scale, 0x1p127f); // 2^128 is ∞ in FP32: kept
        QCOMPARE(run.steps[3].scale, 0x1p127f);
    }

    void scaleArithmeticIsGradScalers() {
        // The factors are doubles (Python floats), never rounded to FP32 first: the scale is
        // the FP32 scale times the double factor, rounded to double, then stored as FP32. The
        // expected values go through the exact core: exact product → FP64 → FP32.
        const FormatSpec fp16 = lookUp("fp16");
        auto update = [](float scale, const char* factor) {
            const ExactValue product =
                exactFromDouble(double(scale)) * exactFromDouble(nearestDouble(exactValue(factor)));
            const ExactValue inDouble = exactFromDouble(nearestDouble(product));
            return std::bit_cast<float>(
                static_cast<std::uint32_t>(roundToFormat(inDouble, fp32Spec()).code));
        };
        LossScalerOptions options;
        options.initScale = 3;
        options.growthFactor = 1.1;
        options.backoffFactor = 0.3;
        options.growthInterval = 1;
        const auto run = simulateLossScaling({1, kInf, 1}, fp16, options);
        QCOMPARE(run.steps[1].scale, update(3, "1.1"));
        QCOMPARE(run.steps[2].scale, update(update(3, "1.1"), "0.3"));
        // Backing off by 0.7 five times from 2^16: 11014.6357421875 with the double factor,
        // where a factor first rounded to FP32 gives 11014.634765625 (worked out by hand in
        // IEEE arithmetic; the two agree for the first four steps).
        LossScalerOptions backoff;
        backoff.backoffFactor = 0.7;
        const auto overflows = simulateLossScaling(std::vector<double>(6, kInf), fp16, backoff);
        QCOMPARE(double(overflows.steps[5].scale), 11014.6357421875);
        float scale = 65536.0f;
        for (int k = 0; k < 5; ++k)
            scale = update(scale, "0.7");
        QCOMPARE(overflows.steps[5].scale, scale);
    }

    void againstTheReferenceScaler() {
        const FormatSpec fp16 = lookUp("fp16");
        std::string error;
        const auto spec = parseStepSeries("geometric:4:1e-6,spikes:0.02:1e5", error);
        QVERIFY2(spec, error.c_str());
        const auto amaxes = stepSeriesValues(*spec, 20000, 11);
        LossScalerOptions options;
        options.growthInterval = 50;
        ReferenceScaler reference;
        reference.interval = 50;
        const auto run = simulateLossScaling(amaxes, fp16, options);
        std::vector<std::size_t> skipped;
        for (std::size_t t = 0; t < amaxes.size(); ++t) {
            const auto [scale, overflow] = reference.step(amaxes[t]);
            QCOMPARE(run.steps[t].scale, scale);
            QCOMPARE(run.steps[t].overflow, overflow);
            QCOMPARE(run.steps[t].skipped, overflow);
            if (overflow)
                skipped.push_back(t);
        }
        QVERIFY(skipped.size() > 100);
        QCOMPARE(run.skipped, skipped);
    }

    void gradientFractions() {
        // Each step's gradients rebuilt here, scaled (a power of two: exact) and sorted by
        // FP16's edges: |v| ≤ 2^−25 flushes (the tie goes to the even 0), below
        // 2^−14 − 2^−25 it stays subnormal (at the edge it rounds up to 2^−14).
        const FormatSpec fp16 = lookUp("fp16");
        std::string error;
        StepGradients gradients;
        gradients.distribution = *parseValueDistribution("normal:0:1", error);
        gradients.count = 3000;
        gradients.seed = 5;
        const std::vector<double> amaxes{1e-2, 1e-5, 3e-7, kInf, 0, 1e-9};
        LossScalerOptions options;
        options.initScale = 1024;
        const auto run = simulateLossScaling(amaxes, fp16, options, gradients);
        bool someFlushed = false, someSubnormal = false;
        for (std::size_t t = 0; t < amaxes.size(); ++t) {
            const auto& step = run.steps[t];
            if (!std::isfinite(amaxes[t])) {
                QVERIFY(!step.flushedFraction && !step.subnormalFraction);
                continue;
            }
            QVERIFY(step.flushedFraction && step.subnormalFraction);
            const auto draws = drawValues(gradients.distribution, gradients.count,
                                          stochasticBits(gradients.seed, t));
            double largest = 0;
            for (double d : draws)
                largest = std::max(largest, std::fabs(d));
            std::size_t nonZero = 0, flushed = 0, subnormal = 0;
            double seenAmax = 0;
            for (double d : draws) {
                const double g = d / largest * amaxes[t];
                if (g == 0)
                    continue;
                seenAmax = std::max(seenAmax, std::fabs(g));
                ++nonZero;
                const double v = std::fabs(g * double(step.scale));
                flushed += v <= 0x1p-25;
                subnormal += v > 0x1p-25 && v < 0x1p-14 - 0x1p-25;
            }
            if (amaxes[t] > 0)
                QCOMPARE(seenAmax, amaxes[t]);
            const double expectedFlushed = nonZero ? double(flushed) / double(nonZero) : 0.0;
            const double expectedSubnormal = nonZero ? double(subnormal) / double(nonZero) : 0.0;
            QCOMPARE(*step.flushedFraction, expectedFlushed);
            QCOMPARE(*step.subnormalFraction, expectedSubnormal);
            someFlushed |= flushed > 0;
            someSubnormal |= subnormal > 0;
        }
        QVERIFY(someFlushed && someSubnormal);
        QCOMPARE(*run.steps[4].flushedFraction, 0.0); // amax 0: no non-zero gradient
    }
};

QTEST_GUILESS_MAIN(TestLossScaling)
#include "tst_loss_scaling.moc"
