// SPDX-License-Identifier: GPL-3.0-or-later
// Every code of every format of at most 16 bits — built-in and custom — checked against a model
// written from the field rules of docs/behaviour.md, "Format facts": class and value of each
// code, the counts and limits derived from the spec, exact round trips in every mode and
// policy, and nextUp / nextDown against a brute-force sorted list of all values. Custom spellings
// of built-in formats (e5m10 = fp16, e4m3b7fn = fp8_e4m3) must behave exactly like them.
//
// The model never calls fpx to decide what a code means: it reads the fields itself. It does
// use ExactValue (tested on its own in tst_exactvalue) to hold and order the exact values.
#include "fpx/exact/code.h"
#include "fpx/exact/code_details.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include "test_support.h"
#include <QElapsedTimer>

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

// Every built-in of at most 16 bits; a new one fails builtinsAreCovered until added here.
const QStringList kBuiltins = {"fp16",
                               "bf16",
                               "fp8_e4m3",
                               "fp8_e5m2",
                               "fp8_e4m3fnuz",
                               "fp8_e5m2fnuz",
                               "fp8_e4m3b11fnuz",
                               "fp8_e3m4",
                               "fp8_e8m0",
                               "fp6_e3m2",
                               "fp6_e2m3",
                               "fp4_e2m1",
                               "fp4_e1m2",
                               "int8",
                               "int4",
                               "int2",
                               "uint8",
                               "uint4",
                               "nf4"};
// Custom specs. e4m3fn and e5m2fnuz are aliases of built-ins, so their custom spellings name
// the (default) bias; e4m3b11fnuz has no custom spelling at all (it is an alias too), which
// aliasesResolve checks instead.
const QStringList kCustoms = {"e5m10",   "e4m3b7fn", "e3m3", "e2m2f", "e5m2b16fnuz",
                              "e6m9b40", "e3m2fnu",  "int6", "uint3"};

Code codeCount(const FormatSpec& spec) {
    return Code(1) << spec.totalBits();
}

// What a code means, read from its fields by the rules of docs/behaviour.md, "Format facts".
struct Model {
    ValueClass valueClass = ValueClass::Zero;
    ExactValue value;
    bool sign = false;
    std::int64_t level = 0; // Integer: the signed integer; Lookup: the table index
};

Model model(const FormatSpec& spec, Code code) {
    Model m;
    switch (spec.kind) {
    case FormatKind::Integer: {
        // Two's complement for signed formats: the top bit weighs −2^(N−1).
        const int n = spec.integerBits;
        m.level = std::int64_t(code);
        if (spec.isSigned && (code >> (n - 1)) != 0)
            m.level -= std::int64_t(1) << n;
        m.value = ExactValue::integer(m.level) * spec.scale;
        m.sign = m.level < 0;
        m.valueClass = m.level == 0 ? ValueClass::Zero : ValueClass::Normal;
        return m;
    }
    case FormatKind::Lookup:
        m.level = std::int64_t(code);
        m.value = spec.table.at(std::size_t(code)) * spec.scale;
        m.sign = m.value.isNegative();
        m.valueClass = m.value.isZero() ? ValueClass::Zero : ValueClass::Normal;
        return m;
    case FormatKind::Posit: // not among the built-ins: tst_posit has its own reference
    case FormatKind::BinaryFloat:
        break;
    }
    const int e = spec.exponentBits;
    const int f = spec.fractionBits;
    const Code eMax = (Code(1) << e) - 1;
    const Code fMax = (Code(1) << f) - 1;
    const Code ef = (code >> f) & eMax;
    const Code ff = code & fMax;
    m.sign = spec.isSigned && ((code >> (e + f)) & 1) != 0;
    const bool allOnes = ef == eMax && ff == fMax;
    bool nan = false;
    switch (spec.specials) {
    case SpecialEncoding::Ieee: // all-ones exponent: ∞ with a zero fraction, NaN otherwise
        if (ef == eMax && ff == 0) {
            m.valueClass = ValueClass::Infinity;
            m.value = ExactValue::infinity(m.sign);
            return m;
        }
        nan = ef == eMax;
        break;
    case SpecialEncoding::NanAtAllOnes: // fn / fnu: only S.1…1.1…1; the rest of that binade is
                                        // normal
        nan = allOnes;
        break;
    case SpecialEncoding::NanAtNegativeZero: // fnuz: 100…0 is the NaN, nothing else special
        nan = m.sign && ef == 0 && ff == 0;
        break;
    case SpecialEncoding::None: // fp6 / fp4: every code is a number
        break;
    }
    if (nan) {
        m.valueClass = ValueClass::NaN;
        m.value = ExactValue::nan(m.sign);
        return m;
    }
    if (ef == 0 && spec.exponentZeroIsSubnormal) {
        if (ff == 0) {
            m.valueClass = ValueClass::Zero;
            m.value = ExactValue::zero(m.sign);
        } else {
            m.valueClass = ValueClass::Subnormal; // 0.fff × 2^(1 − bias)
            m.value = ExactValue::dyadic(m.sign, BigInt(std::uint64_t(ff)), 1 - spec.bias - f);
        }
        return m;
    }
    // 1.fff × 2^(e − bias); E8M0 (no subnormals) reads exponent field 0 this way too.
    m.valueClass = ValueClass::Normal;
    m.value = ExactValue::dyadic(m.sign, BigInt(std::uint64_t((Code(1) << f) + ff)),
                                 int(ef) - spec.bias - f);
    return m;
}

