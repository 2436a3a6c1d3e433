// SPDX-License-Identifier: GPL-3.0-or-later
// Stochastic rounding with N random bits: every conversion follows IEEE P3109's predicates
// (Interim Report 4.7.4), written out here as the standard states them and tried for every one
// of the 2^N random integers; the probabilities fpx reports are those counts over 2^N; and a
// seed's random bits are independent of its neighbour's.
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/stochastic_decision.h"
#include "fpx/exact/stochastic_rounding.h"
#include "fpx/exact/value_parser.h"

#include "test_support.h"

#include <QTest>

#include <vector>

using namespace fpx;

namespace {

// ⌊v⌋ of a non-negative exact value.
BigInt floorOf(const ExactValue& v) {
    BigInt numerator = v.numerator();
    BigInt denominator = v.denominator();
    if (v.exponent2() >= 0)
        numerator <<= static_cast<unsigned>(v.exponent2());
    else
        denominator <<= static_cast<unsigned>(-v.exponent2());
    return numerator / denominator;
}

ExactValue power2(int n) {
    return ExactValue::dyadic(false, 1, n);
}

// RNITE(v): nearest integer, ties to even.
BigInt nearestEven(const ExactValue& v) {
    const BigInt f = floorOf(v);
    const int c = compare(v - ExactValue::integer(f), ExactValue::dyadic(false, 1, -1));
    return (c > 0 || (c == 0 && boost::multiprecision::bit_test(f, 0))) ? f + 1 : f;
}

// RoundAway(Stochastic{A,B,C}_{N,R}), as the report writes it.
bool p3109RoundsAway(StochasticVariant variant, const ExactValue& nu, int n, std::uint64_t r) {
    const BigInt R(r);
    switch (variant) {
    case StochasticVariant::A:
        return floorOf(nu * power2(n)) + R >= (BigInt(1) << n);
    case StochasticVariant::B:
        return floorOf(nu * power2(n + 1)) + (2 * R + 1) >= (BigInt(1) << (n + 1));
    case StochasticVariant::C:
        return nearestEven(nu * power2(n)) + R >= (BigInt(1) << n);
    }
    return false;
}

struct Neighbours {
    ExactValue nearZero, farFromZero;
    Code nearCode = 0, farCode = 0;
};

Neighbours neighboursOf(const ExactValue& x, const FormatSpec& spec) {
    const Code down = roundToFormat(x, spec, RoundingOptions{RoundingMode::TowardNegative}).code;
    const Code up = roundToFormat(x, spec, RoundingOptions{RoundingMode::TowardPositive}).code;
    const ExactValue dv = decodeCode(spec, down).value, uv = decodeCode(spec, up).value;
    if (compare(dv.abs(), uv.abs()) < 0)
        return {dv, uv, down, up};
    return {uv, dv, up, down};
}

// Inputs strictly between two neighbours of `spec`, at residues that matter to N bits: exact
// multiples of 2^−N, the ties between them, one just past, tiny and nearly one.
std::vector<ExactValue> inputsFor(const FormatSpec& spec, const ExactValue& anchor, int n) {
    const Neighbours around = neighboursOf(anchor, spec);
    const ExactValue gap = around.farFromZero - around.nearZero;
    std::vector<ExactValue> residues;
    for (int j = 1; j < (1 << n); j += std::max(1, (1 << n) / 5)) {
        residues.push_back(ExactValue::dyadic(false, j, -n));
        residues.push_back(ExactValue::dyadic(false, 2 * j + 1, -(n + 1)));
        residues.push_back(ExactValue::dyadic(false, j, -n) +
                           ExactValue::fraction(false, 1, 3 << 20));
    }
    residues.push_back(ExactValue::dyadic(false, 1, -(n + 2)));
    residues.push_back(ExactValue::dyadic(false, 1, -(n + 1)));
    residues.push_back(ExactValue::integer(1) - ExactValue::dyadic(false, 1, -(n + 2)));
    residues.push_back(ExactValue::fraction(false, 1, 3));
    std::vector<ExactValue> inputs;
    for (const ExactValue& nu : residues)
        if (compare(nu, ExactValue::integer(1)) < 0)
            inputs.push_back(around.nearZero + gap * nu);
    return inputs;
}

} // namespace

class TestStochasticBits : public QObject {
    Q_OBJECT

