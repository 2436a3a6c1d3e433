// SPDX-License-Identifier: GPL-3.0-or-later
// SGD on one weight held in a format (sgd_simulation.h).
//
// The reference is the definition written out plainly, step by step: the held value rounded
// with roundToFormat after each exact update, the exact weight updated by ExactValue arithmetic
// at every step (the code under test keeps W − lr·Σg instead), the lost updates counted by
// comparing values. Crafted cases are worked by hand from the formats' ULPs: 1 in BF16 has
// 2^-8 between it and the value below, 2^-7 to the value above.
#include "fpx/data/value_distribution.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/training/sgd_simulation.h"

#include "test_support.h"

#include <QTest>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

ExactValue roundedValue(const ExactValue& x, const FormatSpec& spec,
                        const RoundingOptions& options) {
    return decodeCode(spec, roundToFormat(x, spec, options).code).value;
}

bool sameValue(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return a.isNaN() && b.isNaN();
    return compare(a, b) == 0;
}

struct Reference {
    ExactValue finalWeight;
    ExactValue finalExact;
    std::size_t lost = 0;
    std::vector<ExactValue> working; // after step 0 … N
    std::vector<ExactValue> exact;
};

// The header's definition, one step at a time. Under stochastic rounding the update at step t
// draws from the Update stream; the other roundings draw their own streams, so stochastic
// cases here keep to runs where the update is the only inexact rounding.
Reference referenceSgd(const std::vector<ExactValue>& gradients, const FormatSpec& format,
                       const std::optional<FormatSpec>& master, const SgdOptions& o) {
    Reference r;
    RoundingOptions rounding = o.rounding;
    ExactValue w = roundedValue(o.initialWeight, format, rounding);
    ExactValue m = master ? roundedValue(o.initialWeight, *master, rounding) : w;
    ExactValue e = o.initialWeight;
    r.working.push_back(w);
    r.exact.push_back(e);
    for (std::size_t t = 0; t < gradients.size(); ++t) {
        ExactValue g = gradients[t];
        if (o.gradientFormat)
            g = roundedValue(g, *o.gradientFormat, rounding);
        const ExactValue update = o.learningRate * g;
        rounding.randomBits =
            stochasticBits(streamSeed(o.seed, static_cast<std::uint64_t>(SgdStream::Update)), t);
        if (master) {
            const ExactValue next = roundedValue(m - update, *master, rounding);
            if (!update.isZero() && sameValue(next, m))
                ++r.lost;
            m = next;
            w = roundedValue(m, format, rounding);
        } else {
            const ExactValue next = roundedValue(w - update, format, rounding);
            if (!update.isZero() && sameValue(next, w))
                ++r.lost;
            w = next;
        }
        e = e - o.learningRate * gradients[t];
        r.working.push_back(w);
        r.exact.push_back(e);
    }
    r.finalWeight = w;
    r.finalExact = e;
    return r;
}

// Gradients drawn as doubles (std::normal_distribution, not the core's generator).
std::vector<ExactValue> normalGradients(std::size_t count, double mean, double sigma,
                                        std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::normal_distribution<double> normal(mean, sigma);
    std::vector<ExactValue> values;
    for (std::size_t i = 0; i < count; ++i)
        values.push_back(exactFromDouble(normal(engine)));
    return values;
}

std::vector<ExactValue> repeated(const QString& value, std::size_t count) {
    return std::vector<ExactValue>(count, exactValue(value));
}

SgdOptions options(const QString& weight, const QString& lr) {
    SgdOptions o;
    o.initialWeight = exactValue(weight);
    o.learningRate = exactValue(lr);
    return o;
}

QString describeRun(const SgdRun& run) {
    return QStringLiteral("%1%2: final %3, exact %4, lost %5")
        .arg(QString::fromStdString(run.format.id))
        .arg(run.master ? QString::fromStdString(" + " + run.master->id) : QString())
        .arg(valueText(run.finalWeight), valueText(run.finalExact))
        .arg(run.lostUpdates);
}

