// SPDX-License-Identifier: GPL-3.0-or-later
// The data behind the plots, checked against the core and the formats' limits: sawtooth
// peaks are half an ULP, envelopes equal the error bounds found by brute force over every
// value, range bars end at the limits, number lines hold exactly the finite values.
#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/plot_data.h"
#include "fpx/exact/posit.h"

#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace fpx;
using namespace fpx::test;

namespace {

const FormatSpec& fp64() {
    static const FormatSpec spec = lookUp("fp64");
    return spec;
}

ExactValue exactOf(double d) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof d);
    return decodeCode(fp64(), bits).value;
}

double doubleOf(const ExactValue& v, RoundingMode mode = RoundingMode::NearestEven) {
    if (v.isNaN())
        return std::nan("");
    RoundingOptions o;
    o.mode = mode;
    const auto bits = static_cast<std::uint64_t>(roundToFormat(v, fp64(), o).code);
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

bool less(const ExactValue& a, const ExactValue& b) {
    return compare(a, b) < 0;
}

// Every value rounding may store for x; stochastic rounding may store either neighbour, which
// the two ends of its random range reach.
std::vector<ExactValue> storedValues(const FormatSpec& spec, const RoundingOptions& options,
                                     const ExactValue& x) {
    std::vector<RoundingOptions> outcomes = {options};
    if (options.mode == RoundingMode::Stochastic) {
        outcomes[0].randomBits = 0;
        outcomes.push_back(options);
        outcomes[1].randomBits = ~std::uint64_t(0);
    }
    std::vector<ExactValue> stored;
    for (const RoundingOptions& o : outcomes)
        stored.push_back(decodeCode(spec, roundToFormat(x, spec, o).code).value);
    return stored;
}

// Every x where the stored value may change: the values of every code, the midpoints between
// neighbours, 0, and past the extremes the threshold and the start of the overflow (half and
// one gap beyond max in an unbounded exponent range; E8M0's gap beyond 2^127 is twice the
// one below, hence the steps up to 2 gaps). More points than needed do no harm.
std::vector<ExactValue> breakpoints(const FormatSpec& spec) {
    std::vector<ExactValue> values;
    for (Code code = 0; code < (Code(1) << spec.totalBits()); ++code) {
        const ExactValue v = decodeCode(spec, code).value;
        if (v.isFinite())
            values.push_back(v.isZero() ? ExactValue::zero() : v);
    }
    std::sort(values.begin(), values.end(), less);
    values.erase(std::unique(values.begin(), values.end(),
                             [](const ExactValue& a, const ExactValue& b) { return a == b; }),
                 values.end());
    std::vector<ExactValue> points = values;
    points.push_back(ExactValue::zero());
    for (std::size_t i = 1; i < values.size(); ++i)
        points.push_back(midpoint(values[i - 1], values[i]));
    const ExactValue topGap = values.back() - values[values.size() - 2];
    const ExactValue bottomGap = values[1] - values.front();
    for (int k = 1; k <= 4; ++k) {
        points.push_back(values.back() + topGap * ExactValue::fraction(false, k, 2));
        points.push_back(values.front() - bottomGap * ExactValue::fraction(false, k, 2));
    }
    std::sort(points.begin(), points.end(), less);
    points.erase(std::unique(points.begin(), points.end(),
                             [](const ExactValue& a, const ExactValue& b) { return a == b; }),
                 points.end());
    return points;
}

struct Bounds {
    bool undefined = false;
    ExactValue upper = ExactValue::infinity(true);
    ExactValue lower = ExactValue::infinity(false);
    ExactValue relative = ExactValue::zero();

    void add(const ExactValue& x, const ExactValue& stored) {
        if (stored.isNaN()) {
            undefined = true;
            return;
        }
        const ExactValue e = stored - x;
        if (compare(e, upper) > 0)
            upper = e;
        if (compare(e, lower) < 0)
            lower = e;
        // At x = 0 itself the relative error is undefined; next to it the limit is 1 when 0
        // is stored and unbounded otherwise (callers pass limits at 0 through addLimit).
        if (!x.isZero()) {
            const ExactValue rel = stored.isInfinity() ? stored.abs() : e.abs() / x.abs();
            if (compare(rel, relative) > 0)
                relative = rel;
        }
    }
    void addLimit(const ExactValue& x, const ExactValue& stored) {
        add(x, stored);
        if (x.isZero() && !stored.isNaN()) {
            const ExactValue rel =
                stored.isZero() ? ExactValue::integer(1) : ExactValue::infinity(false);
            if (compare(rel, relative) > 0)
                relative = rel;
        }
    }
};

// The bounds of the error over [s, t] by brute force: between two neighbouring breakpoints
// rounding stores one value (checked), so the error is linear there and |error| / |x|
// monotonic, and the bounds are among the values at the breakpoints and the limits at both
// ends of every such stretch.
Bounds bruteForce(const FormatSpec& spec, const RoundingOptions& options,
                  const std::vector<ExactValue>& all, const ExactValue& s, const ExactValue& t) {
    std::vector<ExactValue> points = {s};
    for (auto it = std::upper_bound(all.begin(), all.end(), s, less);
         it != all.end() && less(*it, t); ++it)
        points.push_back(*it);
    points.push_back(t);
    Bounds b;
    for (std::size_t i = 0; i < points.size(); ++i) {
        for (const ExactValue& r : storedValues(spec, options, points[i]))
            b.add(points[i], r);
        if (i == 0)
            continue;
        const ExactValue& lo = points[i - 1];
        const ExactValue& hi = points[i];
        const ExactValue quarter = (hi - lo).timesPowerOfTwo(-2);
        const std::vector<ExactValue> inside = storedValues(spec, options, midpoint(lo, hi));
        const std::vector<ExactValue> nearLo = storedValues(spec, options, lo + quarter);
        const std::vector<ExactValue> nearHi = storedValues(spec, options, hi - quarter);
        for (std::size_t k = 0; k < inside.size(); ++k) {
            const bool constant = (inside[k].isNaN() && nearLo[k].isNaN() && nearHi[k].isNaN()) ||
                                  (inside[k] == nearLo[k] && inside[k] == nearHi[k]);
            if (!constant)
                qFatal("%s: a breakpoint is missing in (%s, %s)", spec.id.c_str(),
                       qPrintable(valueText(lo)), qPrintable(valueText(hi)));
            b.addLimit(lo, inside[k]);
            b.addLimit(hi, inside[k]);
        }
    }
    return b;
}

bool sameDouble(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Compares each interval of an envelope with the brute-force bounds; returns a description
// of the first difference, or nothing.
QString compareEnvelope(const FormatSpec& spec, const RoundingOptions& options,
                        const std::vector<ExactValue>& all, const ErrorCurve& curve, double from,
                        double to) {
    if (curve.exact)
        return "not an envelope";
    const std::size_t n = curve.absolute.size();
    if (n == 0 || n % 2 != 0 || curve.absoluteLower.size() != n || curve.relative.size() != n)
        return "the series do not pair up";
    if (curve.absolute.front().x != from || curve.absolute.back().x != to)
        return "the staircase does not span the range";
    for (std::size_t i = 0; i < n; i += 2) {
        const double s = curve.absolute[i].x;
        const double t = curve.absolute[i + 1].x;
        if (!(s < t) || (i > 0 && curve.absolute[i - 1].x != s))
            return QString("interval %1 is not [previous end, next]").arg(i / 2);
        for (const std::vector<PlotPoint>* series :
             {&curve.absolute, &curve.absoluteLower, &curve.relative})
            if ((*series)[i].x != s || (*series)[i + 1].x != t ||
                !sameDouble((*series)[i].y, (*series)[i + 1].y))
                return QString("interval %1: a step is not flat").arg(i / 2);
        const Bounds b = bruteForce(spec, options, all, exactOf(s), exactOf(t));
        const double upper =
            b.undefined ? std::nan("") : doubleOf(b.upper, RoundingMode::TowardPositive);
        const double lower =
            b.undefined ? std::nan("") : doubleOf(b.lower, RoundingMode::TowardNegative);
        const double relative =
            b.undefined ? std::nan("") : doubleOf(b.relative, RoundingMode::TowardPositive);
        if (!sameDouble(curve.absolute[i].y, upper) ||
            !sameDouble(curve.absoluteLower[i].y, lower) ||
            !sameDouble(curve.relative[i].y, relative))
            return QString("[%1, %2]: plotted %3 %4 %5, true %6 %7 %8")
                .arg(s, 0, 'g', 17)
                .arg(t, 0, 'g', 17)
                .arg(curve.absolute[i].y, 0, 'g', 17)
                .arg(curve.absoluteLower[i].y, 0, 'g', 17)
                .arg(curve.relative[i].y, 0, 'g', 17)
                .arg(upper, 0, 'g', 17)
                .arg(lower, 0, 'g', 17)
                .arg(relative, 0, 'g', 17);
    }
    return {};
}

struct Range {
    double from;
    double to;
    bool logarithmic;
    int samples;
};

// Ranges that reach below half the smallest subnormal, across binades, past the overflow
// threshold, and across 0 with intervals wide enough to hold many binades or that end
// exactly on values.
std::vector<Range> rangesFor(const FormatSpec& spec) {
    const FormatLimits limits = deriveLimits(spec);
    const double max = doubleOf(limits.max);
    const double tiny = doubleOf(limits.minPositive);
    const double low = spec.isSigned ? -max : -tiny;
    return {
        {tiny / 8, max * 4, true, 40},    {1e-9, 1e6, true, 50},
        {low * 1.3, max * 1.3, false, 7}, {low, max, false, 4},
        {-3 * tiny, 5 * tiny, false, 16}, {max / 3, max * 2.1, true, 9},
    };
}

} // namespace

class TestPlotData : public QObject {
    Q_OBJECT

  private slots:
    void sawtoothPeaksAreHalfAnUlp_data();
    void sawtoothPeaksAreHalfAnUlp();
    void sawtoothIsZeroAtEveryValue();
    void directedModesReachAWholeUlp();
    void sawtoothFollowsEveryPiece();
    void envelopeOfWideFormats();
    void envelopesEqualBruteForce();
    void envelopeOfFp16EqualsBruteForce();
    void fp16RelativeErrorBelowTheSubnormals();
    void rangeBarsEndAtTheLimits_data();
    void rangeBarsEndAtTheLimits();
    void numberLineHoldsEveryFiniteValue_data();
    void numberLineHoldsEveryFiniteValue();
    void ulpStaircase();
    void precisionTapersForPosits();
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
    // The largest error is half an ULP, at the midpoints.
    QCOMPARE(peak, ulp / 2);
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
    // Just below each value the error approaches a whole ULP: the jump's lower limit.
    QCOMPARE(lowest, -0.125);
}

void TestPlotData::sawtoothFollowsEveryPiece() {
    // Formats whose breakpoints are all doubles, so that the comparison can be exact.
    std::vector<FormatSpec> specs;
    for (const FormatSpec& spec : builtinFormats())
        if (spec.totalBits() <= 8 && spec.kind == FormatKind::BinaryFloat)
            specs.push_back(spec);
    for (const char* id : {"int8", "int4", "uint4"}) {
        FormatSpec spec = lookUp(id);
        spec.scale = exactValue("2^-3");
        specs.push_back(spec);
    }
    for (const FormatSpec& spec : specs) {
        const std::vector<ExactValue> all = breakpoints(spec);
        for (const ModeCase& mode : kModes) {
            if (mode.mode == RoundingMode::Stochastic)
                continue; // drawn as an envelope
            for (OverflowPolicy policy : kPolicies) {
                RoundingOptions options;
                options.mode = mode.mode;
                options.overflow = policy;
                for (const Range& r : rangesFor(spec)) {
                    const ErrorCurve curve =
                        roundingErrorCurve(spec, options, r.from, r.to, r.logarithmic);
                    const QString where =
                        QString("%1 %2 %3 [%4, %5]")
                            .arg(QString::fromStdString(spec.id), mode.name,
                                 QString::fromStdString(std::string(overflowPolicyId(policy))))
                            .arg(r.from, 0, 'g', 17)
                            .arg(r.to, 0, 'g', 17);
                    QVERIFY2(curve.exact, qPrintable(where));
                    const std::vector<PlotPoint>& pts = curve.absolute;
                    // From end to end, except where rounding overflows to ±∞ or NaN there.
                    auto finiteAt = [&](double x) {
                        return storedValues(spec, options, exactOf(x))[0].isFinite();
                    };
                    QVERIFY2(!pts.empty(), qPrintable(where));
                    QVERIFY2(pts.front().x == r.from || !finiteAt(r.from), qPrintable(where));
                    QVERIFY2(pts.back().x == r.to || !finiteAt(r.to), qPrintable(where));
                    // Between two points the line must be the error itself: one piece with
                    // both ends on it; across a gap nothing finite.
                    for (std::size_t i = 1; i < pts.size(); ++i) {
                        const PlotPoint& p = pts[i - 1];
                        const PlotPoint& q = pts[i];
                        QVERIFY2(p.x <= q.x, qPrintable(where));
                        if (p.x == q.x)
                            continue;
                        const ExactValue x0 = exactOf(p.x);
                        const ExactValue x1 = exactOf(q.x);
                        const ExactValue stored = storedValues(spec, options, midpoint(x0, x1))[0];
                        const QString at =
                            where +
                            QString(" at (%1, %2)").arg(p.x, 0, 'g', 17).arg(q.x, 0, 'g', 17);
                        if (std::isnan(p.y) || std::isnan(q.y)) {
                            QVERIFY2(!stored.isFinite(), qPrintable(at));
                            continue;
                        }
                        // Rounding stores the same at every breakpoint inside: no jump.
                        for (auto it = std::upper_bound(all.begin(), all.end(), x0, less);
                             it != all.end() && less(*it, x1); ++it)
                            QVERIFY2(storedValues(spec, options, *it)[0] == stored,
                                     qPrintable(at + " jumps at " + valueText(*it)));
                        QVERIFY2(stored.isFinite(), qPrintable(at));
                        QCOMPARE(p.y, doubleOf(stored - x0));
                        QCOMPARE(q.y, doubleOf(stored - x1));
                    }
                    // Each relative point is |error| / |x| of an error point at its x (the
                    // error as plotted is rounded once: the last bit may differ).
                    for (const PlotPoint& rel : curve.relative) {
                        if (std::isnan(rel.y))
                            continue;
                        const bool found =
                            std::any_of(pts.begin(), pts.end(), [&](const PlotPoint& p) {
                                return p.x == rel.x && p.x != 0 &&
                                       std::abs(std::abs(p.y / p.x) - rel.y) <= rel.y * 1e-15;
                            });
                        QVERIFY2(found, qPrintable(where + QString(" relative at %1").arg(rel.x)));
                    }
                }
            }
        }
    }
}

void TestPlotData::envelopeOfWideFormats() {
    const ErrorCurve curve = roundingErrorCurve(lookUp("fp32"), {}, 1, 1000, true, 200);
    QVERIFY(!curve.exact);
    QCOMPARE(curve.absolute.size(), curve.absoluteLower.size());
    QCOMPARE(curve.absolute.size(), std::size_t(400));
    for (std::size_t i = 0; i < curve.absolute.size(); i += 2) {
        // Over [s, t] the widest gap is the one just below t: the bound is half of it.
        const double t = curve.absolute[i + 1].x;
        const double widest = std::ldexp(1.0, std::ilogb(std::nextafter(t, 0.0)) - 23);
        QCOMPARE(curve.absolute[i].y, widest / 2);
        QCOMPARE(curve.absoluteLower[i].y, -widest / 2);
        // Round to nearest: never more than the unit roundoff, relative to x.
        QVERIFY(curve.relative[i].y <= curve.unitRoundoff);
        QVERIFY(curve.relative[i].y > curve.unitRoundoff / 2);
    }
}

void TestPlotData::envelopesEqualBruteForce() {
    std::vector<FormatSpec> specs;
    for (const FormatSpec& spec : builtinFormats())
        if (spec.totalBits() <= 8)
            specs.push_back(spec);
    // Scales that are not powers of two: rational breakpoints.
    FormatSpec int4 = lookUp("int4");
    int4.scale = exactValue("0.3");
    FormatSpec uint4 = lookUp("uint4");
    uint4.scale = exactValue("1/3");
    FormatSpec nf4 = lookUp("nf4");
    nf4.scale = exactValue("2.5");
    specs.insert(specs.end(), {int4, uint4, nf4, lookUp("e3m2fnu"), lookUp("e2m2")});
    int compared = 0;
    for (const FormatSpec& spec : specs) {
        const std::vector<ExactValue> all = breakpoints(spec);
        for (const ModeCase& mode : kModes) {
            if (mode.mode == RoundingMode::Stochastic && mode.randomBits != 0)
                continue; // the envelope of stochastic rounding does not depend on the bits
            for (OverflowPolicy policy : kPolicies) {
                RoundingOptions options;
                options.mode = mode.mode;
                options.overflow = policy;
                for (const Range& r : rangesFor(spec)) {
                    const ErrorCurve curve =
                        roundingErrorCurve(spec, options, r.from, r.to, r.logarithmic, r.samples,
                                           ErrorCurveShape::Envelope);
                    const QString difference =
                        compareEnvelope(spec, options, all, curve, r.from, r.to);
                    QVERIFY2(difference.isEmpty(),
                             qPrintable(QString("%1 %2 %3 %4:%5%6: %7")
                                            .arg(QString::fromStdString(spec.id), mode.name,
                                                 QString::fromStdString(
                                                     std::string(overflowPolicyId(policy))))
                                            .arg(r.from, 0, 'g', 17)
                                            .arg(r.to, 0, 'g', 17)
                                            .arg(r.logarithmic ? " log" : "", difference)));
                    ++compared;
                }
            }
        }
    }
    QVERIFY(compared > 1000);
}

void TestPlotData::envelopeOfFp16EqualsBruteForce() {
    const FormatSpec fp16 = lookUp("fp16");
    const std::vector<ExactValue> all = breakpoints(fp16);
    for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::TowardZero,
                              RoundingMode::TowardPositive, RoundingMode::Stochastic}) {
        RoundingOptions options;
        options.mode = mode;
        // The report's range, which is too wide for the sawtooth; and across 0 and ±max.
        for (const Range& r : {Range{1e-9, 1e6, true, 1500}, Range{-7e4, 7e4, false, 41}}) {
            const ErrorCurve curve =
                roundingErrorCurve(fp16, options, r.from, r.to, r.logarithmic, r.samples);
            const QString difference = compareEnvelope(fp16, options, all, curve, r.from, r.to);
            QVERIFY2(difference.isEmpty(),
                     qPrintable(QString::fromStdString(std::string(roundingModeId(mode))) + ": " +
                                difference));
        }
    }
}

