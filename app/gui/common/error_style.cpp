// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/error_style.h"

#include "plot_palette.h"

#include <QLabel>
#include <QLineEdit>

namespace fpx::gui {

QColor errorColour(const QWidget& widget) {
    return plots::meaningColour(plots::Meaning::Bad, plots::plotTheme(widget.palette()));
}

void styleErrorLabel(QLabel& label, bool bold) {
    label.setStyleSheet(QStringLiteral("color: %1;%2")
                            .arg(errorColour(label).name(), bold ? " font-weight: bold;" : ""));
}

void markInvalid(QLineEdit& field, bool invalid) {
    field.setStyleSheet(
        invalid
            ? QStringLiteral("QLineEdit { border: 2px solid %1; }").arg(errorColour(field).name())
            : QString());
}

} // namespace fpx::gui
