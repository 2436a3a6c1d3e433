// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace fpx {

// The first exception of work spread over several threads, kept until every thread has
// finished: an exception that leaves a thread's function ends the program, and the caller
// must hear of the failure once, after no thread still uses what it shares.
class FirstException {
  public:
    // Runs f(), keeping its exception if it is the first.
    template <typename F> void run(const F& f) noexcept {
        try {
            f();
        } catch (...) {
            const std::lock_guard lock(mutex_);
            if (!first_)
                first_ = std::current_exception();
        }
    }
    // Rethrows the first exception kept, if any, and forgets it (the next run starts clean).
    void rethrow() {
        if (std::exception_ptr first = std::exchange(first_, nullptr))
            std::rethrow_exception(first);
    }

  private:
    std::mutex mutex_;
    std::exception_ptr first_;
};

// The threads parallelChunks uses for `count` elements in chunks of at least `minChunk`: at
// most `threads` (0: one per hardware thread), at least one.
inline std::size_t chunkThreads(std::size_t count, std::size_t minChunk, unsigned threads = 0) {
    const std::size_t available =
        threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<std::size_t>(count / std::max<std::size_t>(1, minChunk), 1, available);
}

// Runs f(begin, end) over [0, count) in one contiguous chunk per thread (chunkThreads of
// them, the caller's thread among them) and returns when all are done, rethrowing the first
// exception any chunk threw.
template <typename F>
void parallelChunks(std::size_t count, std::size_t minChunk, unsigned threads, const F& f) {
    const std::size_t chunks = chunkThreads(count, minChunk, threads);
    FirstException failure;
    const auto chunk = [&](std::size_t c) {
        failure.run([&] { f(count * c / chunks, count * (c + 1) / chunks); });
    };
    std::vector<std::thread> helpers;
    helpers.reserve(chunks - 1);
    for (std::size_t c = 1; c < chunks; ++c)
        helpers.emplace_back(chunk, c);
    chunk(0);
    for (std::thread& helper : helpers)
        helper.join();
    failure.rethrow();
}

} // namespace fpx