void TestPlotData::fp16RelativeErrorBelowTheSubnormals() {
    // Every x below half the smallest subnormal (2^-25) rounds to 0: |0 − x| / x = 1. Below
    // the normal range round to nearest stores 0 or something nearer than 0, so never more.
    const ErrorCurve curve = roundingErrorCurve(lookUp("fp16"), {}, 1e-9, 1e6, true);
    QVERIFY(!curve.exact);
    int belowHalf = 0;
    for (std::size_t i = 0; i < curve.relative.size(); i += 2) {
        const double t = curve.relative[i + 1].x;
        const double rel = curve.relative[i].y;
        if (t <= 65504) // beyond, rounding to nearest overflows to ∞
            QVERIFY2(rel <= 1, qPrintable(QString("%1 at %2").arg(rel).arg(t)));
        if (t < std::ldexp(1.0, -25)) {
            QCOMPARE(rel, 1.0);
            // The error is −x: from −s down to −t.
            QCOMPARE(curve.absolute[i].y, -curve.absolute[i].x);
            QCOMPARE(curve.absoluteLower[i].y, -t);
            ++belowHalf;
        }
        if (curve.relative[i].x >= std::ldexp(1.0, -14) && t < 65504)
            QVERIFY(rel <= curve.unitRoundoff);
    }
    QVERIFY(belowHalf > 100);
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

// The significant bits in each binade: FP16's subnormals 1 … 10 and normals 11; posit16's
// fraction width plus one, read off its codes here (the first code of binade b is 2^b where
// the regime leaves room for the exponent): 12 next to 1, one less every 4 binades away.
void TestPlotData::precisionTapersForPosits() {
    auto bitsAt = [](const std::vector<PlotPoint>& points, double binade) {
        for (std::size_t i = 0; i + 1 < points.size(); i += 2)
            if (points[i].x <= binade && binade < points[i + 1].x)
                return points[i].y;
        return -1e9;
    };
    const std::vector<PlotPoint> fp16 = precisionStaircase(lookUp("fp16"));
    QCOMPARE(bitsAt(fp16, -24), 1.0);
    QCOMPARE(bitsAt(fp16, -15), 10.0);
    QCOMPARE(bitsAt(fp16, -14), 11.0);
    QCOMPARE(bitsAt(fp16, 15), 11.0);
    const FormatSpec posit = lookUp("posit16");
    const std::vector<PlotPoint> tapered = precisionStaircase(posit);
    for (int b = -40; b < 40; ++b) {
        const Code code = roundToFormat(ExactValue::dyadic(false, 1, b), posit).code;
        const auto fields = positFields(posit, code);
        QVERIFY(fields);
        QCOMPARE(bitsAt(tapered, b), double(fields->fractionWidth + 1));
    }
    QCOMPARE(bitsAt(tapered, 0), 12.0);
    QCOMPARE(bitsAt(tapered, -8), 11.0);
    QCOMPARE(bitsAt(tapered, 8), 10.0);
    // posit8 near maxpos: the gap from 2^20 to 2^24 spans four binades, under one bit each.
    const std::vector<PlotPoint> small = precisionStaircase(lookUp("posit8"));
    QVERIFY(bitsAt(small, 22) < 1);
}

QTEST_APPLESS_MAIN(TestPlotData)
#include "tst_plotdata.moc"
