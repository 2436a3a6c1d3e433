// SPDX-License-Identifier: GPL-3.0-or-later
// Quantization formats: integers (x → clamp(round(x / scale)), two's complement or unsigned
// codes, default scale 1 / qmax) and NF4 (x / absmax → the table level the mode picks).
//
// Expectations come from a brute-force list of the format's values (level × scale), never from
// fpx's rounding: every value, every tie and the neighbourhoods of both, in every mode and both
// overflow policies, plus hand-worked examples, specials and the NF4 table of docs/behaviour.md,
// "Format facts".
#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

// The float32 nearest a decimal (glibc's strtof rounds correctly), as an exact value.
ExactValue nearestFloat32(const char* decimal) {
    const float f = std::strtof(decimal, nullptr);
    int exponent = 0;
    const float mantissa = std::frexp(std::fabs(f), &exponent);                   // [0.5, 1)
    const auto significand = static_cast<std::int64_t>(std::ldexp(mantissa, 24)); // exact
    if (f == 0)
        return ExactValue::zero(std::signbit(f));
    return ExactValue::dyadic(f < 0, BigInt(significand), exponent - 24);
}

// One representable (or virtual) value of a quantization format.
struct Level {
    ExactValue value;
    Code code = 0;
    bool virtualLevel = false; // an integer one step past an end: decides overflow
};

// The brute-force reference: every level, ascending. Integers get one virtual level past each
// end, so that overflow is decided after rounding on the unbounded integer grid (127.4 → 127
// under rne is not an overflow; 127.5 → 128 is). NF4 has no grid beyond ±1: anything outside
// the table's range is clamped and flagged.
std::vector<Level> levels(const FormatSpec& spec) {
    std::vector<Level> out;
    if (spec.kind == FormatKind::Integer) {
        const int n = spec.integerBits;
        const std::int64_t qmin = spec.isSigned ? -(std::int64_t(1) << (n - 1)) : 0;
        const std::int64_t qmax =
            spec.isSigned ? (std::int64_t(1) << (n - 1)) - 1 : (std::int64_t(1) << n) - 1;
        for (std::int64_t q = qmin - 1; q <= qmax + 1; ++q) {
            Level l;
            l.value = ExactValue::integer(q) * spec.scale;
            // Two's complement (or plain binary): the low n bits of the level.
            l.code = Code(std::uint64_t(q) & ((std::uint64_t(1) << n) - 1));
            l.virtualLevel = q < qmin || q > qmax;
            out.push_back(l);
        }
        return out;
    }
    for (int i = 0; i < 16; ++i)
        out.push_back({nearestFloat32(kNf4Decimals[i]) * spec.scale, Code(i), false});
    return out;
}

struct Expected {
    Code code = 0;
    bool inexact = false;
    bool overflow = false;
    bool invalid = false;
};

