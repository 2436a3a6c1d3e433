// SPDX-License-Identifier: GPL-3.0-or-later
// Sums and dot products in a format (accumulation.h).
//
// References are independent of the code under test: the issue's known results worked by
// hand, applyOperation (the exact core's one definition of an operation) for every fast-path
// addition, ExactValue arithmetic for the superaccumulator, and .npy files written byte by byte
// here.
#include "fpx/accumulation/accumulation.h"
#include "fpx/accumulation/accumulation_arithmetic.h"
#include "fpx/data/npy_reader.h"
#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/superaccumulator.h"
#include "fpx/exact/wide_rounding.h"

#include "test_support.h"

#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace fpx;
using namespace fpx::test;
using namespace fpx::accumulation_ops;

namespace {

// x as an exact value, through frexp (not the core's conversion).
ExactValue referenceExact(double x) {
    if (std::isnan(x))
        return ExactValue::nan();
    if (std::isinf(x))
        return ExactValue::infinity(x < 0);
    if (x == 0)
        return ExactValue::zero(std::signbit(x));
    int exponent = 0;
    const double mantissa = std::frexp(std::fabs(x), &exponent);
    const auto significand = static_cast<std::int64_t>(std::ldexp(mantissa, 53));
    return ExactValue::dyadic(x < 0, BigInt(significand), exponent - 53);
}

bool sameResult(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return a.isNaN() && b.isNaN();
    return a.isIdenticalTo(b);
}

TermSequence makeOrFail(const QString& distribution, std::size_t count, const FormatSpec& element,
                        std::uint64_t seed = 1) {
    std::string error;
    const auto parsed = parseTermDistribution(distribution.toStdString(), error);
    if (!parsed)
        qFatal("distribution %s: %s", qPrintable(distribution), error.c_str());
    auto terms = makeTerms(*parsed, count, element, seed, error);
    if (!terms)
        qFatal("terms %s: %s", qPrintable(distribution), error.c_str());
    return std::move(*terms);
}

AccumulationOptions optionsFor(const TermSequence& terms, const QString& accumulator,
                               const QString& method, std::size_t traceEvery = 0) {
    AccumulationOptions options;
    options.element = terms.element;
    options.accumulator = lookUp(accumulator);
    options.method = *parseSumMethod(method.toStdString());
    options.traceEvery = traceEvery;
    return options;
}

AccumulationResult sum(const TermSequence& terms, const QString& accumulator,
                       const QString& method = "sequential", std::size_t traceEvery = 0) {
    return accumulate(terms, optionsFor(terms, accumulator, method, traceEvery));
}

// Every value of a format of at most 8 bits, one per code.
std::vector<ExactValue> allValues(const FormatSpec& spec) {
    std::vector<ExactValue> values;
    for (Code c = 0; c <= spec.codeMask(); ++c)
        values.push_back(decodeCode(spec, c).value);
    return values;
}

// Checks a + b and a − b of the hardware path against applyOperation, by the bit trick and by
// the biased sum in a's binade; counts how often each answered without the exact core (so the
// test is not vacuous).
std::size_t binadeAnswered = 0;
template <class Arith>
void checkPair(Arith& arith, const FormatSpec& spec, const ExactValue& a, const ExactValue& b,
               std::size_t& answered, std::size_t& checked) {
    using V = typename Arith::Value;
    const V x = convertValue<V>(a);
    const V y = convertValue<V>(b);
    const std::array<ExactValue, 2> operands{a, b};
    for (const Operation op : {Operation::Add, Operation::Subtract}) {
        const V fast = op == Operation::Add ? arith.add(x, y) : arith.sub(x, y);
        const ExactValue expected = applyOperation(op, operands, spec).value;
        const ExactValue got = convertValue<ExactValue>(fast);
        if (!sameResult(got, expected))
            QFAIL(qPrintable(QString("%1: %2 %3 %4 gave %5, the exact core %6")
                                 .arg(QString::fromStdString(spec.id), valueText(a),
                                      op == Operation::Add ? "+" : "-", valueText(b),
                                      valueText(got), valueText(expected))));
        V r;
        if constexpr (!std::is_same_v<Arith, NativeDoubleArithmetic>) {
            answered += arith.rounder.round(op == Operation::Add ? x + y : x - y, r) ? 1 : 0;
            // The biased sum inside a's binade, where it claims an answer.
            if (const auto binade = arith.binadeOf(x)) {
                if (Arith::tryAddInBinade(x, op == Operation::Add ? y : -y, *binade, r)) {
                    ++binadeAnswered;
                    if (!sameResult(convertValue<ExactValue>(r), expected))
                        QFAIL(qPrintable(QString("%1: %2 %3 %4 in a's binade gave %5, the exact "
                                                 "core %6")
                                             .arg(QString::fromStdString(spec.id), valueText(a),
                                                  op == Operation::Add ? "+" : "-", valueText(b),
                                                  valueText(convertValue<ExactValue>(r)),
                                                  valueText(expected))));
                }
            }
        }
        ++checked;
    }
}

// Random values of a format: random codes (every exponent) and values near a random centre
// (so that operands overlap and their sums round).
std::vector<ExactValue> randomValues(const FormatSpec& spec, std::size_t count,
                                     std::mt19937_64& random) {
    std::vector<ExactValue> values;
    const FormatLimits limits = deriveLimits(spec);
    for (std::size_t i = 0; i < count; ++i) {
        const Code code = (Code(random()) | (Code(random()) << 64)) & spec.codeMask();
        if (i % 2 == 0) {
            values.push_back(decodeCode(spec, code).value);
            continue;
        }
        // 2^k · (1 + small) with k within a few binades of 0: close operands.
        std::uniform_int_distribution<int> binade(-3, 3);
        std::uniform_real_distribution<double> fraction(1, 2);
        const double x = std::ldexp(fraction(random), binade(random)) * (random() % 2 ? -1 : 1);
        values.push_back(decodeCode(spec, roundToFormat(referenceExact(x), spec).code).value);
    }
    (void)limits;
    return values;
}

// Values where additions tie, overflow, underflow and cancel, for a format with hardware path.
std::vector<ExactValue> craftedValues(const FormatSpec& spec) {
    const FormatLimits limits = deriveLimits(spec);
    const ExactValue one = ExactValue::integer(1);
    const ExactValue ulpAtOne = *limits.epsilon;
    const ExactValue big = ExactValue::integer(1).timesPowerOfTwo(spec.precision());
    std::vector<ExactValue> values = {
        ExactValue::zero(false),
        ExactValue::zero(true),
        one,
        one.negated(),
        ulpAtOne,
        ulpAtOne.timesPowerOfTwo(-1),
        big,
        big.negated(),
        limits.max,
        limits.max.negated(),
        limits.minPositive,
        limits.minPositive.negated(),
        *limits.minNormal,
        limits.minNormal->negated(),
        limits.max - limits.max.timesPowerOfTwo(-spec.precision()), // one below max's ULP
    };
    for (auto& v : values)
        v = decodeCode(spec, roundToFormat(v, spec).code).value;
    if (spec.hasInfinity()) {
        values.push_back(ExactValue::infinity(false));
        values.push_back(ExactValue::infinity(true));
    }
    if (spec.hasNaN())
        values.push_back(ExactValue::nan());
    return values;
}

// A .npy file written here byte by byte: magic, version, little-endian header length, the
// header padded with spaces to a multiple of 64 bytes and ending in a newline, then the data.
std::string npyBytes(const std::string& descr, const std::string& shape, const std::string& data,
                     int major = 1, bool fortran = false) {
    std::string header = "{'descr': '" + descr +
                         "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape + ", }";
    const std::size_t preamble = major == 1 ? 10 : 12;
    while ((preamble + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += static_cast<char>(major);
    bytes += '\0';
    const std::size_t length = header.size();
    bytes += static_cast<char>(length & 0xff);
    bytes += static_cast<char>((length >> 8) & 0xff);
    if (major != 1) {
        bytes += '\0';
        bytes += '\0';
    }
    return bytes + header + data;
}

template <class T> std::string rawBytes(const std::vector<T>& values) {
    std::string bytes(values.size() * sizeof(T), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

} // namespace

class TestAccumulation : public QObject {
    Q_OBJECT

  private slots:
    void sumMethodNames();
    void knownSums_data();
    void knownSums();
    void stagnationAndTrace();
    void dotProductCancellation();
    void dotProductStages();
    void pathChoice();
    void widerTermOnAMidpoint_data();
    void widerTermOnAMidpoint();
    void wideRounderAgainstRoundToFormat();
    void smallFormatsEveryPair_data();
    void smallFormatsEveryPair();
    void randomAndCraftedPairs_data();
    void randomAndCraftedPairs();
    void additionTableEveryPair_data();
    void additionTableEveryPair();
    void wholeSumsFastEqualsExact_data();
    void wholeSumsFastEqualsExact();
    void zeroMeanSumsFastEqualsExact_data();
    void zeroMeanSumsFastEqualsExact();
    void stochasticRoundingIsSeeded();
    void progressAndCancel();
    void superaccumulatorAgainstExactValue();
    void doubleConversions();
    void distributions();
    void textFiles();
    void npyGoodFiles();
    void tensorFilesOfTerms();
    void npyBrokenFiles_data();
    void npyBrokenFiles();
};

void TestAccumulation::sumMethodNames() {
    for (const char* id : {"sequential", "pairwise", "kahan", "blocked:1", "blocked:256"}) {
        const auto spec = parseSumMethod(id);
        QVERIFY2(spec, id);
        QCOMPARE(QString::fromStdString(sumMethodId(*spec)), QString(id));
    }
    for (const char* bad : {"", "blocked", "blocked:", "blocked:0", "blocked:-1", "blocked:2x",
                            "Sequential", "kahan:2"})
        QVERIFY2(!parseSumMethod(bad), bad);
    QCOMPARE(parseSumMethod("blocked:32")->blockSize, std::size_t(32));
}

void TestAccumulation::knownSums_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("expected");
    // 2048 + 1 is a tie in FP16 (the ULP is 2 from 2048 on) and ties to the even 2048; BF16's
    // ULP is 2 from 256 on; E4M3's from 16 on. Pairwise and Kahan keep every partial sum exact;
    // blocks of 256 ones are exact in FP16 and their FP32 total too.
    QTest::newRow("fp16 sequential") << "fp16"
                                     << "sequential"
                                     << "2048";
    QTest::newRow("bf16 sequential") << "bf16"
                                     << "sequential"
                                     << "256";
    QTest::newRow("fp16 pairwise") << "fp16"
                                   << "pairwise"
                                   << "4096";
    QTest::newRow("fp16 kahan") << "fp16"
                                << "kahan"
                                << "4096";
    QTest::newRow("bf16 pairwise") << "bf16"
                                   << "pairwise"
                                   << "4096";
    QTest::newRow("fp32 sequential") << "fp32"
                                     << "sequential"
                                     << "4096";
    QTest::newRow("e4m3 sequential") << "e4m3"
                                     << "sequential"
                                     << "16";
    QTest::newRow("e5m2 sequential") << "e5m2"
                                     << "sequential"
                                     << "8";
    QTest::newRow("fp16 blocked:256") << "fp16"
                                      << "blocked:256"
                                      << "4096";
    QTest::newRow("bf16 blocked:256") << "bf16"
                                      << "blocked:256"
                                      << "4096";
    QTest::newRow("bf16 blocked:512") << "bf16"
                                      << "blocked:512"
                                      << "2048";
    QTest::newRow("fp80 sequential") << "fp80"
                                     << "sequential"
                                     << "4096";
    QTest::newRow("fp16 rtz") << "fp16"
                              << "sequential"
                              << "2048";
}

void TestAccumulation::knownSums() {
    QFETCH(QString, format);
    QFETCH(QString, method);
    QFETCH(QString, expected);
    const TermSequence terms = makeOrFail("ones", 4096, lookUp(format));
    const AccumulationResult r = sum(terms, format, method);
    QCOMPARE(valueText(r.sum), valueText(exactValue(expected)));
    QCOMPARE(valueText(r.exactSum), valueText(exactValue("4096")));
    QCOMPARE(valueText(r.error), valueText(exactValue(expected) - exactValue("4096")));
    QCOMPARE(r.bits, roundToFormat(exactValue(expected), r.resultFormat).code);
    QVERIFY(!r.cancelled);
}

void TestAccumulation::stagnationAndTrace() {
    const TermSequence terms = makeOrFail("ones", 4096, lookUp("fp16"));
    const AccumulationResult r = sum(terms, "fp16", "sequential", 1024);
    // Terms 0…2047 bring the sum to 2048; term 2048 (counting from 0) is the first one lost.
    QCOMPARE(r.stagnationTerm, std::optional<std::size_t>(2048));
    QCOMPARE(r.trace.size(), std::size_t(4));
    const char* sums[] = {"1024", "2048", "2048", "2048"};
    for (std::size_t k = 0; k < 4; ++k) {
        QCOMPARE(r.trace[k].terms, (k + 1) * 1024);
        QCOMPARE(valueText(r.trace[k].sum), valueText(exactValue(sums[k])));
        QCOMPARE(valueText(r.trace[k].exactSum),
                 valueText(ExactValue::integer(static_cast<long>((k + 1) * 1024))));
    }
    QCOMPARE(valueText(r.relativeError), valueText(exactValue("-1/2")));
    // Pairwise has no single accumulator a term updates: no stagnation term.
    QVERIFY(!sum(terms, "fp16", "pairwise").stagnationTerm);
    QVERIFY(!sum(terms, "fp16", "kahan").stagnationTerm);
    QCOMPARE(sum(makeOrFail("ones", 4096, lookUp("bf16")), "bf16").stagnationTerm,
             std::optional<std::size_t>(256));
    // Pairwise at a trace point folds its partial sums: 4096 at every power of two.
    const AccumulationResult p = sum(terms, "fp16", "pairwise", 1000);
    QCOMPARE(p.trace.size(), std::size_t(4));
    QCOMPARE(valueText(p.trace[3].sum), valueText(exactValue("4000")));
    // An exact zero sum has no relative error.
    const TermSequence zeros = makeOrFail("const:0", 10, lookUp("fp16"));
    QVERIFY(sum(zeros, "fp16").relativeError.isNaN());
    QVERIFY(!sum(zeros, "fp16").stagnationTerm); // zero terms never count as lost
}

void TestAccumulation::dotProductCancellation() {
    const FormatSpec fp32 = lookUp("fp32");
    const TermSequence a =
        termsFromValues({exactValue("1e10"), exactValue("1"), exactValue("-1e10")}, fp32);
    const TermSequence b =
        termsFromValues({exactValue("1"), exactValue("1"), exactValue("1")}, fp32);
    DotOptions options;
    options.element = fp32;
    options.accumulator = fp32;
    const DotResult rounded = dotProduct(a, b, options);
    QCOMPARE(valueText(rounded.value), valueText(exactValue("0")));
    QCOMPARE(valueText(rounded.exact), valueText(exactValue("1")));
    QCOMPARE(valueText(rounded.error), valueText(exactValue("-1")));
    QVERIFY(rounded.bits && *rounded.bits == 0);
    options.accumulator = std::nullopt;
    const DotResult exact = dotProduct(a, b, options);
    QCOMPARE(valueText(exact.value), valueText(exactValue("1")));
    QVERIFY(!exact.bits);
    QVERIFY(!exact.resultFormat);
}

void TestAccumulation::dotProductStages() {
    // Products rounded into FP16 lose what an exact product keeps: 1.001 × 1.001 in FP16.
    const FormatSpec fp16 = lookUp("fp16");
    const ExactValue x = decodeCode(fp16, roundToFormat(exactValue("1.001"), fp16).code).value;
    const TermSequence a = termsFromValues({x, x}, fp16);
    DotOptions options;
    options.element = fp16;
    options.product = fp16;
    options.accumulator = std::nullopt;
    const DotResult r = dotProduct(a, a, options);
    const std::array<ExactValue, 2> square{x, x};
    const ExactValue product = applyOperation(Operation::Multiply, square, fp16).value;
    QCOMPARE(valueText(r.value), valueText(product + product));
    QCOMPARE(valueText(r.exact), valueText(x * x + x * x));
    // Blocked: blocks of 2 in FP16, promoted into FP32: 2048 + 1 + 1 per block of ones stays.
    std::vector<ExactValue> ones(6, ExactValue::integer(1));
    ones[0] = ExactValue::integer(2048);
    const TermSequence big = termsFromValues(ones, fp16);
    const TermSequence unit =
        termsFromValues(std::vector<ExactValue>(6, ExactValue::integer(1)), fp16);
    options.product = std::nullopt;
    options.accumulator = fp16;
    options.blockSize = 2;
    const DotResult blocked = dotProduct(big, unit, options);
    // Block 1: 2048 + 1 = 2048 (tie to even); blocks 2, 3: 2 each; FP32 total 2052.
    QCOMPARE(valueText(blocked.value), valueText(exactValue("2052")));
    QCOMPARE(QString::fromStdString(blocked.resultFormat->id), QString("fp32"));
    // Unblocked, FP16 loses every 1 after 2048.
    options.blockSize = 0;
    QCOMPARE(valueText(dotProduct(big, unit, options).value), valueText(exactValue("2048")));
}

void TestAccumulation::pathChoice() {
    const RoundingOptions rne;
    auto path = [&](const char* element, const char* accumulator, RoundingOptions r = {}) {
        return QString::fromStdString(
            accumulationFastPath(lookUp(element), lookUp(accumulator), r).value_or("exact core"));
    };
    QCOMPARE(path("fp16", "fp16"), QString("float"));
    QCOMPARE(path("bf16", "bf16"), QString("float"));
    QCOMPARE(path("tf32", "tf32"), QString("float"));
    QCOMPARE(path("e4m3", "e4m3"), QString("float"));
    QCOMPARE(path("fp32", "fp16"), QString("double")); // 2·24 + 2 > 24
    QCOMPARE(path("fp32", "fp32"), QString("double"));
    QCOMPARE(path("fp64", "fp64"), QString("fp64 native"));
    QCOMPARE(path("fp80", "fp80"), QString("exact core"));
    // Terms wider than the accumulator: only where every sum the accumulator holds is exact in
    // the wide type (a term on a midpoint must not lose a tiny accumulator value).
    QCOMPARE(path("e3m4", "e4m3"), QString("float"));
    QCOMPARE(path("e4m3", "e5m2"), QString("double"));
    QCOMPARE(path("fp16", "bf16"), QString("exact core"));
    QCOMPARE(path("fp32", "bf16"), QString("exact core"));
    QCOMPARE(path("fp128", "fp64"), QString("exact core"));
    QCOMPARE(path("int8", "fp16"), QString("exact core"));
    QCOMPARE(path("fp16", "int8"), QString("exact core"));
    RoundingOptions sr;
    sr.mode = RoundingMode::Stochastic;
    QCOMPARE(path("fp16", "fp16", sr), QString("exact core"));
    RoundingOptions rtz;
    rtz.mode = RoundingMode::TowardZero;
    QCOMPARE(path("bf16", "bf16", rtz), QString("exact core"));
    (void)rne;
}

void TestAccumulation::widerTermOnAMidpoint_data() {
    // The accumulator's smallest subnormal, then a term exactly on a midpoint of the
    // accumulator: the exact sum lies just above the midpoint and rounds up (worked by hand).
    // A wide sum that rounded the tiny value away would make it a tie, rounded to even.
    QTest::addColumn<QString>("element");
    QTest::addColumn<QString>("accumulator");
    QTest::addColumn<double>("tiny");
    QTest::addColumn<double>("midpoint");
    QTest::addColumn<QString>("expected");
    // BF16 keeps 8 bits: 1 + 2^−8 lies between 1 and 1 + 2^−7.
    QTest::newRow("fp32 into bf16") << "fp32"
                                    << "bf16" << 0x1p-133 << 1.00390625 << "1.0078125";
    // E5M2 keeps 3 bits: 288 = 1.001b · 2^8 lies between 256 and 320.
    QTest::newRow("e4m3 into e5m2") << "fp8_e4m3"
                                    << "fp8_e5m2" << 0x1p-16 << 288.0 << "320";
}

void TestAccumulation::widerTermOnAMidpoint() {
    QFETCH(QString, element);
    QFETCH(QString, accumulator);
    QFETCH(double, tiny);
    QFETCH(double, midpoint);
    QFETCH(QString, expected);
    TermSequence terms;
    terms.element = lookUp(element);
    terms.storage = TermSequence::Storage::Float;
    terms.floats = {static_cast<float>(tiny), static_cast<float>(midpoint)};
    // (Kahan rounds y = t − c into the accumulator first, so it sees the tie: not here.)
    for (const char* method : {"sequential", "blocked:4"}) {
        const AccumulationResult r = sum(terms, accumulator, method);
        QVERIFY2(valueText(r.sum) == valueText(exactValue(expected)),
                 qPrintable(QString("%1 (%2): %3")
                                .arg(method, QString::fromStdString(r.path), valueText(r.sum))));
    }
}

void TestAccumulation::wideRounderAgainstRoundToFormat() {
    // roundNormal of random doubles at several precisions against the core's rounding (with an
    // unbounded exponent: formats wide enough that no value is near their range's ends).
    std::mt19937_64 random(7);
    for (const char* id : {"e11m3", "e11m7", "e11m10", "e11m23", "e11m30"}) {
        const FormatSpec spec = lookUp(id);
        const WideRounder<double> rounder(spec.precision(), 0x1p-1000, 0x1p1000);
        for (int i = 0; i < 20000; ++i) {
            double x =
                std::ldexp(static_cast<double>(random() >> 11), -53 + int(random() % 40) - 20);
            if (i % 4 == 0) // a tie: the bits just below the kept ones are 100…0
                x = std::ldexp(std::floor(std::ldexp(x, spec.precision() + 1)) + (i % 8 == 0), 0);
            if (random() % 2)
                x = -x;
            if (x == 0)
                continue;
            double r = 0;
            QVERIFY(rounder.round(x, r));
            const ExactValue expected =
                decodeCode(spec, roundToFormat(referenceExact(x), spec).code).value;
            QCOMPARE(valueText(referenceExact(r)), valueText(expected));
        }
    }
}

void TestAccumulation::smallFormatsEveryPair_data() {
    QTest::addColumn<QString>("format");
    for (const char* id : {"fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "fp8_e5m2fnuz", "fp8_e3m4",
                           "fp8_e4m3b11fnuz", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1"})
        QTest::newRow(id) << id;
}

void TestAccumulation::smallFormatsEveryPair() {
    QFETCH(QString, format);
    const FormatSpec spec = lookUp(format);
    QCOMPARE(accumulationFastPath(spec, spec, {}).value_or(""), std::string("float"));
    auto arith = WideArithmetic<float>::make(spec, {});
    const std::vector<ExactValue> values = allValues(spec);
    std::size_t answered = 0, checked = 0;
    binadeAnswered = 0;
    for (const ExactValue& a : values)
        for (const ExactValue& b : values) {
            checkPair(arith, spec, a, b, answered, checked);
            if (QTest::currentTestFailed())
                return;
        }
    QCOMPARE(checked, 2 * values.size() * values.size());
    QVERIFY2(answered > checked / 4, "the float path answered too rarely to be tested");
    QVERIFY2(binadeAnswered > checked / 20, "the biased sum answered too rarely to be tested");
}

void TestAccumulation::randomAndCraftedPairs_data() {
    QTest::addColumn<QString>("element");
    QTest::addColumn<QString>("accumulator");
    QTest::addColumn<int>("count");
    QTest::newRow("fp16") << "fp16"
                          << "fp16" << 60000;
    QTest::newRow("bf16") << "bf16"
                          << "bf16" << 60000;
    QTest::newRow("tf32") << "tf32"
                          << "tf32" << 30000;
    QTest::newRow("fp32 into fp16 (double)") << "fp32"
                                             << "fp16" << 30000;
    QTest::newRow("e3m4 into e4m3 (float)") << "fp8_e3m4"
                                            << "fp8_e4m3" << 30000;
    QTest::newRow("e4m3 into e5m2 (double)") << "fp8_e4m3"
                                             << "fp8_e5m2" << 30000;
    QTest::newRow("fp32") << "fp32"
                          << "fp32" << 30000;
    QTest::newRow("fp64 (native)") << "fp64"
                                   << "fp64" << 10000;
}

void TestAccumulation::randomAndCraftedPairs() {
    QFETCH(QString, element);
    QFETCH(QString, accumulator);
    QFETCH(int, count);
    const FormatSpec e = lookUp(element);
    const FormatSpec acc = lookUp(accumulator);
    const std::string path = accumulationFastPath(e, acc, {}).value_or("");
    std::mt19937_64 random(11);
    std::vector<ExactValue> left = randomValues(acc, static_cast<std::size_t>(count), random);
    std::vector<ExactValue> right = randomValues(e, static_cast<std::size_t>(count), random);
    // Crafted: every pair of the crafted values of both formats.
    for (const ExactValue& a : craftedValues(acc))
        for (const ExactValue& b : craftedValues(e)) {
            left.push_back(a);
            right.push_back(b);
        }
    // A term on a midpoint of the accumulator (when the term is wider) beside the
    // accumulator's smallest values: the exact sum is just off the tie.
    const FormatLimits accLimits = deriveLimits(acc);
    for (int k = -6; k <= 12; ++k) {
        const ExactValue midpoint =
            (ExactValue::integer(1) + ExactValue::integer(1).timesPowerOfTwo(-acc.precision()))
                .timesPowerOfTwo(k);
        const ExactValue term = decodeCode(e, roundToFormat(midpoint, e).code).value;
        for (const ExactValue& a : {accLimits.minPositive, accLimits.minPositive.negated(),
                                    accLimits.minPositive.timesPowerOfTwo(1)}) {
            left.push_back(a);
            right.push_back(term);
        }
    }
    std::size_t answered = 0, checked = 0;
    binadeAnswered = 0;
    auto run = [&](auto arith) {
        for (std::size_t i = 0; i < left.size() && !QTest::currentTestFailed(); ++i)
            checkPair(arith, acc, left[i], right[i], answered, checked);
    };
    if (path == "float")
        run(WideArithmetic<float>::make(acc, {}));
    else if (path == "double")
        run(WideArithmetic<double>::make(acc, {}));
    else if (path == "fp64 native")
        run(NativeDoubleArithmetic{ExactArithmetic{acc, {}}});
    else
        QFAIL("no hardware path");
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(checked, 2 * left.size());
    if (path != "fp64 native") {
        QVERIFY2(answered > checked / 4, "the hardware path answered too rarely to be tested");
        QVERIFY2(binadeAnswered > checked / 50, "the biased sum answered too rarely to be tested");
    }
}

void TestAccumulation::additionTableEveryPair_data() {
    QTest::addColumn<QString>("element");
    QTest::addColumn<QString>("accumulator");
    for (const char* id : {"fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "fp8_e5m2fnuz", "fp8_e3m4",
                           "fp8_e4m3b11fnuz", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1"})
        QTest::newRow(id) << id << id;
    QTest::newRow("e5m2 into e4m3") << "fp8_e5m2"
                                    << "fp8_e4m3";
    QTest::newRow("e3m4 into e4m3") << "fp8_e3m4"
                                    << "fp8_e4m3";
    QTest::newRow("fp4 into e4m3") << "fp4_e2m1"
                                   << "fp8_e4m3";
}

void TestAccumulation::additionTableEveryPair() {
    // Every entry of the table, for both overflow policies, against applyOperation on the
    // decoded values; and every element value's float back to its code.
    QFETCH(QString, element);
    QFETCH(QString, accumulator);
    const FormatSpec e = lookUp(element);
    const FormatSpec acc = lookUp(accumulator);
    QCOMPARE(accumulationFastPath(e, acc, {}).value_or(""), std::string("float"));
    for (const OverflowPolicy policy : kPolicies) {
        RoundingOptions rounding;
        rounding.overflow = policy;
        const auto table = AdditionTable::make(e, acc, WideArithmetic<float>::make(acc, rounding));
        QVERIFY(table.has_value());
        for (Code t = 0; t <= e.codeMask(); ++t) {
            const ExactValue term = decodeCode(e, t).value;
            const float termFloat = static_cast<float>(doubleFromExact(term));
            const std::uint16_t termCode = table->termCode(termFloat);
            QVERIFY(termCode != AdditionTable::kNoCode);
            QVERIFY2(sameResult(decodeCode(e, termCode).value, term), qPrintable(valueText(term)));
            for (Code s = 0; s <= acc.codeMask(); ++s) {
                const ExactValue sum = decodeCode(acc, s).value;
                const std::array<ExactValue, 2> operands{sum, term};
                const ExactValue expected =
                    applyOperation(Operation::Add, operands, acc, rounding).value;
                const std::uint16_t got = table->row(termCode)[s];
                if (!sameResult(decodeCode(acc, got).value, expected) ||
                    !sameResult(referenceExact(table->sumValue(got)), expected))
                    QFAIL(qPrintable(QString("%1 + %2 gave %3, the exact core %4")
                                         .arg(valueText(sum), valueText(term),
                                              valueText(decodeCode(acc, got).value),
                                              valueText(expected))));
            }
        }
        // Floats that are no element value are refused, not misread.
        QCOMPARE(table->termCode(std::nextafter(1.0F, 2.0F)), AdditionTable::kNoCode);
        QCOMPARE(table->termCode(std::numeric_limits<float>::max()), AdditionTable::kNoCode);
    }
    // Wider formats have none.
    QVERIFY(!AdditionTable::make(lookUp("fp16"), acc, WideArithmetic<float>::make(acc, {}))
                 .has_value());
    QVERIFY(!AdditionTable::make(e, lookUp("bf16"), WideArithmetic<float>::make(lookUp("bf16"), {}))
                 .has_value());
}

void TestAccumulation::wholeSumsFastEqualsExact_data() {
    QTest::addColumn<QString>("element");
    QTest::addColumn<QString>("accumulator");
    QTest::addColumn<QString>("values");
    const char* same[] = {"fp16",         "bf16",     "tf32",     "fp8_e4m3", "fp8_e5m2",
                          "fp8_e4m3fnuz", "fp6_e3m2", "fp4_e2m1", "fp32",     "fp64"};
    for (const char* id : same) {
        QTest::newRow(qPrintable(QString("%1 normal").arg(id))) << id << id << "normal:0.5:2";
        QTest::newRow(qPrintable(QString("%1 uniform").arg(id))) << id << id << "uniform:-1:3";
    }
    QTest::newRow("fp32 into fp16") << "fp32"
                                    << "fp16"
                                    << "normal:1:1";
    QTest::newRow("fp8 into fp16") << "fp8_e4m3"
                                   << "fp16"
                                   << "uniform:0:448";
    QTest::newRow("fp16 overflows") << "fp16"
                                    << "fp16"
                                    << "uniform:0:65504";
    QTest::newRow("e4m3 overflows") << "fp8_e4m3"
                                    << "fp8_e4m3"
                                    << "uniform:0:100";
    QTest::newRow("bf16 tiny") << "bf16"
                               << "bf16"
                               << "normal:0:1e-38";
    QTest::newRow("fp16 tiny") << "fp16"
                               << "fp16"
                               << "normal:0:1e-6";
    // Sums stuck at a power of two, and walks across binades both ways.
    QTest::newRow("fp16 stuck at 2048") << "fp16"
                                        << "fp16"
                                        << "ones";
    QTest::newRow("e4m3 into bf16 positive") << "fp8_e4m3"
                                             << "bf16"
                                             << "uniform:0:1";
    QTest::newRow("e4m3 into fp16 walk") << "fp8_e4m3"
                                         << "fp16"
                                         << "uniform:-1:1";
    QTest::newRow("e4m3 walk") << "fp8_e4m3"
                               << "fp8_e4m3"
                               << "uniform:-1:1";
    QTest::newRow("e5m2 positive") << "fp8_e5m2"
                                   << "fp8_e5m2"
                                   << "uniform:0:1";
    QTest::newRow("tf32 walk") << "tf32"
                               << "tf32"
                               << "uniform:-8:8";
}

void TestAccumulation::wholeSumsFastEqualsExact() {
    QFETCH(QString, element);
    QFETCH(QString, accumulator);
    QFETCH(QString, values);
    const TermSequence terms = makeOrFail(values, 5000, lookUp(element), 3);
    for (const char* method : {"sequential", "pairwise", "kahan", "blocked:16"}) {
        for (const OverflowPolicy policy : kPolicies) {
            AccumulationOptions options = optionsFor(terms, accumulator, method, 250);
            options.rounding.overflow = policy;
            const AccumulationResult fast = accumulate(terms, options);
            options.exactCoreOnly = true;
            const AccumulationResult exact = accumulate(terms, options);
            QVERIFY2(fast.fastPath, qPrintable(QString::fromStdString(fast.path)));
            QVERIFY(!exact.fastPath);
            const QString what = QString("%1 %2").arg(method).arg(int(policy));
            QVERIFY2(sameResult(fast.sum, exact.sum),
                     qPrintable(what + ": " + valueText(fast.sum) + " vs " + valueText(exact.sum)));
            QVERIFY2(fast.bits == exact.bits, qPrintable(what));
            QVERIFY2(fast.stagnationTerm == exact.stagnationTerm, qPrintable(what));
            QCOMPARE(fast.trace.size(), exact.trace.size());
            for (std::size_t k = 0; k < fast.trace.size(); ++k)
                QVERIFY2(sameResult(fast.trace[k].sum, exact.trace[k].sum), qPrintable(what));
        }
    }
}

void TestAccumulation::zeroMeanSumsFastEqualsExact_data() {
    QTest::addColumn<QString>("element");
    QTest::addColumn<QString>("accumulator");
    QTest::addColumn<QString>("values");
    QTest::addColumn<QString>("path");
    // The bench's zero-mean workload: E4M3 terms, normal(0, 1), whose sums keep crossing
    // binades and pass through zero and the subnormals; and the same in other formats.
    QTest::newRow("e4m3 into fp16") << "fp8_e4m3"
                                    << "fp16"
                                    << "normal:0:1"
                                    << "float";
    QTest::newRow("e4m3 into bf16") << "fp8_e4m3"
                                    << "bf16"
                                    << "normal:0:1"
                                    << "float";
    QTest::newRow("e4m3") << "fp8_e4m3"
                          << "fp8_e4m3"
                          << "normal:0:1"
                          << "float, addition table";
    QTest::newRow("e4m3 small") << "fp8_e4m3"
                                << "fp8_e4m3"
                                << "normal:0:0.01"
                                << "float, addition table";
    QTest::newRow("e5m2") << "fp8_e5m2"
                          << "fp8_e5m2"
                          << "normal:0:1"
                          << "float, addition table";
    QTest::newRow("e4m3fnuz") << "fp8_e4m3fnuz"
                              << "fp8_e4m3fnuz"
                              << "normal:0:4"
                              << "float, addition table";
    QTest::newRow("fp4") << "fp4_e2m1"
                         << "fp4_e2m1"
                         << "normal:0:1"
                         << "float, addition table";
    QTest::newRow("fp16") << "fp16"
                          << "fp16"
                          << "normal:0:1"
                          << "float";
    QTest::newRow("bf16 tiny") << "bf16"
                               << "bf16"
                               << "normal:0:1e-38"
                               << "float";
}

void TestAccumulation::zeroMeanSumsFastEqualsExact() {
    // Whole sequential sums, hardware path against the exact core: the sum, its bits, the
    // stagnation term and a trace.
    QFETCH(QString, element);
    QFETCH(QString, accumulator);
    QFETCH(QString, values);
    QFETCH(QString, path);
    const TermSequence terms = makeOrFail(values, 40000, lookUp(element), 5);
    for (const OverflowPolicy policy : kPolicies) {
        AccumulationOptions options = optionsFor(terms, accumulator, "sequential", 1000);
        options.rounding.overflow = policy;
        const AccumulationResult fast = accumulate(terms, options);
        options.exactCoreOnly = true;
        const AccumulationResult exact = accumulate(terms, options);
        QCOMPARE(QString::fromStdString(fast.path), path);
        QVERIFY2(sameResult(fast.sum, exact.sum),
                 qPrintable(valueText(fast.sum) + " vs " + valueText(exact.sum)));
        QCOMPARE(fast.bits, exact.bits);
        QVERIFY(fast.stagnationTerm == exact.stagnationTerm);
        QCOMPARE(fast.trace.size(), exact.trace.size());
        for (std::size_t k = 0; k < fast.trace.size(); ++k)
            QVERIFY2(sameResult(fast.trace[k].sum, exact.trace[k].sum),
                     qPrintable(QString::number(k)));
    }
}

void TestAccumulation::stochasticRoundingIsSeeded() {
    const TermSequence terms = makeOrFail("ones", 4096, lookUp("fp16"));
    AccumulationOptions options = optionsFor(terms, "fp16", "sequential");
    options.rounding.mode = RoundingMode::Stochastic;
    options.seed = 42;
    const AccumulationResult a = accumulate(terms, options);
    const AccumulationResult b = accumulate(terms, options);
    QCOMPARE(valueText(a.sum), valueText(b.sum));
    QCOMPARE(a.path, std::string("exact core"));
    // Unbiased: from 2048 on each 1 is a tie that rounds up half the time (in steps of 2), so
    // the sum stays near 4096, far from round-to-nearest's 2048.
    const ExactValue distance = (a.sum - exactValue("4096")).abs();
    QVERIFY2(compare(distance, exactValue("512")) < 0, qPrintable(valueText(a.sum)));
    options.seed = 43;
    const AccumulationResult c = accumulate(terms, options);
    QVERIFY(compare(c.sum, a.sum) != 0 || c.stagnationTerm != a.stagnationTerm);
}

void TestAccumulation::progressAndCancel() {
    const TermSequence terms = makeOrFail("ones", 5000, lookUp("fp80"));
    std::vector<std::size_t> calls;
    AccumulationOptions options = optionsFor(terms, "fp80", "sequential");
    const AccumulationResult all = accumulate(terms, options, [&](std::size_t done) {
        calls.push_back(done);
        return true;
    });
    QVERIFY(!all.cancelled);
    QVERIFY(!calls.empty());
    for (std::size_t k = 1; k < calls.size(); ++k)
        QVERIFY(calls[k] > calls[k - 1]);
    QVERIFY(calls.back() <= 5000);
    const AccumulationResult stopped =
        accumulate(terms, options, [](std::size_t) { return false; });
    QVERIFY(stopped.cancelled);
    QVERIFY(compare(stopped.sum, exactValue("5000")) < 0);
}

void TestAccumulation::superaccumulatorAgainstExactValue() {
    std::mt19937_64 random(5);
    const double extremes[] = {std::numeric_limits<double>::max(),
                               std::numeric_limits<double>::denorm_min(),
                               std::numeric_limits<double>::min(),
                               0x1.fffffffffffffp-1023,
                               1.0,
                               0x1p-1074 * 3,
                               0x1p1000,
                               -0.0};
    for (int round = 0; round < 60; ++round) {
        Superaccumulator acc;
        ExactValue reference;
        const int count = 1 + static_cast<int>(random() % 300);
        std::vector<double> added;
        for (int i = 0; i < count; ++i) {
            double x;
            switch (random() % 4) {
            case 0:
                x = extremes[random() % std::size(extremes)];
                break;
            case 1: // any finite bit pattern
                do {
                    x = std::bit_cast<double>(random());
                } while (!std::isfinite(x));
                break;
            case 2:
                x = std::ldexp(static_cast<double>(random() >> 11), int(random() % 200) - 100);
                break;
            default: // cancels an earlier term exactly
                x = added.empty() ? 1.0 : -added[random() % added.size()];
            }
            if (random() % 2)
                x = -x;
            added.push_back(x);
            acc.add(x);
            reference = reference + referenceExact(x);
        }
        QCOMPARE(valueText(acc.value()), valueText(reference));
    }
    // Floats go in without widening: every finite float bit pattern, against their exact sum.
    for (int round = 0; round < 20; ++round) {
        Superaccumulator acc;
        ExactValue reference;
        for (int i = 0; i < 200; ++i) {
            float x;
            do {
                x = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
            } while (!std::isfinite(x));
            if (i % 7 == 0)
                x = std::numeric_limits<float>::denorm_min() * float(1 + random() % 100);
            acc.add(x);
            reference = reference + referenceExact(x);
        }
        QCOMPARE(valueText(acc.value()), valueText(reference));
    }
    Superaccumulator floatSpecial;
    floatSpecial.add(-std::numeric_limits<float>::infinity());
    QCOMPARE(valueText(floatSpecial.value()), QString("-inf"));
    floatSpecial.add(std::numeric_limits<float>::quiet_NaN());
    QVERIFY(floatSpecial.value().isNaN());
    // max + max overflows no double: the superaccumulator has headroom.
    Superaccumulator big;
    for (int i = 0; i < 1000; ++i)
        big.add(std::numeric_limits<double>::max());
    QCOMPARE(valueText(big.value()), valueText(referenceExact(std::numeric_limits<double>::max()) *
                                               ExactValue::integer(1000)));
    Superaccumulator special;
    special.add(1.0);
    special.add(std::numeric_limits<double>::infinity());
    QCOMPARE(valueText(special.value()), QString("inf"));
    special.add(-std::numeric_limits<double>::infinity());
    QVERIFY(special.value().isNaN());
    Superaccumulator nan;
    nan.add(std::numeric_limits<double>::quiet_NaN());
    QVERIFY(nan.value().isNaN());
    // exactSums: the prefixes for a trace.
    const TermSequence terms = makeOrFail("uniform:-5:5", 1000, lookUp("fp32"));
    const ExactSums sums = exactSums(terms, 300);
    QCOMPARE(sums.prefixes.size(), std::size_t(3));
    ExactValue running;
    for (std::size_t i = 0; i < 900; ++i) {
        running = running + terms.at(i);
        if ((i + 1) % 300 == 0)
            QCOMPARE(valueText(sums.prefixes[i / 300]), valueText(running));
    }
}

void TestAccumulation::doubleConversions() {
    std::mt19937_64 random(9);
    for (int i = 0; i < 20000; ++i) {
        const double x = std::bit_cast<double>(random());
        if (std::isnan(x))
            continue;
        QCOMPARE(valueText(exactFromDouble(x)), valueText(referenceExact(x)));
        const double back = doubleFromExact(referenceExact(x));
        QVERIFY(std::bit_cast<std::uint64_t>(back) == std::bit_cast<std::uint64_t>(x));
    }
    QVERIFY(valuesFitFloat(lookUp("fp16")) && valuesFitFloat(lookUp("bf16")) &&
            valuesFitFloat(lookUp("fp32")) && valuesFitFloat(lookUp("e4m3")));
    QVERIFY(!valuesFitFloat(lookUp("fp64")) && valuesFitDouble(lookUp("fp64")));
    QVERIFY(!valuesFitDouble(lookUp("fp80")) && !valuesFitDouble(lookUp("int8")));
}

void TestAccumulation::distributions() {
    std::string error;
    for (const char* bad : {"zeros", "const", "const:x", "uniform:1", "uniform:2:1", "normal:0:-1",
                            "file:", "uniform:0:inf", "ones:3"}) {
        error.clear();
        QVERIFY2(!parseTermDistribution(bad, error), bad);
        QVERIFY2(!error.empty(), bad);
    }
    error.clear();
    QVERIFY(!parseTermDistribution("uniform:2:1", error));
    QVERIFY2(error.find("B must exceed A") != std::string::npos, error.c_str());
    // Every distribution of the one grammar of random values is a term distribution, and its
    // problems are reported in that grammar's words.
    error.clear();
    QVERIFY(!parseTermDistribution("laplace:0", error));
    QVERIFY2(error.find("laplace:B: B must be positive") != std::string::npos, error.c_str());
    error.clear();
    QVERIFY(!parseTermDistribution("zeros", error));
    QVERIFY2(error.find("use ones, const:V, file:PATH or a distribution") != std::string::npos,
             error.c_str());
    const TermSequence logNormal = makeOrFail("lognormal:-12:2", 500, lookUp("fp32"), 3);
    for (std::size_t i = 0; i < logNormal.size(); ++i) {
        const double term = doubleFromExact(logNormal.at(i));
        QVERIFY2(term > 0 && term < 1, qPrintable(QString::number(term)));
    }
    // const:V is rounded into the element format once: 0.1 in FP16.
    const FormatSpec fp16 = lookUp("fp16");
    const TermSequence tenth = makeOrFail("const:0.1", 3, fp16);
    QCOMPARE(valueText(tenth.at(2)),
             valueText(decodeCode(fp16, roundToFormat(exactValue("0.1"), fp16).code).value));
    // Drawn terms are values of the element format, deterministic from the seed, in range.
    const TermSequence u1 = makeOrFail("uniform:-2:3", 2000, fp16, 8);
    const TermSequence u2 = makeOrFail("uniform:-2:3", 2000, fp16, 8);
    const TermSequence u3 = makeOrFail("uniform:-2:3", 2000, fp16, 9);
    QCOMPARE(u1.floats, u2.floats);
    QVERIFY(u1.floats != u3.floats);
    double mean = 0;
    for (std::size_t i = 0; i < u1.size(); ++i) {
        const ExactValue v = u1.at(i);
        QCOMPARE(valueText(decodeCode(fp16, roundToFormat(v, fp16).code).value), valueText(v));
        QVERIFY(u1.floats[i] >= -2 && u1.floats[i] <= 3);
        mean += u1.floats[i];
    }
    QVERIFY(std::fabs(mean / 2000 - 0.5) < 0.1);
    const TermSequence n = makeOrFail("normal:10:2", 4000, lookUp("fp64"), 4);
    double m = 0, s = 0;
    for (double x : n.doubles)
        m += x;
    m /= 4000;
    for (double x : n.doubles)
        s += (x - m) * (x - m);
    QVERIFY2(std::fabs(m - 10) < 0.15 && std::fabs(std::sqrt(s / 4000) - 2) < 0.15,
             qPrintable(QString("mean %1 sd %2").arg(m).arg(std::sqrt(s / 4000))));
    // Element formats without a hardware type keep exact values.
    const TermSequence q = makeOrFail("uniform:-1:1", 50, lookUp("int8"), 2);
    QCOMPARE(q.storage, TermSequence::Storage::Exact);
    const FormatSpec int8 = lookUp("int8");
    for (const ExactValue& v : q.exact)
        QCOMPARE(valueText(decodeCode(int8, roundToFormat(v, int8).code).value), valueText(v));
}

void TestAccumulation::textFiles() {
    QTemporaryDir dir;
    const std::string good = dir.filePath("good.txt").toStdString();
    std::ofstream(good) << "# comment\n1\n  0.5\n\n2^-3\n1/3\n";
    std::string error;
    TermDistribution d = *parseTermDistribution("file:" + good, error);
    const FormatSpec fp32 = lookUp("fp32");
    auto terms = makeTerms(d, 0, fp32, 0, error);
    QVERIFY2(terms, error.c_str());
    QCOMPARE(terms->size(), std::size_t(4));
    QCOMPARE(valueText(terms->at(3)),
             valueText(decodeCode(fp32, roundToFormat(exactValue("1/3"), fp32).code).value));
    QVERIFY(makeTerms(d, 2, fp32, 0, error)->size() == 2);
    QVERIFY(!makeTerms(d, 5, fp32, 0, error));
    QVERIFY2(error.find("holds 4 values") != std::string::npos, error.c_str());
    const std::string bad = dir.filePath("bad.txt").toStdString();
    std::ofstream(bad) << "1\n2\n  3.5x\n";
    d = *parseTermDistribution("file:" + bad, error);
    QVERIFY(!makeTerms(d, 0, fp32, 0, error));
    QVERIFY2(error.rfind(bad + ":3:", 0) == 0, error.c_str());
    d = *parseTermDistribution("file:" + dir.filePath("missing.txt").toStdString(), error);
    QVERIFY(!makeTerms(d, 0, fp32, 0, error));
    QVERIFY2(error.find("cannot open") != std::string::npos, error.c_str());
}

void TestAccumulation::npyGoodFiles() {
    const std::vector<double> doubles = {1.5, -0.0, 0x1p-1074, 1e300, 0.1};
    const std::vector<float> floats = {0.1f, -2.5f, 0x1p-149f, 3e38f, 1.0f, 7.0f};
    NpyReadResult r = parseNpy(npyBytes("<f8", "(5,)", rawBytes(doubles)), "d.npy");
    QVERIFY2(r.array, r.error.c_str());
    QCOMPARE(r.array->dtype, std::string("<f8"));
    QCOMPARE(r.array->shape, std::vector<std::size_t>{5});
    QCOMPARE(r.array->values.size(), doubles.size());
    for (std::size_t i = 0; i < doubles.size(); ++i)
        QVERIFY(std::bit_cast<std::uint64_t>(r.array->values[i]) ==
                std::bit_cast<std::uint64_t>(doubles[i]));
    r = parseNpy(npyBytes("<f4", "(2, 3)", rawBytes(floats), 2, true), "f.npy");
    QVERIFY2(r.array, r.error.c_str());
    QVERIFY(r.array->fortranOrder);
    QCOMPARE(r.array->shape, (std::vector<std::size_t>{2, 3}));
    QCOMPARE(r.array->elementCount(), std::size_t(6));
    for (std::size_t i = 0; i < floats.size(); ++i)
        QCOMPARE(r.array->values[i], static_cast<double>(floats[i]));
    r = parseNpy(npyBytes("<f8", "()", rawBytes(std::vector<double>{4.0})), "scalar.npy");
    QVERIFY2(r.array && r.array->values.size() == 1 && r.array->values[0] == 4.0, r.error.c_str());
    // Through a file, as terms: float32 values go into FP32 unchanged.
    QTemporaryDir dir;
    const std::string path = dir.filePath("terms.npy").toStdString();
    std::ofstream(path, std::ios::binary) << npyBytes("<f4", "(6,)", rawBytes(floats));
    std::string error;
    const auto d = parseTermDistribution("file:" + path, error);
    const auto terms = makeTerms(*d, 0, lookUp("fp32"), 0, error);
    QVERIFY2(terms, error.c_str());
    QCOMPARE(terms->floats, floats);
}

// A .safetensors file written here byte by byte: the header's length (8 bytes, little-endian),
// the JSON header, then the tensors' data.
std::string safetensorsBytes(const std::string& header, const std::string& data) {
    std::string bytes;
    for (int k = 0; k < 8; ++k)
        bytes += static_cast<char>((header.size() >> (8 * k)) & 0xff);
    return bytes + header + data;
}

// file:PATH takes .npy and .safetensors files through the tensor file reader: the first tensor
// of a dtype it reads, or the one PATH:TENSOR names, in C order, every value exact.
void TestAccumulation::tensorFilesOfTerms() {
    QTemporaryDir dir;
    auto write = [&](const char* name, const std::string& bytes) {
        const std::string path = dir.filePath(name).toStdString();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    };
    auto terms = [](const std::string& argument, std::size_t count, const char* format,
                    std::string& error) -> std::optional<TermSequence> {
        const auto d = parseTermDistribution("file:" + argument, error);
        if (!d)
            return std::nullopt;
        return makeTerms(*d, count, lookUp(format), 0, error);
    };
    // An I32 tensor (not read), then F16 codes 0x3800 = 0.5, 0x7bff = 65504, 0x0001 = 2^-24,
    // then F64 values.
    const std::string f16("\x00\x38\xff\x7b\x01\x00", 6);
    const std::string f64 = rawBytes(std::vector<double>{1e10, 1, -1e10, 0x1p-1074});
    const std::string header = R"({"ids":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},)"
                               R"("w":{"dtype":"F16","shape":[3],"data_offsets":[8,14]},)"
                               R"("b":{"dtype":"F64","shape":[2,2],"data_offsets":[14,46]}})";
    const std::string model =
        write("model.safetensors", safetensorsBytes(header, std::string(8, '\x07') + f16 + f64));
    std::string error;
    auto first = terms(model, 0, "fp32", error);
    QVERIFY2(first, error.c_str());
    QCOMPARE(first->floats, (std::vector<float>{0.5f, 65504.0f, 0x1p-24f}));
    first = terms(model, 2, "fp32", error);
    QVERIFY2(first && first->size() == 2, error.c_str());
    QVERIFY(!terms(model, 4, "fp32", error));
    QVERIFY2(error.find("holds 3 values") != std::string::npos, error.c_str());
    const auto named = terms(model + ":b", 0, "fp64", error);
    QVERIFY2(named, error.c_str());
    QCOMPARE(named->doubles, (std::vector<double>{1e10, 1, -1e10, 0x1p-1074}));
    QVERIFY(!terms(model + ":nothing", 0, "fp32", error));
    QVERIFY2(error.find("no tensor named 'nothing'") != std::string::npos, error.c_str());
    // Without the extension, the header says what the file is.
    const std::string bare =
        write("weights", safetensorsBytes(header, std::string(8, '\0') + f16 + f64));
    QVERIFY2(terms(bare, 0, "fp32", error), error.c_str());

    // A Fortran-order 2×3 array holds its columns one after another; the terms go in C order.
    const std::vector<float> columns = {1, 4, 2, 5, 3, 6};
    const std::string fortran =
        write("fortran.npy", npyBytes("<f4", "(2, 3)", rawBytes(columns), 1, true));
    const auto rows = terms(fortran, 0, "fp32", error);
    QVERIFY2(rows, error.c_str());
    QCOMPARE(rows->floats, (std::vector<float>{1, 2, 3, 4, 5, 6}));

    // Neither text nor a tensor file, a directory, a safetensors file cut short: refused by name.
    std::string noise;
    for (int i = 0; i < 256; ++i)
        noise += static_cast<char>(i);
    const std::string binary = write("noise.bin", noise);
    QVERIFY(!terms(binary, 0, "fp32", error));
    QCOMPARE(error, binary + ": not a .npy, .safetensors or text file");
    QVERIFY(!terms(dir.path().toStdString(), 0, "fp32", error));
    QVERIFY2(error.find("a directory") != std::string::npos, error.c_str());
    const std::string cut = write("cut.safetensors", safetensorsBytes(header, f16));
    QVERIFY(!terms(cut, 0, "fp32", error));
    QVERIFY2(error.rfind(cut + ":", 0) == 0, error.c_str());
}

void TestAccumulation::npyBrokenFiles_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const std::string data = rawBytes(std::vector<double>{1, 2, 3});
    const std::string good = npyBytes("<f8", "(3,)", data);
    auto bytes = [](const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); };
    QTest::newRow("bad magic") << bytes("\x93NUMPX" + good.substr(6)) << "not a .npy file";
    QTest::newRow("text") << bytes("1\n2\n") << "not a .npy file";
    QTest::newRow("truncated data")
        << bytes(good.substr(0, good.size() - 5)) << "needs 24 data bytes, the file has 19";
    QTest::newRow("truncated header") << bytes(good.substr(0, 40)) << "truncated: the header";
    QTest::newRow("too short") << bytes(good.substr(0, 8)) << "too short";
    QTest::newRow("int32") << bytes(npyBytes("<i4", "(3,)", data)) << "unsupported dtype '<i4'";
    QTest::newRow("int16") << bytes(npyBytes("<i2", "(3,)", data)) << "unsupported dtype '<i2'";
    QTest::newRow("big-endian") << bytes(npyBytes(">f8", "(3,)", data)) << "big-endian";
    QTest::newRow("version") << bytes("\x93NUMPY\x07" + good.substr(7)) << "version 7.0";
    QTest::newRow("no shape") << bytes(npyBytes("<f8", "[3]", data)) << "header field 'shape'";
    std::string noDescr = good;
    noDescr.replace(noDescr.find("'descr'"), 7, "'descx'");
    QTest::newRow("missing descr") << bytes(noDescr) << "'descr' is missing";
    std::string order = good;
    order.replace(order.find("False"), 5, "Maybe");
    QTest::newRow("fortran_order") << bytes(order) << "header field 'fortran_order'";
}

void TestAccumulation::npyBrokenFiles() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    const NpyReadResult r =
        parseNpy(std::string_view(bytes.constData(), std::size_t(bytes.size())), "x.npy");
    QVERIFY(!r.array);
    QVERIFY2(r.error.rfind("x.npy: ", 0) == 0, r.error.c_str());
    QVERIFY2(QString::fromStdString(r.error).contains(message), r.error.c_str());
}

QTEST_APPLESS_MAIN(TestAccumulation)
#include "tst_accumulation.moc"
