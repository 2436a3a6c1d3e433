// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QTabWidget;

namespace fpx::gui {

// A tab widget asks for the room of its widest page, shown or not: a wide page the user is not
// looking at (a form, a plot's controls) would widen the window, or make the page shown scroll
// sideways, and a step of a lesson would look different after that page had been shown. From
// this call on, `tabs` asks only for the room of the page it shows; each page keeps its own
// size policy while shown.
void sizeTabsByShownPage(QTabWidget& tabs);

} // namespace fpx::gui
