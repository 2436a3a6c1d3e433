// SPDX-License-Identifier: GPL-3.0-or-later
// The conversion conventions and the MX scale rules (docs/behaviour.md, "Conversion
// conventions") against references that share no code with them: facts worked by hand from
// the specifications and sources, a straightforward encoder written here on FP32 bits with
// integer arithmetic, run over a grid of FP32 inputs for every convention and format, and the
// OCP MX scale definitions written out here in double arithmetic.
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/cast_conventions.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace fpx;

namespace {

// What the reference knows of a format: its fields and what its top codes mean.
struct SmallFormat {
    const char* id;
    int exponentBits;
    int mantissaBits;
    int bias;
    enum Specials { Fn, Ieee, Finite } specials;
    int emax; // exponent of the largest binade (the MX element's emax)
    double max;

    int bits() const { return 1 + exponentBits + mantissaBits; }
    std::uint32_t signBit() const { return 1u << (bits() - 1); }
    std::uint32_t maxCode() const {
        // fn: all-ones exponent with mantissa all ones but the last; IEEE: the exponent below
        // all ones; finite: every bit set.
        const std::uint32_t ones = (1u << (bits() - 1)) - 1;
        return specials == Fn ? ones - 1 : specials == Ieee ? ones - (1u << mantissaBits) : ones;
    }
};

// From the OCP OFP8 v1.0 and MX v1.0 tables.
const SmallFormat kE4m3{"fp8_e4m3", 4, 3, 7, SmallFormat::Fn, 8, 448};
const SmallFormat kE5m2{"fp8_e5m2", 5, 2, 15, SmallFormat::Ieee, 15, 57344};
const SmallFormat kE3m2{"fp6_e3m2", 3, 2, 3, SmallFormat::Finite, 4, 28};
const SmallFormat kE2m3{"fp6_e2m3", 2, 3, 1, SmallFormat::Finite, 2, 7.5};
const SmallFormat kE2m1{"fp4_e2m1", 2, 1, 1, SmallFormat::Finite, 2, 6};
const SmallFormat* const kFormats[] = {&kE4m3, &kE5m2, &kE3m2, &kE2m3, &kE2m1};

struct Encoded {
    std::uint32_t code = 0;
    bool overflow = false;
};

// The reference encoder: FP32 bits to a small format, round to nearest even with an unbounded
// exponent, then overflow by `saturate`. NaN is handled by the caller.
Encoded encode(std::uint32_t fp32, const SmallFormat& f, bool saturate) {
    const bool negative = fp32 >> 31;
    const std::uint32_t sign = negative ? f.signBit() : 0;
    const std::uint32_t magnitude = fp32 & 0x7fffffffu;
    const std::uint32_t overflowCode = saturate || f.specials == SmallFormat::Finite ? f.maxCode()
                                       : f.specials == SmallFormat::Fn
                                           ? (1u << (f.bits() - 1)) - 1 // NaN
                                           : f.maxCode() + 1;           // +∞
    if (magnitude == 0x7f800000u)
        return {overflowCode | sign, saturate};
    const std::uint32_t exponentField = magnitude >> 23;
    const std::uint32_t fraction = magnitude & 0x7fffffu;
    // value = sig × 2^exp2
    const std::uint64_t sig = exponentField ? (fraction | 0x800000u) : fraction;
    const int exp2 = exponentField ? int(exponentField) - 150 : -149;
    if (sig == 0)
        return {sign, false};
    const int e = int(std::bit_width(sig)) - 1 + exp2; // floor(log2 value)
    const int emin = 1 - f.bias;
    int q = std::max(e, emin) - f.mantissaBits; // the quantum's exponent
    std::uint64_t n = 0;
    if (exp2 >= q) {
        n = sig << (exp2 - q);
    } else {
        const int shift = q - exp2;
        if (shift < 40) {
            n = sig >> shift;
            const std::uint64_t rest = sig & ((std::uint64_t(1) << shift) - 1);
            const std::uint64_t half = std::uint64_t(1) << (shift - 1);
            if (rest > half || (rest == half && (n & 1)))
                ++n;
        }
    }
    if (n == 0)
        return {sign, false};
    if (n == (std::uint64_t(1) << (f.mantissaBits + 1))) { // carried into the next binade
        n >>= 1;
        ++q;
    }
    const bool normal = n >= (std::uint64_t(1) << f.mantissaBits);
    const std::int64_t biased = normal ? q + f.mantissaBits + f.bias : 0;
    const std::uint64_t code =
        (std::uint64_t(biased) << f.mantissaBits) | (n & ((1u << f.mantissaBits) - 1));
    if (biased >= (std::int64_t(1) << f.exponentBits) || code > f.maxCode())
        return {overflowCode | sign, true};
    return {std::uint32_t(code) | sign, false};
}

// The NaN codes the sources give (docs/behaviour.md, "Conversion conventions"): PyTorch's
// all-ones code with the sign; CUDA's host code 0x7f for FP8 and +max for FP6/FP4; the core's
// (ml_dtypes') canonical NaN, and the sign-bit code for +NaN into formats without NaN.
std::uint32_t nanCode(const SmallFormat& f, NanRule rule, bool negative) {
    const std::uint32_t sign = negative ? f.signBit() : 0;
    const std::uint32_t allOnes = (1u << (f.bits() - 1)) - 1;
    switch (rule) {
    case NanRule::Core:
        if (f.specials == SmallFormat::Finite)
            return negative ? 0 : f.signBit();
        // E5M2: ∞ (0x7c) with the quiet bit, the top mantissa bit, set.
        return (f.specials == SmallFormat::Fn ? allOnes
                                              : (f.maxCode() + 1) | (1u << (f.mantissaBits - 1))) |
               sign;
    case NanRule::AllOnes:
        return f.specials == SmallFormat::Finite ? nanCode(f, NanRule::Core, negative)
                                                 : allOnes | sign;
    case NanRule::PositiveAllOnes:
        return f.specials == SmallFormat::Finite ? f.maxCode() : allOnes;
    }
    return 0;
}

const CastConvention& convention(const std::string& id) {
    for (const CastConvention& c : castConventions())
        if (c.id == id)
            return c;
    qFatal("no convention %s", id.c_str());
}

FormatSpec spec(const char* id) {
    return *findFormat(id).spec;
}

Code castCode(const std::string& conventionId, const char* format, const ExactValue& x) {
    return castWithConvention(x, spec(format), convention(conventionId)).conversion.code;
}

ExactValue number(double v) {
    return exactFromDouble(v);
}

ExactValue fp32Value(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return exactFromDouble(double(f));
}

// The FP32 inputs of the grid: in every binade from below the format's subnormals to beyond
// its max, each multiple of an eighth of the format's quantum and the FP32 values beside it;
// then random FP32 codes, and the specials.
std::vector<std::uint32_t> gridFor(const SmallFormat& f) {
    std::vector<std::uint32_t> grid;
    const int lowest = 1 - f.bias - f.mantissaBits - 3;
    for (int e = lowest; e <= f.emax + 3; ++e) {
        const std::uint32_t step = 1u << (23 - f.mantissaBits - 3);
        for (std::uint32_t m = 0; m < (1u << 23); m += step)
            for (int d : {-1, 0, 1}) {
                const std::int64_t bits = (std::int64_t(e + 127) << 23) + m + d;
                if (bits > 0)
                    for (std::uint32_t sign : {0u, 0x80000000u})
                        grid.push_back(std::uint32_t(bits) | sign);
            }
    }
    std::mt19937 random(20240601);
    for (int i = 0; i < 20000; ++i) {
        const std::uint32_t bits = random();
        if ((bits & 0x7f800000u) != 0x7f800000u)
            grid.push_back(bits);
    }
    for (std::uint32_t special : {0u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7f7fffffu,
                                  0x00000001u, 0x7fc00000u, 0xffc00000u})
        grid.push_back(special);
    return grid;
}

} // namespace

