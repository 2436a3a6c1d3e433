// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/measurement.h"

#include <algorithm>
#include <chrono>

namespace fpx::bench {

Statistics summarize(std::vector<double> secondsPerIteration, std::uint64_t iterationsPerSample) {
    Statistics s;
    s.iterationsPerSample = iterationsPerSample;
    s.samples = static_cast<int>(secondsPerIteration.size());
    if (secondsPerIteration.empty())
        return s;
    std::sort(secondsPerIteration.begin(), secondsPerIteration.end());
    const std::size_t n = secondsPerIteration.size();
    s.median = n % 2 ? secondsPerIteration[n / 2]
                     : (secondsPerIteration[n / 2 - 1] + secondsPerIteration[n / 2]) / 2;
    s.min = secondsPerIteration.front();
    s.max = secondsPerIteration.back();
    return s;
}

namespace {

using Clock = std::chrono::steady_clock;

bool isCancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load(std::memory_order_relaxed);
}

// Iterations per sample, and the number of samples, for samples of about `target` seconds.
struct Calibration {
    std::uint64_t iterations = 0; // 0: cancelled
    int samples = 0;
};

Calibration calibrate(const std::function<void()>& body, const TimingPlan& plan, double target,
                      const std::atomic<bool>* cancel) {
    const double samples = std::max(1, plan.samples);
    // Warm-ups; one that alone outlasts a sample's share (a pass over an array far beyond the
    // cache) is warm-up enough.
    for (int i = 0; i < plan.warmups && !isCancelled(cancel); ++i) {
        const auto start = Clock::now();
        body();
        if (std::chrono::duration<double>(Clock::now() - start).count() > target)
            break;
    }

    // Double the iteration count until one batch takes a tenth of a sample.
    std::uint64_t iterations = 1;
    for (;;) {
        if (isCancelled(cancel))
            return {};
        const auto start = Clock::now();
        for (std::uint64_t i = 0; i < iterations; ++i)
            body();
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (elapsed >= target / 10 || iterations >= (std::uint64_t{1} << 40)) {
            const double perIteration = elapsed / static_cast<double>(iterations);
            Calibration c;
            c.iterations = std::max<std::uint64_t>(
                1, static_cast<std::uint64_t>(target / std::max(perIteration, 1e-12)));
            c.samples = plan.samples;
            // Passes longer than the whole budget: as many samples as fit, but at least
            // three, so that a median and a spread still mean something.
            if (perIteration * samples > plan.budget.count())
                c.samples = std::clamp(
                    static_cast<int>(plan.budget.count() / std::max(perIteration, 1e-12)),
                    std::min(3, plan.samples), plan.samples);
            return c;
        }
        iterations *= 2;
    }
}

// Seconds per iteration of one sample.
double timeSample(const std::function<void()>& body, std::uint64_t iterations) {
    const auto start = Clock::now();
    for (std::uint64_t i = 0; i < iterations; ++i)
        body();
    return std::chrono::duration<double>(Clock::now() - start).count() /
           static_cast<double>(iterations);
}

double sampleShare(const TimingPlan& plan) {
    return std::max(1e-4, plan.budget.count() / std::max(1, plan.samples));
}

} // namespace

Statistics measure(const std::function<void()>& body, const TimingPlan& plan,
                   const std::atomic<bool>* cancel, const std::function<void(double)>& progress) {
    const Calibration c = calibrate(body, plan, sampleShare(plan), cancel);
    if (c.iterations == 0)
        return {};
    std::vector<double> times;
    for (int sample = 0; sample < c.samples && !isCancelled(cancel); ++sample) {
        times.push_back(timeSample(body, c.iterations));
        if (progress)
            progress(static_cast<double>(sample + 1) / c.samples);
    }
    return summarize(std::move(times), c.iterations);
}

StatisticsAlongside measureAlongside(const std::function<void()>& body,
                                     const std::function<void()>& reference, const TimingPlan& plan,
                                     const std::atomic<bool>* cancel,
                                     const std::function<void(double)>& progress) {
    const double share = sampleShare(plan);
    const Calibration r = calibrate(reference, plan, share / 2, cancel);
    const Calibration b = calibrate(body, plan, share, cancel);
    if (r.iterations == 0 || b.iterations == 0)
        return {};
    //   reference, body, reference, body, …, body, reference
    std::vector<double> bodyTimes, referenceTimes{timeSample(reference, r.iterations)};
    for (int sample = 0; sample < b.samples && !isCancelled(cancel); ++sample) {
        bodyTimes.push_back(timeSample(body, b.iterations));
        referenceTimes.push_back(timeSample(reference, r.iterations));
        if (progress)
            progress(static_cast<double>(sample + 1) / b.samples);
    }
    return {summarize(std::move(bodyTimes), b.iterations),
            summarize(std::move(referenceTimes), r.iterations)};
}

} // namespace fpx::bench
