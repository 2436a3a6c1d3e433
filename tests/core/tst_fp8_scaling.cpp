// SPDX-License-Identifier: GPL-3.0-or-later
// FP8 scaling recipes (current, delayed with an amax history) and the cast table behind them.
//
// Expectations: recipes replayed by a plain reference written here (the window of previous
// amaxes, max or most recent, (448 / amax) / 2^margin in float, the keep-the-scale rules),
// E4M3's edges typed here (overflow past 464, flush at or below 2^−10), SQNR summed here in
// long double from the exact core's rounding of each element, and the cast table checked
// against the exact core on every cut point, its neighbours and random products.
#include "fpx/data/value_distribution.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/training/fp8_scaling.h"

#include "scaled_cast.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QTest>

#include <cmath>
#include <deque>
#include <limits>
#include <random>

using namespace fpx;
using namespace fpx::test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Fp8Recipe recipe(const char* text, int margin = 0) {
    std::string error;
    auto r = parseFp8Recipe(text, error);
    if (!r)
        qFatal("recipe %s: %s", text, error.c_str());
    r->margin = margin;
    return *r;
}

// Tensors whose amax is amaxes[t]: the amax itself and a few smaller values of both signs.
struct Tensors {
    std::vector<std::vector<float>> data;
    std::vector<TensorView> views;
    explicit Tensors(const std::vector<float>& amaxes) {
        for (float a : amaxes)
            data.push_back({a, -a / 3, a / 7, -a / 1000, 0, a * 1e-6f, -a});
        for (const auto& d : data) {
            TensorView v;
            v.floats = d;
            v.shape = {d.size()};
            views.push_back(v);
        }
    }
};

// TE's delayed scaling, written out: the scale for step t from the amaxes of steps before it.
std::vector<float> referenceScales(const std::vector<float>& amaxes, std::size_t length,
                                   bool mostRecent, int margin, bool current) {
    std::vector<float> scales;
    float scale = 1;
    for (std::size_t t = 0; t < amaxes.size(); ++t) {
        float amax = 0;
        if (current) {
            amax = amaxes[t];
        } else if (t > 0) {
            if (mostRecent) {
                amax = amaxes[t - 1];
            } else {
                for (std::size_t back = 1; back <= length && back <= t; ++back)
                    amax = std::isnan(amaxes[t - back]) || std::isnan(amax)
                               ? std::numeric_limits<float>::quiet_NaN()
                               : std::max(amax, amaxes[t - back]);
            }
        }
        if (amax > 0 && std::isfinite(amax)) {
            const float next = (448.0f / amax) / std::ldexp(1.0f, margin);
            if (std::isfinite(next) && next > 0)
                scale = next;
        }
        scales.push_back(scale);
    }
    return scales;
}

bool sameOutcome(const training::ScaledOutcome& a, const training::ScaledOutcome& b) {
    return a.zone == b.zone &&
           (std::isnan(a.value)
                ? std::isnan(b.value)
                : (a.value == b.value && std::signbit(a.value) == std::signbit(b.value)));
}

} // namespace

class TestFp8Scaling : public QObject {
    Q_OBJECT

  private slots:
    void parseRecipes() {
        std::string error;
        const auto current = parseFp8Recipe("current", error);
        QVERIFY(current && current->kind == Fp8Recipe::Kind::Current);
        const auto delayed = parseFp8Recipe("delayed:1024:max", error);
        QVERIFY(delayed && delayed->kind == Fp8Recipe::Kind::Delayed);
        QCOMPARE(delayed->historyLength, std::size_t(1024));
        QVERIFY(delayed->rule == Fp8Recipe::HistoryRule::Max);
        QCOMPARE(delayed->text, std::string("delayed:1024:max"));
        const auto recent = parseFp8Recipe("delayed:4:most_recent", error);
        QVERIFY(recent && recent->rule == Fp8Recipe::HistoryRule::MostRecent);

        for (const char* bad : {"", "delayed", "delayed:0:max", "delayed:x:max", "delayed:4:min",
                                "delayed:4", "current:1", "static"}) {
            QVERIFY2(!parseFp8Recipe(bad, error), bad);
            QVERIFY(!error.empty());
        }
        parseFp8Recipe("delayed:4:min", error);
        QVERIFY2(QString::fromStdString(error).contains("max or most_recent"), error.c_str());
        parseFp8Recipe("delayed:0:max", error);
        QVERIFY2(QString::fromStdString(error).contains("LEN must be"), error.c_str());
    }

