// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/format_table_model.h"

#include "common/zoom.h"

#include "fpx/exact/approximate_error.h"
#include "fpx/exact/bit_layout.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/nan_payload.h"

#include <QBrush>
#include <QFont>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPalette>

#include <iterator>
#include <limits>

namespace fpx::gui {

namespace {

// How many characters each number column holds until the fitter says otherwise: the value's
// first digits, and an error's four (three) rounded digits with sign, "≈" and exponent.
constexpr std::array<int, FormatTableModel::ColumnCount> kDefaultChars{0,  0,  0, 26, 12,
                                                                       11, 11, 0, 0};

// "≈" in front of an error computed against a stand-in input (approximate_error.h).
QString approximateMark(bool approximate) {
    return approximate ? QString::fromUtf8(kApproximateMark.data(),
                                           static_cast<qsizetype>(kApproximateMark.size()))
                       : QString();
}

bool isErrorColumn(int column) {
    return column == FormatTableModel::Error || column == FormatTableModel::UlpError ||
           column == FormatTableModel::RelativeError;
}

// Significant digits an error column rounds to (fewer where its room is short).
int errorDigits(int column) {
    return column == FormatTableModel::Error ? 4 : 3;
}

const ExactValue& errorOf(const ConversionReport& report, int column) {
    return column == FormatTableModel::Error           ? report.error
           : column == FormatTableModel::RelativeError ? report.relativeError
                                                       : report.ulpError;
}

DecimalParts partsOf(const std::string& text) {
    if (std::optional<DecimalParts> parts = decimalParts(text))
        return *parts;
    DecimalParts nan;
    nan.kind = DecimalParts::Kind::NaN;
    return nan;
}

// The room an error's digits have once room for a "≈" and its "+" is kept.
int errorRoom(const ExactValue& error, int chars) {
    const bool plus = error.isFinite() && !error.isZero() && !error.isNegative();
    return chars - 1 - (plus ? 1 : 0);
}

// Whether an error rounded to `digits` digits reads plainly in `room` characters, whole.
bool errorReadsPlain(const ExactValue& error, int digits, int room) {
    if (!error.isFinite() || error.isZero())
        return true;
    const DecimalParts parts = partsOf(toSignificantDigits(error, digits));
    return readsPlain(parts, room) &&
           fittedDecimal(parts, Notation::Plain, std::numeric_limits<int>::max()).size() <= room;
}

QString classText(const ExplorerRow& row) {
    const QString name =
        QString::fromStdString(codeClassName(row.spec, row.report.conversion.code));
    const ConversionFlags& f = row.report.conversion.flags;
    if (f.overflow && row.report.details.decoded.value.isFinite())
        return name + QObject::tr(" (saturated)");
    if (f.overflow)
        return name + QObject::tr(" (overflow)");
    return name;
}

// Everything said about a column, in the order of FormatTableModel::Column, so that headers,
// tooltips and the keys of copied CSV cannot fall out of step with the cells.
struct ColumnInfo {
    const char* title;  // header text
    const char* csvKey; // header of the column in copied CSV
    const char* tip;    // header tooltip: the concept behind the column
};

constexpr ColumnInfo kColumns[] = {
    {"Format", "format",
     "The number format. Hover for its layout; scaled formats show their scale."},
    {"Bits", "bits",
     "The stored bits: sign (blue), exponent (green), hidden leading bit (grey, not stored), "
     "mantissa (red). Click a bit to flip it: that value becomes the input."},
    {"Hex", "hex", "The code in hexadecimal. Double-click to type a code (0x… or 0b…)."},
    {"Value", "value",
     "The exact value the code stands for: every binary format's value has a finite decimal "
     "expansion. Long ones are elided; hover or copy for all digits."},
    {"Error", "error",
     "Rounding error: stored value − input, exactly. ≈ marks errors against the stand-in for an "
     "input beyond 10^±20000 (or longer than 40000 digits): approximate."},
    {"ULP error", "ulp_error",
     "Error in units in the last place: how far the stored value is from the input in steps "
     "of this format's spacing at that value. Round-to-nearest keeps it within ±0.5."},
    {"Rel. error", "rel_error", "Relative error: (stored value − input) / input."},
    {"Class", "class",
     "Zero, subnormal (below the smallest normal: gradual underflow), normal, inf or NaN; "
     "'overflow' or 'saturated' when the input was beyond the largest finite value."},
    {"Flags", "flags",
     "IEEE exception flags: inexact (rounded), underflow (tiny and inexact), overflow, "
     "invalid."},
};
static_assert(std::size(kColumns) == FormatTableModel::ColumnCount,
              "one ColumnInfo per FormatTableModel::Column");

const char* columnName(int column) {
    return kColumns[column].title;
}

const char* columnTip(int column) {
    return kColumns[column].tip;
}

} // namespace

FormatTableModel::FormatTableModel(ExplorerController* controller, QObject* parent)
    : QAbstractTableModel(parent), controller_(controller), chars_(kDefaultChars) {
    refreshNotation();
    connect(controller_, &ExplorerController::rowsChanged, this, [this] {
        refreshNotation();
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    });
    connect(controller_, &ExplorerController::formatsChanged, this, [this] {
        refreshNotation();
        beginResetModel();
        endResetModel();
    });
}

int FormatTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(controller_->rows().size());
}

int FormatTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString FormatTableModel::fullText(int r, Column column) const {
    const ExplorerRow& x = row(r);
    const ConversionReport& rep = x.report;
    const int bits = x.spec.totalBits();
    switch (column) {
    case Name:
        return QString::fromStdString(x.spec.id);
    case Bits:
        return QString::fromStdString(binaryByField(x.spec, rep.conversion.code));
    case Hex:
        return QString::fromStdString(codeToHex(rep.conversion.code, bits));
    case Value:
        if (!x.problem.isEmpty())
            return x.problem;
        return QString::fromStdString(toDecimal(rep.details.decoded.value).text);
    case Error:
    case RelativeError:
    case UlpError: {
        const ExactValue& e = column == Error           ? rep.error
                              : column == RelativeError ? rep.relativeError
                                                        : rep.ulpError;
        if (e.isNaN())
            return {};
        return approximateMark(!controller_->inputIsExact() && errorIsApproximate(false, e)) +
               QString::fromStdString(toDecimal(e).text);
    }
    case Class:
        return classText(x);
    case Flags:
        return QString::fromStdString(flagsToString(rep.conversion.flags));
    case ColumnCount:
        break;
    }
    return {};
}

QVariant FormatTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const ExplorerRow& x = row(index.row());
    const ConversionReport& rep = x.report;
    const auto column = static_cast<Column>(index.column());
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (column) {
        case Name:
            if (x.spec.isScaled())
                return QString::fromStdString(x.spec.id) +
                       (x.spec.kind == FormatKind::Lookup ? tr("  absmax ") : tr("  scale ")) +
                       QString::fromStdString(toSignificantDigits(x.spec.scale, 4));
            return QString::fromStdString(x.spec.id);
        case Bits:
            return fullText(index.row(), Bits);
        case Value: {
            if (!x.problem.isEmpty())
                return x.problem;
            const DecimalText value = toDecimal(rep.details.decoded.value);
            return fittedDecimal(partsOf(value.text), notation_[Value], chars_[Value],
                                 !value.exact);
        }
        case Error:
        case RelativeError:
        case UlpError:
            return errorText(errorOf(rep, column), errorDigits(column), column);
        default:
            return fullText(index.row(), column);
        }
    }
    if (role == Qt::ToolTipRole) {
        if (column == Name)
            return QString::fromStdString(x.spec.displayName + "\n" + x.spec.description);
        if (column == Value || column == Error || column == RelativeError || column == UlpError) {
            QString text = fullText(index.row(), column);
            if (text.size() > 2000)
                text = text.left(2000) + "…";
            return text;
        }
        return tr(columnTip(column));
    }
    if (role == Qt::FontRole && column != Name && column != Class && column != Flags) {
        return fixedPitchFont();
    }
    if (role == Qt::TextAlignmentRole) {
        if (column == Error || column == RelativeError || column == UlpError)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (role == Qt::ForegroundRole && column == Flags && rep.conversion.flags.overflow) {
        return QBrush(QColor(0xd0, 0x40, 0x30));
    }
    return {};
}

QVariant FormatTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(columnName(section));
    if (role == Qt::ToolTipRole)
        return tr(columnTip(section));
    return {};
}

Qt::ItemFlags FormatTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == Hex)
        f |= Qt::ItemIsEditable;
    return f;
}

bool FormatTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || index.column() != Hex)
        return false;
    const ExplorerRow& x = row(index.row());
    const auto code = parseCode(value.toString().toStdString(), x.spec.totalBits());
    if (!code)
        return false;
    controller_->setInputFromCode(index.row(), *code);
    return true;
}

QString FormatTableModel::errorText(const ExactValue& error, int digits, Column column) const {
    if (error.isNaN())
        return QStringLiteral("—");
    const QString mark =
        approximateMark(!controller_->inputIsExact() && errorIsApproximate(false, error));
    const QString plus =
        error.isNegative() || error.isZero() || !error.isFinite() ? QString() : QStringLiteral("+");
    const int room = errorRoom(error, chars_[column]);
    // Rounded, not cut: an error is a size to read, and its exact digits are in the tooltip.
    QString text;
    for (int d = digits; d >= 1; --d) {
        text = fittedDecimal(partsOf(toSignificantDigits(error, d)), notation_[column],
                             std::numeric_limits<int>::max());
        if (text.size() <= room)
            break;
    }
    return mark + plus + text;
}

