// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/window_keys.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QWidget>

namespace fpx::gui {

const QKeyEvent* windowKeyPress(const QObject* watched, const QEvent* event,
                                const QWidget* window) {
    if (event->type() != QEvent::KeyPress || !window)
        return nullptr;
    const auto* widget = qobject_cast<const QWidget*>(watched);
    if (!widget || widget->window() != window || QApplication::activePopupWidget() ||
        QApplication::activeModalWidget())
        return nullptr;
    return static_cast<const QKeyEvent*>(event);
}

bool focusTakesNavigationKeys(const QWidget* window) {
    const QWidget* focus = window ? window->focusWidget() : nullptr;
    if (!focus)
        return false;
    if (const auto* text = qobject_cast<const QTextEdit*>(focus))
        return !text->isReadOnly();
    if (const auto* plain = qobject_cast<const QPlainTextEdit*>(focus))
        return !plain->isReadOnly();
    if (const auto* combo = qobject_cast<const QComboBox*>(focus))
        return combo->isEditable();
    return qobject_cast<const QLineEdit*>(focus) || qobject_cast<const QAbstractSpinBox*>(focus) ||
           qobject_cast<const QAbstractItemView*>(focus);
}

} // namespace fpx::gui