// What docs/behaviour.md, "Conversion rules" and rounding.h say the conversion of x gives.
Expected reference(const std::vector<Level>& table, const ExactValue& x, const ModeCase& mode) {
    Expected out;
    // The real (non-virtual) ends.
    std::size_t first = 0, last = table.size() - 1;
    while (table[first].virtualLevel)
        ++first;
    while (table[last].virtualLevel)
        --last;
    auto zeroCode = [&] {
        for (const Level& l : table)
            if (!l.virtualLevel && l.value.isZero())
                return l.code;
        qFatal("no zero level");
        return Code(0);
    };
    // docs/behaviour.md, "Conversion rules": NaN quantizes to 0, flagged invalid.
    if (x.isNaN()) {
        out.code = zeroCode();
        out.invalid = true;
        return out;
    }
    if (x.isInfinity()) { // clamped to the end it points to
        out.code = x.isNegative() ? table[first].code : table[last].code;
        out.overflow = true;
        return out;
    }
    const int belowAll = compare(x, table.front().value);
    const int aboveAll = compare(x, table.back().value);
    if (belowAll < 0 || aboveAll > 0) { // past every level, virtual ones included
        out.code = belowAll < 0 ? table[first].code : table[last].code;
        out.inexact = out.overflow = true;
        return out;
    }
    // Neighbours lo ≤ x ≤ hi.
    std::size_t hi = 0;
    while (compare(table[hi].value, x) < 0)
        ++hi;
    std::size_t picked = hi;
    if (compare(table[hi].value, x) != 0) {
        out.inexact = true;
        const std::size_t lo = hi - 1;
        // Which neighbour is nearer zero (levels never straddle zero: zero is a level).
        const bool negative = x.isNegative();
        const std::size_t towardZero = negative ? hi : lo;
        const std::size_t awayFromZero = negative ? lo : hi;
        const ExactValue mid = midpoint(table[lo].value, table[hi].value);
        const int c = compare(x, mid);
        switch (mode.mode) {
        case RoundingMode::NearestEven: // ties to the even code (two's complement: even level)
            picked = c < 0 ? lo : c > 0 ? hi : ((table[lo].code & 1) == 0 ? lo : hi);
            break;
        case RoundingMode::NearestAway:
            picked = c < 0 ? lo : c > 0 ? hi : awayFromZero;
            break;
        case RoundingMode::TowardZero:
            picked = towardZero;
            break;
        case RoundingMode::TowardPositive:
            picked = hi;
            break;
        case RoundingMode::TowardNegative:
            picked = lo;
            break;
        case RoundingMode::ToOdd:
            picked = (table[lo].code & 1) != 0 ? lo : hi;
            break;
        case RoundingMode::Stochastic: {
            // rounding.h: round up when randomBits / 2^64 < the discarded fraction. "Up" is away
            // from zero and the fraction is |x − nearer| / gap, as fpx rounds floats
            // (tst_midpoints) and integers: one reading for every format, so that one seed
            // sends a negative value the same way whatever the format kind.
            const ExactValue gap = table[hi].value - table[lo].value;
            const ExactValue fraction = (x - table[towardZero].value).abs() / gap;
            const ExactValue threshold = ExactValue::dyadic(false, BigInt(mode.randomBits), -64);
            picked = compare(threshold, fraction) < 0 ? awayFromZero : towardZero;
            break;
        }
        }
    }
    if (table[picked].virtualLevel) { // rounded past an end: clamp
        out.overflow = true;
        out.inexact = true;
        picked = picked < first ? first : last;
    }
    out.code = table[picked].code;
    return out;
}

// A format with its scale, as a test row builds it.
struct Scaled {
    QString name;
    qlonglong numerator = 0; // scale = numerator / denominator; 0: the default
    qlonglong denominator = 1;
};

FormatSpec makeSpec(const QString& name, qlonglong numerator, qlonglong denominator) {
    FormatSpec spec = lookUp(name);
    if (numerator != 0)
        spec.scale = ExactValue::fraction(false, BigInt(numerator), BigInt(denominator));
    return spec;
}

ExactValue ratio(qlonglong numerator, qlonglong denominator) {
    return ExactValue::fraction(numerator < 0, BigInt(std::llabs(numerator)), BigInt(denominator));
}

} // namespace

namespace {

// Columns format / scale numerator / denominator, and one row per format at its default scale
// (numerator 0 stands for "the default").
void addDefaultScaleRows() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<qlonglong>("numerator");
    QTest::addColumn<qlonglong>("denominator");
    for (const char* name : {"int8", "int4", "int2", "uint8", "uint4", "int6", "uint3", "nf4"})
        QTest::newRow(name) << name << 0LL << 1LL;
}

} // namespace

class TestQuantization : public QObject {
    Q_OBJECT

  private slots:
    void defaultScales_data();
    void defaultScales();
    void decodeValues_data();
    void decodeValues();
    void everyLevelAndTie_data();
    void everyLevelAndTie();
    void examples_data();
    void examples();
    void specials_data();
    void specials();
    void nf4Table();
};

void TestQuantization::defaultScales_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<qlonglong>("qmax"); // default scale 1 / qmax: ±1.0 spans the range
    QTest::newRow("int8") << "int8" << 127LL;
    QTest::newRow("int4") << "int4" << 7LL;
    QTest::newRow("int2") << "int2" << 1LL;
    QTest::newRow("uint8") << "uint8" << 255LL;
    QTest::newRow("uint4") << "uint4" << 15LL;
    QTest::newRow("int6") << "int6" << 31LL;
    QTest::newRow("uint3") << "uint3" << 7LL;
}