    void currentScaling() {
        const FormatSpec e4m3 = lookUp("fp8_e4m3");
        const Tensors tensors({448, 1, 0.5f, 3});
        const auto run = simulateFp8Scaling(tensors.views, e4m3, recipe("current"));
        QCOMPARE(run.steps[0].scale, 1.0f);
        QCOMPARE(run.steps[1].scale, 448.0f);
        QCOMPARE(run.steps[2].scale, 896.0f);
        QCOMPARE(run.steps[3].scale, 448.0f / 3.0f);
        for (const auto& step : run.steps) {
            QCOMPARE(step.amaxUsed, step.amax);
            QCOMPARE(step.overflowFraction, 0.0); // the amax lands on 448 or just below
        }
        const auto margin = simulateFp8Scaling(tensors.views, e4m3, recipe("current", 2));
        QCOMPARE(margin.steps[1].scale, 112.0f);
        // 448 / 2^−149 is not finite in FP32, and a margin of 200 makes every scale 0: the
        // previous scale stays.
        const Tensors tiny({4, 0x1p-149f});
        const auto kept = simulateFp8Scaling(tiny.views, e4m3, recipe("current"));
        QCOMPARE(kept.steps[1].scale, 112.0f);
        const auto huge = simulateFp8Scaling(tensors.views, e4m3, recipe("current", 200));
        for (const auto& step : huge.steps)
            QCOMPARE(step.scale, 1.0f);
    }

    void delayedHistories_data() {
        QTest::addColumn<QString>("recipe");
        QTest::addColumn<int>("margin");
        QTest::newRow("current") << "current" << 0;
        QTest::newRow("max 1") << "delayed:1:max" << 0;
        QTest::newRow("max 3") << "delayed:3:max" << 0;
        QTest::newRow("max 16 margin 1") << "delayed:16:max" << 1;
        QTest::newRow("most recent") << "delayed:3:most_recent" << 0;
        QTest::newRow("most recent margin 3") << "delayed:8:most_recent" << 3;
    }
    void delayedHistories() {
        QFETCH(QString, recipe);
        QFETCH(int, margin);
        const FormatSpec e4m3 = lookUp("fp8_e4m3");
        // A spike at step 4, zeros (amax 0 keeps the scale), a NaN and an ∞ step.
        const std::vector<float> amaxes{2,    3,    1,  0.5f, 900, 1,     1, 1,     0,    0, 0.25f,
                                        0.1f, 0.1f, 64, 64,   64,  1e-3f, 5, 7e-2f, 1e4f, 1, 1};
        std::vector<float> withSpecials = amaxes;
        withSpecials.push_back(std::numeric_limits<float>::quiet_NaN());
        withSpecials.push_back(3);
        withSpecials.push_back(std::numeric_limits<float>::infinity());
        withSpecials.push_back(3);
        withSpecials.push_back(3);
        const Tensors tensors(withSpecials);
        const Fp8Recipe r = ::recipe(recipe.toLatin1().constData(), margin);
        const auto run = simulateFp8Scaling(tensors.views, e4m3, r);
        const auto expected = referenceScales(withSpecials, r.historyLength,
                                              r.rule == Fp8Recipe::HistoryRule::MostRecent, margin,
                                              r.kind == Fp8Recipe::Kind::Current);
        QCOMPARE(run.steps.size(), withSpecials.size());
        for (std::size_t t = 0; t < withSpecials.size(); ++t) {
            QVERIFY2(run.steps[t].scale == expected[t],
                     qPrintable(QString("step %1: %2, expected %3")
                                    .arg(t)
                                    .arg(double(run.steps[t].scale))
                                    .arg(double(expected[t]))));
            if (!std::isnan(withSpecials[t]))
                QCOMPARE(run.steps[t].amax, double(withSpecials[t]));
        }
        if (r.kind == Fp8Recipe::Kind::Delayed) {
            // The spike at step 4 overflows: the scale came from smaller amaxes.
            QVERIFY(run.steps[4].overflowFraction > 0);
            QCOMPARE(run.steps[0].amaxUsed, 0.0);
            QCOMPARE(run.steps[0].scale, 1.0f);
        }
    }

