// SPDX-License-Identifier: GPL-3.0-or-later
// Posits against a reference written here from the textbook algorithm, in doubles and integer
// bit strings: negate a negative code first, read regime, exponent and fraction off the
// positive one (decode); build the long bit string of |x| and round it as an integer with
// guard and sticky bits (encode). fpx reads the fields off the code as it is (the 2022
// standard's formula) and rounds exact values with big integers: two routes to one answer.
// Every code of posit8, posit16 and small posit<n,es> decodes alike; every FP16 and BF16 value,
// every tie point and the doubles on either side of it round alike into posit8 and posit16.
#include "fpx/exact/code_details.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decode_explanation.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/posit.h"
#include "fpx/exact/stochastic_rounding.h"

#include "test_support.h"

#include <QTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

using namespace fpx;

namespace {

// ---- the reference -----------------------------------------------------------------------

struct Reference {
    int n;
    int es;

    std::uint64_t mask() const { return (std::uint64_t(1) << n) - 1; }
    std::uint64_t nar() const { return std::uint64_t(1) << (n - 1); }

    // NaN for NaR.
    double decode(std::uint64_t code) const {
        code &= mask();
        if (code == 0)
            return 0.0;
        if (code == nar())
            return std::nan("");
        const bool negative = (code >> (n - 1)) & 1;
        if (negative)
            code = (~code + 1) & mask();
        // Bits after the sign, most significant first.
        int i = n - 2;
        const int first = (code >> i) & 1;
        int run = 0;
        while (i >= 0 && int((code >> i) & 1) == first) {
            ++run;
            --i;
        }
        --i; // the terminating bit, if any
        const int k = first ? run - 1 : -run;
        int e = 0;
        for (int j = 0; j < es; ++j) {
            e <<= 1;
            if (i >= 0) {
                e |= (code >> i) & 1;
                --i;
            }
        }
        double fraction = 1.0;
        double weight = 0.5;
        for (; i >= 0; --i, weight /= 2)
            if ((code >> i) & 1)
                fraction += weight;
        const double value = std::ldexp(fraction, k * (1 << es) + e);
        return negative ? -value : value;
    }

    // Round to nearest, ties to even, in the bit string; never to 0 or NaR.
    std::uint64_t encode(double x) const {
        if (std::isnan(x) || std::isinf(x))
            return nar();
        if (x == 0)
            return 0;
        const bool negative = x < 0;
        const double y = std::fabs(x);
        const int maxScale = (n - 2) * (1 << es);
        std::uint64_t body;
        if (y >= std::ldexp(1.0, maxScale)) {
            body = mask() >> 1; // maxpos
        } else if (y <= std::ldexp(1.0, -maxScale)) {
            body = 1; // minpos
        } else {
            int exp2 = 0;
            const double m = std::frexp(y, &exp2); // y = m × 2^exp2, 0.5 ≤ m < 1
            const int s = exp2 - 1;                // y = (2m) × 2^s
            const int useed = 1 << es;
            const int k = s >= 0 ? s / useed : -((-s + useed - 1) / useed);
            const int e = s - k * useed;
            // The string: regime, es exponent bits, then 80 fraction bits (more than a
            // double's 52), in a 128-bit integer (fpx's Code) read from the top.
            Code bits = 0;
            int length = 0;
            auto push = [&](unsigned bit) {
                bits = (bits << 1) | bit;
                ++length;
            };
            if (k >= 0) {
                for (int j = 0; j <= k; ++j)
                    push(1);
                push(0);
            } else {
                for (int j = 0; j < -k; ++j)
                    push(0);
                push(1);
            }
            for (int j = es - 1; j >= 0; --j)
                push((e >> j) & 1);
            double f = 2 * m - 1; // in [0, 1)
            for (int j = 0; j < 80; ++j) {
                f *= 2;
                const unsigned bit = f >= 1 ? 1 : 0;
                f -= bit;
                push(bit);
            }
            const int keep = n - 1;
            const int drop = length - keep;
            body = static_cast<std::uint64_t>(bits >> drop);
            const bool guard = (bits >> (drop - 1)) & 1;
            const bool sticky = (bits & ((Code(1) << (drop - 1)) - 1)) != 0;
            if (guard && (sticky || (body & 1)))
                ++body;
        }
        return negative ? (~body + 1) & mask() : body;
    }
};

ExactValue exact(double x) {
    return exactFromDouble(x);
}

// Every code decodes to the reference's value, and as a double the value is exact.
void compareAllCodes(const FormatSpec& spec, const Reference& ref) {
    const std::uint64_t count = std::uint64_t(1) << ref.n;
    for (std::uint64_t code = 0; code < count; ++code) {
        const DecodedCode d = decodeCode(spec, code);
        const double expected = ref.decode(code);
        if (std::isnan(expected)) {
            QVERIFY2(d.value.isNaN(),
                     qPrintable(QString("%1 code %2").arg(spec.id.c_str()).arg(code)));
            continue;
        }
        if (!(d.value == exact(expected)))
            QFAIL(qPrintable(QString("%1 code 0x%2: %3, expected %4")
                                 .arg(spec.id.c_str())
                                 .arg(code, 0, 16)
                                 .arg(doubleFromExact(d.value))
                                 .arg(expected)));
    }
}

void compareRounding(const FormatSpec& spec, const Reference& ref, double x) {
    const Code got = roundToFormat(exact(x), spec).code;
    const std::uint64_t expected = ref.encode(x);
    if (got != expected)
        QFAIL(qPrintable(QString("%1 ← %2: 0x%3, expected 0x%4")
                             .arg(spec.id.c_str())
                             .arg(x, 0, 'g', 17)
                             .arg(static_cast<qulonglong>(got), 0, 16)
                             .arg(expected, 0, 16)));
}

double fromHalf(std::uint16_t h) {
    const int exponent = (h >> 10) & 0x1f;
    const int fraction = h & 0x3ff;
    double v = exponent == 0 ? std::ldexp(fraction, -24)
                             : (exponent == 31 ? (fraction ? std::nan("") : INFINITY)
                                               : std::ldexp(1024 + fraction, exponent - 25));
    return (h & 0x8000) ? -v : v;
}

double fromBfloat(std::uint16_t b) {
    const std::uint32_t bits = std::uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

} // namespace

class TestPosit : public QObject {
    Q_OBJECT