bool sameValue(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return a.isNaN() && b.isNaN();
    return a.isIdenticalTo(b);
}

// All codes that are not NaN, in ascending order of value (±0 adjacent, equal).
struct SortedCodes {
    std::vector<Code> codes;
    std::vector<ExactValue> values;
};

SortedCodes sortedCodes(const FormatSpec& spec) {
    std::vector<std::pair<ExactValue, Code>> entries;
    for (Code c = 0; c < codeCount(spec); ++c) {
        Model m = model(spec, c);
        if (m.valueClass != ValueClass::NaN)
            entries.emplace_back(std::move(m.value), c);
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return compare(a.first, b.first) < 0; });
    SortedCodes out;
    for (auto& [value, code] : entries) {
        out.codes.push_back(code);
        out.values.push_back(std::move(value));
    }
    return out;
}

// Indices of the lowest and highest finite values in a sorted list (±∞ sit at the ends).
std::pair<std::size_t, std::size_t> finiteExtremes(const SortedCodes& sorted) {
    std::size_t first = 0, last = sorted.values.size() - 1;
    while (sorted.values[first].isInfinity())
        ++first;
    while (sorted.values[last].isInfinity())
        --last;
    return {first, last};
}

void addFormatRows() {
    QTest::addColumn<QString>("format");
    for (const QString& name : kBuiltins)
        QTest::newRow(qPrintable(name)) << name;
    for (const QString& name : kCustoms)
        QTest::newRow(qPrintable(name)) << name;
}

// Collects mismatches so that one run shows the first few, not only the first.
class Failures {
  public:
    void add(const QString& message, const QString& got, const QString& expected) {
        if (count_ < 20)
            qWarning("%s: got %s, expected %s", qPrintable(message), qPrintable(got),
                     qPrintable(expected));
        if (count_ == 0) {
            got_ = got;
            expected_ = expected;
        }
        ++count_;
    }
    int count() const { return count_; }
    const QString& firstGot() const { return got_; }
    const QString& firstExpected() const { return expected_; }

  private:
    int count_ = 0;
    QString got_;
    QString expected_;
};

#define FPX_REPORT(failures)                                                                       \
    do {                                                                                           \
        if ((failures).count() > 0) {                                                              \
            qWarning("%d mismatches", (failures).count());                                         \
            QCOMPARE((failures).firstGot(), (failures).firstExpected());                           \
        }                                                                                          \
    } while (false)

QString className(ValueClass c) {
    const std::string_view name = valueClassName(c);
    return QString::fromLatin1(name.data(), qsizetype(name.size()));
}

} // namespace

