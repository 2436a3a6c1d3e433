// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/window_size.h"

#include <algorithm>

namespace fpx::gui {

namespace {

constexpr QSize kPreferred{1600, 900};
constexpr int kScreenPercent = 90;
// Below this the screen is a projector's or a small laptop's: every pixel is needed for the
// table's columns, and the window takes the whole free area but its frame.
constexpr QSize kSmallScreen{1280, 800};
// Room left for a window manager's frame: borders and a title bar.
constexpr QSize kFrame{8, 40};

} // namespace

QSize firstWindowSize(const QRect& available) {
    if (available.isEmpty())
        return kPreferred;
    if (available.width() <= kSmallScreen.width() || available.height() <= kSmallScreen.height())
        return (available.size() - kFrame).boundedTo(kPreferred).expandedTo(QSize(1, 1));
    return {std::min(kPreferred.width(), available.width() * kScreenPercent / 100),
            std::min(kPreferred.height(), available.height() * kScreenPercent / 100)};
}

QRect clampToScreen(const QRect& geometry, const QRect& available) {
    if (available.isEmpty() || geometry.isEmpty())
        return geometry;
    QRect r(geometry.topLeft(), geometry.size().boundedTo(available.size()));
    r.moveLeft(std::clamp(r.left(), available.left(), available.right() - r.width() + 1));
    r.moveTop(std::clamp(r.top(), available.top(), available.bottom() - r.height() + 1));
    return r;
}

} // namespace fpx::gui
