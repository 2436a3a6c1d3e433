// SPDX-License-Identifier: GPL-3.0-or-later
// What the number line of rounding shows, against brute force over every code of small
// formats, every rounding mode and both overflow policies: the rounding interval of each code
// (a value just inside each end rounds to the code, one just outside does not, an end is
// closed exactly when it rounds there), the neighbours around an input (against the sorted
// list of every value), and the shortest decimal that reads back under the mode in force
// (against every decimal of up to three significant digits).
#include "fpx/exact/code_details.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/rounding_neighbourhood.h"
#include "fpx/exact/value_parser.h"

#include <QTest>

#include <algorithm>
#include <map>

using namespace fpx;

namespace {

FormatSpec format(const char* id) {
    return *findFormat(id).spec;
}

const std::vector<RoundingMode> kModes = {
    RoundingMode::NearestEven,    RoundingMode::NearestAway,    RoundingMode::TowardZero,
    RoundingMode::TowardPositive, RoundingMode::TowardNegative, RoundingMode::ToOdd,
    RoundingMode::Stochastic};
const std::vector<OverflowPolicy> kPolicies = {OverflowPolicy::Ieee, OverflowPolicy::Saturate};

QByteArray label(const FormatSpec& spec, Code code, const RoundingOptions& o) {
    return QByteArray::fromStdString(spec.id + " " + codeToHex(code, spec.totalBits()) + " " +
                                     std::string(roundingModeId(o.mode)) + " " +
                                     std::string(overflowPolicyId(o.overflow)));
}

// Every code of the format, as an integer range.
std::vector<Code> allCodes(const FormatSpec& spec) {
    std::vector<Code> codes;
    for (Code c = 0; c < (Code(1) << spec.totalBits()); ++c)
        codes.push_back(c);
    return codes;
}

// Whether `x` can round to `code`: under stochastic rounding with the random bits that round
// up whenever anything is discarded, or those that almost never do.
bool canRoundTo(const ExactValue& x, const FormatSpec& spec, RoundingOptions o, Code code) {
    if (o.mode != RoundingMode::Stochastic)
        return roundToFormat(x, spec, o).code == code;
    o.randomBits = 0;
    if (roundToFormat(x, spec, o).code == code)
        return true;
    o.randomBits = ~std::uint64_t(0);
    return roundToFormat(x, spec, o).code == code;
}

// Significant digits of a decimal text ("0.0034" → 2, "5e-324" → 1, "65500" → 3).
int significantDigits(const std::string& text) {
    std::string digits;
    for (char c : text) {
        if (c == 'e')
            break;
        if (c >= '0' && c <= '9')
            digits += c;
    }
    const auto first = digits.find_first_not_of('0');
    if (first == std::string::npos)
        return 1;
    digits = digits.substr(first);
    // Trailing zeros of an integer are not significant either: 65500 is 655 × 10^2.
    const auto last = digits.find_last_not_of('0');
    return static_cast<int>(last + 1);
}

ExactValue parsed(const std::string& text) {
    return *parseValue(text).value;
}

} // namespace

class TestRoundingNeighbourhood : public QObject {
    Q_OBJECT

  private slots:
    void intervalEndsAgainstRounding_data();
    void intervalEndsAgainstRounding();
    void neighboursAgainstEveryValue_data();
    void neighboursAgainstEveryValue();
    void shortestAgainstEveryShortDecimal_data();
    void shortestAgainstEveryShortDecimal();
    void shortestUnderTowardZero();
    void overflowStretch();
};

void TestRoundingNeighbourhood::intervalEndsAgainstRounding_data() {
    QTest::addColumn<QString>("id");
    for (const char* id : {"fp8_e4m3", "fp8_e5m2", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1", "fp8_e8m0",
                           "int4", "uint4", "nf4"})
        QTest::newRow(id) << id;
}