void TestQuantization::defaultScales() {
    QFETCH(QString, format);
    QFETCH(qlonglong, qmax);
    const FormatSpec spec = lookUp(format);
    QCOMPARE(spec.kind, FormatKind::Integer);
    QVERIFY2(spec.scale == ratio(1, qmax), qPrintable(valueText(spec.scale)));
    QVERIFY(defaultIntegerScale(spec.integerBits, spec.isSigned) == ratio(1, qmax));
    // qmax's code, plain binary, decodes to exactly 1.
    QVERIFY(decodeCode(spec, Code(qmax)).value == ExactValue::integer(1));
}

void TestQuantization::decodeValues_data() {
    addDefaultScaleRows();
    QTest::newRow("int8 scale 0.1") << "int8" << 1LL << 10LL;
    QTest::newRow("uint4 scale 3") << "uint4" << 3LL << 1LL;
    QTest::newRow("nf4 absmax 2.5") << "nf4" << 5LL << 2LL;
}

void TestQuantization::decodeValues() {
    QFETCH(QString, format);
    QFETCH(qlonglong, numerator);
    QFETCH(qlonglong, denominator);
    const FormatSpec spec = makeSpec(format, numerator, denominator);
    for (const Level& level : levels(spec)) {
        if (level.virtualLevel)
            continue;
        const DecodedCode d = decodeCode(spec, level.code);
        QVERIFY2(d.value == level.value,
                 qPrintable(hex(spec, level.code) + ": " + valueText(d.value) + " expected " +
                            valueText(level.value)));
        QCOMPARE(d.valueClass, level.value.isZero() ? ValueClass::Zero : ValueClass::Normal);
    }
}

void TestQuantization::everyLevelAndTie_data() {
    addDefaultScaleRows();
    // Custom scales: a non-dyadic one, an integer one, a power of two.
    QTest::newRow("int8 scale 0.1") << "int8" << 1LL << 10LL;
    QTest::newRow("int4 scale 3") << "int4" << 3LL << 1LL;
    QTest::newRow("uint8 scale 1/16") << "uint8" << 1LL << 16LL;
    QTest::newRow("int2 scale 1/3") << "int2" << 1LL << 3LL;
    QTest::newRow("nf4 absmax 2.5") << "nf4" << 5LL << 2LL;
    QTest::newRow("nf4 absmax 1/3") << "nf4" << 1LL << 3LL;
}

void TestQuantization::everyLevelAndTie() {
    QFETCH(QString, format);
    QFETCH(qlonglong, numerator);
    QFETCH(qlonglong, denominator);
    const FormatSpec spec = makeSpec(format, numerator, denominator);
    const std::vector<Level> table = levels(spec);

    // Each level, each midpoint, and both a hair to either side of them; a third of the way
    // (not dyadic for any scale); beyond the ends, near and far.
    std::vector<ExactValue> inputs;
    for (std::size_t i = 0; i + 1 < table.size(); ++i) {
        const ExactValue& a = table[i].value;
        const ExactValue& b = table[i + 1].value;
        const ExactValue gap = b - a;
        const ExactValue hair = gap.timesPowerOfTwo(-30);
        const ExactValue mid = midpoint(a, b);
        for (const ExactValue& v :
             {a, a + hair, mid - hair, mid, mid + hair, a + gap / ExactValue::integer(3), b - hair})
            inputs.push_back(v);
    }
    const ExactValue span = table.back().value - table.front().value;
    for (const ExactValue& v : {table.back().value, table.back().value + span,
                                table.front().value - span, table.back().value.timesPowerOfTwo(40)})
        inputs.push_back(v);
    inputs.push_back(ExactValue::zero(true));
    inputs.push_back(table.front().value.timesPowerOfTwo(40));

    int failures = 0;
    QString firstGot, firstWant;
    for (const ExactValue& x : inputs) {
        for (const ModeCase& mode : kModes) {
            for (OverflowPolicy policy : kPolicies) {
                // Quantization always clamps: the overflow policy makes no difference.
                const Expected want = reference(table, x, mode);
                const Conversion got = roundToFormat(x, spec, {mode.mode, policy, mode.randomBits});
                if (got.code == want.code && got.flags.inexact == want.inexact &&
                    got.flags.overflow == want.overflow && got.flags.invalid == want.invalid)
                    continue;
                const QString gotText = QString("%1 [%2]").arg(
                    hex(spec, got.code), QString::fromStdString(flagsToString(got.flags)));
                ConversionFlags wantFlags;
                wantFlags.inexact = want.inexact;
                wantFlags.overflow = want.overflow;
                wantFlags.invalid = want.invalid;
                const QString wantText = QString("%1 [%2 (underflow not checked)]")
                                             .arg(hex(spec, want.code),
                                                  QString::fromStdString(flagsToString(wantFlags)));
                if (failures < 20)
                    qWarning("%s %s %s %s: got %s, expected %s", qPrintable(format),
                             qPrintable(valueText(x)), mode.name, overflowPolicyId(policy).data(),
                             qPrintable(gotText), qPrintable(wantText));
                if (failures++ == 0) {
                    firstGot = gotText;
                    firstWant = wantText;
                }
            }
        }
    }
    if (failures > 0) {
        qWarning("%d mismatches", failures);
        QCOMPARE(firstGot, firstWant);
    }
}

