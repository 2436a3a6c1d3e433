// SPDX-License-Identifier: GPL-3.0-or-later
// `fpx table` and `fpx convert` on IEEE P3109 formats against the working group's value tables
// (tests/data/p3109, SOURCE.md): the table command lists every code with exactly the table's
// value and class; convert rounds values between neighbours to the nearer code, a tie to the
// even one.
#include "cli_runner.h"
#include "p3109_tables.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/value_parser.h"

#include <QJsonArray>
#include <QTest>

using namespace fpx;
using fpx::test::Row;
using fpx::test::Table;
using fpx::test::tables;

namespace {

QString expectedClass(const Row& row) {
    switch (row.kind) {
    case Row::Kind::NaN:
        return "nan";
    case Row::Kind::PlusInfinity:
    case Row::Kind::MinusInfinity:
        return "inf";
    case Row::Kind::Finite:
        break;
    }
    return row.value.isZero() ? "zero" : row.subnormal ? "subnormal" : "normal";
}

} // namespace

class TestP3109Cli : public QObject {
    Q_OBJECT

  private slots:
    void tableJsonReproducesEveryTable() {
        for (const Table& table : tables()) {
            const test::CliRun run = test::runFpx({"table", table.name, "--json"});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QJsonArray codes = QJsonDocument::fromJson(run.out).object()["codes"].toArray();
            QCOMPARE(qsizetype(codes.size()), qsizetype(table.rows.size()));
            for (const Row& row : table.rows) {
                const QJsonObject entry = codes[qsizetype(row.code)].toObject();
                const QString where =
                    QString("%1 code %2").arg(table.name).arg(entry["bits"].toString());
                QCOMPARE(entry["class"].toString(), expectedClass(row));
                if (row.kind != Row::Kind::Finite)
                    continue;
                QVERIFY2(entry["exact"].toBool(), qPrintable(where));
                const ParsedValue shown = parseValue(entry["value"].toString().toStdString());
                QVERIFY2(shown.value && *shown.value == row.value,
                         qPrintable(where + ": " + entry["value"].toString()));
            }
        }
    }

    void convertRoundsToTheNearerCodeTiesToTheEvenOne() {
        for (const Table& table : tables()) {
            const std::vector<const Row*> finite = fpx::test::finiteRowsInOrder(table);
            QByteArray input;
            std::vector<Code> expected;
            auto add = [&](const ExactValue& value, Code code) {
                input += QByteArray::fromStdString(toDecimal(value).text) + '\n';
                expected.push_back(code);
            };
            for (std::size_t i = 0; i + 1 < finite.size(); ++i) {
                const Row& a = *finite[i];
                const Row& b = *finite[i + 1];
                const ExactValue quarter = (b.value - a.value) / ExactValue::integer(4);
                add(a.value + quarter, a.code);
                add(a.value + quarter + quarter, a.code % 2 == 0 ? a.code : b.code);
                add(b.value - quarter, b.code);
            }
            const test::CliRun run =
                test::runFpx({"convert", "--to", table.name, "--round", "rne"}, input);
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QList<QByteArray> lines = run.out.trimmed().split('\n');
            QCOMPARE(qsizetype(lines.size()), qsizetype(expected.size()));
            const QList<QByteArray> inputs = input.trimmed().split('\n');
            for (qsizetype i = 0; i < lines.size(); ++i) {
                bool ok = false;
                const qulonglong code = QString(lines[i]).toULongLong(&ok, 16);
                QVERIFY2(ok && code == qulonglong(expected[std::size_t(i)]),
                         qPrintable(QString("%1: %2 → %3, the table says 0x%4")
                                        .arg(table.name, QString(inputs[i]), QString(lines[i]))
                                        .arg(qulonglong(expected[std::size_t(i)]), 0, 16)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestP3109Cli)
#include "tst_p3109_cli.moc"
