// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QTextEdit;

namespace fpx::gui {

// A text that fits its view only without the vertical scroll bar has two steady layouts: with
// the bar it wraps narrower, runs longer and needs the bar; without, it fits. Which one a plain
// view shows depends on what it showed before, and one lesson step looked different reached by
// Next than by --step. Here the view takes the bar exactly when the text, laid out at the
// view's whole width, is taller than the view: whenever the view is resized, and when
// settleScrollBar is called after a change of content.
void keepScrollBarSettled(QTextEdit& view);
void settleScrollBar(QTextEdit& view);

} // namespace fpx::gui