void TestRoundingNeighbourhood::intervalEndsAgainstRounding() {
    QFETCH(QString, id);
    const FormatSpec spec = format(id.toUtf8().constData());
    const ExactValue minPositive = deriveLimits(spec).minPositive;
    const ExactValue far = ExactValue::dyadic(false, 1, 200); // past every format here
    for (RoundingMode mode : kModes)
        for (OverflowPolicy policy : kPolicies) {
            const RoundingOptions o{mode, policy, 0};
            for (Code code : allCodes(spec)) {
                const CodeDetails d = describeCode(spec, code, o);
                if (d.decoded.value.isNaN()) {
                    QVERIFY(!d.interval);
                    continue;
                }
                // A non-canonical code (another code of the same value) gets no input.
                const Code canonical = roundToFormat(d.decoded.value, spec, o).code;
                const QByteArray where = label(spec, code, o);
                QVERIFY2(d.interval, where);
                const RoundingInterval& r = *d.interval;
                if (canonical != code)
                    continue;
                // An amount far below every gap here, relative to the end.
                auto eps = [&](const ExactValue& end) {
                    const ExactValue scale =
                        compare(end.abs(), minPositive) > 0 ? end.abs() : minPositive;
                    return scale.timesPowerOfTwo(-30);
                };
                QVERIFY2(compare(r.low, d.decoded.value) <= 0, where);
                QVERIFY2(compare(d.decoded.value, r.high) <= 0, where);
                QVERIFY2(canRoundTo(d.decoded.value, spec, o, code), where);
                const bool point = r.low.isIdenticalTo(r.high);
                for (bool lowEnd : {true, false}) {
                    const ExactValue& end = lowEnd ? r.low : r.high;
                    const bool closed = lowEnd ? r.lowClosed : r.highClosed;
                    const QByteArray at = where + (lowEnd ? " low " : " high ") +
                                          QByteArray::fromStdString(toDecimal(end).text);
                    QVERIFY2(canRoundTo(end, spec, o, code) == closed, at + " closed");
                    if (end.isInfinity()) {
                        // Everything beyond rounds here (unless the end is the code's ∞).
                        if (!point)
                            QVERIFY2(canRoundTo(lowEnd ? far.negated() : far, spec, o, code), at);
                        continue;
                    }
                    const ExactValue step = eps(end);
                    const ExactValue inside = lowEnd ? end + step : end - step;
                    const ExactValue outside = lowEnd ? end - step : end + step;
                    if (!point)
                        QVERIFY2(canRoundTo(inside, spec, o, code), at + " inside");
                    // An unsigned format has nothing below 0 to round anywhere else.
                    if (!(outside.isNegative() && !spec.isSigned))
                        QVERIFY2(!canRoundTo(outside, spec, o, code), at + " outside");
                }
            }
        }
}

