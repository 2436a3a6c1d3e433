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
#include <string>
#include <utility>

namespace fpx::gui {

// What a job of a BackgroundRunner reads and writes while it runs on its worker thread: whether
// it should stop (cancelled, or a newer request came), and how far it is.
struct JobControl {
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> done{0};
    std::atomic<std::size_t> total{0}; // 0 until the job knows its amount of work
    bool stopped() const { return stop.load(); }
    // For the cores' progress callbacks: records the counts, and says whether to go on.
    bool progress(std::size_t doneNow, std::size_t totalNow) {
        done.store(doneNow);
        total.store(totalNow);
        return !stop.load();
    }
};

// The one way the explorer's pages run work off the GUI thread (docs/architecture.md,
// "Background work"), for work where only the newest request matters:
//   - one job runs at a time; a request made meanwhile waits in its place, replacing any older
//     waiting one, and the running job is asked to stop (JobControl::stop);
//   - a result that a newer request has made stale is dropped unseen;
//   - a job that throws gives a result whose `error` says what failed (or, for a result
//     without one, the `failed` callback's message), never an exception on the GUI thread;
//   - progress() reads the running job's counts; cancel() stops it (its partial result is
//     still applied) and forgets a waiting one; discard() stops it and drops its result, and
//     says what to do instead once it has ended (a form that no longer reads shows why);
//   - busy() holds from start() until the newest result has been applied, so that a page that
//     is not busy() shows its final state.
// The GUI thread only starts jobs and applies results; it waits for a job only when the runner
// is destroyed.
template <typename Result> class BackgroundRunner {
  public:
    using Job = std::function<Result(JobControl& control)>;

    // `apply` and `failed` run on the GUI thread, in `context`'s thread.
    BackgroundRunner(QObject* context, std::function<void(Result)> apply,
                     std::function<void(const std::string& message)> failed = {})
        : apply_(std::move(apply)), failed_(std::move(failed)) {
        QObject::connect(&watcher_, &QFutureWatcher<Outcome>::finished, context,
                         [this] { finish(); });
    }
    ~BackgroundRunner() {
        pending_.reset();
        if (control_)
            control_->stop.store(true);
        watcher_.waitForFinished();
    }
    BackgroundRunner(const BackgroundRunner&) = delete;
    BackgroundRunner& operator=(const BackgroundRunner&) = delete;

    void start(Job job) {
        afterDiscard_ = {};
        if (running_) {
            if (pending_)
                ++dropped_; // never started: a newer request replaces it
            pending_ = std::move(job);
            control_->stop.store(true);
            return;
        }
        launch(std::move(job));
    }
    // Stops the running job (whose partial result is still applied) and forgets a waiting one.
    void cancel() {
        pending_.reset();
        if (control_)
            control_->stop.store(true);
    }
    // Stops the running job and drops its result; `then` runs on the GUI thread once the job
    // has ended, or at once when none runs. A waiting request is forgotten.
    void discard(std::function<void()> then) {
        pending_.reset();
        if (!running_) {
            then();
            return;
        }
        control_->stop.store(true);
        afterDiscard_ = std::move(then);
    }
    // A job running or waiting, or a result not applied yet.
    bool busy() const { return running_; }
    // The running job's counts: {done, total}, total 0 while it does not know yet.
    std::pair<std::size_t, std::size_t> progress() const {
        if (!control_)
            return {0, 0};
        return {control_->done.load(), control_->total.load()};
    }
    // Requests whose results were never shown because a newer one came.
    std::size_t dropped() const { return dropped_; }
    std::size_t applied() const { return applied_; }

  private:
    // A result, or why the job threw.
    struct Outcome {
        std::optional<Result> result;
        std::string error;
    };

    void launch(Job job) {
        running_ = true;
        control_ = std::make_shared<JobControl>();
        watcher_.setFuture(
            QtConcurrent::run([job = std::move(job), control = control_]() -> Outcome {
                try {
                    return {job(*control), {}};
                } catch (const std::bad_alloc&) {
                    return {std::nullopt,
                            "not enough memory for this run: ask for fewer values or steps"};
                } catch (const std::exception& e) {
                    return {std::nullopt, e.what()};
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
        Outcome outcome = watcher_.result();
        running_ = false; // before applying: what `apply` signals sees the runner idle
        if (afterDiscard_) {
            ++dropped_;
            const std::function<void()> then = std::exchange(afterDiscard_, {});
            then();
            return;
        }
        ++applied_;
        if (outcome.result) {
            apply_(std::move(*outcome.result));
            return;
        }
        if constexpr (requires(Result & r) { r.error = std::string(); }) {
            if (!failed_) {
                Result failed{};
                failed.error = outcome.error;
                apply_(std::move(failed));
                return;
            }
        }
        if (failed_)
            failed_(outcome.error);
    }

    std::function<void(Result)> apply_;
    std::function<void(const std::string&)> failed_;
    QFutureWatcher<Outcome> watcher_;
    std::shared_ptr<JobControl> control_;
    std::optional<Job> pending_;
    std::function<void()> afterDiscard_;
    bool running_ = false;
    std::size_t dropped_ = 0;
    std::size_t applied_ = 0;
};

} // namespace fpx::gui
