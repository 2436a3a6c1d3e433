// SPDX-License-Identifier: GPL-3.0-or-later
// Rounding at, just below and just above every value and every midpoint of every binary float
// format of at most 16 bits, in every rounding mode and both overflow policies.
//
// Method (universal's cfloat test suite): the format one bit wider — same exponent width and
// bias, one more fraction bit, every code read as a finite number — holds every value of the
// format, every midpoint between neighbours, and the values and midpoints of one binade past
// the largest finite value (where overflow is decided). Each of its values v is rounded as v,
// v − δ and v + δ, δ = a 64th of v's own quantum in the wider format, far smaller than any gap.
//
// The expectation never comes from fpx's rounding: it is picked from a sorted list of the
// format's finite magnitudes (built from the field rules of docs/behaviour.md, "Format facts")
// plus one virtual value a quantum beyond max, which lets overflow be decided after rounding
// with an unbounded exponent. Then the overflow rules of docs/behaviour.md, "Conversion rules"
// are applied.
//
// The reference computes in double. That is exact here, not a shortcut: every value involved
// (format values, midpoints, v ± δ, differences of neighbours) has at most 19 significant bits
// and a binary exponent within [−200, 200], so each is a double, and each sum or difference
// the reference forms is one as well (checked where it matters).
#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include "test_support.h"
#include <QElapsedTimer>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

QString describe(bool negative, double magnitude) {
    // QString::asprintf has no %a; the hex float is the exact value, the decimal a reading aid.
    char text[96];
    std::snprintf(text, sizeof text, "%s%.17g (%s%a)", negative ? "-" : "", magnitude,
                  negative ? "-" : "", magnitude);
    return QString::fromLatin1(text);
}

// Expected result of one conversion.
struct Expected {
    Code code = 0;
    bool inexact = false;
    bool overflow = false;
};

// The brute-force reference for one binary float format.
class Reference {
  public:
    explicit Reference(const FormatSpec& spec) : spec_(spec) {
        const int e = spec.exponentBits;
        const int f = spec.fractionBits;
        const Code eMax = (Code(1) << e) - 1;
        const Code fMax = (Code(1) << f) - 1;
        // Non-negative codes, in code order, which is value order for sign-magnitude formats.
        for (Code code = 0; code < (Code(1) << (e + f)); ++code) {
            const Code ef = code >> f;
            const Code ff = code & fMax;
            switch (spec.specials) {
            case SpecialEncoding::Ieee:
                if (ef == eMax)
                    continue; // ±∞ and NaNs
                break;
            case SpecialEncoding::NanAtAllOnes:
                if (ef == eMax && ff == fMax)
                    continue; // the only NaN of this sign
                break;
            case SpecialEncoding::NanAtNegativeZero: // the NaN has the sign bit set
            case SpecialEncoding::None:
                break;
            }
            double value = 0;
            if (ef == 0 && spec.exponentZeroIsSubnormal)
                value = std::ldexp(double(ff), 1 - spec.bias - f);
            else
                value = std::ldexp(double((Code(1) << f) + ff), int(ef) - spec.bias - f);
            magnitudes_.push_back(value);
            codes_.push_back(code);
        }
        max_ = magnitudes_.back();
        maxCode_ = codes_.back();
        // The virtual value one quantum beyond max, as if the exponent range were unbounded.
        // Its code parity (maxCode + 1) is that of its significand, which is what "even" and
        // "odd" mean for the ties and round-to-odd rules.
        int exponent = 0;
        std::frexp(max_, &exponent); // max = m × 2^exponent, m in [0.5, 1)
        magnitudes_.push_back(max_ + std::ldexp(1.0, exponent - 1 - f));
        codes_.push_back(maxCode_ + 1);
    }

    double max() const { return max_; }
    const std::vector<double>& magnitudes() const { return magnitudes_; }

