// SPDX-License-Identifier: GPL-3.0-or-later
// Ctrl+C as a request to stop: long commands end cleanly, writing nothing half.
#include "interrupt_guard.h"

#include <csignal>

namespace fpx::cli {

namespace {

// The ANSI signal handler may only set a flag of this type; a handler has no other way to
// reach the command, so the flag is the one file-level variable.
volatile std::sig_atomic_t interruptFlag = 0;

extern "C" void onInterrupt(int) {
    interruptFlag = 1;
}

} // namespace

InterruptGuard::InterruptGuard() {
    interruptFlag = 0;
    previous_ = std::signal(SIGINT, onInterrupt);
    // A command started with Ctrl+C ignored (in the background, under nohup) keeps ignoring it.
    if (previous_ == SIG_IGN)
        std::signal(SIGINT, SIG_IGN);
}

InterruptGuard::~InterruptGuard() {
    std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_);
}

bool InterruptGuard::requested() const {
    return interruptFlag != 0;
}

} // namespace fpx::cli
