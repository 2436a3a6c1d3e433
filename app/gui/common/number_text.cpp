// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/number_text.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/value_parser.h"

#include <QObject>

#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace fpx::gui {

QString fullDecimal(const ExactValue& value) {
    const DecimalText text = toDecimal(value);
    return (text.exact ? QString() : QStringLiteral("≈")) + QString::fromStdString(text.text);
}

QString shortDecimal(const ExactValue& value, int digits) {
    const DecimalText exact = toDecimal(value, digits);
    if (exact.exact && static_cast<int>(exact.text.size()) <= digits + 8)
        return QString::fromStdString(exact.text);
    return QStringLiteral("≈") + QString::fromStdString(toSignificantDigits(value, digits));
}

QString codeHex(const FormatSpec& spec, Code code) {
    return QString::fromStdString(codeToHex(code, spec.totalBits()));
}

QString powerOfTwoText(const ExactValue& value) {
    // Finite non-zero values keep an odd numerator: a power of two has numerator 1.
    if (!value.isFinite() || value.isZero() || value.numerator() != 1 || !value.isDyadic())
        return {};
    return (value.isNegative() ? QStringLiteral("-2^") : QStringLiteral("2^")) +
           QString::number(static_cast<long long>(value.exponent2()));
}

QString exactExpression(const ExactValue& value) {
    const DecimalText decimal = toDecimal(value);
    if (decimal.exact)
        return QString::fromStdString(decimal.text);
    QString text =
        QString::fromStdString((value.isNegative() ? "-" : "") + value.numerator().str() + "/" +
                               value.denominator().str());
    if (value.exponent2() != 0)
        text += "*2^" + QString::number(value.exponent2());
    return text;
}

} // namespace fpx::gui

namespace fpx::gui {

QString parseErrorText(const std::string& utf8, const ParseError& error) {
    const qsizetype bytes = static_cast<qsizetype>(std::min(error.position, utf8.size()));
    const int column = static_cast<int>(QString::fromUtf8(utf8.data(), bytes).size());
    return QObject::tr("Column %1: %2").arg(column + 1).arg(QString::fromStdString(error.message));
}

} // namespace fpx::gui
