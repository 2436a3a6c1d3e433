// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/explorer_job_queue.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace fpx::gui {

ExplorerJobQueue::ExplorerJobQueue(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(kMaxRunning);
}

ExplorerJobQueue::~ExplorerJobQueue() {
    pending_.reset();
    pool_.waitForDone();
}

void ExplorerJobQueue::submit(ExplorerJob job) {
    job.generation = ++generation_;
    newestGeneration_->store(generation_);
    newestDone_ = false;
    if (static_cast<int>(running_.size()) < kMaxRunning)
        start(std::move(job));
    else
        pending_ = std::move(job); // an older pending job is dropped unrun
}

void ExplorerJobQueue::supersede() {
    ++generation_;
    newestGeneration_->store(generation_);
    pending_.reset();
    newestDone_ = true;
}

void ExplorerJobQueue::start(ExplorerJob job) {
    auto handoff = std::make_shared<Handoff>();
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, &ExplorerJobQueue::collect);
    const std::uint64_t generation = job.generation;
    // Guarded: a job that throws still leaves a result, or its waiters would wait for ever.
    watcher->setFuture(QtConcurrent::run(
        &pool_, [job = std::move(job), handoff, run = run_, newest = newestGeneration_] {
            ExplorerJobResult result = runExplorerJobGuarded(run, job);
            if (job.generation != newest->load()) {
                result = ExplorerJobResult{}; // dropped anyway: freed on this thread
                result.generation = job.generation;
            }
            const std::lock_guard lock(handoff->mutex);
            handoff->result = std::move(result);
            handoff->finished.notify_all();
        }));
    running_.push_back({generation, std::move(handoff), watcher});
}

std::optional<ExplorerJobResult>
ExplorerJobQueue::take(std::size_t index, std::optional<std::chrono::milliseconds> timeout) {
    Running& job = running_[index];
    std::optional<ExplorerJobResult> result;
    {
        std::unique_lock lock(job.handoff->mutex);
        const auto done = [&] { return job.handoff->result.has_value(); };
        if (timeout)
            job.handoff->finished.wait_for(lock, *timeout, done);
        else
            job.handoff->finished.wait(lock, done);
        if (!done())
            return std::nullopt;
        result = std::move(job.handoff->result);
    }
    // Its thread may still be returning to the pool; the next job then waits there briefly.
    job.watcher->disconnect(this);
    job.watcher->deleteLater();
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(index));
    return result;
}

void ExplorerJobQueue::startPending() {
    if (pending_ && static_cast<int>(running_.size()) < kMaxRunning) {
        ExplorerJob job = std::move(*pending_);
        pending_.reset();
        start(std::move(job));
    }
}

void ExplorerJobQueue::collect() {
    std::optional<ExplorerJobResult> newest;
    for (std::size_t i = 0; i < running_.size();) {
        std::optional<ExplorerJobResult> result = take(i, std::chrono::milliseconds(0));
        if (!result) {
            ++i;
            continue;
        }
        if (result->generation == generation_ && !newestDone_) {
            newestDone_ = true;
            newest = std::move(result);
        }
    }
    startPending();
    // Last: a receiver may submit the next job from here.
    if (newest)
        emit resultReady(*newest);
    if (drained())
        emit jobsDrained();
}

std::optional<ExplorerJobResult>
ExplorerJobQueue::waitForNewest(std::optional<std::chrono::milliseconds> timeout) {
    using Clock = std::chrono::steady_clock;
    const std::optional<Clock::time_point> deadline =
        timeout ? std::optional(Clock::now() + *timeout) : std::nullopt;
    const auto timeLeft = [&]() -> std::optional<std::chrono::milliseconds> {
        if (!deadline)
            return std::nullopt;
        return std::max(std::chrono::milliseconds(0),
                        std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()));
    };
    while (!newestDone_) {
        const auto newest = std::find_if(running_.begin(), running_.end(), [&](const Running& r) {
            return r.generation == generation_;
        });
        if (newest != running_.end()) {
            std::optional<ExplorerJobResult> result =
                take(static_cast<std::size_t>(newest - running_.begin()), timeLeft());
            if (result)
                newestDone_ = true;
            return result;
        }
        if (running_.empty())
            return std::nullopt;
        // The newest is pending behind two running jobs: it starts once the older is done.
        if (!take(0, timeLeft())) // a superseded job's result, dropped
            return std::nullopt;
        startPending();
    }
    return std::nullopt;
}

} // namespace fpx::gui