class TestSmallFormats : public QObject {
    Q_OBJECT

  private slots:
    void builtinsAreCovered();
    void aliasesResolve();
    void classesAndValues_data() { addFormatRows(); }
    void classesAndValues();
    void limits_data() { addFormatRows(); }
    void limits();
    void roundTrip_data() { addFormatRows(); }
    void roundTrip();
    void neighbours_data() { addFormatRows(); }
    void neighbours();
    void customEqualsBuiltin_data();
    void customEqualsBuiltin();
};

void TestSmallFormats::builtinsAreCovered() {
    for (const FormatSpec& spec : builtinFormats()) {
        if (spec.totalBits() <= 16)
            QVERIFY2(kBuiltins.contains(QString::fromStdString(spec.id)), spec.id.c_str());
    }
    for (const QString& name : kBuiltins)
        QCOMPARE(QString::fromStdString(lookUp(name).id), name);
    for (const QString& name : kCustoms) {
        const FormatSpec spec = lookUp(name);
        QVERIFY2(spec.isCustom, qPrintable(name));
        QVERIFY(spec.totalBits() <= 16);
    }
}

void TestSmallFormats::aliasesResolve() {
    // The spellings the brief names as custom specs are built-ins' aliases.
    QCOMPARE(QString::fromStdString(lookUp("e4m3fn").id), QString("fp8_e4m3"));
    QCOMPARE(QString::fromStdString(lookUp("e5m2fnuz").id), QString("fp8_e5m2fnuz"));
    QCOMPARE(QString::fromStdString(lookUp("e4m3b11fnuz").id), QString("fp8_e4m3b11fnuz"));
}

void TestSmallFormats::classesAndValues() {
    QFETCH(QString, format);
    const FormatSpec spec = lookUp(format);
    QVERIFY(spec.totalBits() <= 16);
    QVERIFY(!spec.explicitIntegerBit); // x87's pseudo-encodings only exist in fp80
    Failures failures;
    for (Code c = 0; c < codeCount(spec); ++c) {
        const Model want = model(spec, c);
        const DecodedCode got = decodeCode(spec, c);
        const QString where = format + " " + hex(spec, c);
        if (got.code != c)
            failures.add(where + " code", hex(spec, got.code), hex(spec, c));
        if (got.valueClass != want.valueClass)
            failures.add(where + " class", className(got.valueClass), className(want.valueClass));
        if (!sameValue(got.value, want.value))
            failures.add(where + " value", valueText(got.value), valueText(want.value));
        if (got.valueClass != ValueClass::NaN && got.sign != want.sign)
            failures.add(where + " sign", QString::number(got.sign), QString::number(want.sign));
        if (spec.kind != FormatKind::BinaryFloat && got.level != want.level)
            failures.add(where + " level", QString::number(got.level), QString::number(want.level));
        if (!got.canonical)
            failures.add(where + " canonical", "false", "true");
    }
    FPX_REPORT(failures);
}