void TestRoundingNeighbourhood::neighboursAgainstEveryValue_data() {
    QTest::addColumn<QString>("id");
    for (const char* id :
         {"fp8_e4m3", "fp8_e5m2", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1", "int4", "uint4", "nf4"})
        QTest::newRow(id) << id;
}

void TestRoundingNeighbourhood::neighboursAgainstEveryValue() {
    QFETCH(QString, id);
    const FormatSpec spec = format(id.toUtf8().constData());
    // Every value of the format, sorted: the reference for "the next value below / above".
    std::vector<ExactValue> values;
    for (Code code : allCodes(spec)) {
        const ExactValue v = decodeCode(spec, code).value;
        if (!v.isNaN())
            values.push_back(v);
    }
    std::sort(values.begin(), values.end(),
              [](const ExactValue& a, const ExactValue& b) { return compare(a, b) < 0; });
    std::vector<ExactValue> finite;
    for (const ExactValue& v : values)
        if (v.isFinite() && (finite.empty() || compare(finite.back(), v) < 0))
            finite.push_back(v);
    // Inputs: every value, the points a quarter, half and three quarters between neighbours,
    // and some past each end of the range.
    std::vector<ExactValue> inputs = finite;
    for (std::size_t i = 1; i < finite.size(); ++i) {
        const ExactValue gap = finite[i] - finite[i - 1];
        for (int quarter = 1; quarter <= 3; ++quarter)
            inputs.push_back(finite[i - 1] +
                             gap * ExactValue::fraction(false, BigInt(quarter), BigInt(4)));
    }
    const ExactValue top = finite.back();
    const ExactValue bottom = finite.front();
    for (const ExactValue& extreme : {top, bottom}) {
        if (extreme.isZero())
            continue;
        for (const char* factor : {"1.01", "1.06", "1.2", "4", "1e30"})
            inputs.push_back(extreme * parsed(factor));
    }
    inputs.push_back(ExactValue::infinity(false));
    if (spec.isSigned)
        inputs.push_back(ExactValue::infinity(true));

    for (RoundingMode mode : kModes)
        for (OverflowPolicy policy : kPolicies) {
            const RoundingOptions o{mode, policy, 0};
            for (const ExactValue& x : inputs) {
                const QByteArray where = QByteArray::fromStdString(
                    spec.id + " " + toDecimal(x).text + " " + std::string(roundingModeId(mode)) +
                    " " + std::string(overflowPolicyId(policy)));
                const auto n = roundingNeighbourhood(x, spec, o);
                const Code result = roundToFormat(x, spec, o).code;
                if (decodeCode(spec, result).value.isNaN()) {
                    QVERIFY2(!n, where);
                    continue;
                }
                QVERIFY2(n, where);
                QCOMPARE_EQ(n->result.code, result);
                // below = the largest value ≤ x, above = the smallest ≥ x.
                const auto le = std::find_if(values.rbegin(), values.rend(),
                                             [&](const auto& v) { return compare(v, x) <= 0; });
                const auto ge = std::find_if(values.begin(), values.end(),
                                             [&](const auto& v) { return compare(v, x) >= 0; });
                QCOMPARE_EQ(n->below.has_value(), le != values.rend());
                QCOMPARE_EQ(n->above.has_value(), ge != values.end());
                if (n->below)
                    QVERIFY2(compare(n->below->value, *le) == 0, where);
                if (n->above)
                    QVERIFY2(compare(n->above->value, *ge) == 0, where);
                // The stretch: ordered, its ends the neighbours where they are finite and
                // apart, and no value of the format strictly inside it.
                QVERIFY2(compare(n->low.value, n->high.value) < 0, where);
                if (n->below && n->above && n->below->value.isFinite() &&
                    n->above->value.isFinite() && compare(n->below->value, n->above->value) < 0) {
                    QVERIFY2(compare(n->low.value, n->below->value) == 0, where);
                    QVERIFY2(compare(n->high.value, n->above->value) == 0, where);
                }
                for (const ExactValue& v : finite)
                    QVERIFY2(!(compare(n->low.value, v) < 0 && compare(v, n->high.value) < 0 &&
                               compare(v, x) != 0),
                             where);
                if (n->low.code)
                    QVERIFY2(decodeCode(spec, *n->low.code).value == n->low.value, where);
                if (n->high.code)
                    QVERIFY2(decodeCode(spec, *n->high.code).value == n->high.value, where);
                QVERIFY2(compare(n->midpoint + n->midpoint, n->low.value + n->high.value) == 0,
                         where);
                if (mode == RoundingMode::Stochastic) {
                    QVERIFY2(!n->midpointResult, where);
                } else {
                    QVERIFY2(n->midpointResult, where);
                    QCOMPARE_EQ(n->midpointResult->code, roundToFormat(n->midpoint, spec, o).code);
                }
                // The input lies in its code's interval; its position is 0 at low, 1 at high.
                const RoundingInterval& r = n->interval;
                const int lowSide = compare(r.low, x);
                const int highSide = compare(x, r.high);
                QVERIFY2(lowSide < 0 || (lowSide == 0 && r.lowClosed), where);
                QVERIFY2(highSide < 0 || (highSide == 0 && r.highClosed), where);
                QVERIFY2(numberLinePosition(*n, n->low.value).isZero(), where);
                QVERIFY2(numberLinePosition(*n, n->high.value) == ExactValue::integer(1), where);
                if (n->probabilityUp)
                    QVERIFY2(compare(*n->probabilityUp, numberLinePosition(*n, x)) == 0, where);
            }
        }
}

void TestRoundingNeighbourhood::shortestAgainstEveryShortDecimal_data() {
    QTest::addColumn<QString>("id");
    for (const char* id : {"fp8_e4m3", "fp8_e5m2", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1"})
        QTest::newRow(id) << id;
}

void TestRoundingNeighbourhood::shortestAgainstEveryShortDecimal() {
    QFETCH(QString, id);
    const FormatSpec spec = format(id.toUtf8().constData());
    // Every decimal d × 10^e with 1 ≤ d ≤ 999, both signs, over and past the format's range.
    struct Candidate {
        ExactValue value;
        int digits;
    };
    std::vector<Candidate> candidates;
    for (int e = -10; e <= 7; ++e)
        for (int d = 1; d <= 999; ++d) {
            if (d % 10 == 0)
                continue; // the same value as (d / 10) × 10^(e + 1)
            const std::string text = std::to_string(d) + "e" + std::to_string(e);
            for (bool negative : {false, true})
                candidates.push_back(
                    {parsed(text).withSign(negative), significantDigits(std::to_string(d))});
        }
    for (RoundingMode mode : kModes)
        for (OverflowPolicy policy : kPolicies) {
            // Stochastic rounding reads back nearest-even.
            const RoundingOptions o{mode, policy, 0};
            const RoundingOptions readBack{shortestReadBackMode(mode), policy, 0};
            QCOMPARE_EQ(shortestReadBackMode(mode),
                        mode == RoundingMode::Stochastic ? RoundingMode::NearestEven : mode);
            // For each code the shortest candidates that read back as it, nearest the value,
            // the one toward zero on a tie.
            std::map<Code, Candidate> best;
            for (const Candidate& c : candidates) {
                const Code code = roundToFormat(c.value, spec, readBack).code;
                const ExactValue v = decodeCode(spec, code).value;
                if (!v.isFinite())
                    continue;
                auto it = best.find(code);
                if (it == best.end()) {
                    best.emplace(code, c);
                    continue;
                }
                const Candidate& b = it->second;
                const int nearer = compare((c.value - v).abs(), (b.value - v).abs());
                if (c.digits < b.digits ||
                    (c.digits == b.digits &&
                     (nearer < 0 || (nearer == 0 && compare(c.value.abs(), b.value.abs()) < 0))))
                    it->second = c;
            }
            for (Code code : allCodes(spec)) {
                const ExactValue v = decodeCode(spec, code).value;
                if (!v.isFinite() || v.isZero())
                    continue;
                if (roundToFormat(v, spec, readBack).code != code)
                    continue; // a second code of one value: nothing reads back as it
                const std::string shortest = shortestRoundTrip(spec, code, o);
                const QByteArray where = label(spec, code, o) + " " + shortest.c_str();
                QCOMPARE_EQ(roundToFormat(parsed(shortest), spec, readBack).code, code);
                const auto it = best.find(code);
                if (it == best.end()) {
                    QVERIFY2(significantDigits(shortest) > 3, where);
                    continue;
                }
                QVERIFY2(parsed(shortest) == it->second.value,
                         where + " expected " + toDecimal(it->second.value).text.c_str());
                QCOMPARE_EQ(significantDigits(shortest), it->second.digits);
            }
        }
}

// The case that was reported: 0.375 in E4M3 reads back as "0.37" under nearest-even, but
// 0.37 truncates to 0.34375; under toward-zero the shortest is 0.4.
void TestRoundingNeighbourhood::shortestUnderTowardZero() {
    const FormatSpec e4m3 = format("fp8_e4m3");
    const Code code = roundToFormat(parsed("0.375"), e4m3).code;
    QCOMPARE(QString::fromStdString(shortestRoundTrip(e4m3, code)), QString("0.37"));
    const RoundingOptions rtz{RoundingMode::TowardZero, OverflowPolicy::Ieee, 0};
    QCOMPARE(QString::fromStdString(shortestRoundTrip(e4m3, code, rtz)), QString("0.4"));
    QVERIFY(roundToFormat(parsed("0.37"), e4m3, rtz).code != code);
    // Saturation makes 448 the read-back of everything above its lower half-way point.
    const Code max = deriveLimits(e4m3).maxCode;
    const RoundingOptions saturate{RoundingMode::NearestEven, OverflowPolicy::Saturate, 0};
    QCOMPARE(QString::fromStdString(shortestRoundTrip(e4m3, max, saturate)), QString("500"));
    QCOMPARE(QString::fromStdString(shortestRoundTrip(e4m3, max)), QString("450"));
}

// Past the finite range the stretch runs from the largest value to the step the format lacks,
// and the interval of +∞ starts half-way there.
void TestRoundingNeighbourhood::overflowStretch() {
    const FormatSpec fp16 = format("fp16");
    const auto n = roundingNeighbourhood(parsed("65520"), fp16, {});
    QVERIFY(n);
    QCOMPARE(QString::fromStdString(toDecimal(n->low.value).text), QString("65504"));
    QCOMPARE(QString::fromStdString(toDecimal(n->high.value).text), QString("65536"));
    QVERIFY(n->low.code && !n->high.code);
    QVERIFY(n->result.value.isInfinity());
    QCOMPARE(QString::fromStdString(toDecimal(n->interval.low).text), QString("65520"));
    QVERIFY(n->interval.lowClosed);
    QVERIFY(n->midpointResult && n->midpointResult->value.isInfinity());
    QCOMPARE(QString::fromStdString(toDecimal(numberLinePosition(*n, n->input)).text),
             QString("0.5"));
    // An input off the stretch: 1e10 lies far right of it.
    const auto far = roundingNeighbourhood(parsed("1e10"), fp16, {});
    QVERIFY(far && compare(numberLinePosition(*far, far->input), ExactValue::integer(1)) > 0);
    // NaN has no place on the line.
    QVERIFY(!roundingNeighbourhood(ExactValue::nan(), fp16, {}));
}

QTEST_GUILESS_MAIN(TestRoundingNeighbourhood)
#include "tst_rounding_neighbourhood.moc"