void FormatTableModel::refreshNotation() {
    const std::array<int, 4> numberColumns{Value, Error, UlpError, RelativeError};
    for (int c : numberColumns)
        notation_[c] = Notation::Plain;
    for (int r = 0; r < rowCount(); ++r) {
        const ExplorerRow& x = row(r);
        if (!x.problem.isEmpty())
            continue;
        const DecimalText value = toDecimal(x.report.details.decoded.value);
        if (!readsPlain(partsOf(value.text), chars_[Value]))
            notation_[Value] = Notation::Scientific;
        for (int c : {Error, UlpError, RelativeError}) {
            const ExactValue& e = errorOf(x.report, c);
            if (!errorReadsPlain(e, errorDigits(c), errorRoom(e, chars_[c])))
                notation_[c] = Notation::Scientific;
        }
    }
}

void FormatTableModel::setColumnChars(Column column, int chars) {
    if (column != Value && !isErrorColumn(column))
        return;
    chars = std::max(chars, kMinimumChars);
    if (chars_[column] == chars)
        return;
    chars_[column] = chars;
    refreshNotation();
    if (rowCount() > 0)
        emit dataChanged(index(0, column), index(rowCount() - 1, column), {Qt::DisplayRole});
}

QStringList FormatTableModel::widestTexts(Column column) const {
    QStringList texts;
    switch (column) {
    case Name:
        for (int r = 0; r < rowCount(); ++r)
            texts << data(index(r, Name)).toString();
        break;
    case Hex:
        for (int r = 0; r < rowCount(); ++r) {
            const FormatSpec& spec = row(r).spec;
            texts << QString::fromStdString(codeToHex(spec.codeMask(), spec.totalBits()));
        }
        break;
    case Value:
    case Error:
    case UlpError:
    case RelativeError:
        texts << widestNumber(chars_[column]);
        break;
    case Class:
        for (const char* name : {"subnormal", "qNaN", "sNaN"})
            texts << QString::fromLatin1(name);
        texts << QStringLiteral("normal") + QObject::tr(" (saturated)")
              << QStringLiteral("inf") + QObject::tr(" (overflow)")
              << QStringLiteral("nan") + QObject::tr(" (overflow)");
        break;
    case Flags:
        for (ConversionFlags f :
             {ConversionFlags{true, true, false, false}, ConversionFlags{true, false, true, false},
              ConversionFlags{false, false, false, true}})
            texts << QString::fromStdString(flagsToString(f));
        break;
    case Bits:
    case ColumnCount:
        break;
    }
    return texts;
}

QString FormatTableModel::widestNumber(int chars) {
    // Digits with the marks that may stand among them, in case a fallback font draws "…" or
    // "≈" wider than a digit.
    return QString(std::max(0, chars - 2), QChar('0')) + QChar(0x2026) + approximateMark(true);
}

void FormatTableModel::toggleBit(int r, int bit) {
    if (r < 0 || r >= rowCount())
        return;
    const ExplorerRow& x = row(r);
    if (bit < 0 || bit >= x.spec.totalBits())
        return;
    controller_->setInputFromCode(r, x.report.conversion.code ^ (Code(1) << bit));
}

QString FormatTableModel::tableAsText() const {
    QStringList lines;
    QStringList header;
    for (int c = 0; c < ColumnCount; ++c)
        header << tr(columnName(c));
    lines << header.join('\t');
    for (int r = 0; r < rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < ColumnCount; ++c)
            cells << fullText(r, static_cast<Column>(c));
        lines << cells.join('\t');
    }
    return lines.join('\n') + '\n';
}

QString FormatTableModel::tableAsCsv() const {
    auto quote = [](QString s) {
        if (s.contains(',') || s.contains('"') || s.contains('\n'))
            s = '"' + s.replace('"', "\"\"") + '"';
        return s;
    };
    QStringList lines;
    QStringList header;
    for (const ColumnInfo& column : kColumns)
        header << column.csvKey;
    lines << header.join(',');
    for (int r = 0; r < rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < ColumnCount; ++c)
            cells << quote(fullText(r, static_cast<Column>(c)));
        lines << cells.join(',');
    }
    return lines.join('\n') + '\n';
}

QString FormatTableModel::tableAsJson() const {
    QJsonArray results;
    for (int r = 0; r < rowCount(); ++r) {
        QJsonObject o;
        o["format"] = fullText(r, Name);
        o["binary"] = fullText(r, Bits);
        o["bits"] = fullText(r, Hex);
        o["value"] = fullText(r, Value);
        // Numbers without the ≈ mark; error_approximate says it, as in `fpx show --json`.
        const QString mark = approximateMark(true);
        o["error"] = fullText(r, Error).remove(mark);
        o["rel_error"] = fullText(r, RelativeError).remove(mark);
        o["ulp_error"] = fullText(r, UlpError).remove(mark);
        o["error_approximate"] = fullText(r, Error).startsWith(mark);
        o["class"] = fullText(r, Class);
        o["flags"] = QJsonArray::fromStringList(fullText(r, Flags).split(',', Qt::SkipEmptyParts));
        results.append(o);
    }
    QJsonObject root;
    root["input"] = controller_->inputText();
    root["round"] = QString::fromStdString(roundingChoiceId(controller_->roundingOptions()));
    root["overflow"] =
        QString::fromStdString(std::string(overflowPolicyId(controller_->overflowPolicy())));
    root["results"] = results;
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
}

} // namespace fpx::gui
