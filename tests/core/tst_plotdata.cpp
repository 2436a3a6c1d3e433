// SPDX-License-Identifier: GPL-3.0-or-later
// The data behind the plots, checked against the core and the formats' limits: sawtooth
// peaks are half an ULP, range bars end at the limits, number lines hold exactly the finite
// values.
#include "fpx/decimal_text.h"
#include "fpx/format_limits.h"
#include "fpx/plot_data.h"

#include "test_support.h"

#include <QTest>

#include <cmath>

using namespace fpx;
using namespace fpx::test;

class TestPlotData : public QObject {
    Q_OBJECT

  private slots:
    void sawtoothPeaksAreHalfAnUlp_data();
    void sawtoothPeaksAreHalfAnUlp();
    void sawtoothIsZeroAtEveryValue();
    void directedModesReachAWholeUlp();
    void envelopeOfWideFormats();
    void rangeBarsEndAtTheLimits_data();
    void rangeBarsEndAtTheLimits();
    void numberLineHoldsEveryFiniteValue_data();
    void numberLineHoldsEveryFiniteValue();
    void ulpStaircase();
    void storageCosts();
};

void TestPlotData::sawtoothPeaksAreHalfAnUlp_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("from");
    QTest::addColumn<double>("to");
    QTest::addColumn<double>("ulp");
    QTest::newRow("e4m3 [1,2]") << "fp8_e4m3" << 1.0 << 2.0 << 0.125;
    QTest::newRow("e5m2 [4,8]") << "fp8_e5m2" << 4.0 << 8.0 << 1.0;
    QTest::newRow("fp16 [1,2]") << "fp16" << 1.0 << 2.0 << std::ldexp(1.0, -10);
    QTest::newRow("fp4 [2,4]") << "fp4_e2m1" << 2.0 << 4.0 << 1.0;
    QTest::newRow("bf16 [256,512]") << "bf16" << 256.0 << 512.0 << 2.0;
}

void TestPlotData::sawtoothPeaksAreHalfAnUlp() {
    QFETCH(QString, id);
    QFETCH(double, from);
    QFETCH(double, to);
    QFETCH(double, ulp);
    const ErrorCurve curve = roundingErrorCurve(lookUp(id), {}, from, to, false);
    QVERIFY(curve.exact);
    double peak = 0;
    for (const PlotPoint& p : curve.absolute)
        peak = std::max(peak, std::abs(p.y));
    // The largest error is just short of half an ULP (a tiny step before the midpoint).
    QVERIFY2(peak <= ulp / 2 && peak > ulp / 2 * (1 - 1e-6), qPrintable(QString::number(peak)));
    for (const PlotPoint& p : curve.relative)
        QVERIFY(p.y <= curve.unitRoundoff * (1 + 1e-9));
}

void TestPlotData::sawtoothIsZeroAtEveryValue() {
    const FormatSpec e4m3 = lookUp("fp8_e4m3");
    const ErrorCurve curve = roundingErrorCurve(e4m3, {}, 0.5, 4, false);
    const std::vector<double> values = finiteValues(e4m3);
    int zeros = 0;
    for (double v : values) {
        if (v < 0.5 || v > 4)
            continue;
        bool found = false;
        for (const PlotPoint& p : curve.absolute)
            found = found || (p.x == v && p.y == 0);
        QVERIFY2(found, qPrintable(QString::number(v)));
        ++zeros;
    }
    QCOMPARE(zeros, 25); // 0.5 … 4 in E4M3: 3 binades of 8 values and 4 itself
}

void TestPlotData::directedModesReachAWholeUlp() {
    RoundingOptions down;
    down.mode = RoundingMode::TowardZero;
    const ErrorCurve curve = roundingErrorCurve(lookUp("fp8_e4m3"), down, 1, 2, false);
    double lowest = 0;
    for (const PlotPoint& p : curve.absolute) {
        QVERIFY(p.y <= 0); // truncation never rounds up
        lowest = std::min(lowest, p.y);
    }
    QVERIFY(lowest < -0.125 * 0.99 && lowest >= -0.125);
}

void TestPlotData::envelopeOfWideFormats() {
    const ErrorCurve curve = roundingErrorCurve(lookUp("fp32"), {}, 1, 1000, true, 200);
    QVERIFY(!curve.exact);
    QCOMPARE(curve.absolute.size(), curve.absoluteLower.size());
    for (std::size_t i = 0; i < curve.absolute.size(); ++i) {
        const double x = curve.absolute[i].x;
        const double ulp = std::ldexp(1.0, std::ilogb(x) - 23);
        // At each sample the envelope is exactly ± half the ULP there: no peak is missed.
        QCOMPARE(curve.absolute[i].y, ulp / 2);
        QCOMPARE(curve.absoluteLower[i].y, -ulp / 2);
    }
}

