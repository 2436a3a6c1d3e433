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
        for (const Table& table : tables()) {
            const FormatSpec spec = formatOf(table);
            std::vector<const Row*> finite;
            for (const Row& row : table.rows)
                if (row.kind == Row::Kind::Finite)
                    finite.push_back(&row);
            std::sort(finite.begin(), finite.end(),
                      [](const Row* a, const Row* b) { return compare(a->value, b->value) < 0; });
            for (std::size_t i = 0; i + 1 < finite.size(); ++i) {
                const Row& a = *finite[i];
                const Row& b = *finite[i + 1];
                const ExactValue gap = b.value - a.value;
                const ExactValue quarter = gap / ExactValue::integer(4);
                const QString where = QString("%1 between 0x%2 and 0x%3")
                                          .arg(table.name)
                                          .arg(qulonglong(a.code), 0, 16)
                                          .arg(qulonglong(b.code), 0, 16);
                QVERIFY2(roundToFormat(a.value + quarter, spec, nearest).code == a.code,
                         qPrintable(where));
                QVERIFY2(roundToFormat(b.value - quarter, spec, nearest).code == b.code,
                         qPrintable(where));
                const Code even = (a.code % 2 == 0) ? a.code : b.code;
                QVERIFY2(
                    roundToFormat(a.value + gap / ExactValue::integer(2), spec, nearest).code ==
                        even,
                    qPrintable(where + ": the tie"));
            }
        }
    }

    // Round to odd (P3109's ToOdd: away from zero exactly when something is discarded and the
    // code below is even) gives the odd code of the two neighbours around any value between
    // them, at P = 1 too, where "odd" is the code's, not the significand's.
    void toOddTakesTheOddCodeOfTheTwo() {
        RoundingOptions toOdd;
        toOdd.mode = *parseRoundingMode("ToOdd");
        for (const Table& table : tables()) {
            const FormatSpec spec = formatOf(table);
            std::vector<const Row*> finite;
            for (const Row& row : table.rows)
                if (row.kind == Row::Kind::Finite)
                    finite.push_back(&row);
            std::sort(finite.begin(), finite.end(),
                      [](const Row* a, const Row* b) { return compare(a->value, b->value) < 0; });
            for (std::size_t i = 0; i + 1 < finite.size(); ++i) {
                const Row& a = *finite[i];
                const Row& b = *finite[i + 1];
                const ExactValue quarter = (b.value - a.value) / ExactValue::integer(4);
                const Code odd = (a.code % 2 == 1) ? a.code : b.code;
                for (const ExactValue& x : {a.value + quarter, b.value - quarter})
                    QVERIFY2(roundToFormat(x, spec, toOdd).code == odd,
                             qPrintable(QString("%1 between 0x%2 and 0x%3")
                                            .arg(table.name)
                                            .arg(qulonglong(a.code), 0, 16)
                                            .arg(qulonglong(b.code), 0, 16)));
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