void TestSmallFormats::limits() {
    QFETCH(QString, format);
    const FormatSpec spec = lookUp(format);
    const FormatLimits limits = deriveLimits(spec);

    BigInt zeros = 0, subnormals = 0, normals = 0, infinities = 0, nans = 0;
    std::optional<Code> posInf;
    std::optional<ExactValue> minNormal, minSubnormal;
    for (Code c = 0; c < codeCount(spec); ++c) {
        const Model m = model(spec, c);
        switch (m.valueClass) {
        case ValueClass::Zero:
            ++zeros;
            break;
        case ValueClass::Subnormal:
            ++subnormals;
            if (!m.sign && (!minSubnormal || compare(m.value, *minSubnormal) < 0))
                minSubnormal = m.value;
            break;
        case ValueClass::Normal:
            ++normals;
            if (!m.sign && !m.value.isNegative() &&
                (!minNormal || compare(m.value, *minNormal) < 0))
                minNormal = m.value;
            break;
        case ValueClass::Infinity:
            ++infinities;
            if (!m.sign)
                posInf = c;
            break;
        case ValueClass::NaN:
            ++nans;
            break;
        }
    }
    QCOMPARE(limits.codeCount, BigInt(1) << spec.totalBits());
    QCOMPARE(limits.zeroCount, zeros);
    QCOMPARE(limits.finiteCount, zeros + subnormals + normals);
    QCOMPARE(limits.infinityCount, infinities);
    QCOMPARE(limits.nanCount, nans);

    // Extremes, from the sorted list of finite values.
    const SortedCodes sorted = sortedCodes(spec);
    const auto [first, last] = finiteExtremes(sorted);
    QVERIFY2(sameValue(limits.max, sorted.values[last]), qPrintable(valueText(limits.max)));
    QCOMPARE(hex(spec, limits.maxCode), hex(spec, sorted.codes[last]));
    QVERIFY2(limits.lowest == sorted.values[first], qPrintable(valueText(limits.lowest)));
    QCOMPARE(hex(spec, limits.lowestCode), hex(spec, sorted.codes[first]));
    const auto positive = std::find_if(sorted.values.begin(), sorted.values.end(), [](auto& v) {
        return v.isFinite() && !v.isZero() && !v.isNegative();
    });
    QVERIFY(positive != sorted.values.end());
    QVERIFY2(limits.minPositive == *positive, qPrintable(valueText(limits.minPositive)));

    if (posInf) {
        QVERIFY(limits.infinityCode.has_value());
        QCOMPARE(hex(spec, *limits.infinityCode), hex(spec, *posInf));
    } else {
        QVERIFY(!limits.infinityCode.has_value());
    }
    QCOMPARE(limits.nanCode.has_value(), nans > 0);
    if (limits.nanCode)
        QCOMPARE(model(spec, *limits.nanCode).valueClass, ValueClass::NaN);

    if (spec.kind == FormatKind::BinaryFloat) {
        QVERIFY(limits.minNormal.has_value() && minNormal.has_value());
        QVERIFY2(*limits.minNormal == *minNormal, qPrintable(valueText(*limits.minNormal)));
        QCOMPARE(limits.minSubnormal.has_value(), minSubnormal.has_value());
        if (minSubnormal)
            QVERIFY2(*limits.minSubnormal == *minSubnormal,
                     qPrintable(valueText(*limits.minSubnormal)));
        // Epsilon: the gap from 1 to the next larger value.
        const auto one = std::find_if(sorted.values.begin(), sorted.values.end(),
                                      [](auto& v) { return v == ExactValue::integer(1); });
        QVERIFY(one != sorted.values.end() && one + 1 != sorted.values.end());
        QVERIFY(limits.epsilon.has_value());
        QVERIFY2(*limits.epsilon == *(one + 1) - ExactValue::integer(1),
                 qPrintable(valueText(*limits.epsilon)));
    }
}

void TestSmallFormats::roundTrip() {
    QFETCH(QString, format);
    const FormatSpec spec = lookUp(format);
    const SortedCodes sorted = sortedCodes(spec);
    // ±max: where saturation sends ±∞.
    const auto [first, last] = finiteExtremes(sorted);

    QElapsedTimer timer;
    timer.start();
    Failures failures;
    for (Code c = 0; c < codeCount(spec); ++c) {
        const Model m = model(spec, c);
        const ExactValue value = decodeCode(spec, c).value;
        for (const ModeCase& mode : kModes) {
            for (OverflowPolicy policy : kPolicies) {
                RoundingOptions options;
                options.mode = mode.mode;
                options.overflow = policy;
                options.randomBits = mode.randomBits;
                const Conversion got = roundToFormat(value, spec, options);
                const QString where = QString("%1 %2 %3 %4")
                                          .arg(format, hex(spec, c))
                                          .arg(QString::fromLatin1(roundingModeId(mode.mode)))
                                          .arg(QString::fromLatin1(overflowPolicyId(policy)));
                if (m.valueClass == ValueClass::NaN) {
                    // Any NaN comes back as a NaN (the canonical one, not necessarily c).
                    if (model(spec, got.code).valueClass != ValueClass::NaN)
                        failures.add(where + " NaN", hex(spec, got.code), "a NaN code");
                    continue;
                }
                Code want = c;
                if (m.valueClass == ValueClass::Infinity && policy == OverflowPolicy::Saturate)
                    want = m.sign ? sorted.codes[first] : sorted.codes[last]; // ±∞ → ±max
                if (got.code != want)
                    failures.add(where, hex(spec, got.code), hex(spec, want));
                // A value the format holds is exact: no flag, except saturating an infinity.
                ConversionFlags flags;
                flags.overflow = want != c;
                if (got.flags != flags)
                    failures.add(where + " flags", QString::fromStdString(flagsToString(got.flags)),
                                 QString::fromStdString(flagsToString(flags)));
            }
        }
    }
    qInfo("%s: %lld ms", qPrintable(format), timer.elapsed());
    FPX_REPORT(failures);
}