  private slots:
    void names() {
        QCOMPARE(test::lookUp("posit8").positBits, 8);
        QCOMPARE(test::lookUp("posit8").positExponentBits, 2);
        QCOMPARE(test::lookUp("Posit<16,1>").id, std::string("posit16es1"));
        QCOMPARE(test::lookUp("posit16es1").positExponentBits, 1);
        QCOMPARE(test::lookUp("posit<32,2>").id, std::string("posit32"));
        for (const char* bad : {"posit", "posit2", "posit33", "posit8es6", "posit<8>", "posit<8,2",
                                "posit8e2", "posit<8,2>x"})
            QVERIFY2(!findFormat(bad), bad);
        // A comma inside <…> belongs to the name in a list.
        const FormatListLookup list = findFormats("fp16,posit<12,1>,bf16");
        QCOMPARE(list.specs.size(), std::size_t(3));
        QCOMPARE(list.specs[1].id, std::string("posit12es1"));
    }

    // The 2022 standard's posit8, posit16 and posit32 (es = 2): useed 16, maxpos useed^(n−2).
    void limits() {
        for (int n : {8, 16, 32}) {
            const FormatSpec spec = test::lookUp(("posit" + std::to_string(n)).c_str());
            const FormatLimits l = deriveLimits(spec);
            QCOMPARE(l.max, ExactValue::dyadic(false, 1, 4 * (n - 2)));
            QCOMPARE(l.minPositive, ExactValue::dyadic(false, 1, -4 * (n - 2)));
            QCOMPARE(l.lowest, ExactValue::dyadic(true, 1, 4 * (n - 2)));
            QCOMPARE(l.nanCode, std::optional<Code>(Code(1) << (n - 1)));
            QCOMPARE(l.epsilon, std::optional(ExactValue::dyadic(false, 1, -(n - 5))));
            QCOMPARE(decodeCode(spec, Code(1) << (n - 2)).value, ExactValue::integer(1));
        }
    }

    void decodeEveryCode() {
        compareAllCodes(test::lookUp("posit8"), Reference{8, 2});
        compareAllCodes(test::lookUp("posit16"), Reference{16, 2});
        for (int n = 3; n <= 12; ++n)
            for (int es = 0; es <= 3; ++es) {
                const std::string id = "posit" + std::to_string(n) + "es" + std::to_string(es);
                compareAllCodes(test::lookUp(id.c_str()), Reference{n, es});
            }
    }

