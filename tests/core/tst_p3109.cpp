// SPDX-License-Identifier: GPL-3.0-or-later
// IEEE P3109 binary formats against the working group's own value tables (tests/data/p3109,
// SOURCE.md): every code decodes to exactly the table's value and class, and rounding to
// nearest sends each value between two neighbours to the nearer, a tie to the even code.
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/rounding.h"

#include "p3109_tables.h"

#include <QTest>

#include <algorithm>
#include <vector>

using namespace fpx;

namespace {

using fpx::test::Row;
using fpx::test::Table;
using fpx::test::tables;

FormatSpec formatOf(const Table& table) {
    const FormatLookup lookup = findFormat(table.name.toStdString());
    if (!lookup)
        qFatal("%s: %s", qPrintable(table.name), lookup.error.c_str());
    return *lookup.spec;
}

QString describe(const Table& table, Code code) {
    return QString("%1 code 0x%2").arg(table.name).arg(qulonglong(code), 0, 16);
}

} // namespace

// `check(spec, a, b, where)` for every two neighbouring finite values a < b of every table.
template <class Check> void forEachNeighbours(const Check& check) {
    for (const Table& table : tables()) {
        const FormatSpec spec = formatOf(table);
        const std::vector<const Row*> finite = fpx::test::finiteRowsInOrder(table);
        for (std::size_t i = 0; i + 1 < finite.size(); ++i)
            check(spec, *finite[i], *finite[i + 1],
                  QString("%1 between 0x%2 and 0x%3")
                      .arg(table.name)
                      .arg(qulonglong(finite[i]->code), 0, 16)
                      .arg(qulonglong(finite[i + 1]->code), 0, 16));
    }
}

class TestP3109 : public QObject {
    Q_OBJECT

  private slots:
    void everyTableIsThere() {
        // K = 3…8: 4K − 2 tables each (signed P = 1…K−1, unsigned P = 1…K; e and f).
        int expected = 0;
        for (int k = 3; k <= 8; ++k)
            expected += 4 * k - 2;
        QCOMPARE(int(tables().size()), expected);
        for (const Table& table : tables()) {
            const FormatSpec spec = formatOf(table);
            QCOMPARE(qsizetype(table.rows.size()), qsizetype(1) << spec.totalBits());
            QCOMPARE(QString::fromStdString(spec.id), table.name.toLower());
        }
    }

    void everyCodeDecodesToTheTablesValueAndClass() {
        for (const Table& table : tables()) {
            const FormatSpec spec = formatOf(table);
            for (const Row& row : table.rows) {
                const DecodedCode d = decodeCode(spec, row.code);
                const QString where = describe(table, row.code);
                switch (row.kind) {
                case Row::Kind::NaN:
                    QVERIFY2(d.valueClass == ValueClass::NaN, qPrintable(where));
                    break;
                case Row::Kind::PlusInfinity:
                case Row::Kind::MinusInfinity:
                    QVERIFY2(d.valueClass == ValueClass::Infinity, qPrintable(where));
                    QCOMPARE(d.value.isNegative(), row.kind == Row::Kind::MinusInfinity);
                    break;
                case Row::Kind::Finite:
                    QVERIFY2(d.value.isFinite() && d.value == row.value,
                             qPrintable(where + ": " +
                                        QString::fromStdString(toSignificantDigits(d.value, 17))));
                    QVERIFY2((d.valueClass == ValueClass::Subnormal) == row.subnormal,
                             qPrintable(where + ": subnormal flag"));
                    QVERIFY2((d.valueClass == ValueClass::Zero) == row.value.isZero(),
                             qPrintable(where + ": zero"));
                    break;
                }
            }
        }
    }

    void limitsComeFromTheTable() {
        for (const Table& table : tables()) {
            const FormatSpec spec = formatOf(table);
            const FormatLimits limits = deriveLimits(spec);
            ExactValue largest = ExactValue::zero(false);
            int infinities = 0;
            for (const Row& row : table.rows) {
                if (row.kind == Row::Kind::Finite && compare(row.value, largest) > 0)
                    largest = row.value;
                infinities +=
                    row.kind == Row::Kind::PlusInfinity || row.kind == Row::Kind::MinusInfinity;
            }
            QVERIFY2(limits.max == largest, qPrintable(table.name));
            QCOMPARE(spec.hasInfinity(), infinities > 0);
            QCOMPARE(limits.infinityCount, BigInt(infinities));
            QCOMPARE(limits.nanCount, BigInt(1));
            QCOMPARE(limits.zeroCount, BigInt(1));
        }
    }

