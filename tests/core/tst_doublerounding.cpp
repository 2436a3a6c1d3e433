// SPDX-License-Identifier: GPL-3.0-or-later
//
// Double rounding: decimal inputs for which the tempting path "parse to double, then round
// to the narrow format" gives the wrong code, and fpx's single exact rounding
// (docs/behaviour.md, "Conversion rules") gives the right one.
//
// Construction: take the exact midpoint m between two neighbouring codes c and c+1 of the
// narrow format. m has at most p+1 significant bits, so it is a double. Move it by ε, far
// below half an ulp of double, towards the neighbour that a tie would *not* pick:
//   - strtod rounds m ± ε back to m exactly (checked), landing on the tie;
//   - rounding that double picks the tie's winner (the even code under rne, the one away
//     from zero under rna) — the wrong code;
//   - rounding m ± ε exactly picks the neighbour on ε's side — the right code.
// Every code is compared as a bit pattern (hex string), never as a value.

#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/value_parser.h"

#include "test_support.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using fpx::Code;
using fpx::ExactValue;

#ifdef __FLT16_MANT_DIG__
// GCC ≥ 12 on x86-64: _Float16 conversions are done by libgcc's soft-fp, an independent
// implementation of the double → fp16 rounding.
#define FPX_HAVE_FLOAT16 1
__extension__ typedef _Float16 Float16;
#endif

fpx::FormatSpec formatSpec(const std::string& id) {
    return fpx::test::lookUp(QString::fromStdString(id));
}

QString hex(Code code, const fpx::FormatSpec& spec) {
    return fpx::test::hex(spec, code);
}

fpx::RoundingOptions options(const QString& mode) {
    fpx::RoundingOptions o;
    o.mode = *fpx::parseRoundingMode(mode.toStdString());
    o.overflow = fpx::OverflowPolicy::Ieee;
    return o;
}

ExactValue exactly(const std::string& text) {
    const fpx::ParsedValue parsed = fpx::parseValue(text);
    if (!parsed)
        qFatal("cannot parse %s", text.c_str());
    return *parsed.value;
}

// 10^k for k ≥ 0, exactly.
fpx::BigInt powerOfTen(int k) {
    fpx::BigInt p = 1;
    for (int i = 0; i < k; ++i)
        p *= 10;
    return p;
}

struct Row {
    QString name;
    QString format;
    QString mode;
    QString input;    // m ± ε
    QString midpoint; // m, exactly
    QString correct;  // the neighbour on ε's side
    QString wrong;    // the tie's winner, which the double detour gives
};

// The row for the midpoint above the positive code `code` (the one above the largest finite
// value is the overflow threshold, with "code + 1" the ∞ or NaN code that IEEE overflow
// gives), with the given sign.
Row midpointRow(const fpx::FormatSpec& spec, const QString& mode, Code code, bool negative) {
    const fpx::DecodedCode low = fpx::decodeCode(spec, code);
    const std::int64_t quantum =
        std::max(low.unbiasedExponent, spec.minExponent()) - spec.fractionBits;
    const ExactValue m = low.value + ExactValue::dyadic(false, 1, quantum - 1);

    // Which neighbour a tie goes to. The last bit of a code is the last bit of its
    // significand, so "even" is read off the code itself (this also holds at the overflow
    // threshold, where the next significand is 10.0…0). rna ties go away from zero.
    const bool tieGoesUp = mode == QLatin1String("rna") || (code & 1) != 0;
    // ε pushes the other way: the exact answer is the neighbour the tie does not pick.
    const Code correct = tieGoesUp ? code : code + 1;
    const Code wrong = tieGoesUp ? code + 1 : code;

    // |ε| = 10^-k ≤ 2^(floor(log2 m) − 60): far below half an ulp of double (2^(e − 53)),
    // so strtod cannot tell m ± ε from m.
    const std::int64_t e = m.floorLog2();
    const int k = static_cast<int>(std::ceil((60 - e) * std::log10(2.0))) + 1;
    const ExactValue epsilon = k >= 0 ? ExactValue::fraction(false, 1, powerOfTen(k))
                                      : ExactValue::integer(powerOfTen(-k));
    const ExactValue input = tieGoesUp ? m - epsilon : m + epsilon;

    const Code sign = negative ? spec.signBit() : Code(0);
    const QString minus = negative ? QStringLiteral("-") : QString();
    Row row;
    row.format = QString::fromStdString(spec.id);
    row.mode = mode;
    row.input = minus + QString::fromStdString(fpx::toDecimal(input).text);
    row.midpoint = minus + QString::fromStdString(fpx::toDecimal(m).text);
    row.correct = hex(sign | correct, spec);
    row.wrong = hex(sign | wrong, spec);
    row.name = QStringLiteral("%1 %2 %3 %4|%5")
                   .arg(row.format, mode, negative ? QStringLiteral("-") : QStringLiteral("+"),
                        hex(code, spec), hex(code + 1, spec));
    return row;
}

