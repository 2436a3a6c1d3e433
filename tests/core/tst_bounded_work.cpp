// SPDX-License-Identifier: GPL-3.0-or-later
// Bounded work in the exact core: rational arithmetic that needs no gcd of long numerators
// (checked against Boost's cpp_rational, which reduces every result by a plain gcd), errors of
// a short input with enormous numerator and denominator computed promptly and exactly, and
// the work that parsing reports to a stream's budget.
#include "fpx/exact/code_details.h"
#include "fpx/exact/expression.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <QTest>

#include <ctime>
#include <random>

using namespace fpx;
using Rational = boost::multiprecision::cpp_rational;

namespace {

// The independent reference: (−1)^s · n / d · 2^e as a reduced cpp_rational.
Rational rationalOf(const ExactValue& x) {
    Rational r(x.numerator(), x.denominator());
    if (x.exponent2() >= 0)
        r *= Rational(BigInt(1) << static_cast<unsigned>(x.exponent2()));
    else
        r /= Rational(BigInt(1) << static_cast<unsigned>(-x.exponent2()));
    return x.isNegative() ? Rational(-r) : r;
}

// ExactValue's invariants: odd numerator and denominator, coprime, denominator positive.
bool isCanonical(const ExactValue& x) {
    if (x.isZero())
        return x.denominator() == 1 && x.exponent2() == 0;
    return boost::multiprecision::bit_test(x.numerator(), 0) &&
           boost::multiprecision::bit_test(x.denominator(), 0) &&
           boost::multiprecision::gcd(x.numerator(), x.denominator()) == 1;
}

// A random value n / d · 2^e whose numerators and denominators share factors often: both are
// products of small primes, so sums, products and quotients have much to cancel.
ExactValue randomValue(std::mt19937_64& random) {
    static const int primes[] = {3, 5, 7, 11, 13, 3, 3, 5};
    auto product = [&](int factors) {
        BigInt n = 1;
        for (int i = 0; i < factors; ++i)
            n *= primes[random() % std::size(primes)];
        return n;
    };
    BigInt numerator = product(static_cast<int>(random() % 12)) * (1 + random() % 1000);
    BigInt denominator = product(static_cast<int>(random() % 12));
    const auto exponent = static_cast<std::int64_t>(random() % 41) - 20;
    return ExactValue::fraction(random() % 2 == 1, numerator, denominator, exponent);
}

} // namespace

class TestBoundedWork : public QObject {
    Q_OBJECT

  private slots:
    void arithmeticMatchesReducedRationals();
    void commonDivisorMatchesGcd();
    void relativeErrorMatchesReference();
    void hugeRationalErrorsArePrompt();
    void parseReportsItsWork();
    void streamBudget();
};

void TestBoundedWork::arithmeticMatchesReducedRationals() {
    std::mt19937_64 random(23);
    for (int i = 0; i < 4000; ++i) {
        const ExactValue a = randomValue(random);
        const ExactValue b = randomValue(random);
        const Rational ra = rationalOf(a);
        const Rational rb = rationalOf(b);
        const ExactValue sum = a + b;
        const ExactValue difference = a - b;
        const ExactValue product = a * b;
        QCOMPARE(rationalOf(sum), Rational(ra + rb));
        QCOMPARE(rationalOf(difference), Rational(ra - rb));
        QCOMPARE(rationalOf(product), Rational(ra * rb));
        QVERIFY(isCanonical(sum));
        QVERIFY(isCanonical(difference));
        QVERIFY(isCanonical(product));
        if (!b.isZero()) {
            const ExactValue quotient = a / b;
            QCOMPARE(rationalOf(quotient), Rational(ra / rb));
            QVERIFY(isCanonical(quotient));
        }
    }
    // x − x is +0 and a value minus itself plus itself is itself.
    const ExactValue third = ExactValue::fraction(true, 1, 3);
    QVERIFY((third - third).isIdenticalTo(ExactValue::zero()));
    QVERIFY(((third - third) + third).isIdenticalTo(third));
}

