// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace fpx::cli {

// The exit status of a command stopped by Ctrl+C (128 + SIGINT, as a shell reports it).
constexpr int kExitInterrupted = 130;

// While alive, Ctrl+C (SIGINT) only sets a flag that requested() reads, so a long listing
// stops between two rows and cleans up; the previous handler is restored afterwards.
class InterruptGuard {
  public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;
    bool requested() const;

  private:
    void (*previous_)(int) = nullptr;
};

} // namespace fpx::cli