void TestQuantization::examples_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<qlonglong>("scaleNumerator"); // 0: default scale
    QTest::addColumn<qlonglong>("scaleDenominator");
    QTest::addColumn<qlonglong>("numerator"); // input = numerator / denominator
    QTest::addColumn<qlonglong>("denominator");
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<bool>("overflow");
    const int rne = int(RoundingMode::NearestEven);
    const int rna = int(RoundingMode::NearestAway);
    const int rtz = int(RoundingMode::TowardZero);
    const int rup = int(RoundingMode::TowardPositive);
    const int rdn = int(RoundingMode::TowardNegative);

    // int8, scale 1/127: 0.5 → 63.5, a tie.
    QTest::newRow("int8 0.5 rne") << "int8" << 0LL << 1LL << 1LL << 2LL << rne << "0x40" << false;
    QTest::newRow("int8 0.5 rna") << "int8" << 0LL << 1LL << 1LL << 2LL << rna << "0x40" << false;
    QTest::newRow("int8 0.5 rtz") << "int8" << 0LL << 1LL << 1LL << 2LL << rtz << "0x3f" << false;
    QTest::newRow("int8 -0.5 rne") << "int8" << 0LL << 1LL << -1LL << 2LL << rne << "0xc0" << false;
    QTest::newRow("int8 -0.5 rup") << "int8" << 0LL << 1LL << -1LL << 2LL << rup << "0xc1" << false;
    QTest::newRow("int8 1") << "int8" << 0LL << 1LL << 1LL << 1LL << rne << "0x7f" << false;
    QTest::newRow("int8 -1") << "int8" << 0LL << 1LL << -1LL << 1LL << rne << "0x81" << false;
    QTest::newRow("int8 2") << "int8" << 0LL << 1LL << 2LL << 1LL << rne << "0x7f" << true;
    // −1.01 × 127 = −128.27 rounds to −128, in range; −1.02 × 127 = −129.54 does not.
    QTest::newRow("int8 -1.01") << "int8" << 0LL << 1LL << -101LL << 100LL << rne << "0x80"
                                << false;
    QTest::newRow("int8 -1.01 rdn")
        << "int8" << 0LL << 1LL << -101LL << 100LL << rdn << "0x80" << true;
    QTest::newRow("int8 -1.02") << "int8" << 0LL << 1LL << -102LL << 100LL << rne << "0x80" << true;
    // uint8, scale 1/255: 0.5 → 127.5; negatives clamp to 0.
    QTest::newRow("uint8 0.5 rne") << "uint8" << 0LL << 1LL << 1LL << 2LL << rne << "0x80" << false;
    QTest::newRow("uint8 0.5 rtz") << "uint8" << 0LL << 1LL << 1LL << 2LL << rtz << "0x7f" << false;
    QTest::newRow("uint8 -0.001") << "uint8" << 0LL << 1LL << -1LL << 1000LL << rne << "0x00"
                                  << false;
    QTest::newRow("uint8 -0.5") << "uint8" << 0LL << 1LL << -1LL << 2LL << rne << "0x00" << true;
    // int4, scale 1/7: ±0.5 → ±3.5 ties to ±4.
    QTest::newRow("int4 0.5") << "int4" << 0LL << 1LL << 1LL << 2LL << rne << "0x4" << false;
    QTest::newRow("int4 -0.5") << "int4" << 0LL << 1LL << -1LL << 2LL << rne << "0xc" << false;
    QTest::newRow("int4 -0.5 rtz") << "int4" << 0LL << 1LL << -1LL << 2LL << rtz << "0xd" << false;
    // int2, scale 1: levels −2, −1, 0, 1.
    QTest::newRow("int2 0.5 rne") << "int2" << 0LL << 1LL << 1LL << 2LL << rne << "0x0" << false;
    QTest::newRow("int2 0.5 rna") << "int2" << 0LL << 1LL << 1LL << 2LL << rna << "0x1" << false;
    QTest::newRow("int2 -1.5 rne") << "int2" << 0LL << 1LL << -3LL << 2LL << rne << "0x2" << false;
    QTest::newRow("int2 1.5 rne") << "int2" << 0LL << 1LL << 3LL << 2LL << rne << "0x1" << true;
    // uint4, scale 1/15: 1/30 → 0.5 ties to 0.
    QTest::newRow("uint4 1/30") << "uint4" << 0LL << 1LL << 1LL << 30LL << rne << "0x0" << false;
    QTest::newRow("uint4 1/30 rna")
        << "uint4" << 0LL << 1LL << 1LL << 30LL << rna << "0x1" << false;
    // int8 with scale 0.1: 0.35 → 3.5 → 4; 12.75 → 127.5 → 128, clamped; −12.85 → −128.5.
    QTest::newRow("int8/0.1 0.35")
        << "int8" << 1LL << 10LL << 35LL << 100LL << rne << "0x04" << false;
    QTest::newRow("int8/0.1 12.7")
        << "int8" << 1LL << 10LL << 127LL << 10LL << rne << "0x7f" << false;
    QTest::newRow("int8/0.1 12.75")
        << "int8" << 1LL << 10LL << 1275LL << 100LL << rne << "0x7f" << true;
    QTest::newRow("int8/0.1 -12.85")
        << "int8" << 1LL << 10LL << -1285LL << 100LL << rne << "0x80" << false;
    QTest::newRow("int8/0.1 -12.85 rna")
        << "int8" << 1LL << 10LL << -1285LL << 100LL << rna << "0x80" << true;
    // NF4: 0.5 lies between 0.4407 (code 12) and 0.5626 (13), nearer the first; −0.6 between
    // −0.6962 (1) and −0.5251 (2), nearer the second; absmax 2: 1.0 → 0.5 → 12.
    QTest::newRow("nf4 0.5") << "nf4" << 0LL << 1LL << 1LL << 2LL << rne << "0xc" << false;
    QTest::newRow("nf4 0.5 rup") << "nf4" << 0LL << 1LL << 1LL << 2LL << rup << "0xd" << false;
    QTest::newRow("nf4 -0.6") << "nf4" << 0LL << 1LL << -3LL << 5LL << rne << "0x2" << false;
    QTest::newRow("nf4 -0.6 rdn") << "nf4" << 0LL << 1LL << -3LL << 5LL << rdn << "0x1" << false;
    QTest::newRow("nf4 -0.01 rtz") << "nf4" << 0LL << 1LL << -1LL << 100LL << rtz << "0x7" << false;
    QTest::newRow("nf4 absmax 2: 1") << "nf4" << 2LL << 1LL << 1LL << 1LL << rne << "0xc" << false;
    QTest::newRow("nf4 absmax 2: 2") << "nf4" << 2LL << 1LL << 2LL << 1LL << rne << "0xf" << false;
    QTest::newRow("nf4 absmax 2: -3") << "nf4" << 2LL << 1LL << -3LL << 1LL << rne << "0x0" << true;
    QTest::newRow("nf4 1.5") << "nf4" << 0LL << 1LL << 3LL << 2LL << rne << "0xf" << true;
}

