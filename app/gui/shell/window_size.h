// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRect>
#include <QSize>

namespace fpx::gui {

// The explorer's first size on a screen whose free area is `available`. On a screen up to
// 1280 × 800 (a 1024 × 768 projector) the whole free area less room for the window's frame, so
// that the table's format, bits, value and error columns fit side by side; on larger screens
// at most 1600 × 900 and at most 90 % of each side. Never larger than `available`.
QSize firstWindowSize(const QRect& available);

// `geometry` (a remembered frame) moved and shrunk to lie inside `available`: a window saved
// on a larger or second monitor must not open partly off the screen it opens on.
QRect clampToScreen(const QRect& geometry, const QRect& available);

} // namespace fpx::gui
