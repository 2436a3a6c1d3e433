// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "interrupt_guard.h"

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace fpx::cli {

// A progress bar for long work on a terminal's stderr: the bar, the elements done of the total,
// the rate and the time left, redrawn at most ten times a second and cleared when the work
// ends. Ctrl+C (SIGINT) while a meter lives asks the work to stop: keepGoing() turns false and
// the command ends cleanly, writing nothing (InterruptGuard); without one SIGINT ends the
// process at once, as usual.
class ProgressMeter {
  public:
    // `shown`: whether to draw (stderr is a terminal and the work is large enough to wait on).
    ProgressMeter(std::ostream& err, std::string label, bool shown);
    ~ProgressMeter();
    ProgressMeter(const ProgressMeter&) = delete;
    ProgressMeter& operator=(const ProgressMeter&) = delete;

    // The work's report: `done` of `total` elements. false once Ctrl+C was pressed.
    bool update(std::size_t done, std::size_t total);
    bool keepGoing() const;
    // Clears the line (once the work is over, before the report is printed).
    void finish();

  private:
    InterruptGuard interrupt_;
    std::ostream& err_;
    std::string label_;
    bool shown_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point lastDraw_;
};

// "1.21 G", "34.5 M", "812 k", "97": a count as people read it on a progress line.
std::string shortCount(double count);

} // namespace fpx::cli