void TestPlotData::rangeBarsEndAtTheLimits_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("minSub");
    QTest::addColumn<double>("minNormal");
    QTest::addColumn<double>("max");
    QTest::newRow("fp16") << "fp16" << -24.0 << -14.0 << std::log2(65504.0);
    QTest::newRow("bf16") << "bf16" << -133.0 << -126.0 << std::log2(3.3895313892515355e38);
    QTest::newRow("e4m3") << "fp8_e4m3" << -9.0 << -6.0 << std::log2(448.0);
    QTest::newRow("e8m0") << "fp8_e8m0" << -127.0 << -127.0 << 127.0;
    QTest::newRow("fp4") << "fp4_e2m1" << -1.0 << 0.0 << std::log2(6.0);
    QTest::newRow("fp128") << "fp128" << -16494.0 << -16382.0 << 16384.0;
}

void TestPlotData::rangeBarsEndAtTheLimits() {
    QFETCH(QString, id);
    QFETCH(double, minSub);
    QFETCH(double, minNormal);
    QFETCH(double, max);
    const RangeBar bar = rangeBar(lookUp(id));
    QCOMPARE(bar.log2MinSubnormal, minSub);
    QCOMPARE(bar.log2MinNormal, minNormal);
    QVERIFY2(std::abs(bar.log2Max - max) < 1e-9, qPrintable(QString::number(bar.log2Max, 'g', 17)));
}

void TestPlotData::numberLineHoldsEveryFiniteValue_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("count");
    QTest::newRow("fp4: ±0 are one point") << "fp4_e2m1" << 15;
    QTest::newRow("e4m3: 254 finite codes, ±0 one") << "fp8_e4m3" << 253;
    QTest::newRow("e4m3fnuz: one zero") << "fp8_e4m3fnuz" << 255;
    QTest::newRow("nf4") << "nf4" << 16;
    QTest::newRow("int4") << "int4" << 16;
    QTest::newRow("e8m0") << "fp8_e8m0" << 255;
}

void TestPlotData::numberLineHoldsEveryFiniteValue() {
    QFETCH(QString, id);
    QFETCH(int, count);
    const std::vector<double> values = finiteValues(lookUp(id));
    QCOMPARE(static_cast<int>(values.size()), count);
    QVERIFY(std::is_sorted(values.begin(), values.end()));
    const FormatLimits limits = deriveLimits(lookUp(id));
    QCOMPARE(values.back(), std::stod(toDecimal(limits.max).text));
}

void TestPlotData::ulpStaircase() {
    const std::vector<PlotPoint> steps = fpx::ulpStaircase(lookUp("fp16"));
    // Subnormals first: from 2^-24 to 2^-14 the gap is 2^-24; the last binade [2^15, max]
    // has gap 2^5.
    QCOMPARE(steps.front().x, -24.0);
    QCOMPARE(steps.front().y, -24.0);
    QCOMPARE(steps[1].x, -14.0);
    QCOMPARE(steps.back().y, 5.0);
    QVERIFY(std::abs(steps.back().x - std::log2(65504.0)) < 1e-12);
    for (std::size_t i = 1; i < steps.size(); ++i)
        QVERIFY(steps[i].y >= steps[i - 1].y); // gaps never shrink with magnitude
    const std::vector<PlotPoint> quad = fpx::ulpStaircase(lookUp("fp128"));
    QCOMPARE(quad.back().y, 16383.0 - 112);
}

void TestPlotData::storageCosts() {
    const auto costs =
        fpx::storageCosts({lookUp("fp32"), lookUp("tf32"), lookUp("fp4_e2m1"), lookUp("nf4")});
    auto bits = [&](const char* label) {
        for (const StorageCost& c : costs)
            if (c.label == label)
                return c.bitsPerElement;
        return -1.0;
    };
    QCOMPARE(bits("fp32"), 32.0);
    QCOMPARE(bits("tf32"), 32.0); // TF32 lives in FP32 containers
    QCOMPARE(bits("fp4_e2m1"), 4.0);
    QCOMPARE(bits("MXFP4"), 4.25);
    QCOMPARE(bits("NVFP4"), 4.5);
    QCOMPARE(bits("NF4 (bnb)"), 4.5);
}

QTEST_APPLESS_MAIN(TestPlotData)
#include "tst_plotdata.moc"
