// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/measurement.h"

#include <algorithm>

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

Statistics measure(const std::function<void()>& body, const TimingPlan& plan,
                   const std::atomic<bool>* cancel, const std::function<void(double)>& progress) {
    using Clock = std::chrono::steady_clock;
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    const double samples = std::max(1, plan.samples);
    const double target = std::max(1e-4, plan.budget.count() / samples);
    // Warm-ups; one that alone outlasts a sample's share (a pass over an array far beyond the
    // cache) is warm-up enough.
    for (int i = 0; i < plan.warmups && !cancelled(); ++i) {
        const auto start = Clock::now();
        body();
        if (std::chrono::duration<double>(Clock::now() - start).count() > target)
            break;
    }

    // Calibrate: double the iteration count until one batch takes a tenth of a sample.
    std::uint64_t iterations = 1;
    int sampleCount = plan.samples;
    for (;;) {
        if (cancelled())
            return {};
        const auto start = Clock::now();
        for (std::uint64_t i = 0; i < iterations; ++i)
            body();
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (elapsed >= target / 10 || iterations >= (std::uint64_t{1} << 40)) {
            const double perIteration = elapsed / static_cast<double>(iterations);
            iterations = std::max<std::uint64_t>(
                1, static_cast<std::uint64_t>(target / std::max(perIteration, 1e-12)));
            // Passes longer than the whole budget: as many samples as fit, but at least
            // three, so that a median and a spread still mean something.
            if (perIteration * samples > plan.budget.count())
                sampleCount = std::clamp(
                    static_cast<int>(plan.budget.count() / std::max(perIteration, 1e-12)),
                    std::min(3, plan.samples), plan.samples);
            break;
        }
        iterations *= 2;
    }

    std::vector<double> times;
    for (int sample = 0; sample < sampleCount && !cancelled(); ++sample) {
        const auto start = Clock::now();
        for (std::uint64_t i = 0; i < iterations; ++i)
            body();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                        static_cast<double>(iterations));
        if (progress)
            progress(static_cast<double>(sample + 1) / sampleCount);
    }
    return summarize(std::move(times), iterations);
}

} // namespace fpx::bench
