// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/explorer_settings.h"

#include "common/number_text.h"
#include "common/zoom.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <QSettings>

#include <algorithm>

namespace fpx::gui {

QString formatToSettingsText(const FormatSpec& spec) {
    QString text = QString::fromStdString(spec.id);
    const FormatLookup fresh = findFormat(spec.id);
    if (spec.isScaled() && fresh && !fresh.spec->scale.isIdenticalTo(spec.scale))
        text += "@" + exactExpression(spec.scale);
    return text;
}

std::optional<FormatSpec> formatFromSettingsText(const QString& text) {
    const QString id = text.section('@', 0, 0);
    FormatLookup lookup = findFormat(id.toStdString());
    if (!lookup)
        return std::nullopt;
    if (text.contains('@')) {
        const ParsedValue scale = parseValue(text.section('@', 1).toStdString());
        if (scale && scale.value->isFinite() && !scale.value->isZero() &&
            !scale.value->isNegative())
            lookup.spec->scale = *scale.value;
    }
    return lookup.spec;
}

ExplorerSettings ExplorerSettings::load(QSettings& settings) {
    ExplorerSettings s;
    s.value = settings.value("input/value", s.value).toString();
    if (const auto mode =
            parseRoundingMode(settings.value("input/round", "rne").toString().toStdString()))
        s.roundingMode = *mode;
    if (const auto policy =
            parseOverflowPolicy(settings.value("input/overflow", "ieee").toString().toStdString()))
        s.overflowPolicy = *policy;
    for (const QString& text : settings.value("formats/list").toStringList())
        if (auto spec = formatFromSettingsText(text))
            s.formats.push_back(std::move(*spec));
    s.zoomPercent = std::clamp(settings.value("view/zoom", s.zoomPercent).toInt(),
                               ZoomController::kMinPercent, ZoomController::kMaxPercent);
    s.windowGeometry = settings.value("window/geometry").toByteArray();
    s.windowState = settings.value("window/state").toByteArray();
    s.splitterState = settings.value("window/splitter").toByteArray();
    return s;
}

void ExplorerSettings::save(QSettings& settings) const {
    settings.setValue("input/value", value);
    settings.setValue("input/round",
                      QString::fromStdString(std::string(roundingModeId(roundingMode))));
    settings.setValue("input/overflow",
                      QString::fromStdString(std::string(overflowPolicyId(overflowPolicy))));
    QStringList list;
    for (const FormatSpec& spec : formats)
        list << formatToSettingsText(spec);
    settings.setValue("formats/list", list);
    settings.setValue("view/zoom", zoomPercent);
    settings.setValue("window/geometry", windowGeometry);
    settings.setValue("window/state", windowState);
    settings.setValue("window/splitter", splitterState);
}

} // namespace fpx::gui