void TestQuantization::examples() {
    QFETCH(QString, format);
    QFETCH(qlonglong, scaleNumerator);
    QFETCH(qlonglong, scaleDenominator);
    QFETCH(qlonglong, numerator);
    QFETCH(qlonglong, denominator);
    QFETCH(int, mode);
    QFETCH(QString, expected);
    QFETCH(bool, overflow);
    const FormatSpec spec = makeSpec(format, scaleNumerator, scaleDenominator);
    for (OverflowPolicy policy : kPolicies) {
        const Conversion got =
            roundToFormat(ratio(numerator, denominator), spec, {RoundingMode(mode), policy, 0});
        QCOMPARE(hex(spec, got.code), expected);
        QCOMPARE(got.flags.overflow, overflow);
        QVERIFY(!got.flags.invalid);
    }
}

void TestQuantization::specials_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("input"); // nan, inf, -inf, -0
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("flags");
    // Clamping ±∞ is flagged overflow only, as fpx does for integers and for floats that
    // saturate ∞ (tst_smallformats): the same event gets the same flags in every format kind.
    const char* const rows[][4] = {
        {"int8", "nan", "0x00", "invalid"},    {"int8", "inf", "0x7f", "overflow"},
        {"int8", "-inf", "0x80", "overflow"},  {"int8", "-0", "0x00", ""},
        {"int4", "inf", "0x7", "overflow"},    {"int4", "-inf", "0x8", "overflow"},
        {"int2", "inf", "0x1", "overflow"},    {"int2", "-inf", "0x2", "overflow"},
        {"uint8", "nan", "0x00", "invalid"},   {"uint8", "inf", "0xff", "overflow"},
        {"uint8", "-inf", "0x00", "overflow"}, {"uint8", "-0", "0x00", ""},
        {"uint4", "inf", "0xf", "overflow"},   {"uint4", "-inf", "0x0", "overflow"},
        {"nf4", "nan", "0x7", "invalid"},      {"nf4", "inf", "0xf", "overflow"},
        {"nf4", "-inf", "0x0", "overflow"},    {"nf4", "-0", "0x7", ""},
    };
    for (const auto& row : rows)
        QTest::newRow(qPrintable(QString("%1 %2").arg(row[0], row[1])))
            << row[0] << row[1] << row[2] << row[3];
}

