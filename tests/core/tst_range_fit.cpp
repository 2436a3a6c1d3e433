// SPDX-License-Identifier: GPL-3.0-or-later
// Range fit: zones at FP16's exact boundaries (written out from IEEE 754 binary16, not taken
// from the core), the double path against the exact rounding over every FP8 and FP16 code and
// its neighbours, best scales against a search over k, and the lognormal distribution.
#include "fpx/data/value_distribution.h"
#include "fpx/exact/conversion.h"
#include "fpx/training/range_fit.h"

#include "test_support.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace fpx;
using fpx::test::exactValue;
using fpx::test::lookUp;

namespace {

TensorView viewOf(const std::vector<double>& values) {
    TensorView view;
    view.name = "test";
    view.shape = {values.size()};
    view.doubles = values;
    return view;
}

RangeFitOptions optionsWith(RoundingMode mode, OverflowPolicy policy, int scaleLog2 = 0,
                            std::uint64_t bits = 0) {
    RangeFitOptions options;
    options.scale = ExactValue::dyadic(false, 1, scaleLog2);
    options.rounding.mode = mode;
    options.rounding.overflow = policy;
    options.rounding.randomBits = bits;
    return options;
}

// The zone of one double through fitRange, the path the counts take.
RangeZone fittedZone(double x, const FormatSpec& format, const RangeFitOptions& options = {}) {
    const std::vector<double> one{x};
    const RangeFit fit = fitRange(viewOf(one), format, options);
    for (std::size_t z = 0; z < kRangeZoneCount; ++z)
        if (fit.counts[z] == 1)
            return static_cast<RangeZone>(z);
    qFatal("no zone counted");
}

QString zoneText(RangeZone zone) {
    return QString::fromLatin1(rangeZoneId(zone).data(), qsizetype(rangeZoneId(zone).size()));
}

// Every finite value of a format as a double (the small formats and FP16 fit in one).
std::vector<double> finiteValues(const FormatSpec& format) {
    std::vector<double> values;
    for (Code code = 0; code <= format.codeMask(); ++code) {
        const DecodedCode d = decodeCode(format, code);
        if (d.value.isFinite())
            values.push_back(doubleFromExact(d.value));
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

// The values, the midpoints between neighbours, the doubles on either side of each midpoint
// and of each value, and the midpoint and neighbours past the largest value (where the
// unbounded rounding decides overflow).
std::vector<double> probes(const FormatSpec& format) {
    const std::vector<double> values = finiteValues(format);
    std::vector<double> out;
    auto addAround = [&](double v) {
        out.push_back(v);
        out.push_back(std::nextafter(v, -1e300));
        out.push_back(std::nextafter(v, 1e300));
    };
    for (std::size_t i = 0; i < values.size(); ++i) {
        addAround(values[i]);
        if (i + 1 < values.size())
            addAround(values[i] + (values[i + 1] - values[i]) / 2);
    }
    const double top = values.back();
    const double gap = top - values[values.size() - 2];
    for (double beyond : {top + gap / 2, top + gap, top + gap * 3 / 2, top * 4})
        for (double sign : {1.0, -1.0})
            addAround(sign * beyond);
    return out;
}

double exactRelativeError(const ExactValue& scaled, const FormatSpec& format,
                          const RoundingOptions& rounding) {
    const ExactValue q = decodeCode(format, roundToFormat(scaled, format, rounding).code).value;
    const ExactValue error = ((q - scaled) / scaled).abs();
    const Conversion c = roundToFormat(error, lookUp("fp64"));
    return std::bit_cast<double>(static_cast<std::uint64_t>(c.code));
}

} // namespace

class TestRangeFit : public QObject {
    Q_OBJECT

  private slots:
    void fp16Boundaries();
    void fp16BoundariesOtherModes();
    void fp16Edges();
    void integerAndNf4Zones();
    void fastPathEqualsExactRounding_data();
    void fastPathEqualsExactRounding();
    void randomValuesAndScales();
    void countsAndErrors();
    void bestScalesAgainstSearch_data();
    void bestScalesAgainstSearch();
    void bf16NeedsNoLossScaling();
    void doublePathCoversGradients();
    void lognormal();
};

// IEEE binary16: subnormals k·2^−24 (k < 1024), normals from 2^−14, max 65504 = (2 − 2^−10)·2^15,
// and under nearest-even the overflow threshold is max + ½ ulp = 65520, a tie that rounds to
// the even 2^16 and so overflows.
void TestRangeFit::fp16Boundaries() {
    const FormatSpec fp16 = lookUp("fp16");
    const double minSub = std::ldexp(1.0, -24);
    const std::vector<std::pair<double, RangeZone>> ieee{
        {0.0, RangeZone::Zero},
        {-0.0, RangeZone::Zero},
        {minSub, RangeZone::Subnormal},
        {minSub / 2, RangeZone::Flushed}, // 2^−25: the tie goes to the even 0
        {-minSub / 2, RangeZone::Flushed},
        {std::nextafter(minSub / 2, 1.0), RangeZone::Subnormal},
        {std::nextafter(minSub / 2, 0.0), RangeZone::Flushed},
        {std::ldexp(1.0, -14), RangeZone::Normal},
        {std::ldexp(1.0, -14) - minSub, RangeZone::Subnormal},  // the largest subnormal
        {std::ldexp(1.0, -14) - minSub / 2, RangeZone::Normal}, // tie: 0x3ff is odd, 0x400 even
        {std::nextafter(std::ldexp(1.0, -14) - minSub / 2, 0.0), RangeZone::Subnormal},
        {65504.0, RangeZone::Normal},
        {-65504.0, RangeZone::Normal},
        {65519.99, RangeZone::Normal},
        {65520.0, RangeZone::Overflow},
        {-65520.0, RangeZone::Overflow},
        {1e6, RangeZone::Overflow},
    };
    for (const OverflowPolicy policy : fpx::test::kPolicies) {
        const RangeFitOptions options = optionsWith(RoundingMode::NearestEven, policy);
        for (const auto& [x, zone] : ieee) {
            const QString what = QString("%1 (%2)").arg(x, 0, 'g', 17).arg(int(policy));
            QCOMPARE(zoneText(rangeZoneOf(exactFromDouble(x), fp16, options.rounding)),
                     zoneText(zone));
            QVERIFY2(fittedZone(x, fp16, options) == zone, qPrintable(what));
        }
    }
    // The scale moves the values, not the boundaries: 2^−26 · 2^1 flushes (the tie), 2^−26 · 4
    // is the smallest subnormal.
    QCOMPARE(fittedZone(std::ldexp(1.0, -26), fp16,
                        optionsWith(RoundingMode::NearestEven, OverflowPolicy::Ieee, 1)),
             RangeZone::Flushed);
    QCOMPARE(fittedZone(std::ldexp(1.0, -26), fp16,
                        optionsWith(RoundingMode::NearestEven, OverflowPolicy::Ieee, 2)),
             RangeZone::Subnormal);
    // A scale that is not a power of two: 65520/3 · 3 overflows, 65504/3 · 3 does not.
    RangeFitOptions three;
    three.scale = ExactValue::integer(3);
    const std::vector<double> thirds{65520.0 / 3, 65504.0 / 3};
    const RangeFit fit = fitRange(viewOf(thirds), fp16, three);
    QCOMPARE(fit.count(RangeZone::Normal) + fit.count(RangeZone::Overflow), std::size_t(2));
    QCOMPARE(rangeZoneOf(exactFromDouble(65520.0 / 3) * three.scale, fp16),
             fittedZone(65520.0 / 3, fp16, three));
}

// Toward zero nothing up to the next binade overflows (65535.99 truncates to 65504), and every
// non-zero value below 2^−24 flushes; toward +∞ nothing positive flushes; round-to-odd never
// flushes, and as 65504's last significand bit is 1 it overflows only from 2^16 on.
void TestRangeFit::fp16BoundariesOtherModes() {
    const FormatSpec fp16 = lookUp("fp16");
    const double minSub = std::ldexp(1.0, -24);
    struct Case {
        RoundingMode mode;
        double x;
        RangeZone zone;
    };
    const std::vector<Case> cases{
        {RoundingMode::TowardZero, 65535.99, RangeZone::Normal},
        {RoundingMode::TowardZero, 65536.0, RangeZone::Overflow},
        {RoundingMode::TowardZero, std::nextafter(minSub, 0.0), RangeZone::Flushed},
        {RoundingMode::TowardZero, minSub, RangeZone::Subnormal},
        {RoundingMode::TowardPositive, 1e-30, RangeZone::Subnormal},
        {RoundingMode::TowardPositive, -1e-30, RangeZone::Flushed},
        {RoundingMode::TowardPositive, 65504.01, RangeZone::Overflow},
        {RoundingMode::TowardPositive, -65535.99, RangeZone::Normal},
        {RoundingMode::TowardNegative, -1e-30, RangeZone::Subnormal},
        {RoundingMode::TowardNegative, 1e-30, RangeZone::Flushed},
        {RoundingMode::ToOdd, 1e-30, RangeZone::Subnormal},
        {RoundingMode::ToOdd, 65535.99, RangeZone::Normal}, // truncates to the odd 65504
        {RoundingMode::ToOdd, 65536.0, RangeZone::Overflow},
        {RoundingMode::NearestAway, minSub / 2, RangeZone::Subnormal},
        {RoundingMode::NearestAway, 65520.0, RangeZone::Overflow},
        {RoundingMode::NearestAway, 65519.99, RangeZone::Normal},
    };
    for (const OverflowPolicy policy : fpx::test::kPolicies)
        for (const Case& c : cases) {
            const RangeFitOptions options = optionsWith(c.mode, policy);
            const QString what = QString("%1 in mode %2").arg(c.x, 0, 'g', 17).arg(int(c.mode));
            QVERIFY2(rangeZoneOf(exactFromDouble(c.x), fp16, options.rounding) == c.zone,
                     qPrintable(what));
            QVERIFY2(fittedZone(c.x, fp16, options) == c.zone, qPrintable(what));
        }
}

void TestRangeFit::fp16Edges() {
    const FormatSpec fp16 = lookUp("fp16");
    const RangeZoneEdges rne = rangeZoneEdges(fp16);
    QVERIFY(rne.flushEdge && rne.normalEdge && rne.overflowEdge);
    QVERIFY(*rne.flushEdge == exactValue("2^-25"));
    QVERIFY(rne.flushInclusive);
    QVERIFY(*rne.normalEdge == exactValue("2^-14 - 2^-25"));
    QVERIFY(rne.normalInclusive);
    QVERIFY(*rne.overflowEdge == exactValue("65520"));
    QVERIFY(rne.overflowInclusive);

    RoundingOptions rtz;
    rtz.mode = RoundingMode::TowardZero;
    const RangeZoneEdges z = rangeZoneEdges(fp16, rtz);
    QVERIFY(*z.flushEdge == exactValue("2^-24") && !z.flushInclusive);
    QVERIFY(*z.normalEdge == exactValue("2^-14") && z.normalInclusive);
    QVERIFY(*z.overflowEdge == exactValue("65536") && z.overflowInclusive);

    RoundingOptions rna;
    rna.mode = RoundingMode::NearestAway;
    const RangeZoneEdges a = rangeZoneEdges(fp16, rna);
    QVERIFY(*a.flushEdge == exactValue("2^-25") && !a.flushInclusive);
    QVERIFY(*a.overflowEdge == exactValue("65520") && a.overflowInclusive);

    // OCP E4M3: max 448, the unbounded next value 480; the tie 464 rounds to the even 448.
    const RangeZoneEdges e4m3 = rangeZoneEdges(lookUp("fp8_e4m3"));
    QVERIFY(*e4m3.overflowEdge == exactValue("464") && !e4m3.overflowInclusive);
    QVERIFY(*e4m3.flushEdge == exactValue("2^-10") && e4m3.flushInclusive);

    // E8M0 has no zero and no subnormals: no flush or normal edge.
    const RangeZoneEdges e8m0 = rangeZoneEdges(lookUp("fp8_e8m0"));
    QVERIFY(!e8m0.flushEdge && !e8m0.normalEdge && e8m0.overflowEdge);
}

// INT8 at scale 1 (the catalogue's is 1/127, absmax 1): levels −128…127, no subnormal zone, 0 →
// flushed, clipping → overflow. NF4 (absmax 1): its smallest levels are 0.0796 and −0.0911, so the
// two sides differ.
void TestRangeFit::integerAndNf4Zones() {
    FormatSpec int8 = lookUp("int8");
    int8.scale = ExactValue::integer(1);
    const std::vector<std::pair<double, RangeZone>> intCases{
        {0.5, RangeZone::Flushed}, // tie to the even 0
        {0.50001, RangeZone::Normal},   {-0.5, RangeZone::Flushed}, {127.49, RangeZone::Normal},
        {127.5, RangeZone::Overflow}, // tie to the even 128, clipped
        {-128.5, RangeZone::Normal},  // tie to the even −128
        {-128.51, RangeZone::Overflow},
    };
    for (const auto& [x, zone] : intCases) {
        QVERIFY2(rangeZoneOf(exactFromDouble(x), int8) == zone, qPrintable(QString::number(x)));
        QVERIFY2(fittedZone(x, int8) == zone, qPrintable(QString::number(x)));
    }
    const FormatSpec nf4 = lookUp("nf4");
    const double smallestPositive = 0.07958029955625534;
    const double smallestNegative = -0.09105003625154495;
    const std::vector<std::pair<double, RangeZone>> nf4Cases{
        {1.0, RangeZone::Normal},
        {1.0000001, RangeZone::Overflow},
        {-1.0000001, RangeZone::Overflow},
        {smallestPositive / 2 * 0.999, RangeZone::Flushed},
        {smallestPositive / 2 * 1.001, RangeZone::Normal},
        {smallestNegative / 2 * 0.999, RangeZone::Flushed},
        {smallestNegative / 2 * 1.001, RangeZone::Normal},
        {-0.044, RangeZone::Flushed}, // between the two sides' midpoints
        {0.044, RangeZone::Normal},
    };
    for (const auto& [x, zone] : nf4Cases) {
        QVERIFY2(rangeZoneOf(exactFromDouble(x), nf4) == zone, qPrintable(QString::number(x)));
        QVERIFY2(fittedZone(x, nf4) == zone, qPrintable(QString::number(x)));
    }
}

void TestRangeFit::fastPathEqualsExactRounding_data() {
    QTest::addColumn<QString>("format");
    for (const char* id : {"fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "fp8_e5m2fnuz",
                           "fp8_e3m4", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1"})
        QTest::newRow(id) << QString(id);
}

// Every value of the format, every midpoint, and the doubles on either side of them, with
// both signs, in every deterministic mode and both policies, at scales 1, 2^−3 and 2^5: the
// classifier's zone and error equal one exact rounding's. BF16 is sampled (its 65536 codes
// span FP32's range), the rest are complete.
void TestRangeFit::fastPathEqualsExactRounding() {
    QFETCH(QString, format);
    const FormatSpec spec = lookUp(format);
    std::vector<double> values = probes(spec);
    if (format == "bf16") {
        std::vector<double> sample;
        for (std::size_t i = 0; i < values.size(); i += 37)
            sample.push_back(values[i]);
        for (std::size_t i = 0; i < 600 && i < values.size(); ++i) // the edges, completely
            for (const double v : {values[i], values[values.size() - 1 - i]})
                sample.push_back(v);
        values = sample;
    }
    const bool large = values.size() > 20000;
    std::size_t fastCount = 0, total = 0;
    for (const auto& mode : fpx::test::kModes) {
        if (mode.mode == RoundingMode::Stochastic)
            continue; // no double path: checked in randomValuesAndScales
        for (const OverflowPolicy policy : fpx::test::kPolicies)
            for (const int scaleLog2 : {0, -3, 5}) {
                // FP16: every mode at scale 1, the shifted scales in nearest-even only.
                if (large && scaleLog2 != 0 && mode.mode != RoundingMode::NearestEven)
                    continue;
                const RangeFitOptions options = optionsWith(mode.mode, policy, scaleLog2);
                const RangeClassifier classifier(spec, options);
                QVERIFY(classifier.hasFastPath());
                for (const double x : values) {
                    const ExactValue scaled = exactFromDouble(x) * options.scale;
                    const RangeZone zone = rangeZoneOf(scaled, spec, options.rounding);
                    const RangeClassifier::Outcome got = classifier.classify(x);
                    ++total;
                    fastCount += got.fast ? 1 : 0;
                    const QString what = QString("%1 · 2^%2, %3, policy %4")
                                             .arg(x, 0, 'g', 17)
                                             .arg(scaleLog2)
                                             .arg(mode.name)
                                             .arg(int(policy));
                    if (got.zone != zone)
                        QFAIL(qPrintable(what + ": " + zoneText(got.zone) + " instead of " +
                                         zoneText(zone)));
                    const bool representable =
                        zone == RangeZone::Subnormal || zone == RangeZone::Normal;
                    QVERIFY2(got.relativeError.has_value() == representable, qPrintable(what));
                    if (representable &&
                        got.relativeError != exactRelativeError(scaled, spec, options.rounding))
                        QFAIL(qPrintable(what + ": relative error " +
                                         QString::number(*got.relativeError, 'g', 17)));
                }
            }
    }
    // The double path must be the one taken, or this test checks nothing of it.
    QVERIFY2(fastCount * 10 >= total * 9,
             qPrintable(QString("%1 of %2").arg(fastCount).arg(total)));
}

// Random doubles over a wide range (many with more bits than the format keeps), several power-
// of-two scales, a non-power-of-two scale (the exact path) and stochastic rounding (the exact
// path with bits from the seed and the index).
void TestRangeFit::randomValuesAndScales() {
    std::mt19937_64 random(21);
    std::uniform_real_distribution<double> exponent(-40, 40);
    std::vector<double> values;
    for (int i = 0; i < 3000; ++i) {
        const double v = std::exp2(exponent(random)) * (random() % 2 ? -1 : 1);
        values.push_back(i % 3 == 0 ? double(float(v)) : v);
    }
    for (const char* id : {"fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp32", "fp64"}) {
        const FormatSpec spec = lookUp(id);
        for (const auto& mode : fpx::test::kModes)
            for (const OverflowPolicy policy : fpx::test::kPolicies)
                for (const int scaleLog2 : {0, -20, 17}) {
                    RangeFitOptions options = optionsWith(mode.mode, policy, scaleLog2, 99);
                    if (scaleLog2 == 17 && mode.mode == RoundingMode::NearestEven)
                        options.scale = exactValue("3/5");
                    const RangeClassifier classifier(spec, options);
                    for (std::size_t i = 0; i < values.size(); ++i) {
                        const ExactValue scaled = exactFromDouble(values[i]) * options.scale;
                        RoundingOptions rounding = options.rounding;
                        rounding.randomBits = stochasticBits(99, i);
                        const RangeClassifier::Outcome got = classifier.classify(values[i], i);
                        const RangeZone zone = rangeZoneOf(scaled, spec, rounding);
                        const QString what = QString("%1: %2 · S, %3")
                                                 .arg(id)
                                                 .arg(values[i], 0, 'g', 17)
                                                 .arg(mode.name);
                        QVERIFY2(got.zone == zone, qPrintable(what));
                        if (got.relativeError)
                            QVERIFY2(*got.relativeError ==
                                         exactRelativeError(scaled, spec, rounding),
                                     qPrintable(what));
                    }
                }
    }
}

// Counts, fractions, non-finite inputs and the errors of a small crafted tensor in FP16.
void TestRangeFit::countsAndErrors() {
    const std::vector<double> values{0.0,
                                     std::ldexp(1.0, -30), // flushed
                                     std::ldexp(3.0, -24), // subnormal, exact
                                     1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -12), // normal
                                     1e6,                                               // overflow
                                     std::numeric_limits<double>::quiet_NaN(),
                                     -std::numeric_limits<double>::infinity()};
    const RangeFit fit = fitRange(viewOf(values), lookUp("fp16"));
    QCOMPARE(fit.count(RangeZone::Zero), std::size_t(1));
    QCOMPARE(fit.count(RangeZone::Flushed), std::size_t(1));
    QCOMPARE(fit.count(RangeZone::Subnormal), std::size_t(1));
    QCOMPARE(fit.count(RangeZone::Normal), std::size_t(1));
    QCOMPARE(fit.count(RangeZone::Overflow), std::size_t(1));
    QCOMPARE(fit.nonFinite, std::size_t(2));
    QCOMPARE(fit.total(), std::size_t(7));
    QCOMPARE(fit.fraction(RangeZone::Normal), 1.0 / 7);
    // 1 + 2^−11 + 2^−12 rounds up to 1 + 2^−10: error 2^−12 / (1 + 3·2^−12), once rounded.
    const double normalError = std::ldexp(1.0, -12) / (1.0 + 3 * std::ldexp(1.0, -12));
    QCOMPARE(*fit.maxRelativeError, normalError);
    QCOMPARE(*fit.meanRelativeError, normalError / 2);

    const std::vector<double> none{0.0, std::numeric_limits<double>::quiet_NaN()};
    const RangeFit empty = fitRange(viewOf(none), lookUp("fp16"));
    QVERIFY(!empty.maxRelativeError && !empty.meanRelativeError && !empty.bestScales);
}

void TestRangeFit::bestScalesAgainstSearch_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("policy");
    for (const char* id :
         {"fp16", "fp8_e4m3", "fp8_e5m2", "bf16", "int8", "nf4", "fp4_e2m1", "uint8", "fp8_e8m0"})
        for (const RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::TowardZero,
                                        RoundingMode::TowardPositive, RoundingMode::ToOdd})
            for (const OverflowPolicy policy : fpx::test::kPolicies)
                QTest::newRow(
                    qPrintable(QString("%1 %2 %3").arg(id).arg(int(mode)).arg(int(policy))))
                    << QString(id) << int(mode) << int(policy);
}

// For random tensors (a third of the values negative), the k that overflow nothing and flush the
// fewest, found by rounding every value at every k from −160 to 160 (rangeZoneOf), against
// fitRange's answer. UINT8 clamps negative values (to 0 or, clipped, overflow); E8M0 makes
// them NaN, or its lowest code when saturating.
void TestRangeFit::bestScalesAgainstSearch() {
    QFETCH(QString, format);
    QFETCH(int, mode);
    QFETCH(int, policy);
    const FormatSpec spec = lookUp(format);
    std::mt19937_64 random(std::hash<std::string>{}(format.toStdString()) + mode * 7 + policy);
    for (int trial = 0; trial < 3; ++trial) {
        std::uniform_real_distribution<double> exponent(-30 - 10 * trial, 12);
        std::vector<double> values{0.0};
        for (int i = 0; i < 24; ++i)
            values.push_back(std::exp2(exponent(random)) * (random() % 3 == 0 ? -1 : 1));
        RoundingOptions rounding;
        rounding.mode = static_cast<RoundingMode>(mode);
        rounding.overflow = static_cast<OverflowPolicy>(policy);
        std::optional<std::size_t> fewest;
        std::int64_t lowest = 0, highest = 0;
        for (std::int64_t k = -160; k <= 160; ++k) {
            std::size_t flushed = 0;
            bool overflow = false;
            for (const double x : values) {
                const RangeZone zone =
                    rangeZoneOf(exactFromDouble(x).timesPowerOfTwo(k), spec, rounding);
                overflow = overflow || zone == RangeZone::Overflow;
                flushed += zone == RangeZone::Flushed ? 1 : 0;
            }
            if (overflow)
                continue;
            if (!fewest || flushed < *fewest) {
                fewest = flushed;
                lowest = k;
            }
            if (flushed == *fewest)
                highest = k;
        }
        RangeFitOptions options;
        options.rounding = rounding;
        const RangeFit fit = fitRange(viewOf(values), spec, options);
        // Negative values into E8M0 are NaN at every k, and round-to-odd clips every one into
        // UINT8 (truncated to the even 0, made odd: −1): no scale is safe.
        if (!fewest) {
            QVERIFY(!fit.bestScales);
            QVERIFY((format == "fp8_e8m0" && policy == int(OverflowPolicy::Ieee)) ||
                    (format == "uint8" && mode == int(RoundingMode::ToOdd)));
            continue;
        }
        QVERIFY(highest < 160); // the search range held the answer
        QVERIFY(fit.bestScales);
        // Nothing flushes however small the scale (round-to-odd, toward +∞ on positive
        // values): the range is unbounded below.
        if (lowest == -160)
            QCOMPARE((*fit.bestScales)[0], std::numeric_limits<std::int64_t>::min());
        else
            QCOMPARE((*fit.bestScales)[0], lowest);
        QCOMPARE((*fit.bestScales)[1], highest);
    }
}

// Gradients spread over many binades far below 1 (lognormal around e^−16 ≈ 1.1e−7): FP16
// flushes or demotes a large share, BF16 (FP32's exponent range) keeps every one normal. The
// reference counts compare each FP32 value with FP16's boundaries written out (2^−25, the
// flush tie; 2^−14 − 2^−25, the tie into the normals).
void TestRangeFit::bf16NeedsNoLossScaling() {
    std::string error;
    const auto d = parseValueDistribution("lognormal:-16:2.5", error);
    QVERIFY2(d, error.c_str());
    std::vector<double> values;
    for (std::size_t i = 0; i < 20000; ++i)
        values.push_back(double(float(drawValue(*d, 7, i))));
    std::size_t flushed = 0, subnormal = 0, normal = 0;
    for (const double v : values) {
        if (v <= std::ldexp(1.0, -25))
            ++flushed;
        else if (v < std::ldexp(1.0, -14) - std::ldexp(1.0, -25))
            ++subnormal;
        else
            ++normal;
    }
    const RangeFit fp16 = fitRange(viewOf(values), lookUp("fp16"));
    QCOMPARE(fp16.count(RangeZone::Flushed), flushed);
    QCOMPARE(fp16.count(RangeZone::Subnormal), subnormal);
    QCOMPARE(fp16.count(RangeZone::Normal), normal);
    QVERIFY(flushed > 1000 && subnormal > 1000); // the lesson needs both
    const RangeFit bf16 = fitRange(viewOf(values), lookUp("bf16"));
    QCOMPARE(bf16.count(RangeZone::Normal), values.size());
    // FP16 with loss scaling: a best 2^k exists and flushes fewer than scale 1.
    QVERIFY(fp16.bestScales);
    RangeFitOptions scaled;
    scaled.scale = ExactValue::dyadic(false, 1, (*fp16.bestScales)[1]);
    const RangeFit best = fitRange(viewOf(values), lookUp("fp16"), scaled);
    QCOMPARE(best.count(RangeZone::Overflow), std::size_t(0));
    QVERIFY(best.count(RangeZone::Flushed) < flushed / 10);
    // BF16's errors are larger: 8 bits against FP16's 11 in its normal range.
    QVERIFY(*bf16.maxRelativeError <= std::ldexp(1.0, -8));
    QVERIFY(*best.maxRelativeError <= std::ldexp(1.0, -11) || best.count(RangeZone::Subnormal));
}

// The speed of an interactive range fit rests on the double path: on FP32 gradients, scaled by
// powers of two that a loss-scale slider offers, every value takes it in the formats the
// Training page shows (a subnormal error far from its value may need the exact core: allow a
// few).
void TestRangeFit::doublePathCoversGradients() {
    std::string error;
    const auto d = parseValueDistribution("lognormal:-12:3", error);
    QVERIFY(d);
    std::vector<double> values;
    for (std::size_t i = 0; i < 50000; ++i)
        values.push_back(double(float(drawValue(*d, 11, i))) * (i % 2 ? -1 : 1));
    for (const char* id : {"fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp32"})
        for (const int k : {-8, 0, 16, 24}) {
            const RangeClassifier classifier(
                lookUp(id), optionsWith(RoundingMode::NearestEven, OverflowPolicy::Ieee, k));
            QVERIFY(classifier.hasFastPath());
            std::size_t fast = 0;
            for (const double x : values)
                fast += classifier.classify(x).fast ? 1 : 0;
            QVERIFY2(
                fast * 1000 >= values.size() * 999,
                qPrintable(
                    QString("%1 at 2^%2: %3 of %4").arg(id).arg(k).arg(fast).arg(values.size())));
        }
    // NF4 and the integers, and scales that are not powers of two, take the exact core.
    QVERIFY(!RangeClassifier(lookUp("nf4"), {}).hasFastPath());
    RangeFitOptions third;
    third.scale = exactValue("1/3");
    QVERIFY(!RangeClassifier(lookUp("fp16"), third).hasFastPath());
}

// lognormal:MU:SIGMA is exp of the normal:MU:SIGMA draw with the same seed and index.
void TestRangeFit::lognormal() {
    std::string error;
    const auto logNormal = parseValueDistribution("lognormal:0.5:2", error);
    const auto normal = parseValueDistribution("normal:0.5:2", error);
    QVERIFY(logNormal && normal);
    for (std::size_t i = 0; i < 1000; ++i) {
        const double v = drawValue(*logNormal, 3, i);
        QVERIFY(v > 0);
        QCOMPARE(v, std::exp(drawValue(*normal, 3, i)));
    }
    for (const auto& [text, message] : std::vector<std::pair<const char*, const char*>>{
             {"lognormal:0", "expected lognormal:MU:SIGMA"},
             {"lognormal:0:-1", "SIGMA must not be negative"},
             {"lognormal:x:1", "lognormal:MU:SIGMA, MU: 'x'"},
             {"lognormal:0:100", "must stay below 700"}}) {
        QVERIFY2(!parseValueDistribution(text, error), text);
        QVERIFY2(error.find(message) != std::string::npos, error.c_str());
    }
}

QTEST_APPLESS_MAIN(TestRangeFit)
#include "tst_range_fit.moc"