class TestCastConventions : public QObject {
    Q_OBJECT

  private slots:
    void tableIsComplete();
    void e4m3HandFacts();
    void e5m2HandFacts();
    void fp6Fp4HandFacts();
    void nanCodes();
    void overflowResults();
    void gridAgainstReferenceEncoder();
    void scaleHandFacts();
    void scaleRulesAgainstOcpDefinitions();
};

void TestCastConventions::tableIsComplete() {
    const std::vector<std::string> ids{"ocp-sat", "ocp-nonsat", "nvidia-cvt-satfinite",
                                       "pytorch", "ml-dtypes",  "transformer-engine"};
    QCOMPARE(castConventions().size(), ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const CastConvention& c = castConventions()[i];
        QCOMPARE(c.id, ids[i]);
        QVERIFY(!c.name.empty() && !c.source.empty() && !c.formats.empty());
        QCOMPARE(c.rounding.mode, RoundingMode::NearestEven);
        for (const std::string& id : c.formats)
            QVERIFY2(findFormat(id), id.c_str());
    }
    // The OCP formats, and nothing wider.
    std::vector<std::string> covered;
    for (const FormatSpec& s : conventionFormats())
        covered.push_back(s.id);
    QCOMPARE(covered, (std::vector<std::string>{"fp8_e4m3", "fp8_e5m2", "fp6_e3m2", "fp6_e2m3",
                                                "fp4_e2m1"}));
    QVERIFY(!conventionCovers(convention("pytorch"), spec("fp4_e2m1")));
    QVERIFY(conventionCovers(convention("pytorch"), spec("e4m3"))); // an alias of fp8_e4m3
    QVERIFY(!conventionCovers(convention("ocp-sat"), spec("fp16")));
    QCOMPARE(scaleConventions().size(), std::size_t(3));
    QCOMPARE(scaleConventions()[0].rule, ScaleRule::Floor);
    QCOMPARE(scaleConventions()[1].rule, ScaleRule::Ceil);
    QCOMPARE(scaleConventions()[2].rule, ScaleRule::Even);
}