void TestQuantization::specials() {
    QFETCH(QString, format);
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QFETCH(QString, flags);
    const FormatSpec spec = lookUp(format);
    ExactValue x = ExactValue::nan();
    if (input == "inf" || input == "-inf")
        x = ExactValue::infinity(input.startsWith('-'));
    else if (input == "-0")
        x = ExactValue::zero(true);
    for (const ModeCase& mode : kModes) {
        for (OverflowPolicy policy : kPolicies) {
            const Conversion got = roundToFormat(x, spec, {mode.mode, policy, mode.randomBits});
            QCOMPARE(hex(spec, got.code), expected);
            QCOMPARE(QString::fromStdString(flagsToString(got.flags)), flags);
        }
    }
}

void TestQuantization::nf4Table() {
    const FormatSpec spec = lookUp("nf4");
    QCOMPARE(spec.kind, FormatKind::Lookup);
    QCOMPARE(spec.totalBits(), 4);
    QCOMPARE(spec.table.size(), std::size_t(16));
    QVERIFY(spec.scale == ExactValue::integer(1)); // absmax 1 unless a block sets it
    for (int i = 0; i < 16; ++i) {
        const ExactValue want = nearestFloat32(kNf4Decimals[i]);
        QVERIFY2(spec.table[std::size_t(i)] == want, kNf4Decimals[i]);
        QVERIFY2(decodeCode(spec, Code(i)).value == want, kNf4Decimals[i]);
        QCOMPARE(decodeCode(spec, Code(i)).level, std::int64_t(i));
        // Each level rounds back to its own code, exactly.
        const Conversion back = roundToFormat(want, spec);
        QCOMPARE(hex(spec, back.code), hex(spec, Code(i)));
        QVERIFY(!back.flags.any());
        if (i > 0)
            QVERIFY(compare(spec.table[std::size_t(i - 1)], spec.table[std::size_t(i)]) < 0);
    }
    // Two levels whose float32 differs from the decimal: the table holds the float32.
    QVERIFY(!(spec.table[1] ==
              ExactValue::fraction(true, BigInt("6961928009986877"), BigInt("10000000000000000"))));
    QVERIFY(spec.table[7].isZero());
}

QTEST_APPLESS_MAIN(TestQuantization)
#include "tst_quantization.moc"