// Positive codes whose upper midpoint is worth testing: for small formats all of them, for
// wider ones the edges (zero, subnormal/normal boundary, around 1, the overflow threshold)
// and a seeded sample in between. Formats without ∞ and NaN (FP4) saturate, so there is no
// wrong answer at their overflow threshold and it is left out.
std::vector<Code> codesToTest(const fpx::FormatSpec& spec, std::size_t sample) {
    const Code firstSpecial = spec.exponentFieldMax() << spec.fractionBits;
    // The largest finite positive code: below the all-ones exponent for IEEE formats, the
    // all-ones code itself minus one for "fn" formats (S.1111.111 is NaN), all-ones for FP4.
    Code maxFinite = 0;
    switch (spec.specials) {
    case fpx::SpecialEncoding::Ieee:
        maxFinite = firstSpecial - 1;
        break;
    case fpx::SpecialEncoding::NanAtAllOnes:
        maxFinite = (spec.signBit() - 1) - 1;
        break;
    default:
        maxFinite = spec.signBit() - 1;
        break;
    }
    const Code last = spec.hasNaN() ? maxFinite : maxFinite - 1;
    std::vector<Code> codes;
    if (last < 4 * sample) {
        for (Code c = 0; c <= last; ++c)
            codes.push_back(c);
        return codes;
    }
    const Code minNormal = Code(1) << spec.fractionBits;
    const Code one = Code(spec.bias) << spec.fractionBits;
    for (const Code c : {Code(0), Code(1), minNormal - 2, minNormal - 1, minNormal, minNormal + 1,
                         one - 1, one, one + 1, last - 1, last})
        codes.push_back(c);
    std::mt19937_64 rng(spec.totalBits());
    for (std::size_t i = 0; i < sample; ++i)
        codes.push_back(static_cast<Code>(rng() % static_cast<std::uint64_t>(last)));
    return codes;
}

} // namespace

class TestDoubleRounding : public QObject {
    Q_OBJECT

  private slots:
    void throughDouble_data();
    void throughDouble();
};

void TestDoubleRounding::throughDouble_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("midpoint");
    QTest::addColumn<QString>("correct");
    QTest::addColumn<QString>("wrong");

    // Classic hand-written cases: the midpoint plus (or minus) a tail of digits.
    struct Classic {
        const char* name;
        const char* format;
        const char* mode;
        const char* input;
        const char* midpoint;
        const char* correct;
        const char* wrong;
    };
    const Classic classics[] = {
        // 1 + 2^-11 is the tie between 0x3c00 (1) and 0x3c01; the tail tips it up.
        {"fp16 1+2^-11+eps", "fp16", "rne", "1.00048828125000000000001", "1.00048828125", "0x3c01",
         "0x3c00"},
        // 65520 is the tie between 65504 and 2^16 (∞ under rne); just below it is 65504.
        {"fp16 65520-eps", "fp16", "rne", "65519.99999999999999999", "65520", "0x7bff", "0x7c00"},
        {"fp32 1+2^-24+eps", "fp32", "rne", "1.000000059604644775390625000000001",
         "1.000000059604644775390625", "0x3f800001", "0x3f800000"},
        {"bf16 1+2^-8+eps", "bf16", "rne", "1.00390625000000000000001", "1.00390625", "0x3f81",
         "0x3f80"},
        // E4M3: 1 = 0x38, 1.125 = 0x39; 464 is the tie between 448 (max) and overflow (NaN).
        {"fp8_e4m3 1.0625+eps", "fp8_e4m3", "rne", "1.0625000000000000000001", "1.0625", "0x39",
         "0x38"},
        {"fp8_e4m3 464+eps", "fp8_e4m3", "rne", "464.0000000000000001", "464", "0x7f", "0x7e"},
        // E5M2: 1 = 0x3c, 1.25 = 0x3d.
        {"fp8_e5m2 1.125+eps", "fp8_e5m2", "rne", "1.12500000000000000000001", "1.125", "0x3d",
         "0x3c"},
        // E2M1: 1 = 0x2, 1.5 = 0x3.
        {"fp4_e2m1 1.25+eps", "fp4_e2m1", "rne", "1.25000000000000000000001", "1.25", "0x3", "0x2"},
        {"fp4_e2m1 -2.5-eps", "fp4_e2m1", "rne", "-2.50000000000000000000001", "-2.5", "0xd",
         "0xc"},
        // TF32 under rna (NVIDIA cvt.rna.tf32.f32): the tie goes away from zero, so just below
        // it the right answer is the lower code 0x1fc00 (1.0).
        {"tf32 rna 1+2^-11-eps", "tf32", "rna", "1.000488281249999999999999", "1.00048828125",
         "0x1fc00", "0x1fc01"},
    };
    for (const Classic& c : classics)
        QTest::newRow(c.name) << QString::fromLatin1(c.format) << QString::fromLatin1(c.mode)
                              << QString::fromLatin1(c.input) << QString::fromLatin1(c.midpoint)
                              << QString::fromLatin1(c.correct) << QString::fromLatin1(c.wrong);

    // Systematic cases, built from the midpoints of each format.
    struct Target {
        const char* format;
        const char* mode;
        std::size_t sample;
    };
    const Target targets[] = {
        {"fp32", "rne", 150},   {"bf16", "rne", 150},   {"fp16", "rne", 150},
        {"fp8_e4m3", "rne", 0}, {"fp8_e5m2", "rne", 0}, {"fp4_e2m1", "rne", 0},
        {"tf32", "rna", 100},   {"fp16", "rna", 50},
    };
    for (const Target& t : targets) {
        const fpx::FormatSpec spec = formatSpec(t.format);
        bool negative = false;
        for (const Code code : codesToTest(spec, t.sample)) {
            const Row row = midpointRow(spec, QString::fromLatin1(t.mode), code, negative);
            negative = !negative; // alternate signs: the rules are symmetric, check they are
            QTest::newRow(qPrintable(row.name))
                << row.format << row.mode << row.input << row.midpoint << row.correct << row.wrong;
        }
    }
}