  private slots:
    void everyRandomIntegerFollowsTheReportsPredicate_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("anchor");
        QTest::newRow("fp8_e4m3, 1.1") << "fp8_e4m3"
                                       << "1.1";
        QTest::newRow("fp8_e4m3, -0.3") << "fp8_e4m3"
                                        << "-0.3";
        QTest::newRow("fp8_e4m3 subnormal") << "fp8_e4m3"
                                            << "0.005";
        QTest::newRow("bf16, 3.3") << "bf16"
                                   << "3.3";
        QTest::newRow("binary8p3se, -7.7") << "binary8p3se"
                                           << "-7.7";
        QTest::newRow("int8, scaled") << "int8"
                                      << "-0.37";
        QTest::newRow("nf4 (levels not dyadic)") << "nf4"
                                                 << "0.41";
    }
    void everyRandomIntegerFollowsTheReportsPredicate() {
        QFETCH(QString, format);
        QFETCH(QString, anchor);
        const FormatSpec spec = test::lookUp(qPrintable(format));
        const ExactValue a = *parseValue(anchor.toStdString()).value;
        for (int n : {1, 2, 3, 5, 8}) {
            for (StochasticVariant variant :
                 {StochasticVariant::A, StochasticVariant::B, StochasticVariant::C}) {
                const RandomBitRule rule{n, variant};
                for (const ExactValue& x : inputsFor(spec, a, n)) {
                    const Neighbours nb = neighboursOf(x, spec);
                    const ExactValue nu =
                        (x.abs() - nb.nearZero.abs()) / (nb.farFromZero - nb.nearZero).abs();
                    std::uint64_t away = 0;
                    for (std::uint64_t r = 0; r < (std::uint64_t(1) << n); ++r) {
                        const RoundingOptions options{RoundingMode::Stochastic,
                                                      OverflowPolicy::Ieee, r << (64 - n), rule};
                        const Code code = roundToFormat(x, spec, options).code;
                        QVERIFY(code == nb.nearCode || code == nb.farCode);
                        const bool expected = p3109RoundsAway(variant, nu, n, r);
                        if ((code == nb.farCode) != expected)
                            QFAIL(qPrintable(
                                QString("%1 %2 N=%3 variant %4 R=%5: away %6, the "
                                        "report says %7")
                                    .arg(format, QString::fromStdString(toDecimal(x).text))
                                    .arg(n)
                                    .arg(int(variant))
                                    .arg(r)
                                    .arg(code == nb.farCode)
                                    .arg(expected)));
                        away += code == nb.farCode;
                    }
                    // The reported probability is that count over 2^N: a multiple of 2^−N.
                    const auto outcomes = stochasticOutcomes(x, spec, OverflowPolicy::Ieee, rule);
                    QVERIFY(outcomes);
                    const ExactValue pAway = ExactValue::dyadic(false, away, -n);
                    const bool upIsAway = outcomes->up.code == nb.farCode;
                    QCOMPARE(outcomes->probabilityUp,
                             upIsAway ? pAway : ExactValue::integer(1) - pAway);
                    QCOMPARE(outcomes->idealProbabilityUp,
                             upIsAway ? nu : ExactValue::integer(1) - nu);
                    const ExactValue scaled = outcomes->probabilityUp * power2(n);
                    QCOMPARE(scaled, ExactValue::integer(floorOf(scaled)));
                    // A truncates the residue: never more likely away than all bits make it.
                    if (variant == StochasticVariant::A)
                        QVERIFY(compare(pAway, nu) <= 0);
                }
            }
        }
    }

    // A term below 2^−N of the ulp never moves the sum under sr:N (variant A): the bias that
    // few bits leave. All 64 bits move it in the right proportion.
    void aResidueBelowTheRandomBitsNeverRoundsAway() {
        const FormatSpec bf16 = test::lookUp("bf16");
        const ExactValue x = ExactValue::integer(1) + ExactValue::dyadic(false, 1, -10); // ν = 1/8
        const auto two = stochasticOutcomes(x, bf16, OverflowPolicy::Ieee, {2});
        const auto four = stochasticOutcomes(x, bf16, OverflowPolicy::Ieee, {4});
        const auto all = stochasticOutcomes(x, bf16, OverflowPolicy::Ieee, {});
        QCOMPARE(two->probabilityUp, ExactValue::zero());
        QCOMPARE(four->probabilityUp, ExactValue::dyadic(false, 1, -3));
        QCOMPARE(all->probabilityUp, ExactValue::dyadic(false, 1, -3));
        QCOMPARE(observedFractionUp(x, bf16, OverflowPolicy::Ieee, 7, 4000, {2}),
                 ExactValue::zero());
        const ExactValue observed = observedFractionUp(x, bf16, OverflowPolicy::Ieee, 7, 4000, {});
        QVERIFY(compare(observed, ExactValue::fraction(false, 1, 10)) > 0);
        QVERIFY(compare(observed, ExactValue::fraction(false, 3, 20)) < 0);
    }

    void parsesModesWithRandomBits() {
        const auto choice = [](const char* text) { return parseRoundingChoice(text).choice; };
        QCOMPARE(choice("sr:8"),
                 (RoundingChoice{RoundingMode::Stochastic, {8, StochasticVariant::A}}));
        QCOMPARE(choice(" StochasticB:4 "),
                 (RoundingChoice{RoundingMode::Stochastic, {4, StochasticVariant::B}}));
        QCOMPARE(choice("SRC:32"),
                 (RoundingChoice{RoundingMode::Stochastic, {32, StochasticVariant::C}}));
        QCOMPARE(choice("sr"), (RoundingChoice{RoundingMode::Stochastic, {}}));
        QCOMPARE(choice("NearestTiesToEven"), (RoundingChoice{RoundingMode::NearestEven, {}}));
        for (const char* bad : {"sr:0", "sr:33", "sr:", "sr:x", "srb", "StochasticA", "rne:4"}) {
            const ParsedRounding parsed = parseRoundingChoice(bad);
            QVERIFY2(!parsed.choice, bad);
            QVERIFY2(!parsed.error.empty(), bad);
        }
        for (const char* id : {"sr:1", "srb:16", "src:3", "sr", "rto"})
            QCOMPARE(QString::fromStdString(
                         roundingChoiceId(parseRoundingChoice(id).choice->mode,
                                          parseRoundingChoice(id).choice->stochastic)),
                     QString(id));
    }

    void neighbouringSeedsAreIndependent_data() {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("bits");
        for (quint64 seed :
             {quint64(0), quint64(1), quint64(42), quint64(1) << 63, ~quint64(0) - 1})
            for (int bits : {1, 2, 8, 64})
                QTest::addRow("seed %llu, %d bits", static_cast<unsigned long long>(seed), bits)
                    << seed << bits;
    }
    void neighbouringSeedsAreIndependent() {
        QFETCH(quint64, seed);
        QFETCH(int, bits);
        const SeedAudit audit = auditNeighbouringSeeds(seed, 100'000, bits);
        QCOMPARE(audit.comparedBits, quint64(100'000) * quint64(bits));
        QVERIFY2(audit.independent(), qPrintable(QString("%1 of %2 bits agree: z = %3")
                                                     .arg(audit.agreeingBits)
                                                     .arg(audit.comparedBits)
                                                     .arg(audit.zScore)));
        // And so do the roundings they decide: at p = 1/2 two streams agree half the time.
        const FormatSpec fp8 = test::lookUp("fp8_e4m3");
        const ExactValue x = *parseValue("1.0625").value; // halfway between 1 and 1.125
        int agree = 0;
        const int draws = 20'000;
        for (int i = 0; i < draws; ++i) {
            const RandomBitRule rule{bits == 64 ? 0 : bits};
            const Code a = roundToFormat(x, fp8,
                                         {RoundingMode::Stochastic, OverflowPolicy::Ieee,
                                          stochasticBits(seed, i), rule})
                               .code;
            const Code b = roundToFormat(x, fp8,
                                         {RoundingMode::Stochastic, OverflowPolicy::Ieee,
                                          stochasticBits(seed + 1, i), rule})
                               .code;
            agree += a == b;
        }
        QVERIFY2(std::abs(agree - draws / 2) < 5 * std::sqrt(draws) / 2,
                 qPrintable(QString("%1 of %2 roundings agree").arg(agree).arg(draws)));
    }
};

QTEST_APPLESS_MAIN(TestStochasticBits)
#include "tst_stochastic_bits.moc"
