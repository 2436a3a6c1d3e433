// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <vector>

class QSettings;

namespace fpx::gui {

// What the explorer remembers between runs, typed, with defaults. Reads and writes one
// QSettings; nothing is global.
struct ExplorerSettings {
    QString value = QStringLiteral("0.3952");
    RoundingMode roundingMode = RoundingMode::NearestEven;
    OverflowPolicy overflowPolicy = OverflowPolicy::Ieee;
    std::vector<FormatSpec> formats; // empty: the default set
    int zoomPercent = 100;           // of fonts, bit cells and plots; 50 … 300
    QByteArray windowGeometry;
    QByteArray windowState;
    QByteArray splitterState;

    static ExplorerSettings load(QSettings& settings);
    void save(QSettings& settings) const;
};

// A format as settings text: its id (a built-in or a custom spec string), with "@scale" for
// integer and lookup formats whose scale is not the default.
QString formatToSettingsText(const FormatSpec& spec);
std::optional<FormatSpec> formatFromSettingsText(const QString& text);

} // namespace fpx::gui