    void zonesAndSqnrAgainstAReference() {
        const FormatSpec e4m3 = lookUp("fp8_e4m3");
        std::string error;
        const auto distribution = parseValueDistribution("laplace:1", error);
        std::vector<std::vector<float>> data;
        std::vector<TensorView> views;
        for (std::size_t t = 0; t < 12; ++t) {
            const auto values = drawValues(*distribution, 5000, 100 + t);
            std::vector<float> f;
            const double drift = std::pow(10.0, double(t % 6) - 3) * (t == 7 ? 1e3 : 1);
            for (double v : values)
                f.push_back(float(v * drift));
            f.push_back(0);
            f.push_back(float(drift * 1e-9)); // flushed under every recipe
            data.push_back(std::move(f));
        }
        for (const auto& d : data) {
            TensorView v;
            v.floats = d;
            views.push_back(v);
        }
        for (const char* text : {"current", "delayed:4:max", "delayed:2:most_recent"}) {
            const auto run = simulateFp8Scaling(views, e4m3, recipe(text));
            bool sawOverflow = false, sawFlush = false;
            for (std::size_t t = 0; t < views.size(); ++t) {
                const auto& step = run.steps[t];
                const double s = double(step.scale);
                std::size_t overflow = 0, flushed = 0;
                long double signal = 0, noise = 0;
                for (float x : data[t]) {
                    const double v = std::fabs(double(x) * s); // exact: float × float
                    overflow += v > 464;
                    flushed += x != 0 && v <= 0x1p-10;
                    const ExactValue scaled = exactFromDouble(double(x)) * exactFromDouble(s);
                    const Conversion c = roundToFormat(
                        scaled, e4m3, {RoundingMode::NearestEven, OverflowPolicy::Saturate, 0});
                    const double q = doubleFromExact(decodeCode(e4m3, c.code).value) / s;
                    signal += (long double)x * x;
                    noise += ((long double)x - q) * ((long double)x - q);
                }
                sawOverflow |= overflow > 0;
                sawFlush |= flushed > 0;
                const double n = double(data[t].size());
                QCOMPARE(step.overflowFraction, double(overflow) / n);
                QCOMPARE(step.flushedFraction, double(flushed) / n);
                QVERIFY(step.sqnrDb);
                const double expected = double(10 * std::log10(signal / noise));
                QVERIFY2(std::fabs(*step.sqnrDb - expected) < 1e-9 * std::fabs(expected) + 1e-12,
                         qPrintable(QString("%1 step %2: %3 vs %4")
                                        .arg(text)
                                        .arg(t)
                                        .arg(*step.sqnrDb, 0, 'g', 17)
                                        .arg(expected, 0, 'g', 17)));
            }
            if (QString(text) != "current")
                QVERIFY2(sawOverflow, text);
            QVERIFY2(sawFlush, text);
        }
    }

    void zeroAndEmptyTensors() {
        const FormatSpec e4m3 = lookUp("fp8_e4m3");
        const std::vector<float> zeros(10, 0.0f);
        std::vector<TensorView> views(2);
        views[0].floats = zeros;
        const auto run = simulateFp8Scaling(views, e4m3, recipe("current"));
        QCOMPARE(run.steps[0].scale, 1.0f);
        QVERIFY(!run.steps[0].sqnrDb); // no signal
        QVERIFY(!run.steps[1].sqnrDb);
        QCOMPARE(run.steps[1].overflowFraction, 0.0);
    }

    void exactCastGivesInfiniteSqnr() {
        const FormatSpec e4m3 = lookUp("fp8_e4m3");
        const std::vector<float> values{448, 224, -1.75f, 0.5f};
        TensorView view;
        view.floats = values;
        const auto run = simulateFp8Scaling({view}, e4m3, recipe("current"));
        QVERIFY(run.steps[0].sqnrDb && std::isinf(*run.steps[0].sqnrDb));
    }