    Expected round(bool negative, double magnitude, const ModeCase& mode,
                   OverflowPolicy policy) const {
        Expected out;
        // Index of the picked neighbour in magnitudes_, or nullopt for "zero, which this
        // format lacks" (E8M0 below 2^−127), or past the end for "beyond the virtual value".
        std::size_t picked = 0;
        bool belowSmallest = false;
        const auto upper = std::upper_bound(magnitudes_.begin(), magnitudes_.end(), magnitude);
        const std::size_t hiIndex = std::size_t(upper - magnitudes_.begin());
        if (hiIndex > 0 && magnitudes_[hiIndex - 1] == magnitude) {
            picked = hiIndex - 1; // exact
        } else {
            out.inexact = true;
            if (hiIndex == magnitudes_.size()) {
                picked = hiIndex; // both neighbours lie beyond max: overflow in every mode
            } else {
                const bool loExists = hiIndex > 0; // false only without a zero (E8M0)
                const double lo = loExists ? magnitudes_[hiIndex - 1] : 0.0;
                const double hi = magnitudes_[hiIndex];
                const bool up =
                    roundsAway(negative, magnitude, lo, hi,
                               loExists ? codes_[hiIndex - 1] : Code(0), codes_[hiIndex], mode);
                if (up)
                    picked = hiIndex;
                else if (loExists)
                    picked = hiIndex - 1;
                else
                    belowSmallest = true;
            }
        }

        if (belowSmallest) {
            // No zero to round to (E8M0): the smallest value is the nearest representable one
            // in every direction that stays in range.
            out.code = codes_.front();
            return out;
        }
        if (picked + 1 >= magnitudes_.size()) {
            out.overflow = true;
            out.inexact = true;
            out.code = overflowCode(negative, mode.mode, policy);
            return out;
        }
        const Code code = codes_[picked];
        if (!negative)
            out.code = code;
        else if (code == 0) // −0, or +0 where the format has a single zero (fnuz)
            out.code = spec_.specials == SpecialEncoding::NanAtNegativeZero ? 0 : spec_.signBit();
        else
            out.code = spec_.signBit() | code;
        return out;
    }

  private:
    // Whether an inexact |x| in (lo, hi) goes to hi, the neighbour away from zero.
    bool roundsAway(bool negative, double magnitude, double lo, double hi, Code loCode, Code hiCode,
                    const ModeCase& mode) const {
        // With no fraction bits (E8M0) every significand is 1: "even" and "odd" do not tell the
        // neighbours apart. Ties then go up (as ml_dtypes and PyTorch round E8M0), and
        // round-to-odd keeps the truncated value.
        const bool noFraction = spec_.fractionBits == 0;
        switch (mode.mode) {
        case RoundingMode::NearestEven:
        case RoundingMode::NearestAway: {
            const double mid = (lo + hi) / 2; // exact: one more bit than the neighbours
            if (magnitude != mid)
                return magnitude > mid;
            if (mode.mode == RoundingMode::NearestAway || noFraction)
                return true;
            return (hiCode & 1) == 0;
        }
        case RoundingMode::TowardZero:
            return false;
        case RoundingMode::TowardPositive:
            return !negative;
        case RoundingMode::TowardNegative:
            return negative;
        case RoundingMode::ToOdd:
            if (noFraction)
                return false;
            return (loCode & 1) == 0;
        case RoundingMode::Stochastic: {
            // rounding.h: away from zero when randomBits / 2^64 < (|x| − lo) / (hi − lo).
            // Neighbouring values of a binary format differ by a power of two 2^g, so the
            // fraction × 2^64 is (|x| − lo) × 2^(64 − g), a double with few significant bits
            // below 2^64; randomBits < y ⟺ randomBits < ceil(y) for an integer randomBits.
            const double gap = hi - lo;
            int g = 0;
            const double m = std::frexp(gap, &g);
            if (m != 0.5)
                qFatal("gap %a is not a power of two", gap);
            const double scaled = std::ldexp(magnitude - lo, 64 - (g - 1));
            const auto ceiling = static_cast<Code>(std::ceil(scaled));
            return static_cast<Code>(mode.randomBits) < ceiling;
        }
        }
        return false;
    }