void TestSmallFormats::neighbours() {
    QFETCH(QString, format);
    const FormatSpec spec = lookUp(format);
    const SortedCodes sorted = sortedCodes(spec);
    bool hasNegativeZero = false;
    for (Code c = 0; c < codeCount(spec); ++c) {
        const Model m = model(spec, c);
        hasNegativeZero |= m.valueClass == ValueClass::Zero && m.value.isNegative();
    }
    // The neighbour's code. A zero neighbour keeps the sign of the side it is approached from,
    // as IEEE 754 nextUp(−min) = −0 and nextDown(+min) = +0 (one zero in fnuz and integers).
    auto neighbourCode = [&](std::size_t index, bool upward) {
        if (!sorted.values[index].isZero())
            return sorted.codes[index];
        for (std::size_t i = 0; i < sorted.values.size(); ++i) {
            if (sorted.values[i].isZero() &&
                sorted.values[i].isNegative() == (upward && hasNegativeZero))
                return sorted.codes[i];
        }
        return sorted.codes[index];
    };
    auto less = [](const ExactValue& a, const ExactValue& b) { return compare(a, b) < 0; };

    Failures failures;
    for (Code c = 0; c < codeCount(spec); ++c) {
        const Model m = model(spec, c);
        const auto up = nextUp(spec, c);
        const auto down = nextDown(spec, c);
        const QString where = format + " " + hex(spec, c);
        if (m.valueClass == ValueClass::NaN) {
            if (up)
                failures.add(where + " nextUp of NaN", hex(spec, up->code), "none");
            if (down)
                failures.add(where + " nextDown of NaN", hex(spec, down->code), "none");
            continue;
        }
        // Least value greater than this one, greatest value less than it.
        const auto above =
            std::upper_bound(sorted.values.begin(), sorted.values.end(), m.value, less);
        const auto below =
            std::lower_bound(sorted.values.begin(), sorted.values.end(), m.value, less);
        std::optional<Code> wantUp, wantDown;
        if (above != sorted.values.end())
            wantUp = neighbourCode(std::size_t(above - sorted.values.begin()), true);
        if (below != sorted.values.begin())
            wantDown = neighbourCode(std::size_t(below - sorted.values.begin()) - 1, false);

        auto check = [&](const std::optional<Neighbour>& got, const std::optional<Code>& want,
                         const char* name) {
            const QString gotText = got ? hex(spec, got->code) : QString("none");
            const QString wantText = want ? hex(spec, *want) : QString("none");
            if (gotText != wantText) {
                failures.add(where + " " + name, gotText, wantText);
                return;
            }
            if (got && !sameValue(got->value, model(spec, got->code).value))
                failures.add(where + " " + name + " value", valueText(got->value),
                             valueText(model(spec, got->code).value));
        };
        check(up, wantUp, "nextUp");
        check(down, wantDown, "nextDown");
    }
    FPX_REPORT(failures);
}