    void decodePosit32Samples() {
        const FormatSpec spec = test::lookUp("posit32");
        const Reference ref{32, 2};
        std::mt19937_64 random(32);
        for (int i = 0; i < 200000; ++i) {
            const Code code = random() & 0xffffffffu;
            const double expected = ref.decode(code);
            const DecodedCode d = decodeCode(spec, code);
            if (std::isnan(expected))
                QVERIFY(d.value.isNaN());
            else
                QVERIFY2(d.value == exact(expected),
                         qPrintable(QString::number(static_cast<qulonglong>(code), 16)));
        }
    }

    // Every FP16 and BF16 value, and every tie point between neighbouring codes with the
    // doubles on either side of it.
    void roundLikeTheReference() {
        for (int n : {8, 16}) {
            const FormatSpec spec = test::lookUp(("posit" + std::to_string(n)).c_str());
            const Reference ref{n, 2};
            for (std::uint32_t h = 0; h < 0x10000; ++h) {
                compareRounding(spec, ref, fromHalf(std::uint16_t(h)));
                compareRounding(spec, ref, fromBfloat(std::uint16_t(h)));
            }
            const Reference wider{n + 1, 2};
            const std::uint64_t count = std::uint64_t(1) << n;
            for (std::uint64_t code = 0; code < count; ++code) {
                if (code == ref.nar() - 1 || code == count - 1 || code == ref.nar())
                    continue; // maxpos and −minpos: no code above them but NaR and 0
                const double tie = wider.decode((code << 1) | 1);
                compareRounding(spec, ref, tie);
                compareRounding(spec, ref, std::nextafter(tie, INFINITY));
                compareRounding(spec, ref, std::nextafter(tie, -INFINITY));
                // The tie point is where fpx's own intervals say the rounding changes.
                if (code != 0)
                    QCOMPARE(positTiePoint(spec, code), exact(tie));
            }
        }
    }

    // Ties to even, where exponent bits are cut: between posit8's 2^20 (0x7e) and maxpos
    // 2^24 (0x7f) the tie is 2^22, not the midpoint, and goes to the even 0x7e.
    void tiesInTheBitString() {
        const FormatSpec spec = test::lookUp("posit8");
        QCOMPARE(roundToFormat(ExactValue::dyadic(false, 1, 22), spec).code, Code(0x7e));
        QCOMPARE(roundToFormat(ExactValue::dyadic(false, 3, 21), spec).code, Code(0x7f));
        QCOMPARE(
            roundToFormat(ExactValue::dyadic(false, 1, 22) + ExactValue::integer(1), spec).code,
            Code(0x7f));
        QCOMPARE(roundToFormat(ExactValue::dyadic(true, 1, 22), spec).code, Code(0x82));
        // The rounding interval of 2^20 ends at 2^22, and its number line's tie point too.
        const CodeDetails d = describeCode(spec, 0x7e);
        QVERIFY(d.interval);
        QCOMPARE(d.interval->high, ExactValue::dyadic(false, 1, 22));
        QVERIFY(d.interval->highClosed);
    }

    // Beyond maxpos a value saturates and below minpos it stays nonzero; ±∞ and NaN are NaR.
    void saturationAndNaR() {
        const FormatSpec spec = test::lookUp("posit8");
        const Conversion big = roundToFormat(ExactValue::dyadic(false, 1, 100), spec);
        QCOMPARE(big.code, Code(0x7f));
        QVERIFY(big.flags.overflow && big.flags.inexact);
        const Conversion tiny = roundToFormat(ExactValue::dyadic(true, 1, -100), spec);
        QCOMPARE(tiny.code, Code(0xff));
        QVERIFY(tiny.flags.underflow);
        RoundingOptions toZero;
        toZero.mode = RoundingMode::TowardZero;
        QCOMPARE(roundToFormat(ExactValue::dyadic(false, 1, -100), spec, toZero).code, Code(0x01));
        QCOMPARE(roundToFormat(ExactValue::infinity(false), spec).code, Code(0x80));
        QCOMPARE(roundToFormat(ExactValue::nan(), spec).code, Code(0x80));
        QCOMPARE(roundToFormat(ExactValue::zero(true), spec).code, Code(0));
        QVERIFY(!decodeCode(spec, 0x80).value.isFinite());
    }