    // docs/behaviour.md, "Conversion rules": the overflow policy, for a result beyond max.
    Code overflowCode(bool negative, RoundingMode mode, OverflowPolicy policy) const {
        const Code signedMax = negative ? (spec_.signBit() | maxCode_) : maxCode_;
        if (policy == OverflowPolicy::Saturate || spec_.specials == SpecialEncoding::None)
            return signedMax; // satfinite, and formats with neither ∞ nor NaN (fp6, fp4)
        // Directed roundings whose direction is toward zero stop at max. Round-to-odd is a
        // truncation followed by setting the last bit, so it too stays finite.
        const bool towardZero = mode == RoundingMode::TowardZero || mode == RoundingMode::ToOdd ||
                                (mode == RoundingMode::TowardPositive && negative) ||
                                (mode == RoundingMode::TowardNegative && !negative);
        if (towardZero)
            return signedMax;
        const int f = spec_.fractionBits;
        const Code eMax = (Code(1) << spec_.exponentBits) - 1;
        switch (spec_.specials) {
        case SpecialEncoding::Ieee: // ±∞
            return (negative ? spec_.signBit() : 0) | (eMax << f);
        case SpecialEncoding::NanAtAllOnes: // NaN of the same sign (E8M0: the unsigned 0xFF)
            return (negative ? spec_.signBit() : 0) | (eMax << f) | ((Code(1) << f) - 1);
        case SpecialEncoding::NanAtNegativeZero: // the one NaN, 100…0
            return spec_.signBit();
        case SpecialEncoding::None:
            break;
        }
        return signedMax;
    }

    FormatSpec spec_;
    std::vector<double> magnitudes_; // non-negative finite values ascending, then the virtual
    std::vector<Code> codes_;
    double max_ = 0;
    Code maxCode_ = 0;
};

// One magnitude of the one-bit-wider format: significand × 2^exponent.
struct WideValue {
    std::int64_t significand;
    int exponent;
};

std::vector<WideValue> widerFormatMagnitudes(const FormatSpec& spec) {
    const int e = spec.exponentBits;
    const int f = spec.fractionBits + 1;
    std::vector<WideValue> out;
    for (int ef = 0; ef < (1 << e); ++ef) {
        for (std::int64_t ff = 0; ff < (std::int64_t(1) << f); ++ff) {
            if (ef == 0 && spec.exponentZeroIsSubnormal)
                out.push_back({ff, 1 - spec.bias - f});
            else
                out.push_back({(std::int64_t(1) << f) + ff, ef - spec.bias - f});
        }
    }
    return out;
}

} // namespace

class TestMidpoints : public QObject {
    Q_OBJECT

  private slots:
    void everyMidpoint_data();
    void everyMidpoint();
    void overflowThresholds_data();
    void overflowThresholds();
    void stochasticFrequencies_data();
    void stochasticFrequencies();
};

void TestMidpoints::everyMidpoint_data() {
    QTest::addColumn<QString>("format");
    // The built-in binary floats of at most 16 bits must all be here: a new one fails this
    // list until it is added.
    const QStringList builtins = {"fp16",         "bf16",         "fp8_e4m3",        "fp8_e5m2",
                                  "fp8_e4m3fnuz", "fp8_e5m2fnuz", "fp8_e4m3b11fnuz", "fp8_e3m4",
                                  "fp8_e8m0",     "fp6_e3m2",     "fp6_e2m3",        "fp4_e2m1",
                                  "fp4_e1m2"};
    for (const FormatSpec& spec : builtinFormats()) {
        if (spec.kind == FormatKind::BinaryFloat && spec.totalBits() <= 16 &&
            !builtins.contains(QString::fromStdString(spec.id)))
            qFatal("built-in format %s is not covered", spec.id.c_str());
    }
    for (const QString& id : builtins)
        QTest::newRow(qPrintable(id)) << id;
    // Custom specs, parsed from names. e5m2fnuz, e4m3fn and e4m3b11fnuz are aliases of
    // built-ins, so the custom spellings of the first two spell the bias out.
    const QStringList customs = {"e5m10",       "e4m3b7fn", "e3m3",   "e2m2f",
                                 "e5m2b16fnuz", "e6m9b40",  "e3m2fnu"};
    for (const QString& name : customs)
        QTest::newRow(qPrintable(name)) << name;
}

