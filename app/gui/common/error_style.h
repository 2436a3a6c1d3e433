// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>

class QLabel;
class QLineEdit;
class QWidget;

namespace fpx::gui {

// How every page shows a problem, said once. The colour is the plots' "bad" colour of the
// widget's palette (plots::Meaning::Bad): the same red everywhere, lighter on a dark palette
// so that it keeps its contrast.
QColor errorColour(const QWidget& widget);
// A label that says what is wrong, in the error colour; bold where it heads a page's results.
void styleErrorLabel(QLabel& label, bool bold = false);
// A field whose text was refused is framed in the error colour; `invalid` false takes the
// frame off.
void markInvalid(QLineEdit& field, bool invalid);

} // namespace fpx::gui
