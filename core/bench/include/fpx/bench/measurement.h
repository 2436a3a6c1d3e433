// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace fpx::bench {

// How one benchmark is timed: warm-up runs, then iteration counts calibrated so that each of
// `samples` samples lasts about budget / samples, then the median and spread of the samples.
struct TimingPlan {
    std::chrono::duration<double> budget{1.0};
    int samples = 7;
    int warmups = 2;
};

struct Statistics {
    double median = 0; // seconds per iteration
    double min = 0;
    double max = 0;
    std::uint64_t iterationsPerSample = 0;
    int samples = 0;
};

// Median, minimum and maximum of per-iteration times (seconds).
Statistics summarize(std::vector<double> secondsPerIteration, std::uint64_t iterationsPerSample);

// Runs `body` (one iteration) by the plan. `cancel` stops between samples (the result then
// holds the samples taken); `progress` gets the fraction done. Returns nullopt-like zero
// statistics when cancelled before the first sample.
Statistics measure(const std::function<void()>& body, const TimingPlan& plan,
                   const std::atomic<bool>* cancel = nullptr,
                   const std::function<void(double)>& progress = {});

// Two timings over the same stretch of time: `body` by the plan, and `reference` (a copy, the
// ceiling `body` is compared with) for one sample of about half a body sample's share before
// each sample of `body` and one after the last. On a shared machine the memory bandwidth drifts
// by tens of per cent within a minute; a ceiling measured once, before a long list of paths,
// would be compared with paths measured minutes later.
struct StatisticsAlongside {
    Statistics body;
    Statistics reference;
};
StatisticsAlongside measureAlongside(const std::function<void()>& body,
                                     const std::function<void()>& reference, const TimingPlan& plan,
                                     const std::atomic<bool>* cancel = nullptr,
                                     const std::function<void(double)>& progress = {});

} // namespace fpx::bench