void TestMidpoints::everyMidpoint() {
    QFETCH(QString, format);
    const FormatSpec spec = lookUp(format);
    QCOMPARE(spec.kind, FormatKind::BinaryFloat);
    QVERIFY(spec.totalBits() <= 16);
    QVERIFY(!spec.explicitIntegerBit);
    const Reference reference(spec);

    QElapsedTimer timer;
    timer.start();
    qint64 conversions = 0;
    int failures = 0;
    QString firstFailure;
    QString firstGot;
    QString firstExpected;

    auto check = [&](bool negative, std::int64_t numerator, int exponent) {
        const double magnitude = std::ldexp(double(numerator), exponent);
        const ExactValue input = ExactValue::dyadic(negative, BigInt(numerator), exponent);
        for (const ModeCase& mode : kModes) {
            for (OverflowPolicy policy : kPolicies) {
                const Expected want = reference.round(negative, magnitude, mode, policy);
                RoundingOptions options;
                options.mode = mode.mode;
                options.overflow = policy;
                options.randomBits = mode.randomBits;
                const Conversion got = roundToFormat(input, spec, options);
                ++conversions;
                if (got.code == want.code && got.flags.inexact == want.inexact &&
                    got.flags.overflow == want.overflow && !got.flags.invalid)
                    continue;
                const QString what =
                    QString("%1 %2 %3 %4: got %5 (inexact %6 overflow %7 invalid %8), expected "
                            "%9 (inexact %10 overflow %11)")
                        .arg(format, describe(negative, magnitude), mode.name,
                             QString::fromLatin1(overflowPolicyId(policy).data(),
                                                 qsizetype(overflowPolicyId(policy).size())),
                             hex(spec, got.code))
                        .arg(got.flags.inexact)
                        .arg(got.flags.overflow)
                        .arg(got.flags.invalid)
                        .arg(hex(spec, want.code))
                        .arg(want.inexact)
                        .arg(want.overflow);
                if (failures < 20)
                    qWarning("%s", qPrintable(what));
                if (failures == 0) {
                    firstFailure = what;
                    firstGot = hex(spec, got.code);
                    firstExpected = hex(spec, want.code);
                }
                ++failures;
            }
        }
    };

    for (const WideValue& v : widerFormatMagnitudes(spec)) {
        // δ = 2^−6 of the wider format's quantum at v: v ± δ keeps 6 more bits than v.
        const std::int64_t scaled = v.significand << 6;
        const int exponent = v.exponent - 6;
        for (bool negative : {false, true}) {
            // Unsigned formats (E8M0, *fnu) hold no negative value: only −0 could round back
            // to one. What other negative inputs give is a rule of its own (docs/behaviour.md,
            // "Conversion rules"), not a midpoint, so they are left out here.
            if (negative && !spec.isSigned)
                continue;
            check(negative, scaled, exponent);
            if (scaled > 0)
                check(negative, scaled - 1, exponent);
            check(negative, scaled + 1, exponent);
        }
    }
    qInfo("%s: %lld conversions in %lld ms", qPrintable(format), conversions, timer.elapsed());
    if (failures > 0) {
        qWarning("%d mismatches; first: %s", failures, qPrintable(firstFailure));
        QCOMPARE(firstGot, firstExpected);
        QCOMPARE(failures, 0); // flags differed while the codes agreed
    }
}