// E4M3: max 448 = 0x7e; 464 is the midpoint of 448 and 480 (which would be 0x7f, the NaN):
// ties to even keep 448; anything above overflows.
void TestCastConventions::e4m3HandFacts() {
    const char* saturating[] = {"ocp-sat", "nvidia-cvt-satfinite", "transformer-engine"};
    const char* toNaN[] = {"ocp-nonsat", "pytorch", "ml-dtypes"};
    for (const char* id : saturating) {
        QCOMPARE(castCode(id, "fp8_e4m3", number(448)), Code(0x7e));
        QCOMPARE(castCode(id, "fp8_e4m3", number(464)), Code(0x7e));
        QCOMPARE(castCode(id, "fp8_e4m3", number(465)), Code(0x7e));
        QCOMPARE(castCode(id, "fp8_e4m3", number(480)), Code(0x7e));
        QCOMPARE(castCode(id, "fp8_e4m3", number(-500)), Code(0xfe));
        QCOMPARE(castCode(id, "fp8_e4m3", ExactValue::infinity(false)), Code(0x7e));
        QCOMPARE(castCode(id, "fp8_e4m3", ExactValue::infinity(true)), Code(0xfe));
    }
    for (const char* id : toNaN) {
        QCOMPARE(castCode(id, "fp8_e4m3", number(448)), Code(0x7e));
        QCOMPARE(castCode(id, "fp8_e4m3", number(464)), Code(0x7e));
        QCOMPARE(castCode(id, "fp8_e4m3", number(465)), Code(0x7f));
        QCOMPARE(castCode(id, "fp8_e4m3", number(480)), Code(0x7f));
        QCOMPARE(castCode(id, "fp8_e4m3", number(-500)), Code(0xff));
        QCOMPARE(castCode(id, "fp8_e4m3", ExactValue::infinity(false)), Code(0x7f));
        QCOMPARE(castCode(id, "fp8_e4m3", ExactValue::infinity(true)), Code(0xff));
    }
    // Just above the midpoint, exactly: 464 + 2^-20 overflows, 464 − 2^-20 does not.
    const ExactValue above = number(464) + ExactValue::dyadic(false, 1, -20);
    const ExactValue below = number(464) - ExactValue::dyadic(false, 1, -20);
    QCOMPARE(castCode("pytorch", "fp8_e4m3", above), Code(0x7f));
    QCOMPARE(castCode("pytorch", "fp8_e4m3", below), Code(0x7e));
    QCOMPARE(castCode("ocp-sat", "fp8_e4m3", above), Code(0x7e));
    // The smallest subnormal 2^-9 and half of it (a tie with 0: even is 0).
    QCOMPARE(castCode("ocp-sat", "fp8_e4m3", ExactValue::dyadic(false, 1, -9)), Code(0x01));
    QCOMPARE(castCode("ocp-sat", "fp8_e4m3", ExactValue::dyadic(false, 1, -10)), Code(0x00));
    QCOMPARE(castCode("ocp-sat", "fp8_e4m3", number(1e-9)), Code(0x00));
}

