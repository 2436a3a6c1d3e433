// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/expression_model.h"

#include "common/number_text.h"
#include "common/zoom.h"

#include "fpx/exact/bit_layout.h"

#include <QBrush>
#include <QFont>

#include <iterator>

namespace fpx::gui {

namespace {

struct ColumnInfo {
    const char* title;
    const char* tip;
};

constexpr ColumnInfo kColumns[] = {
    {"Format", "The format every literal and every operation is rounded into."},
    {"Result bits",
     "The result's stored bits: sign (blue), exponent (green), hidden bit (grey), mantissa "
     "(red)."},
    {"Hex", "The result's code in hexadecimal, as `fpx show` writes it."},
    {"vs. rounded once",
     "Whether the result is the real value of the expression rounded once into the format. "
     "'≠' when the format's arithmetic gave another code than the nearest one: 0.1+0.2 in "
     "FP64 gives 0x3fd3333333333334, the double nearest 0.3 is 0x3fd3333333333333."},
    {"Rounded result", "The exact value of the result's code. Hover for every digit."},
    {"Error", "Result − the real value of the expression (exact, or ≈ with a square root)."},
    {"Flags", "IEEE flags raised by any literal or operation: inexact, underflow, overflow, "
              "divide-by-zero, invalid."},
    {"Exact result",
     "The exact result of the last operation on the stored operands, before its one rounding."},
    {"Operands (stored)",
     "Each literal of the expression rounded into the format: its stored value's code."},
};
static_assert(std::size(kColumns) == ExpressionModel::ColumnCount);

const QColor kDiffers(0xd0, 0x40, 0x2f);
const QColor kSame(0x2e, 0xa8, 0x5a);

} // namespace

void ExpressionModel::setReport(ExpressionReport report) {
    const bool sameShape = report.rows.size() == report_.rows.size();
    if (!sameShape)
        beginResetModel();
    report_ = std::move(report);
    if (!sameShape)
        endResetModel();
    else if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int ExpressionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(report_.rows.size());
}

int ExpressionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString ExpressionModel::fullText(int r, Column column) const {
    const FormatEvaluation& e = row(r).evaluation;
    const ExpressionRow& x = row(r);
    if (column == Format)
        return QString::fromStdString(e.spec.id);
    if (e.unsupported)
        return column == Bits ? tr("no arithmetic") : QString();
    switch (column) {
    case Format:
        break;
    case Operands: {
        QStringList parts;
        for (const LiteralRounding& literal : e.literals)
            parts << QString::fromStdString(literal.text) + " → " +
                         codeHex(e.spec, literal.rounded.code);
        return parts.join(QStringLiteral(", "));
    }
    case Bits:
        return QString::fromStdString(binaryByField(e.spec, e.code));
    case Hex:
        return codeHex(e.spec, e.code);
    case Result:
        return fullDecimal(e.value);
    case ExactResult:
        if (e.steps.empty())
            return e.literals.empty() ? QString() : fullDecimal(e.literals.back().exact);
        return fullDecimal(e.steps.back().result.exact.value) +
               (e.steps.back().result.exact.approximate ? QStringLiteral(" (≈ √)") : QString());
    case Error:
        return (e.errorApproximate ? QStringLiteral("≈") : QString()) + fullDecimal(e.error);
    case RoundedOnce:
        if (!x.roundedOnce)
            return {};
        return x.differsFromRoundedOnce()
                   ? tr("≠ nearest %1").arg(codeHex(e.spec, x.roundedOnce->code))
                   : tr("= nearest");
    case Flags:
        return QString::fromStdString(arithmeticFlagsToString(e.flags));
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ExpressionModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const auto column = static_cast<Column>(index.column());
    const ExpressionRow& x = row(index.row());
    const FormatEvaluation& e = x.evaluation;
    switch (role) {
    case Qt::DisplayRole:
        if (column == Bits && !e.unsupported)
            return {}; // the delegate draws the cells
        if (!e.unsupported && (column == Result || column == ExactResult || column == Error)) {
            const QString text = fullText(index.row(), column);
            return text.size() <= 24 ? text : text.left(23) + QChar(0x2026);
        }
        return fullText(index.row(), column);
    case Qt::ToolTipRole:
        if (column == Format)
            return QString::fromStdString(e.spec.displayName);
        if (e.unsupported)
            return QString::fromStdString(*e.unsupported);
        return fullText(index.row(), column);
    case Qt::FontRole:
        if (column == Hex || column == Operands || column == Bits)
            return fixedPitchFont();
        if (column == RoundedOnce && x.differsFromRoundedOnce()) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ForegroundRole:
        if (column == RoundedOnce && x.roundedOnce)
            return QBrush(x.differsFromRoundedOnce() ? kDiffers : kSame);
        if (e.unsupported && column == Bits)
            return QBrush(Qt::gray);
        return {};
    default:
        return {};
    }
}

QVariant ExpressionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(kColumns[section].title);
    if (role == Qt::ToolTipRole)
        return tr(kColumns[section].tip);
    return {};
}

} // namespace fpx::gui