// The run against the reference: final weights, exact weight, error, lost updates, and every
// trajectory point against the reference's weights at that step.
void compareWithReference(const std::vector<ExactValue>& gradients, const FormatSpec& format,
                          const std::optional<FormatSpec>& master, const SgdOptions& o,
                          const QString& label) {
    const SgdRun run = simulateSgd(gradients, format, master, o);
    const Reference ref = referenceSgd(gradients, format, master, o);
    const QString context = label + " | " + describeRun(run) + " | reference final " +
                            valueText(ref.finalWeight) + ", lost " + QString::number(ref.lost);
    QVERIFY2(run.finalWeight.isIdenticalTo(ref.finalWeight) ||
                 (run.finalWeight.isNaN() && ref.finalWeight.isNaN()),
             qPrintable(context));
    QVERIFY2(run.finalExact.isIdenticalTo(ref.finalExact) || run.finalExact == ref.finalExact,
             qPrintable(context));
    QVERIFY2(run.lostUpdates == ref.lost, qPrintable(context));
    const ExactValue error = ref.finalWeight - ref.finalExact;
    QVERIFY2(sameValue(run.error, error), qPrintable(context));
    QVERIFY2(run.format.id == format.id, qPrintable(context));
    QVERIFY2(run.master.has_value() == master.has_value(), qPrintable(context));
    for (const SgdRun::Point& p : run.trajectory) {
        QVERIFY2(p.step < ref.working.size(), qPrintable(context));
        const FormatSpec fp64 = lookUp("fp64");
        const ExactValue w = roundedValue(ref.working[p.step], fp64, {});
        const bool weightMatches =
            w.isNaN() ? std::isnan(p.weight) : exactFromDouble(p.weight) == w;
        QVERIFY2(weightMatches, qPrintable(context + " at step " + QString::number(p.step)));
        const ExactValue nearest = roundedValue(ref.exact[p.step], fp64, {});
        QVERIFY2(exactFromDouble(p.exact) == nearest,
                 qPrintable(context + " exact at step " + QString::number(p.step)));
    }
}

} // namespace

class TestSgdSimulation : public QObject {
    Q_OBJECT

  private slots:
    // Random gradients in every deterministic mode, each format alone and with a master copy,
    // with and without gradients rounded into BF16, against the step-by-step reference.
    void matchesStepByStepReference() {
        const std::vector<ExactValue> gradients = normalGradients(300, 0.0, 1.0, 21);
        const QString formats[] = {"fp32",     "bf16",     "fp16",     "fp8_e4m3",
                                   "fp8_e5m2", "fp6_e3m2", "fp4_e2m1", "int8"};
        const char* masters[] = {nullptr, "fp32", "fp16"};
        const RoundingMode modes[] = {RoundingMode::NearestEven,    RoundingMode::NearestAway,
                                      RoundingMode::TowardZero,     RoundingMode::TowardPositive,
                                      RoundingMode::TowardNegative, RoundingMode::ToOdd};
        for (const QString& id : formats)
            for (const char* masterId : masters)
                for (const RoundingMode mode : modes)
                    for (const bool bf16Gradients : {false, true}) {
                        SgdOptions o = options("0.7", "0.001");
                        o.learningRate = exactFromDouble(0.001); // as a Python float
                        o.rounding.mode = mode;
                        o.trajectoryPoints = 301;
                        if (bf16Gradients)
                            o.gradientFormat = lookUp("bf16");
                        std::optional<FormatSpec> master;
                        if (masterId)
                            master = lookUp(masterId);
                        compareWithReference(gradients, lookUp(id), master, o,
                                             id + " master " + (masterId ? masterId : "none") +
                                                 " mode " +
                                                 QString::fromLatin1(roundingModeId(mode)) +
                                                 (bf16Gradients ? " bf16 gradients" : ""));
                        if (QTest::currentTestFailed())
                            return;
                    }
    }

    // Large steps that overflow: E4M3 has no infinity (448 + 64 rounds to NaN under IEEE
    // overflow, and NaN − u stays NaN, every later update lost); FP16 reaches ∞. Under
    // saturation E4M3 stays at 448.
    void overflowAgainstReference() {
        for (const auto policy : {OverflowPolicy::Ieee, OverflowPolicy::Saturate})
            for (const QString& id : {QString("fp8_e4m3"), QString("fp16")}) {
                SgdOptions o = options(id == "fp16" ? "65504" : "448", "1");
                o.rounding.overflow = policy;
                const std::vector<ExactValue> gradients =
                    repeated(id == "fp16" ? "-2^11" : "-64", 5);
                compareWithReference(gradients, lookUp(id), std::nullopt, o,
                                     id + " " + QString::fromLatin1(overflowPolicyId(policy)));
            }
        SgdOptions o = options("448", "1");
        const SgdRun nan = simulateSgd(repeated("-64", 5), lookUp("fp8_e4m3"), std::nullopt, o);
        QVERIFY(nan.finalWeight.isNaN());
        QCOMPARE(nan.lostUpdates, std::size_t(4)); // the first step changed 448 into NaN
        o.rounding.overflow = OverflowPolicy::Saturate;
        const SgdRun saturated =
            simulateSgd(repeated("-64", 5), lookUp("fp8_e4m3"), std::nullopt, o);
        QVERIFY(saturated.finalWeight == exactValue("448"));
        QCOMPARE(saturated.lostUpdates, std::size_t(5));
        QVERIFY(saturated.finalExact == exactValue("768"));
    }

