// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/parallel_chunks.h"

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace fpx::bench {

// A fixed team of threads that run one job together and wait for each other: the threads
// are started once, so a timed pass costs a wake-up, not a thread creation (parallelChunks,
// which starts its threads each time, is for work done once). Workers spin briefly on a
// generation counter, then sleep on it (std::atomic::wait). An exception in any thread's part
// is rethrown by run() once every thread is done, as parallelChunks does.
class ThreadTeam {
  public:
    explicit ThreadTeam(int threads) : size_(threads < 1 ? 1 : threads) {
        for (int t = 1; t < size_; ++t)
            workers_.emplace_back([this, t] { workerLoop(t); });
    }
    ~ThreadTeam() {
        stop_.store(true, std::memory_order_release);
        generation_.fetch_add(1, std::memory_order_acq_rel);
        generation_.notify_all();
        for (std::thread& worker : workers_)
            worker.join();
    }
    ThreadTeam(const ThreadTeam&) = delete;
    ThreadTeam& operator=(const ThreadTeam&) = delete;

    int size() const { return size_; }

    // Runs job(threadIndex) on every thread of the team (index 0 on the caller) and returns
    // when all are done, rethrowing the first exception of any thread's part.
    void run(const std::function<void(int)>& job) {
        job_ = &job;
        pending_.store(size_ - 1, std::memory_order_release);
        generation_.fetch_add(1, std::memory_order_acq_rel);
        generation_.notify_all();
        // The workers use `job` until they are done, so they are waited for even when the
        // caller's part throws.
        failure_.run([&] { job(0); });
        while (pending_.load(std::memory_order_acquire) != 0)
            std::this_thread::yield();
        job_ = nullptr;
        failure_.rethrow();
    }

  private:
    void workerLoop(int index) {
        unsigned seen = 0;
        for (;;) {
            unsigned now;
            int spins = 0;
            while ((now = generation_.load(std::memory_order_acquire)) == seen)
                if (++spins > 4000)
                    generation_.wait(seen, std::memory_order_acquire); // sleeps (futex)
            seen = now;
            if (stop_.load(std::memory_order_acquire))
                return;
            failure_.run([&] { (*job_)(index); });
            pending_.fetch_sub(1, std::memory_order_acq_rel);
        }
    }

    int size_;
    std::vector<std::thread> workers_;
    std::atomic<unsigned> generation_{0};
    std::atomic<int> pending_{0};
    std::atomic<bool> stop_{false};
    const std::function<void(int)>* job_ = nullptr;
    FirstException failure_;
};

} // namespace fpx::bench