    // Between two neighbouring finite values a < b: a quarter of the way rounds to a, three
    // quarters to b, the midpoint to whichever code is even — under round to nearest, ties to
    // even. Every value of every table, both signs.
    void nearestEvenRoundsToTheNearerCodeTiesToTheEvenOne() {
        RoundingOptions nearest;
        nearest.mode = RoundingMode::NearestEven;
        forEachNeighbours([&](const FormatSpec& spec, const Row& a, const Row& b,
                              const QString& where) {
            const ExactValue gap = b.value - a.value;
            const ExactValue quarter = gap / ExactValue::integer(4);
            QVERIFY2(roundToFormat(a.value + quarter, spec, nearest).code == a.code,
                     qPrintable(where));
            QVERIFY2(roundToFormat(b.value - quarter, spec, nearest).code == b.code,
                     qPrintable(where));
            const Code even = (a.code % 2 == 0) ? a.code : b.code;
            QVERIFY2(roundToFormat(a.value + gap / ExactValue::integer(2), spec, nearest).code ==
                         even,
                     qPrintable(where + ": the tie"));
        });
    }

    // Round to odd (P3109's ToOdd: away from zero exactly when something is discarded and the
    // code below is even) gives the odd code of the two neighbours around any value between
    // them, at P = 1 too, where "odd" is the code's, not the significand's.
    void toOddTakesTheOddCodeOfTheTwo() {
        RoundingOptions toOdd;
        toOdd.mode = *parseRoundingMode("ToOdd");
        forEachNeighbours(
            [&](const FormatSpec& spec, const Row& a, const Row& b, const QString& where) {
                const ExactValue quarter = (b.value - a.value) / ExactValue::integer(4);
                const Code odd = (a.code % 2 == 1) ? a.code : b.code;
                for (const ExactValue& x : {a.value + quarter, b.value - quarter})
                    QVERIFY2(roundToFormat(x, spec, toOdd).code == odd, qPrintable(where));
            });
    }

