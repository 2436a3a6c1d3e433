// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/page.h"

#include <QEventLoop>
#include <QTimer>

namespace fpx::gui {

bool Page::waitUntilIdle(std::chrono::milliseconds timeout) {
    if (!busy())
        return true;
    QEventLoop loop;
    connect(this, &Page::idle, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeout, &loop, &QEventLoop::quit);
    loop.exec();
    return !busy();
}

void Page::workEnded() {
    if (!busy())
        emit idle();
}

} // namespace fpx::gui