// E5M2: max 57344 = 0x7b; 61440 is the midpoint of 57344 and 65536 (0x7c, ∞): ties to even go
// to 0x7c, so it overflows: ∞ without saturation, 57344 with.
void TestCastConventions::e5m2HandFacts() {
    for (const char* id : {"ocp-sat", "nvidia-cvt-satfinite", "transformer-engine"}) {
        QCOMPARE(castCode(id, "fp8_e5m2", number(57344)), Code(0x7b));
        QCOMPARE(castCode(id, "fp8_e5m2", number(61439)), Code(0x7b));
        QCOMPARE(castCode(id, "fp8_e5m2", number(61440)), Code(0x7b));
        QCOMPARE(castCode(id, "fp8_e5m2", number(-1e6)), Code(0xfb));
        QCOMPARE(castCode(id, "fp8_e5m2", ExactValue::infinity(false)), Code(0x7b));
    }
    for (const char* id : {"ocp-nonsat", "pytorch", "ml-dtypes"}) {
        QCOMPARE(castCode(id, "fp8_e5m2", number(57344)), Code(0x7b));
        QCOMPARE(castCode(id, "fp8_e5m2", number(61439)), Code(0x7b));
        QCOMPARE(castCode(id, "fp8_e5m2", number(61440)), Code(0x7c));
        QCOMPARE(castCode(id, "fp8_e5m2", number(-1e6)), Code(0xfc));
        QCOMPARE(castCode(id, "fp8_e5m2", ExactValue::infinity(true)), Code(0xfc));
    }
}

// FP6/FP4 have neither ∞ nor NaN: every convention saturates. E2M1: 6 = 1.1b × 2^2 is odd, so
// 7, the midpoint of 6 and 8, rounds to 8 and saturates at 6 (0x7).
void TestCastConventions::fp6Fp4HandFacts() {
    for (const char* id : {"ocp-sat", "ocp-nonsat", "nvidia-cvt-satfinite", "ml-dtypes"}) {
        QCOMPARE(castCode(id, "fp4_e2m1", number(6)), Code(0x7));
        QCOMPARE(castCode(id, "fp4_e2m1", number(7)), Code(0x7));
        QCOMPARE(castCode(id, "fp4_e2m1", number(-100)), Code(0xf));
        QCOMPARE(castCode(id, "fp4_e2m1", number(5)), Code(0x6)); // 5: tie of 4 (even) and 6
        QCOMPARE(castCode(id, "fp6_e3m2", number(30)), Code(0x1f));
        QCOMPARE(castCode(id, "fp6_e2m3", number(7.75)), Code(0x1f));
        QCOMPARE(castCode(id, "fp6_e2m3", ExactValue::infinity(true)), Code(0x3f));
    }
}

void TestCastConventions::nanCodes() {
    const ExactValue nan = ExactValue::nan(false);
    const ExactValue negativeNaN = ExactValue::nan(true);
    // E4M3 has one NaN per sign: only CUDA's drops the sign.
    QCOMPARE(castCode("ocp-sat", "fp8_e4m3", nan), Code(0x7f));
    QCOMPARE(castCode("pytorch", "fp8_e4m3", negativeNaN), Code(0xff));
    QCOMPARE(castCode("ml-dtypes", "fp8_e4m3", negativeNaN), Code(0xff));
    QCOMPARE(castCode("nvidia-cvt-satfinite", "fp8_e4m3", negativeNaN), Code(0x7f));
    // E5M2: the quiet NaN 0x7e (ml_dtypes, the core) against the all-ones 0x7f (PyTorch, CUDA).
    QCOMPARE(castCode("ml-dtypes", "fp8_e5m2", nan), Code(0x7e));
    QCOMPARE(castCode("ocp-nonsat", "fp8_e5m2", negativeNaN), Code(0xfe));
    QCOMPARE(castCode("pytorch", "fp8_e5m2", nan), Code(0x7f));
    QCOMPARE(castCode("pytorch", "fp8_e5m2", negativeNaN), Code(0xff));
    QCOMPARE(castCode("transformer-engine", "fp8_e5m2", negativeNaN), Code(0x7f));
    // FP4: ml_dtypes' sign-bit code for +NaN, +0 for −NaN; CUDA's +max.
    QCOMPARE(castCode("ml-dtypes", "fp4_e2m1", nan), Code(0x8));
    QCOMPARE(castCode("ml-dtypes", "fp4_e2m1", negativeNaN), Code(0x0));
    QCOMPARE(castCode("nvidia-cvt-satfinite", "fp4_e2m1", negativeNaN), Code(0x7));
    QCOMPARE(castCode("nvidia-cvt-satfinite", "fp6_e3m2", nan), Code(0x1f));
}