    // What P3109's Saturate (Interim Report 4.7.5) makes of a rounded value beyond the finite
    // range, written out as its rules read, first match wins, for every table, mode and
    // saturation mode: far above the largest value, far below the lowest, ±∞, and into an
    // unsigned format a negative value that rounds to 0 or does not.
    void saturationFollowsTheReportsRules() {
        enum class Sat { Finite, Propagate, None };
        const std::pair<const char*, Sat> policies[] = {
            {"SatFinite", Sat::Finite}, {"SatPropagate", Sat::Propagate}, {"SatNone", Sat::None}};
        const RoundingMode modes[] = {RoundingMode::NearestEven,    RoundingMode::NearestAway,
                                      RoundingMode::TowardZero,     RoundingMode::TowardPositive,
                                      RoundingMode::TowardNegative, RoundingMode::ToOdd};
        for (const Table& table : tables()) {
            const FormatSpec spec = formatOf(table);
            const bool extended = table.name.endsWith('e');
            const bool isSigned = spec.isSigned;
            Code maxCode = 0, nanCode = 0, plusInf = 0, minusInf = 0, minCode = 0;
            ExactValue max = ExactValue::zero(false), minPositive = ExactValue::zero(false);
            for (const Row& row : table.rows) {
                if (row.kind == Row::Kind::NaN)
                    nanCode = row.code;
                if (row.kind == Row::Kind::PlusInfinity)
                    plusInf = row.code;
                if (row.kind == Row::Kind::MinusInfinity)
                    minusInf = row.code;
                if (row.kind != Row::Kind::Finite)
                    continue;
                if (compare(row.value, max) > 0) {
                    max = row.value;
                    maxCode = row.code;
                }
                if (!row.value.isNegative() && !row.value.isZero() &&
                    (minPositive.isZero() || compare(row.value, minPositive) < 0))
                    minPositive = row.value;
            }
            for (const Row& row : table.rows)
                if (row.kind == Row::Kind::Finite && row.value == max.negated())
                    minCode = row.code;
            const Code lowest = isSigned ? minCode : Code(0); // Mlo
            for (const auto& [policyName, sat] : policies) {
                for (RoundingMode mode : modes) {
                    RoundingOptions options;
                    options.mode = mode;
                    options.overflow = *parseOverflowPolicy(policyName);
                    const bool downIsZero =
                        mode == RoundingMode::TowardZero || mode == RoundingMode::TowardNegative;
                    const bool upIsZero =
                        mode == RoundingMode::TowardZero || mode == RoundingMode::TowardPositive;
                    auto check = [&](const ExactValue& x, Code expected, const char* what) {
                        const Code got = roundToFormat(x, spec, options).code;
                        QVERIFY2(got == expected,
                                 qPrintable(QString("%1 %2 %3 %4: 0x%5, expected 0x%6")
                                                .arg(table.name, policyName,
                                                     QString::fromUtf8(roundingModeId(mode)), what)
                                                .arg(qulonglong(got), 0, 16)
                                                .arg(qulonglong(expected), 0, 16)));
                    };
                    const ExactValue far = max * ExactValue::integer(4);
                    // X > Mhi.
                    Code above = maxCode;
                    if (sat == Sat::None &&
                        !(mode == RoundingMode::ToOdd && !isSigned && extended) && !downIsZero &&
                        extended)
                        above = plusInf;
                    check(far, above, "above");
                    check(ExactValue::infinity(false),
                          sat != Sat::Finite && extended ? plusInf : maxCode, "+inf");
                    // X < Mlo.
                    Code below = lowest;
                    if (sat == Sat::None && !upIsZero)
                        below = isSigned ? (extended ? minusInf : lowest) : nanCode;
                    check(far.negated(), below, "below");
                    Code minusInfinity = lowest;
                    if (sat == Sat::Propagate && isSigned && extended)
                        minusInfinity = minusInf;
                    if (sat == Sat::None)
                        minusInfinity = isSigned ? (extended ? minusInf : lowest) : nanCode;
                    check(ExactValue::infinity(true), minusInfinity, "-inf");
                    if (!isSigned) {
                        // A quarter of the smallest positive value, negative: to 0 unless the
                        // mode rounds it away from zero (toward −∞, or to the odd code).
                        const bool away =
                            mode == RoundingMode::TowardNegative || mode == RoundingMode::ToOdd;
                        const Code tiny = !away ? Code(0) : sat == Sat::None ? nanCode : Code(0);
                        check((minPositive / ExactValue::integer(4)).negated(), tiny, "-tiny");
                    }
                }
            }
        }
    }

    void theWorkingGroupsModeNamesAreAccepted() {
        const std::pair<const char*, RoundingMode> names[] = {
            {"NearestTiesToEven", RoundingMode::NearestEven},
            {"NearestTiesToAway", RoundingMode::NearestAway},
            {"TowardZero", RoundingMode::TowardZero},
            {"TowardPositive", RoundingMode::TowardPositive},
            {"TowardNegative", RoundingMode::TowardNegative},
            {"ToOdd", RoundingMode::ToOdd},
        };
        for (const auto& [name, mode] : names) {
            QVERIFY2(parseRoundingMode(name) == mode, name);
            QVERIFY2(parseRoundingMode(QString(name).toLower().toStdString()) == mode, name);
        }
    }

    void idsAreCheckedWithAMessage() {
        for (const char* bad : {"binary8p8se", "binary2p1se", "binary17p3se", "binary8p0uf",
                                "binary8p9uf", "binary8p3sx", "binary8p3", "binary8"}) {
            const FormatLookup lookup = findFormat(bad);
            QVERIFY2(!lookup, bad);
            QVERIFY2(lookup.error.find(bad) != std::string::npos, lookup.error.c_str());
        }
        // Case-insensitive, as the working group writes them.
        QVERIFY(findFormat("Binary8p4SE"));
        QCOMPARE(QString::fromStdString(findFormat("BINARY8P4SE").spec->id),
                 QString("binary8p4se"));
    }
};

QTEST_APPLESS_MAIN(TestP3109)
#include "tst_p3109.moc"
