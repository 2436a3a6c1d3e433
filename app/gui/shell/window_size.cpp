// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/window_size.h"

#include <algorithm>

namespace fpx::gui {

namespace {

constexpr QSize kPreferred{1600, 900};
constexpr int kScreenPercent = 90;

} // namespace

QSize firstWindowSize(const QRect& available) {
    if (available.isEmpty())
        return kPreferred;
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