void TestMidpoints::overflowThresholds_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("sign");        // +1 or −1
    QTest::addColumn<qlonglong>("value"); // an integer, or 0 together with special
    QTest::addColumn<int>("exponent");    // value × 2^exponent
    QTest::addColumn<QString>("special"); // "", "inf"
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("policy");
    QTest::addColumn<QString>("expected");
    // The overflow flag: 1 set, 0 clear, −1 not checked (∞ into a format with NaN but no ∞:
    // docs/behaviour.md, "Conversion rules" gives the code, not the flag).
    QTest::addColumn<int>("overflow");

    const int rne = int(RoundingMode::NearestEven);
    const int rna = int(RoundingMode::NearestAway);
    const int rtz = int(RoundingMode::TowardZero);
    const int rup = int(RoundingMode::TowardPositive);
    const int rdn = int(RoundingMode::TowardNegative);
    const int ieee = int(OverflowPolicy::Ieee);
    const int sat = int(OverflowPolicy::Saturate);

    // docs/behaviour.md, "Conversion rules": 464 is a tie between 448 and the unrepresentable 480
    // and goes to 448 (even significand 1.110); 465 rounds to 480 > max: NaN, since E4M3 has
    // no ∞.
    QTest::newRow("e4m3 464") << "fp8_e4m3" << 1 << 464LL << 0 << "" << rne << ieee << "0x7e" << 0;
    QTest::newRow("e4m3 465") << "fp8_e4m3" << 1 << 465LL << 0 << "" << rne << ieee << "0x7f" << 1;
    QTest::newRow("e4m3 -465") << "fp8_e4m3" << -1 << 465LL << 0 << "" << rne << ieee << "0xff"
                               << 1;
    QTest::newRow("e4m3 465 sat") << "fp8_e4m3" << 1 << 465LL << 0 << "" << rne << sat << "0x7e"
                                  << 1;
    QTest::newRow("e4m3 -465 sat")
        << "fp8_e4m3" << -1 << 465LL << 0 << "" << rne << sat << "0xfe" << 1;
    QTest::newRow("e4m3 464 sat") << "fp8_e4m3" << 1 << 464LL << 0 << "" << rne << sat << "0x7e"
                                  << 0;
    QTest::newRow("e4m3 inf") << "fp8_e4m3" << 1 << 0LL << 0 << "inf" << rne << ieee << "0x7f"
                              << -1;
    QTest::newRow("e4m3 inf sat") << "fp8_e4m3" << 1 << 0LL << 0 << "inf" << rne << sat << "0x7e"
                                  << 1;
    // 61440 = 57344 + half the quantum 4096 ties between 1.11 × 2^15 (odd) and 2^16 (even).
    QTest::newRow("e5m2 61439") << "fp8_e5m2" << 1 << 61439LL << 0 << "" << rne << ieee << "0x7b"
                                << 0;
    QTest::newRow("e5m2 61440") << "fp8_e5m2" << 1 << 61440LL << 0 << "" << rne << ieee << "0x7c"
                                << 1;
    QTest::newRow("e5m2 -61440") << "fp8_e5m2" << -1 << 61440LL << 0 << "" << rne << ieee << "0xfc"
                                 << 1;
    QTest::newRow("e5m2 61440 sat")
        << "fp8_e5m2" << 1 << 61440LL << 0 << "" << rne << sat << "0x7b" << 1;
    QTest::newRow("e5m2 inf sat") << "fp8_e5m2" << 1 << 0LL << 0 << "inf" << rne << sat << "0x7b"
                                  << 1;
    QTest::newRow("e5m2 -inf") << "fp8_e5m2" << -1 << 0LL << 0 << "inf" << rne << ieee << "0xfc"
                               << 0;
    // fp16: 65520 = 65504 + 16 ties between 65504 (odd) and 65536 (even).
    QTest::newRow("fp16 65519") << "fp16" << 1 << 65519LL << 0 << "" << rne << ieee << "0x7bff"
                                << 0;
    QTest::newRow("fp16 65520") << "fp16" << 1 << 65520LL << 0 << "" << rne << ieee << "0x7c00"
                                << 1;
    QTest::newRow("fp16 65520 sat")
        << "fp16" << 1 << 65520LL << 0 << "" << rne << sat << "0x7bff" << 1;
    QTest::newRow("fp16 65519 sat")
        << "fp16" << 1 << 65519LL << 0 << "" << rne << sat << "0x7bff" << 0;
    QTest::newRow("fp16 65519 rna")
        << "fp16" << 1 << 65519LL << 0 << "" << rna << ieee << "0x7bff" << 0;
    QTest::newRow("fp16 65520 rna")
        << "fp16" << 1 << 65520LL << 0 << "" << rna << ieee << "0x7c00" << 1;
    QTest::newRow("fp16 65520 rtz")
        << "fp16" << 1 << 65520LL << 0 << "" << rtz << ieee << "0x7bff" << 0;
    QTest::newRow("fp16 65505 rup")
        << "fp16" << 1 << 65505LL << 0 << "" << rup << ieee << "0x7c00" << 1;
    QTest::newRow("fp16 -65505 rup")
        << "fp16" << -1 << 65505LL << 0 << "" << rup << ieee << "0xfbff" << 0;
    QTest::newRow("fp16 -65505 rdn")
        << "fp16" << -1 << 65505LL << 0 << "" << rdn << ieee << "0xfc00" << 1;
    QTest::newRow("fp16 1e6 rtz") << "fp16" << 1 << 1000000LL << 0 << "" << rtz << ieee << "0x7bff"
                                  << 1;
    QTest::newRow("fp16 -inf sat")
        << "fp16" << -1 << 0LL << 0 << "inf" << rne << sat << "0xfbff" << 1;
    // fnuz: 248 ties between 240 (1.111 × 2^7, odd) and 256: overflow, and the one NaN 0x80.
    QTest::newRow("e4m3fnuz 247") << "fp8_e4m3fnuz" << 1 << 247LL << 0 << "" << rne << ieee
                                  << "0x7f" << 0;
    QTest::newRow("e4m3fnuz 248") << "fp8_e4m3fnuz" << 1 << 248LL << 0 << "" << rne << ieee
                                  << "0x80" << 1;
    QTest::newRow("e4m3fnuz -248")
        << "fp8_e4m3fnuz" << -1 << 248LL << 0 << "" << rne << ieee << "0x80" << 1;
    QTest::newRow("e4m3fnuz -248 sat")
        << "fp8_e4m3fnuz" << -1 << 248LL << 0 << "" << rne << sat << "0xff" << 1;
    // E8M0: 1.5 × 2^127 ties between 2^127 and 2^128 and goes up: NaN, or max when saturating.
    QTest::newRow("e8m0 1.5*2^127")
        << "fp8_e8m0" << 1 << 3LL << 126 << "" << rne << ieee << "0xff" << 1;
    QTest::newRow("e8m0 1.5*2^127 sat")
        << "fp8_e8m0" << 1 << 3LL << 126 << "" << rne << sat << "0xfe" << 1;
    QTest::newRow("e8m0 1.5") << "fp8_e8m0" << 1 << 3LL << -1 << "" << rne << ieee << "0x80" << 0;
    // Formats with neither ∞ nor NaN always saturate (docs/behaviour.md, "Conversion rules").
    QTest::newRow("e3m2 30") << "fp6_e3m2" << 1 << 30LL << 0 << "" << rne << ieee << "0x1f" << 1;
    QTest::newRow("e3m2 -1000") << "fp6_e3m2" << -1 << 1000LL << 0 << "" << rne << ieee << "0x3f"
                                << 1;
    QTest::newRow("e3m2 inf") << "fp6_e3m2" << 1 << 0LL << 0 << "inf" << rne << ieee << "0x1f" << 1;
    QTest::newRow("e2m3 7.75") << "fp6_e2m3" << 1 << 31LL << -2 << "" << rne << ieee << "0x1f" << 1;
    QTest::newRow("e2m1 5") << "fp4_e2m1" << 1 << 5LL << 0 << "" << rne << ieee << "0x6" << 0;
    QTest::newRow("e2m1 7") << "fp4_e2m1" << 1 << 7LL << 0 << "" << rne << ieee << "0x7" << 1;
    QTest::newRow("e2m1 -7") << "fp4_e2m1" << -1 << 7LL << 0 << "" << rne << ieee << "0xf" << 1;
    // bf16: max + half an ulp ties between max (odd) and 2^128 (even): ∞; a quarter ulp
    // less stays at max.
    QTest::newRow("bf16 max+half ulp")
        << "bf16" << 1 << 0x1FFLL << 119 << "" << rne << ieee << "0x7f80" << 1;
    QTest::newRow("bf16 max+half ulp-")
        << "bf16" << 1 << 0x3FDLL << 118 << "" << rne << ieee << "0x7f7f" << 0;
}