void TestCastConventions::overflowResults() {
    QCOMPARE(castWithConvention(number(1), spec("fp8_e4m3"), convention("pytorch")).overflow,
             OverflowResult::NaN);
    QCOMPARE(castWithConvention(number(1), spec("fp8_e5m2"), convention("pytorch")).overflow,
             OverflowResult::Infinity);
    QCOMPARE(castWithConvention(number(1), spec("fp8_e5m2"), convention("ocp-sat")).overflow,
             OverflowResult::Max);
    QCOMPARE(castWithConvention(number(1), spec("fp6_e3m2"), convention("ocp-nonsat")).overflow,
             OverflowResult::Max);
}

void TestCastConventions::gridAgainstReferenceEncoder() {
    for (const SmallFormat* f : kFormats) {
        const FormatSpec target = spec(f->id);
        const std::vector<std::uint32_t> grid = gridFor(*f);
        for (const CastConvention& c : castConventions()) {
            if (!conventionCovers(c, target))
                continue;
            const bool saturate = c.rounding.overflow == OverflowPolicy::Saturate;
            int checked = 0;
            for (std::uint32_t bits : grid) {
                const bool isNaN = (bits & 0x7fffffffu) > 0x7f800000u;
                const std::uint32_t expected =
                    isNaN ? nanCode(*f, c.nan, bits >> 31) : encode(bits, *f, saturate).code;
                const Code got = castWithConvention(fp32Value(bits), target, c).conversion.code;
                if (got != expected)
                    QFAIL(
                        qPrintable(QStringLiteral("%1 into %2: FP32 0x%3 gives 0x%4, expected 0x%5")
                                       .arg(QString::fromStdString(c.id), f->id)
                                       .arg(bits, 8, 16, QChar('0'))
                                       .arg(quint64(got), 0, 16)
                                       .arg(expected, 0, 16)));
                ++checked;
            }
            QVERIFY(checked > 10000);
        }
    }
}

// Worked by hand from the rules' definitions (block_format.h, docs/behaviour.md).
void TestCastConventions::scaleHandFacts() {
    auto scale = [](const char* element, ScaleRule rule, double amax) {
        const std::optional<BlockFormat> format = mxFormatForElement(spec(element), rule);
        if (!format)
            qFatal("no MX format for %s", element);
        return mxBlockScale(*format, number(amax));
    };
    QCOMPARE(mxFormatForElement(spec("fp8_e4m3"), ScaleRule::Floor)->id, std::string("mxfp8_e4m3"));
    QCOMPARE(mxFormatForElement(spec("fp4_e2m1"), ScaleRule::Ceil)->id, std::string("mxfp4"));
    QVERIFY(!mxFormatForElement(spec("fp16"), ScaleRule::Floor));

    // E4M3, amax 448: every rule gives 2^0 (code 0x7f) and the element 448 exactly.
    for (ScaleRule rule : {ScaleRule::Floor, ScaleRule::Ceil, ScaleRule::Even}) {
        const MxBlockScale s = scale("fp8_e4m3", rule, 448);
        QCOMPARE(s.exponent, std::int64_t(0));
        QCOMPARE(s.scaleCode, Code(0x7f));
        QCOMPARE(s.elementCode, Code(0x7e));
        QVERIFY(!s.clipped);
    }
    // amax 500: floor keeps 2^0 and 500 clips to 448; ceil and even (500 ≥ 1.9375 × 2^8 = 496)
    // take 2^1, and 250 rounds to 256 (0x78).
    QCOMPARE(scale("fp8_e4m3", ScaleRule::Floor, 500).exponent, std::int64_t(0));
    QVERIFY(scale("fp8_e4m3", ScaleRule::Floor, 500).clipped);
    QCOMPARE(scale("fp8_e4m3", ScaleRule::Floor, 500).elementCode, Code(0x7e));
    for (ScaleRule rule : {ScaleRule::Ceil, ScaleRule::Even}) {
        const MxBlockScale s = scale("fp8_e4m3", rule, 500);
        QCOMPARE(s.exponent, std::int64_t(1));
        QCOMPARE(s.scaleCode, Code(0x80));
        QCOMPARE(s.elementCode, Code(0x78));
        QVERIFY(!s.clipped);
    }
    // 464 rounds to 448 under 2^0: not a clip. 480 < 496: even keeps 2^0 and clips.
    QVERIFY(!scale("fp8_e4m3", ScaleRule::Floor, 464).clipped);
    QVERIFY(scale("fp8_e4m3", ScaleRule::Even, 480).clipped);
    QCOMPARE(scale("fp8_e4m3", ScaleRule::Ceil, 480).exponent, std::int64_t(1));
    // E5M2: 61440 rounds past 57344 under 2^0 (floor clips); ceil and even take 2^1.
    QVERIFY(scale("fp8_e5m2", ScaleRule::Floor, 61440).clipped);
    QCOMPARE(scale("fp8_e5m2", ScaleRule::Ceil, 61440).exponent, std::int64_t(1));
    QCOMPARE(scale("fp8_e5m2", ScaleRule::Even, 61440).exponent, std::int64_t(1));
    QCOMPARE(scale("fp8_e5m2", ScaleRule::Even, 57344).exponent, std::int64_t(0));
    // E2M1: 7 under 2^0 rounds to 8 and clips; ceil and even (7 ≥ 1.75 × 4) take 2^1.
    QVERIFY(scale("fp4_e2m1", ScaleRule::Floor, 7).clipped);
    QCOMPARE(scale("fp4_e2m1", ScaleRule::Even, 7).exponent, std::int64_t(1));
    // Zero: the smallest scale 2^-127, code 0x00; NaN and ∞: the NaN scale 0xff.
    QCOMPARE(scale("fp8_e4m3", ScaleRule::Floor, 0).scaleCode, Code(0x00));
    QCOMPARE(scale("fp8_e4m3", ScaleRule::Floor, 0).exponent, std::int64_t(-127));
    const std::optional<BlockFormat> mx = mxFormatForElement(spec("fp8_e4m3"), ScaleRule::Ceil);
    QVERIFY(mxBlockScale(*mx, ExactValue::nan()).nonFinite);
    QCOMPARE(mxBlockScale(*mx, ExactValue::infinity(false)).scaleCode, Code(0xff));
    // A negative amax is its magnitude.
    QCOMPARE(mxBlockScale(*mx, number(-500)).exponent, std::int64_t(1));
}

