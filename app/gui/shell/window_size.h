// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRect>
#include <QSize>

namespace fpx::gui {

// The explorer's first size on a screen whose free area is `available`: at most
// 1600 × 900 and at most 90 % of each side, so that it opens whole on a 1024 × 768 projector
// as on a large monitor.
QSize firstWindowSize(const QRect& available);

// `geometry` (a remembered frame) moved and shrunk to lie inside `available`: a window saved
// on a larger or second monitor must not open partly off the screen it opens on.
QRect clampToScreen(const QRect& geometry, const QRect& available);

} // namespace fpx::gui
