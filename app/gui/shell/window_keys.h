// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QEvent;
class QKeyEvent;
class QObject;
class QWidget;

namespace fpx::gui {

// A key press that a full-screen mode (presentation, slides) may take from any focus in
// `window`: the press reaches a widget of the window itself, no popup (a menu, a completion
// list) is open and no modal dialog is up, so Esc in a dialog or a completion stays theirs.
// Null when `event` is anything else. A mode watches the application's events with it while it
// is active, since a focused widget such as the table keeps Esc from a window shortcut.
const QKeyEvent* windowKeyPress(const QObject* watched, const QEvent* event, const QWidget* window);

// Whether keys that edit or navigate inside the focused widget (arrows, Home) belong to it:
// a text field, a spin box, an editable combo box or an item view has focus.
bool focusTakesNavigationKeys(const QWidget* window);

} // namespace fpx::gui