void TestDoubleRounding::throughDouble() {
    QFETCH(QString, format);
    QFETCH(QString, mode);
    QFETCH(QString, input);
    QFETCH(QString, midpoint);
    QFETCH(QString, correct);
    QFETCH(QString, wrong);

    const fpx::FormatSpec spec = formatSpec(format.toStdString());
    const fpx::FormatSpec fp64 = formatSpec("fp64");
    const std::string text = input.toStdString();
    QVERIFY(correct != wrong);

    // 1. The double detour lands exactly on the midpoint (glibc's strtod is correctly
    //    rounded; ε is far below half an ulp).
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    QVERIFY(end != nullptr && *end == '\0');
    std::uint64_t dBits = 0;
    std::memcpy(&dBits, &d, sizeof d);
    const ExactValue m = exactly(midpoint.toStdString());
    const fpx::Conversion mAsDouble = fpx::roundToFormat(m, fp64);
    QVERIFY(!mAsDouble.flags.inexact); // the midpoint is a double
    QCOMPARE(hex(dBits, fp64), hex(mAsDouble.code, fp64));
    QVERIFY(fpx::decodeCode(fp64, dBits).value.isIdenticalTo(m));

    // 2. Rounding that double gives the tie's winner: the wrong code.
    const ExactValue viaDouble = fpx::decodeCode(fp64, dBits).value;
    QCOMPARE(hex(fpx::roundToFormat(viaDouble, spec, options(mode)).code, spec), wrong);
    // The same detour through the hardware and libgcc, where there is one.
    if (format == QLatin1String("fp32") && mode == QLatin1String("rne")) {
        const float f = static_cast<float>(d);
        std::uint32_t fBits = 0;
        std::memcpy(&fBits, &f, sizeof f);
        QCOMPARE(hex(fBits, spec), wrong);
        // strtof itself rounds once, from the decimal, and gets it right.
        const float direct = std::strtof(text.c_str(), nullptr);
        std::memcpy(&fBits, &direct, sizeof direct);
        QCOMPARE(hex(fBits, spec), correct);
    }
#ifdef FPX_HAVE_FLOAT16
    if (format == QLatin1String("fp16") && mode == QLatin1String("rne")) {
        const Float16 h = static_cast<Float16>(d);
        std::uint16_t hBits = 0;
        std::memcpy(&hBits, &h, sizeof h);
        QCOMPARE(hex(hBits, spec), wrong);
    }
#endif

    // 3. fpx rounds the exact decimal once: the neighbour on ε's side.
    const fpx::ParsedValue parsed = fpx::parseValue(text);
    QVERIFY(parsed);
    // The input really lies on the side of m where the correct code is: above |m| when the
    // correct code is the larger magnitude (codes of one sign are ordered like |value|).
    const Code magnitudeMask = spec.signBit() - 1;
    const bool correctIsLarger =
        (*fpx::parseCode(correct.toStdString(), spec.totalBits()) & magnitudeMask) >
        (*fpx::parseCode(wrong.toStdString(), spec.totalBits()) & magnitudeMask);
    const int side = compare(parsed.value->abs(), m.abs()); // found by ADL (a friend)
    QCOMPARE(side > 0, correctIsLarger);
    QVERIFY(side != 0);
    const fpx::Conversion direct = fpx::roundToFormat(*parsed.value, spec, options(mode));
    QCOMPARE(hex(direct.code, spec), correct);
    QVERIFY(direct.flags.inexact);
}

QTEST_APPLESS_MAIN(TestDoubleRounding)
#include "tst_doublerounding.moc"