// The rules written out from their definitions in double arithmetic (every amax here is a
// double, and every step below is exact), against the core's, over a grid of amaxes.
void TestCastConventions::scaleRulesAgainstOcpDefinitions() {
    for (const SmallFormat* f : kFormats) {
        for (const ScaleConvention& rule : scaleConventions()) {
            const std::optional<BlockFormat> format = mxFormatForElement(spec(f->id), rule.rule);
            QVERIFY(format);
            for (int e = -60; e <= 60; ++e)
                for (int m = 0; m < 256; ++m) {
                    const double amax = std::ldexp(1.0 + m / 256.0, e);
                    int exponent = 0;
                    std::frexp(amax, &exponent);
                    const int floorLog2 = exponent - 1;
                    int expected = 0;
                    switch (rule.rule) {
                    case ScaleRule::Floor: // OCP MX v1.0, 6.3
                        expected = floorLog2 - f->emax;
                        break;
                    case ScaleRule::Ceil: // the smallest k with amax ≤ max · 2^k
                        expected = floorLog2 - f->emax - 2;
                        while (amax > std::ldexp(f->max, expected))
                            ++expected;
                        break;
                    case ScaleRule::Even: { // amax to p = mantissa bits + 1 bits, nearest even
                        const double unit = std::ldexp(1.0, floorLog2 - f->mantissaBits);
                        const double rounded = std::nearbyint(amax / unit) * unit;
                        std::frexp(rounded, &exponent);
                        expected = exponent - 1 - f->emax;
                        break;
                    }
                    }
                    const MxBlockScale s = mxBlockScale(*format, number(amax));
                    if (s.exponent != expected)
                        QFAIL(qPrintable(QStringLiteral("%1 %2, amax %3: exponent %4, expected %5")
                                             .arg(f->id, QString::fromStdString(rule.name))
                                             .arg(amax, 0, 'g', 17)
                                             .arg(s.exponent)
                                             .arg(expected)));
                    QCOMPARE(s.scaleCode, Code(expected + 127));
                    // The element: amax / 2^expected through the reference encoder, saturating.
                    const float q = float(std::ldexp(amax, -expected));
                    QCOMPARE(double(q), std::ldexp(amax, -expected)); // exact in FP32
                    const Encoded element = encode(std::bit_cast<std::uint32_t>(q), *f, true);
                    QCOMPARE(s.elementCode, Code(element.code));
                    QCOMPARE(s.clipped, element.overflow);
                }
        }
    }
}

QTEST_APPLESS_MAIN(TestCastConventions)
#include "tst_cast_conventions.moc"
