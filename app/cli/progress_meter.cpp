// SPDX-License-Identifier: GPL-3.0-or-later
// The terminal progress bar of long commands and the clean stop on Ctrl+C.
#include "progress_meter.h"

#include <cstdio>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr auto kRedraw = std::chrono::milliseconds(100);
constexpr int kBarWidth = 24;

std::string duration(double seconds) {
    const long whole = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
    char buffer[32];
    if (whole >= 3600)
        std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", whole / 3600, whole / 60 % 60,
                      whole % 60);
    else
        std::snprintf(buffer, sizeof buffer, "%ld:%02ld", whole / 60, whole % 60);
    return buffer;
}

} // namespace

std::string shortCount(double count) {
    const char* units[] = {"", " k", " M", " G", " T"};
    int unit = 0;
    while (count >= 1000 && unit < 4) {
        count /= 1000;
        ++unit;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f%s" : "%.3g%s", count, units[unit]);
    return buffer;
}

ProgressMeter::ProgressMeter(std::ostream& err, std::string label, bool shown)
    : err_(err), label_(std::move(label)), shown_(shown), start_(std::chrono::steady_clock::now()),
      lastDraw_(start_) {}

ProgressMeter::~ProgressMeter() {
    finish();
}

bool ProgressMeter::keepGoing() const {
    return !interrupt_.requested();
}

bool ProgressMeter::update(std::size_t done, std::size_t total) {
    if (!shown_ || total == 0)
        return keepGoing();
    const auto now = std::chrono::steady_clock::now();
    if (now - lastDraw_ < kRedraw && done < total)
        return keepGoing();
    lastDraw_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double fraction = double(done) / double(total);
    const double rate = seconds > 0 ? double(done) / seconds : 0;
    const int filled = static_cast<int>(fraction * kBarWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kBarWidth - filled), '.');
    char percent[16];
    std::snprintf(percent, sizeof percent, "%3d%%", static_cast<int>(fraction * 100));
    err_ << "\r\033[K" << label_ << " [" << bar << "] " << percent << "  "
         << shortCount(double(done)) << " of " << shortCount(double(total)) << " elements";
    if (rate > 0)
        err_ << ", " << shortCount(rate) << "/s, "
             << duration((double(total) - double(done)) / rate) << " left";
    err_ << std::flush;
    drawn_ = true;
    return keepGoing();
}

void ProgressMeter::finish() {
    if (drawn_)
        err_ << "\r\033[K" << std::flush;
    drawn_ = false;
}

} // namespace fpx::cli
