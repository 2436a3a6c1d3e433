// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/page_options.h"

namespace fpx::gui {

std::optional<qulonglong> wholeNumber(const QString& text, QString& error) {
    bool ok = false;
    const qulonglong number = text.trimmed().toULongLong(&ok);
    if (!ok) {
        error = QStringLiteral("expected a whole number");
        return std::nullopt;
    }
    return number;
}

std::optional<int> wholeNumberIn(const QString& text, int low, int high, QString& error) {
    bool ok = false;
    const qlonglong number = text.trimmed().toLongLong(&ok);
    if (!ok || number < low || number > high) {
        error = QStringLiteral("expected a whole number, %1 to %2").arg(low).arg(high);
        return std::nullopt;
    }
    return int(number);
}

} // namespace fpx::gui
