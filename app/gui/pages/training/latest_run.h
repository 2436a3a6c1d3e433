// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrent>

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>

namespace fpx::gui {

// Work for an interactive control (a slider dragged across many positions) on the thread pool,
// where only the newest request matters: one job runs at a time; a request made meanwhile
// waits in its place (replacing any older waiting one) and the running job is asked to stop;
// a result that a newer request has made stale is dropped unseen. The GUI thread only starts
// jobs and applies results, so it never waits for one.
template <typename Result> class LatestRun {
  public:
    // A job reads `stop` between its pieces of work and may return early when it is set.
    using Job = std::function<Result(const std::atomic<bool>& stop)>;

    LatestRun(QObject* context, std::function<void(Result)> apply) : apply_(std::move(apply)) {
        QObject::connect(&watcher_, &QFutureWatcher<Result>::finished, context,
                         [this] { finish(); });
    }
    ~LatestRun() {
        pending_.reset();
        if (stop_)
            stop_->store(true);
        watcher_.waitForFinished();
    }
    LatestRun(const LatestRun&) = delete;
    LatestRun& operator=(const LatestRun&) = delete;

    void start(Job job) {
        if (watcher_.isRunning()) {
            if (pending_)
                ++dropped_; // never started: a newer request replaces it
            pending_ = std::move(job);
            stop_->store(true);
            return;
        }
        launch(std::move(job));
    }
    // A job running or waiting.
    bool isBusy() const { return watcher_.isRunning() || pending_.has_value(); }
    // Requests whose results were never shown because a newer one came.
    std::size_t dropped() const { return dropped_; }
    std::size_t applied() const { return applied_; }

  private:
    void launch(Job job) {
        stop_ = std::make_shared<std::atomic<bool>>(false);
        // A job that throws (out of memory on a huge request, a broken input) gives a result
        // whose `error` says so, instead of an exception rethrown on the GUI thread.
        watcher_.setFuture(QtConcurrent::run([job = std::move(job), stop = stop_] {
            try {
                return job(*stop);
            } catch (const std::bad_alloc&) {
                Result failed;
                failed.error = "not enough memory for this run: ask for fewer steps or values";
                return failed;
            } catch (const std::exception& e) {
                Result failed;
                failed.error = e.what();
                return failed;
            }
        }));
    }
    void finish() {
        if (pending_) {
            ++dropped_; // stale: the waiting request is newer
            Job next = std::move(*pending_);
            pending_.reset();
            launch(std::move(next));
            return;
        }
        ++applied_;
        apply_(watcher_.result());
    }

    std::function<void(Result)> apply_;
    QFutureWatcher<Result> watcher_;
    std::shared_ptr<std::atomic<bool>> stop_;
    std::optional<Job> pending_;
    std::size_t dropped_ = 0;
    std::size_t applied_ = 0;
};

} // namespace fpx::gui