void TestMidpoints::overflowThresholds() {
    QFETCH(QString, format);
    QFETCH(int, sign);
    QFETCH(qlonglong, value);
    QFETCH(int, exponent);
    QFETCH(QString, special);
    QFETCH(int, mode);
    QFETCH(int, policy);
    QFETCH(QString, expected);
    QFETCH(int, overflow);
    const FormatSpec spec = lookUp(format);
    const ExactValue input = special == "inf"
                                 ? ExactValue::infinity(sign < 0)
                                 : ExactValue::dyadic(sign < 0, BigInt(value), exponent);
    RoundingOptions options;
    options.mode = RoundingMode(mode);
    options.overflow = OverflowPolicy(policy);
    const Conversion got = roundToFormat(input, spec, options);
    QCOMPARE(hex(spec, got.code), expected);
    if (overflow >= 0)
        QCOMPARE(got.flags.overflow, overflow == 1);
}

void TestMidpoints::stochasticFrequencies_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("sign");
    QTest::addColumn<qlonglong>("numerator"); // input = numerator / denominator × 2^exponent
    QTest::addColumn<qlonglong>("denominator");
    QTest::addColumn<int>("exponent");
    QTest::addColumn<QString>("low");  // neighbour toward zero
    QTest::addColumn<QString>("high"); // neighbour away from zero
    QTest::addColumn<double>("probability");

    // e4m3: 1 = 0x38, 1.125 = 0x39; 1 + p/8 rounds away with probability p.
    QTest::newRow("e4m3 1+1/32") << "fp8_e4m3" << 1 << 33LL << 32LL << 0 << "0x38"
                                 << "0x39" << 0.25;
    QTest::newRow("e4m3 1+1/16") << "fp8_e4m3" << 1 << 17LL << 16LL << 0 << "0x38"
                                 << "0x39" << 0.5;
    QTest::newRow("e4m3 -(1+3/32)") << "fp8_e4m3" << -1 << 35LL << 32LL << 0 << "0xb8"
                                    << "0xb9" << 0.75;
    // Not dyadic: 1 + 1/24 is a third of the way from 1 to 1.125.
    QTest::newRow("e4m3 1+1/24") << "fp8_e4m3" << 1 << 25LL << 24LL << 0 << "0x38"
                                 << "0x39" << 1.0 / 3.0;
    // Subnormal: 2^−9 × (1 + 0.1): between 0x01 and 0x02 with probability 0.1.
    QTest::newRow("e4m3 subnormal") << "fp8_e4m3" << 1 << 11LL << 10LL << -9 << "0x01"
                                    << "0x02" << 0.1;
    // bf16: 1 = 0x3f80, 1 + 2^−7 = 0x3f81; 1 + 2^−9 rounds away with probability 1/4.
    QTest::newRow("bf16 1+2^-9") << "bf16" << 1 << 513LL << 512LL << 0 << "0x3f80"
                                 << "0x3f81" << 0.25;
    // fp4: 4 and 6; 4.4 rounds away with probability 0.2.
    QTest::newRow("e2m1 4.4") << "fp4_e2m1" << 1 << 22LL << 5LL << 0 << "0x6"
                              << "0x7" << 0.2;
}

