// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Waits of the GUI tests, on events, never by polling with sleeps: a page's idle() (Page::
// waitUntilIdle in common/page.h) or, for a part of a page, the signal it sends when a piece of
// its work is done.

#include <QElapsedTimer>
#include <QSignalSpy>

#include <functional>

namespace fpx::test {

// Turns the event loop until `busy()` is false, waking on `done` signals of `sender` only; at
// most `ms` milliseconds. Whether it is not busy then.
template <typename Sender, typename Signal>
bool waitWhileBusy(Sender* sender, Signal done, const std::function<bool()>& busy, int ms) {
    QSignalSpy spy(sender, done);
    QElapsedTimer clock;
    clock.start();
    while (busy()) {
        const qint64 left = ms - clock.elapsed();
        if (left <= 0 || !spy.wait(static_cast<int>(left)))
            break;
    }
    return !busy();
}

} // namespace fpx::test