    void doubleTensorsTakeTheExactPath() {
        // Doubles that are not floats make inexact double products: the cast must still be
        // the exact core's answer (a product just above an E4M3 tie rounds up).
        const FormatSpec e4m3 = lookUp("fp8_e4m3");
        const std::vector<double> values{448, 17 + 0x1p-40, 17 - 0x1p-40, 1e-300};
        TensorView view;
        view.doubles = values;
        const auto run = simulateFp8Scaling({view}, e4m3, recipe("current"));
        QCOMPARE(run.steps[0].scale, 1.0f);
        QCOMPARE(run.steps[0].flushedFraction, 0.25);
        const training::ScaledCast cast(e4m3,
                                        {RoundingMode::NearestEven, OverflowPolicy::Saturate, 0});
        QCOMPARE(cast(17 + 0x1p-40, 1).value, 18.0);
        QCOMPARE(cast(17 - 0x1p-40, 1).value, 16.0);
        QCOMPARE(cast(17 + 0x1p-40, 1 + 0x1p-20).value, 18.0);
    }

    void castTableAgainstTheExactCore_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("policy");
        const char* formats[] = {"fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "fp6_e3m2",
                                 "fp4_e2m1", "fp16",     "bf16"};
        const RoundingMode modes[] = {RoundingMode::NearestEven, RoundingMode::NearestAway,
                                      RoundingMode::TowardZero, RoundingMode::ToOdd};
        for (const char* f : formats)
            for (RoundingMode m : modes)
                for (OverflowPolicy p : {OverflowPolicy::Ieee, OverflowPolicy::Saturate})
                    QTest::newRow(qPrintable(
                        QString("%1 %2 %3")
                            .arg(f, QString::fromStdString(std::string(roundingModeId(m))),
                                 QString::fromStdString(std::string(overflowPolicyId(p))))))
                        << f << int(m) << int(p);
    }
    void castTableAgainstTheExactCore() {
        QFETCH(QString, format);
        QFETCH(int, mode);
        QFETCH(int, policy);
        const FormatLookup lookup = findFormat(format.toStdString());
        QVERIFY2(lookup, qPrintable(format + " is not in the catalogue"));
        const FormatSpec spec = *lookup.spec;
        const RoundingOptions rounding{RoundingMode(mode), OverflowPolicy(policy), 0};
        const training::ScaledCast cast(spec, rounding);
        QVERIFY(cast.hasTable());
        // Every value of the format, every midpoint (and the first value past the largest)
        // and their double neighbours, as products x·1, x·2^−3 · 8 and x·8 · 2^−3; then the
        // same and random floats times 3, whose products fall between the cut points.
        std::vector<ExactValue> values{ExactValue::zero()};
        for (Code code = 1; code < spec.signBit(); ++code) {
            const ExactValue v = decodeCode(spec, code).value;
            if (v.isFinite() && !v.isZero())
                values.push_back(v);
        }
        const ExactValue largest = values.back();
        values.push_back(largest +
                         ExactValue::dyadic(false, 1, largest.floorLog2() - spec.fractionBits));
        std::vector<double> probes;
        // 16-bit formats: both ends of the range in full, every 61st value between.
        const std::size_t ends = 300;
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (values.size() > 2 * ends && i >= ends && i + ends < values.size() && i % 61)
                continue;
            std::vector<double> points{doubleFromExact(values[i])};
            if (i + 1 < values.size())
                points.push_back(doubleFromExact(midpoint(values[i], values[i + 1])));
            for (double p : points)
                for (double q : {std::nextafter(p, 0.0), p, std::nextafter(p, kInf)})
                    if (q > 0)
                        probes.push_back(q);
        }
        probes.push_back(doubleFromExact(largest) * 4);
        std::mt19937_64 random(42);
        std::uniform_real_distribution<double> exponent(-40, 40);
        for (int i = 0; i < 4000; ++i)
            probes.push_back(float(std::exp2(exponent(random))));
        auto check = [&](double input, double scale) {
            const auto fast = cast(input, scale);
            const auto exact = cast.exact(input, scale);
            if (!sameOutcome(fast, exact))
                QFAIL(qPrintable(QString("%1 · %2: table zone %3 value %4, core zone %5 value %6")
                                     .arg(input, 0, 'g', 17)
                                     .arg(scale, 0, 'g', 17)
                                     .arg(int(fast.zone))
                                     .arg(fast.value, 0, 'g', 17)
                                     .arg(int(exact.zone))
                                     .arg(exact.value, 0, 'g', 17)));
        };
        for (double x : probes)
            for (double sx : {x, -x}) {
                for (double scale : {1.0, 0.125, 8.0})
                    check(sx / scale, scale); // the product is sx exactly
                if (std::isfinite(float(sx)))
                    check(float(sx), 3.0);
            }
    }

    void castZonesAtFp16Edges() {
        // FP16 under nearest even: 2^−25 flushes (tie to 0), just above is the smallest
        // subnormal, 65519.99… is 65504, 65520 overflows.
        QElapsedTimer timer;
        timer.start();
        const training::ScaledCast cast(lookUp("fp16"), {});
        qInfo("FP16 cast table: %lld ms", timer.elapsed());
        QVERIFY(cast.hasTable());
        QCOMPARE(cast(0x1p-25, 1).zone, RangeZone::Flushed);
        QCOMPARE(cast(std::nextafter(0x1p-25, 1.0), 1).zone, RangeZone::Subnormal);
        QCOMPARE(cast(std::nextafter(0x1p-25, 1.0), 1).value, 0x1p-24);
        QCOMPARE(cast(0x1p-14 - 0x1p-25, 1).zone, RangeZone::Normal);
        QCOMPARE(cast(std::nextafter(0x1p-14 - 0x1p-25, 0.0), 1).zone, RangeZone::Subnormal);
        QCOMPARE(cast(65519.99, 1).value, 65504.0);
        QCOMPARE(cast(65519.99, 1).zone, RangeZone::Normal);
        QCOMPARE(cast(65520, 1).zone, RangeZone::Overflow);
        QCOMPARE(cast(-65520, 1).value, -kInf);
        QCOMPARE(cast(0, 1).zone, RangeZone::Zero);
        const training::ScaledCast saturating(
            lookUp("fp16"), {RoundingMode::NearestEven, OverflowPolicy::Saturate, 0});
        QCOMPARE(saturating(65520, 1).zone, RangeZone::Overflow);
        QCOMPARE(saturating(65520, 1).value, 65504.0);
        QCOMPARE(saturating(65519.99, 1).zone, RangeZone::Normal);
    }

    void manyStepsAreFast() {
        // 100 steps of 64 Ki values with three recipes side by side: the table path.
        const FormatSpec e4m3 = lookUp("fp8_e4m3");
        std::string error;
        const auto distribution = parseValueDistribution("normal:0:1", error);
        std::vector<std::vector<float>> data;
        std::vector<TensorView> views;
        for (std::size_t t = 0; t < 100; ++t) {
            std::vector<float> f;
            for (double v : drawValues(*distribution, 65536, t))
                f.push_back(float(v * (1 + 0.01 * double(t))));
            data.push_back(std::move(f));
        }
        for (const auto& d : data) {
            TensorView v;
            v.floats = d;
            views.push_back(v);
        }
        QElapsedTimer timer;
        timer.start();
        for (const char* text : {"current", "delayed:16:max", "delayed:16:most_recent"}) {
            const auto run = simulateFp8Scaling(views, e4m3, recipe(text));
            QCOMPARE(run.steps.size(), std::size_t(100));
            QVERIFY(run.steps[50].sqnrDb && *run.steps[50].sqnrDb > 20);
        }
        // Generous for a loaded machine; the exact core alone would take far longer.
        QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
        qInfo("3 recipes x 100 steps x 64 Ki values: %lld ms", timer.elapsed());
    }
};

QTEST_GUILESS_MAIN(TestFp8Scaling)
#include "tst_fp8_scaling.moc"