    // w = 1 in BF16 with lr·g = 2^-9: exactly half the gap 2^-8 below 1, a tie that goes to
    // 1 (even significand) every time: all updates lost, the exact weight walks away.
    void halfUlpUpdateIsLostInBf16() {
        const SgdOptions o = options("1", "1");
        const std::size_t n = 100;
        const SgdRun run = simulateSgd(repeated("2^-9", n), lookUp("bf16"), std::nullopt, o);
        QVERIFY(run.finalWeight == exactValue("1"));
        QCOMPARE(run.lostUpdates, n);
        QVERIFY(run.finalExact == exactValue("1 - 100*2^-9"));
        QVERIFY(run.error == exactValue("100*2^-9"));
        // Upward the gap is 2^-7: an update of −2^-8 is again a tie to the even 1.
        const SgdRun up = simulateSgd(repeated("-2^-8", n), lookUp("bf16"), std::nullopt, o);
        QVERIFY(up.finalWeight == exactValue("1"));
        QCOMPARE(up.lostUpdates, n);
        // FP32 keeps each update (2^-9 is far above FP32's half gap 2^-25 below 1).
        const SgdRun fp32 = simulateSgd(repeated("2^-9", n), lookUp("fp32"), std::nullopt, o);
        QVERIFY(fp32.finalWeight == exactValue("1 - 100*2^-9"));
        QCOMPARE(fp32.lostUpdates, std::size_t(0));
        QVERIFY(fp32.error.isZero());
        // FP16 below 1: the gap is 2^-11, so 2^-12 is its lost tie.
        const SgdRun fp16 = simulateSgd(repeated("2^-12", n), lookUp("fp16"), std::nullopt, o);
        QVERIFY(fp16.finalWeight == exactValue("1"));
        QCOMPARE(fp16.lostUpdates, n);
    }

    // Just above half the gap every update moves the weight one BF16 step, 2^-8, down: after
    // 10 steps 1 − 10·2^-8, while the exact weight went 1 − 10·(2^-9 + 2^-20).
    void justAboveHalfUlpMovesOneStep() {
        const SgdOptions o = options("1", "1");
        const SgdRun run =
            simulateSgd(repeated("2^-9 + 2^-20", 10), lookUp("bf16"), std::nullopt, o);
        QVERIFY2(run.finalWeight == exactValue("1 - 10*2^-8"), qPrintable(describeRun(run)));
        QCOMPARE(run.lostUpdates, std::size_t(0));
        QVERIFY(run.finalExact == exactValue("1 - 10*(2^-9 + 2^-20)"));
        // Just below half the gap: every update lost.
        const SgdRun below =
            simulateSgd(repeated("2^-9 - 2^-20", 10), lookUp("bf16"), std::nullopt, o);
        QVERIFY(below.finalWeight == exactValue("1"));
        QCOMPARE(below.lostUpdates, std::size_t(10));
    }

    // The FP32 master keeps the small updates BF16 and FP16 lose: 256 steps of 2^-9 take the
    // master from 1 to exactly 1/2, and the working copy cast from it is 1/2 too.
    void fp32MasterRecoversSmallUpdates() {
        const SgdOptions o = options("1", "2^-4");
        const std::vector<ExactValue> gradients = repeated("2^-5", 256); // lr·g = 2^-9
        const FormatSpec fp32 = lookUp("fp32");
        for (const QString& id : {QString("bf16"), QString("fp16")}) {
            const SgdRun alone = simulateSgd(gradients, lookUp(id), std::nullopt, o);
            const SgdRun mastered = simulateSgd(gradients, lookUp(id), fp32, o);
            QVERIFY(mastered.finalWeight == exactValue("0.5"));
            QVERIFY(mastered.error.isZero());
            QCOMPARE(mastered.lostUpdates, std::size_t(0));
            QVERIFY(mastered.master && mastered.master->id == "fp32");
            QVERIFY(alone.finalExact == exactValue("0.5"));
            if (id == "bf16") {
                QVERIFY(alone.finalWeight == exactValue("1"));
                QCOMPARE(alone.lostUpdates, std::size_t(256));
            } else {
                QVERIFY(alone.finalWeight == exactValue("0.5")); // 2^-9 is above FP16's half gap
                QCOMPARE(alone.lostUpdates, std::size_t(0));
            }
        }
        // Updates of 2^-12, half FP16's gap below 1: FP16 alone loses them all; with the master
        // the working copy, cast from it, follows within half a gap and ends where it does.
        SgdOptions small = options("1", "1");
        compareWithReference(repeated("2^-12", 40), lookUp("fp16"), fp32, small,
                             "fp16 + fp32 master, 2^-12");
        const SgdRun fp16Master = simulateSgd(repeated("2^-12", 40), lookUp("fp16"), fp32, small);
        QVERIFY(fp16Master.finalWeight == exactValue("1 - 40*2^-12"));
    }