void TestSmallFormats::customEqualsBuiltin_data() {
    QTest::addColumn<QString>("custom");
    QTest::addColumn<QString>("builtin");
    QTest::newRow("e5m10 = fp16") << "e5m10"
                                  << "fp16";
    QTest::newRow("e4m3b7fn = fp8_e4m3") << "e4m3b7fn"
                                         << "fp8_e4m3";
    QTest::newRow("e5m2b16fnuz = fp8_e5m2fnuz") << "e5m2b16fnuz"
                                                << "fp8_e5m2fnuz";
    QTest::newRow("e8m0fnu = fp8_e8m0") << "e8m0b127fnu"
                                        << "fp8_e8m0";
}

void TestSmallFormats::customEqualsBuiltin() {
    QFETCH(QString, custom);
    QFETCH(QString, builtin);
    const FormatSpec a = lookUp(custom);
    const FormatSpec b = lookUp(builtin);
    QVERIFY(a.isCustom);
    QVERIFY(!b.isCustom);
    QCOMPARE(a.totalBits(), b.totalBits());

    // Every code decodes identically.
    Failures failures;
    for (Code c = 0; c < codeCount(a); ++c) {
        const DecodedCode x = decodeCode(a, c);
        const DecodedCode y = decodeCode(b, c);
        const QString where = custom + " " + hex(a, c);
        if (x.valueClass != y.valueClass || !sameValue(x.value, y.value) || x.sign != y.sign ||
            x.exponentField != y.exponentField || x.significandField != y.significandField ||
            (x.valueClass != ValueClass::NaN && x.unbiasedExponent != y.unbiasedExponent))
            failures.add(where + " decode", valueText(x.value), valueText(y.value));
    }

    // A sample of values rounds identically: random dyadics across the whole range and beyond
    // (significands wider than the format, so most are inexact), random decimal fractions
    // (not dyadic), every value and midpoint of the format, and the specials.
    std::mt19937_64 random(0xf9c);
    std::vector<ExactValue> sample = {ExactValue::zero(false), ExactValue::zero(true),
                                      ExactValue::infinity(false), ExactValue::infinity(true),
                                      ExactValue::nan()};
    // Magnitudes about 2^k, k from below the smallest subnormal to past the largest binade.
    const int lowK = b.minExponent() - b.fractionBits - 3;
    const int highK = (1 << b.exponentBits) - b.bias + 2;
    for (int i = 0; i < 3000; ++i) {
        const bool negative = (random() & 1) != 0;
        const int k = lowK + int(random() % std::uint64_t(highK - lowK + 1));
        sample.push_back(ExactValue::dyadic(negative, BigInt(random() >> 40), k - 24));
        const auto numerator = BigInt(random() >> 44);         // 20 bits
        const auto denominator = BigInt(1 + (random() >> 50)); // up to 14 bits, mostly odd
        sample.push_back(
            ExactValue::fraction(negative, numerator, denominator, k - 20 + int(random() % 8)));
    }
    const SortedCodes sorted = sortedCodes(b);
    for (std::size_t i = 0; i < sorted.values.size(); ++i) {
        if (!sorted.values[i].isFinite())
            continue;
        sample.push_back(sorted.values[i]);
        if (i + 1 < sorted.values.size() && sorted.values[i + 1].isFinite())
            sample.push_back(midpoint(sorted.values[i], sorted.values[i + 1]));
    }
    for (const ExactValue& value : sample) {
        for (const ModeCase& mode : kModes) {
            for (OverflowPolicy policy : kPolicies) {
                RoundingOptions options{mode.mode, policy, mode.randomBits};
                const Conversion x = roundToFormat(value, a, options);
                const Conversion y = roundToFormat(value, b, options);
                if (x.code != y.code || x.flags != y.flags)
                    failures.add(
                        QString("%1 %2 %3 %4")
                            .arg(custom, valueText(value))
                            .arg(QString::fromLatin1(roundingModeId(mode.mode)))
                            .arg(QString::fromLatin1(overflowPolicyId(policy))),
                        hex(a, x.code) + " " + QString::fromStdString(flagsToString(x.flags)),
                        hex(b, y.code) + " " + QString::fromStdString(flagsToString(y.flags)));
            }
        }
    }
    FPX_REPORT(failures);
}

QTEST_APPLESS_MAIN(TestSmallFormats)
#include "tst_smallformats.moc"