void TestBoundedWork::commonDivisorMatchesGcd() {
    std::mt19937_64 random(7);
    for (int i = 0; i < 2000; ++i) {
        BigInt a = 1;
        BigInt b = 1;
        // Sizes from one word to many, often very different, often with a common factor.
        const int wordsA = 1 + static_cast<int>(random() % 40);
        const int wordsB = 1 + static_cast<int>(random() % 3);
        for (int w = 0; w < wordsA; ++w)
            a = (a << 64) + random();
        for (int w = 0; w < wordsB; ++w)
            b = (b << 64) + random();
        if (random() % 2 == 1) {
            const BigInt common = BigInt(random() | 1) * 3;
            a *= common;
            b *= common;
        }
        const BigInt expected = boost::multiprecision::gcd(a, b);
        QCOMPARE(commonDivisor(a, b), expected);
        QCOMPARE(commonDivisor(b, a), expected);
    }
    QCOMPARE(commonDivisor(BigInt(0), BigInt(12)), BigInt(12));
    QCOMPARE(commonDivisor(BigInt(12), BigInt(0)), BigInt(12));
    QCOMPARE(commonDivisor(BigInt(1), BigInt(12)), BigInt(1));
    QCOMPARE(commonDivisor(BigInt(7) << 200, BigInt(7)), BigInt(7));
}

// The relative error (v − x) / x is computed as v / x − 1; the reference divides as written.
void TestBoundedWork::relativeErrorMatchesReference() {
    const char* inputs[] = {"3^2000/7^1000", "-1/3", "0.1", "2^-140/3", "7^300/11^290", "65519.5"};
    const char* formats[] = {"fp64", "fp32", "fp16", "bf16", "fp8_e4m3", "fp128", "int8", "nf4"};
    for (const char* text : inputs) {
        const ExactValue x = *parseValue(text).value;
        for (const char* id : formats) {
            const FormatSpec spec = *findFormat(id).spec;
            const ConversionReport r = convertAndDescribe(x, spec);
            if (!r.details.decoded.value.isFinite())
                continue; // overflow to ∞: no finite error to compare
            const Rational rx = rationalOf(x);
            const Rational rv = rationalOf(r.details.decoded.value);
            QCOMPARE(rationalOf(r.error), Rational(rv - rx));
            QCOMPARE(rationalOf(r.relativeError), Rational((rv - rx) / rx));
            QVERIFY(isCanonical(r.relativeError));
        }
    }
}

// `fpx show '3^66500/7^40000'` (15 bytes): computed naively, each format's error takes binary
// gcds of 100000-bit numbers. The whole catalogue must take a small fraction of a second of CPU
// time; the bound leaves room for a slow, busy machine.
void TestBoundedWork::hugeRationalErrorsArePrompt() {
    const ParsedValue parsed = parseValue("3^66500/7^40000");
    QVERIFY(parsed);
    const ExactValue& x = *parsed.value;
    const std::clock_t start = std::clock();
    for (const FormatSpec& spec : builtinFormats()) {
        const ConversionReport r = convertAndDescribe(x, spec);
        // Exact: the error and the relative error agree with each other, by multiplication
        // (no division involved): relative · x = error.
        if (r.relativeError.isFinite())
            QVERIFY((r.relativeError * x).isIdenticalTo(r.error) ||
                    (r.error.isZero() && r.relativeError.isZero()));
    }
    const double seconds = double(std::clock() - start) / CLOCKS_PER_SEC;
    QVERIFY2(seconds < 3.0, qPrintable(QString("took %1 s of CPU").arg(seconds)));
}

void TestBoundedWork::parseReportsItsWork() {
    const ParsedValue cheap = parseValue("0.1");
    QVERIFY(cheap);
    QVERIFY(cheap.work < kFreeValueWork);
    const ParsedValue costly = parseValue("3^66000*3^66000");
    QVERIFY(costly);
    QVERIFY(costly.work > kFreeValueWork);
    // Refused values report the work spent before the refusal: a stream pays for them too.
    std::string many;
    for (int i = 0; i < 200; ++i)
        many += (i ? "*" : "") + std::string("(3^60000+1)");
    const ParsedValue refused = parseValue(many);
    QVERIFY(!refused);
    QVERIFY(refused.work > 0);
    const ExpressionParse expression = parseExpression("3^66000*3^66000");
    QVERIFY(expression);
    QVERIFY(expression.work > kFreeValueWork);
}

void TestBoundedWork::streamBudget() {
    StreamBudget budget(10 * kFreeValueWork);
    // Cheap values are free, however many.
    for (int i = 0; i < 100000; ++i)
        QVERIFY(budget.charge(kFreeValueWork / 2));
    QVERIFY(!budget.spent());
    // Costly ones are charged beyond the free part until the total is spent.
    for (int i = 0; i < 10; ++i)
        QVERIFY(budget.charge(2 * kFreeValueWork));
    QVERIFY(!budget.charge(2 * kFreeValueWork));
    QVERIFY(budget.spent());
    // A value costs at least its size squared to round and print.
    QVERIFY(valueWork(*parseValue("3^66000").value) > 1e10);
}

QTEST_APPLESS_MAIN(TestBoundedWork)
#include "tst_bounded_work.moc"