    // Updates that are zero are not counted as lost; nonzero ones that leave w are.
    void lostCountsOnlyNonzeroUpdates() {
        const SgdOptions o = options("1", "1");
        std::vector<ExactValue> gradients;
        for (int i = 0; i < 10; ++i) {
            gradients.push_back(exactValue("0"));
            gradients.push_back(exactValue("2^-9"));  // lost
            gradients.push_back(exactValue("2^-7"));  // moves down two BF16 steps
            gradients.push_back(exactValue("-2^-7")); // back up
        }
        const SgdRun run = simulateSgd(gradients, lookUp("bf16"), std::nullopt, o);
        const Reference ref = referenceSgd(gradients, lookUp("bf16"), std::nullopt, o);
        QCOMPARE(run.lostUpdates, ref.lost);
        QCOMPARE(run.lostUpdates, std::size_t(10));
        QVERIFY(run.finalWeight == exactValue("1"));
    }

    // Stochastic rounding is unbiased: over many seeds, the mean final weight approaches the
    // exact one, where nearest-even loses every update. 2^-10 below 1 in BF16 is a quarter of
    // the gap, so each step moves down with probability 1/4. A step's rounding error has
    // variance at most gap·|update| = 2^-18, so a run of 64 steps has at most 2^-12 and the mean
    // of S runs a standard deviation of at most 2^-6 / √S: the bound below is 5 of them.
    void stochasticRoundingIsUnbiased() {
        SgdOptions o = options("1", "1");
        o.rounding.mode = RoundingMode::Stochastic;
        const std::vector<ExactValue> gradients = repeated("2^-10", 64);
        const FormatSpec bf16 = lookUp("bf16");
        const int seeds = 400;
        ExactValue total;
        for (int s = 0; s < seeds; ++s) {
            o.seed = static_cast<std::uint64_t>(s);
            const SgdRun run = simulateSgd(gradients, bf16, std::nullopt, o);
            if (s < 5)
                compareWithReference(gradients, bf16, std::nullopt, o,
                                     "sr seed " + QString::number(s));
            total = total + run.finalWeight;
        }
        const ExactValue exact = exactValue("1 - 64*2^-10");
        const ExactValue mean = total / ExactValue::integer(seeds);
        const double deviation = std::fabs(std::stod(toSignificantDigits(mean - exact, 17)));
        const double bound = 5 * std::ldexp(1.0, -6) / std::sqrt(double(seeds));
        QVERIFY2(deviation < bound,
                 qPrintable(QString("mean − exact = %1, bound %2").arg(deviation).arg(bound)));
        // The same seed gives the same run; nearest-even loses all 64 updates.
        o.seed = 7;
        const SgdRun a = simulateSgd(gradients, bf16, std::nullopt, o);
        const SgdRun b = simulateSgd(gradients, bf16, std::nullopt, o);
        QVERIFY(a.finalWeight == b.finalWeight && a.lostUpdates == b.lostUpdates);
        o.rounding.mode = RoundingMode::NearestEven;
        QCOMPARE(simulateSgd(gradients, bf16, std::nullopt, o).lostUpdates, std::size_t(64));
    }