void TestMidpoints::stochasticFrequencies() {
    QFETCH(QString, format);
    QFETCH(int, sign);
    QFETCH(qlonglong, numerator);
    QFETCH(qlonglong, denominator);
    QFETCH(int, exponent);
    QFETCH(QString, low);
    QFETCH(QString, high);
    QFETCH(double, probability);
    const FormatSpec spec = lookUp(format);
    const ExactValue input =
        ExactValue::fraction(sign < 0, BigInt(numerator), BigInt(denominator), exponent);
    constexpr int kDraws = 40000;
    int away = 0;
    for (int i = 0; i < kDraws; ++i) {
        RoundingOptions options;
        options.mode = RoundingMode::Stochastic;
        options.randomBits = stochasticBits(20240601, std::uint64_t(i));
        const QString got = hex(spec, roundToFormat(input, spec, options).code);
        if (got == high)
            ++away;
        else
            QCOMPARE(got, low); // never anything but the two neighbours
    }
    // Binomial: within 5 standard deviations of the mean (a false alarm about once in 1.7
    // million runs, and the bits are a fixed seed, so it is deterministic anyway).
    const double mean = kDraws * probability;
    const double sigma = std::sqrt(kDraws * probability * (1 - probability));
    QVERIFY2(std::abs(away - mean) < 5 * sigma,
             qPrintable(QString("%1 of %2 rounded away, expected %3 ± %4")
                            .arg(away)
                            .arg(kDraws)
                            .arg(mean)
                            .arg(5 * sigma)));
}

QTEST_APPLESS_MAIN(TestMidpoints)
#include "tst_midpoints.moc"
