// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The IEEE P3109 working group's value tables (tests/data/p3109, SOURCE.md), read with a
// hex-float reader of their own: the tables are the reference, not fpx's value parser.

#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QString>

#include <algorithm>
#include <optional>
#include <vector>

namespace fpx::test {

struct Row {
    Code code = 0;
    enum class Kind { Finite, PlusInfinity, MinusInfinity, NaN } kind = Kind::Finite;
    ExactValue value = ExactValue::zero(false);
    bool subnormal = false;
};

struct Table {
    QString name; // "Binary8p3se", the file's base name
    std::vector<Row> rows;
};

// C99 "%a" text: [-]0x<hex>[.<hex>]p<±decimal>, read exactly (an independent reader: the
// tables are the reference, not fpx's value parser).
inline std::optional<ExactValue> hexFloat(const QString& text) {
    QString t = text.trimmed();
    bool negative = false;
    if (t.startsWith('-')) {
        negative = true;
        t.remove(0, 1);
    }
    if (!t.startsWith("0x"))
        return std::nullopt;
    const qsizetype p = t.indexOf('p');
    if (p < 0)
        return std::nullopt;
    const QString digits = t.mid(2, p - 2);
    bool ok = false;
    const long long exponent = t.mid(p + 1).toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    BigInt significand = 0;
    std::int64_t fractionDigits = 0;
    bool afterPoint = false;
    for (QChar c : digits) {
        if (c == '.') {
            afterPoint = true;
            continue;
        }
        const int nibble = QString(c).toInt(&ok, 16);
        if (!ok)
            return std::nullopt;
        significand = significand * 16 + nibble;
        fractionDigits += afterPoint ? 1 : 0;
    }
    return ExactValue::dyadic(negative, significand, exponent - 4 * fractionDigits);
}

inline std::vector<Table> readTables() {
    std::vector<Table> tables;
    QDirIterator it(QStringLiteral(FPX_P3109_TABLES), {"*.csv"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
            qFatal("cannot read %s", qPrintable(path));
        Table table;
        table.name = QFileInfo(path).completeBaseName();
        const QList<QByteArray> lines = file.readAll().split('\n');
        for (qsizetype i = 1; i < lines.size(); ++i) {
            if (lines[i].isEmpty())
                continue;
            const QList<QByteArray> cells = lines[i].split(',');
            if (cells.size() != 3)
                qFatal("%s:%lld: expected 3 cells", qPrintable(path),
                       static_cast<long long>(i + 1));
            Row row;
            bool ok = false;
            row.code = QString(cells[0]).toULongLong(&ok, 16);
            if (!ok)
                qFatal("%s:%lld: bad code", qPrintable(path), static_cast<long long>(i + 1));
            const QString value = QString(cells[1]).trimmed();
            if (value == "NaN") {
                row.kind = Row::Kind::NaN;
            } else if (value == "Inf") {
                row.kind = Row::Kind::PlusInfinity;
            } else if (value == "-Inf") {
                row.kind = Row::Kind::MinusInfinity;
            } else {
                const std::optional<ExactValue> v = hexFloat(value);
                if (!v)
                    qFatal("%s:%lld: bad value", qPrintable(path), static_cast<long long>(i + 1));
                row.value = *v;
            }
            row.subnormal = cells[2].trimmed() == "*";
            table.rows.push_back(row);
        }
        tables.push_back(std::move(table));
    }
    std::sort(tables.begin(), tables.end(),
              [](const Table& a, const Table& b) { return a.name < b.name; });
    return tables;
}

inline const std::vector<Table>& tables() {
    static const std::vector<Table> all = readTables();
    return all;
}

// The finite rows of a table in order of value, smallest first: neighbours in value are
// neighbours in this list.
inline std::vector<const Row*> finiteRowsInOrder(const Table& table) {
    std::vector<const Row*> finite;
    for (const Row& row : table.rows)
        if (row.kind == Row::Kind::Finite)
            finite.push_back(&row);
    std::sort(finite.begin(), finite.end(),
              [](const Row* a, const Row* b) { return compare(a->value, b->value) < 0; });
    return finite;
}

} // namespace fpx::test