    // The trajectory: evenly spaced steps, the first and the last included.
    void trajectorySampling() {
        SgdOptions o = options("1", "2^-8");
        const std::vector<ExactValue> gradients = repeated("1", 10);
        const FormatSpec fp32 = lookUp("fp32");
        auto steps = [&](std::size_t points) {
            o.trajectoryPoints = points;
            std::vector<std::size_t> s;
            for (const auto& p : simulateSgd(gradients, fp32, std::nullopt, o).trajectory)
                s.push_back(p.step);
            return s;
        };
        QCOMPARE(steps(0), std::vector<std::size_t>{});
        QCOMPARE(steps(1), std::vector<std::size_t>{10});
        QCOMPARE(steps(2), (std::vector<std::size_t>{0, 10}));
        QCOMPARE(steps(3), (std::vector<std::size_t>{0, 5, 10}));
        QCOMPARE(steps(4), (std::vector<std::size_t>{0, 3, 6, 10}));
        QCOMPARE(steps(11), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        QCOMPARE(steps(500).size(), std::size_t(11));
        o.trajectoryPoints = 3;
        const auto t = simulateSgd(gradients, fp32, std::nullopt, o).trajectory;
        QCOMPARE(t[0].weight, 1.0);
        QCOMPARE(t[1].weight, 1.0 - 5.0 / 256);
        QCOMPARE(t[2].exact, 1.0 - 10.0 / 256);
    }

    // 10^5 steps of a run with a master copy, against the reference: the exact values stay
    // short (the test would crawl if they grew with the steps).
    void longRunAgainstReference() {
        const std::vector<ExactValue> gradients = normalGradients(100000, 0.1, 1.0, 5);
        SgdOptions o = options("0.5", "0");
        o.learningRate = exactFromDouble(1e-4);
        o.trajectoryPoints = 64;
        compareWithReference(gradients, lookUp("bf16"), lookUp("fp32"), o, "bf16 + fp32, 10^5");
    }

    void rejectsFormatsWithoutArithmeticAndNonFiniteInputs() {
        const SgdOptions o = options("1", "1");
        const std::vector<ExactValue> gradients = repeated("1", 3);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 simulateSgd(gradients, lookUp("nf4"), std::nullopt, o));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 simulateSgd(gradients, lookUp("fp8_e8m0"), std::nullopt, o));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 simulateSgd(gradients, lookUp("bf16"), lookUp("nf4"), o));
        SgdOptions withNf4Gradients = o;
        withNf4Gradients.gradientFormat = lookUp("nf4");
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            simulateSgd(gradients, lookUp("bf16"), std::nullopt, withNf4Gradients));
        SgdOptions infiniteLr = o;
        infiniteLr.learningRate = ExactValue::infinity(false);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 simulateSgd(gradients, lookUp("bf16"), std::nullopt, infiniteLr));
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            simulateSgd({exactValue("1"), ExactValue::nan()}, lookUp("bf16"), std::nullopt, o));
    }

    // The inputs as `fpx sgd` and the Training page read them: a list cycles, a distribution
    // draws exactly the doubles drawValue gives, and the errors name the item and column.
    void gradientSequencesAndLearningRate() {
        std::string error;
        const auto cycled = parseGradientSequence("1,-0.5,2^-9", 7, 1, error);
        QVERIFY2(cycled, error.c_str());
        QCOMPARE(cycled->size(), std::size_t(7));
        QVERIFY((*cycled)[6] == exactValue("1"));
        QVERIFY((*cycled)[5] == exactValue("2^-9"));
        const auto once = parseGradientSequence("3,4", std::nullopt, 1, error);
        QVERIFY(once && once->size() == 2);
        std::string distributionError;
        const auto distribution = parseValueDistribution("normal:0:0.001", distributionError);
        QVERIFY(distribution);
        const auto drawn = parseGradientSequence("normal:0:0.001", 50, 9, error);
        QVERIFY2(drawn, error.c_str());
        for (std::size_t t = 0; t < 50; ++t)
            QVERIFY((*drawn)[t] == exactFromDouble(drawValue(*distribution, 9, t)));
        QVERIFY(!parseGradientSequence("normal:0:1", std::nullopt, 1, error));
        QVERIFY2(error.find("needs a number of steps") != std::string::npos, error.c_str());
        QVERIFY(!parseGradientSequence("1,2,x", 3, 1, error));
        QVERIFY2(error.find("'x' (item 3, column 5)") != std::string::npos, error.c_str());
        QVERIFY(!parseGradientSequence("1,inf", 3, 1, error));
        // 0.1 as PyTorch holds it: the double 0x3fb999999999999a, not one tenth.
        const auto lr = learningRateAsDouble(exactValue("0.1"));
        QVERIFY(lr && *lr == exactFromDouble(0.1) && !(*lr == exactValue("0.1")));
        QVERIFY(!learningRateAsDouble(exactValue("1e400")));
    }
};

QTEST_APPLESS_MAIN(TestSgdSimulation)
#include "tst_sgd_simulation.moc"