    // The directed modes pick the neighbour they name: the codes ascend as integers.
    void directedModesAndNeighbours() {
        const FormatSpec spec = test::lookUp("posit16es1");
        std::mt19937_64 random(7);
        for (int i = 0; i < 20000; ++i) {
            const double x = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(random),
                                        int(random() % 50) - 25);
            RoundingOptions down, up;
            down.mode = RoundingMode::TowardNegative;
            up.mode = RoundingMode::TowardPositive;
            const Code lo = roundToFormat(exact(x), spec, down).code;
            const Code hi = roundToFormat(exact(x), spec, up).code;
            const ExactValue a = decodeCode(spec, lo).value;
            const ExactValue b = decodeCode(spec, hi).value;
            QVERIFY(compare(a, exact(x)) <= 0 || lo == 1 || lo == 0x7fff);
            QVERIFY(compare(b, exact(x)) >= 0 || hi == 0xffff || hi == 0x8001);
            if (compare(a, exact(x)) < 0 && compare(b, exact(x)) > 0) {
                QCOMPARE((lo + 1) & 0xffff, hi);
                QCOMPARE(nextUp(spec, lo)->code, hi);
                QCOMPARE(nextDown(spec, hi)->code, lo);
            }
        }
    }

    // Stochastic rounding picks a neighbour in proportion to the distance in value, even where
    // the bit string is not linear in value: 2^21 lies 1/15 of the way from posit8's 2^20 to
    // 2^24. Four random bits see 1/15 as 1/16; the draws agree with the exact probability.
    void stochasticInValue() {
        const FormatSpec spec = test::lookUp("posit8");
        const ExactValue x = ExactValue::dyadic(false, 1, 21);
        const auto all = stochasticOutcomes(x, spec, OverflowPolicy::Ieee, RandomBitRule{});
        QVERIFY(all);
        QCOMPARE(all->down.code, Code(0x7e));
        QCOMPARE(all->up.code, Code(0x7f));
        QCOMPARE(all->probabilityUp, ExactValue::fraction(false, 1, 15));
        const auto four = stochasticOutcomes(x, spec, OverflowPolicy::Ieee,
                                             RandomBitRule{4, StochasticVariant::A});
        QCOMPARE(four->probabilityUp, ExactValue::fraction(false, 1, 16));
        const double observed =
            nearestDouble(observedFractionUp(x, spec, OverflowPolicy::Ieee, 5, 30000, {}));
        QVERIFY2(std::abs(observed - 1.0 / 15) < 5 * std::sqrt((1.0 / 15) * (14.0 / 15) / 30000),
                 qPrintable(QString::number(observed)));
        // Negative: the same probability of going away from zero.
        const auto negative =
            stochasticOutcomes(x.negated(), spec, OverflowPolicy::Ieee, RandomBitRule{});
        QCOMPARE(negative->probabilityUp, ExactValue::fraction(false, 14, 15));
    }

    void fieldsAndText() {
        const FormatSpec spec = test::lookUp("posit8");
        // 0 110 01 01: regime run of 2 ones (r = 1), e = 1, fraction 1/4 → 2^5 × 1.25 = 40.
        const auto f = positFields(spec, 0x65);
        QVERIFY(f);
        QCOMPARE(f->regimeRun, 2);
        QCOMPARE(f->regime, 1);
        QCOMPARE(f->exponent, 1);
        QCOMPARE(f->fractionWidth, 2);
        QCOMPARE(decodeCode(spec, 0x65).value, ExactValue::integer(40));
        const std::string text = explainDecode(spec, decodeCode(spec, 0x65));
        QVERIFY2(text.find("a run of 2 ones, r = 1") != std::string::npos, text.c_str());
        QVERIFY2(text.find("= 40") != std::string::npos, text.c_str());
        // 0 0000001: minpos, the regime fills every bit and cuts both exponent bits.
        const auto tiny = positFields(spec, 0x01);
        QCOMPARE(tiny->regimeRun, 6);
        QCOMPARE(tiny->regimeWidth, 7);
        QCOMPARE(tiny->exponentWidth, 0);
        const std::vector<FieldLine> lines = positFieldLines(spec, 0xbf);
        QCOMPARE(lines.size(), std::size_t(4));
        QCOMPARE(lines[1].text, std::string("01: a run of 1 zero → r = -1"));
        QVERIFY(positFieldLines(spec, 0x80).empty());
        QCOMPARE(decodeCode(spec, 0xbf).value, exact(-1.125));
    }
};

QTEST_APPLESS_MAIN(TestPosit)
#include "tst_posit.moc"
