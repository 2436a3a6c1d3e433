// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/explorer/explorer_job.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

template <typename T> class QFutureWatcher;

namespace fpx::gui {

// Runs the explorer's jobs off the GUI thread, newest first: every job submitted supersedes
// the ones before it, and only the newest job's result is ever handed back.
//
// A job cannot be stopped half-way (the core's exact arithmetic has no cancellation points;
// each job is bounded by the work budget instead), so a superseded job runs to its end and its
// result is dropped. So that such a job never delays the newest one, the newest starts at once
// on a thread of its own beside at most one superseded job still running; when two are running
// already, the newest waits as the one pending job, replacing any pending job before it, which
// then never runs. However fast the keystrokes, at most two jobs run and one waits.
class ExplorerJobQueue : public QObject {
    Q_OBJECT

  public:
    explicit ExplorerJobQueue(QObject* parent = nullptr);
    // Waits for the jobs still running (each bounded by the work budget): they hold no pointer
    // to this object, but their threads belong to it.
    ~ExplorerJobQueue() override;

    // Runs `job` as the newest; its generation is set here.
    void submit(ExplorerJob job);
    // Makes every job submitted so far stale: the caller computed a newer state itself.
    void supersede();
    // What computes the jobs submitted from now on (runExplorerJob unless a test says else).
    void setJobFunction(ExplorerJobFunction run) { run_ = std::move(run); }
    const ExplorerJobFunction& jobFunction() const { return run_; }
    // Whether the newest job's result is still to come.
    bool busy() const { return !newestDone_; }
    // No job running or waiting, superseded ones included.
    bool drained() const { return running_.empty() && !pending_; }

    // Waits up to `timeout` (less than a day; without one: as long as it takes) for the
    // newest job, and for a superseded one it waits behind, and hands its result over here
    // instead of through resultReady; nothing when it did not finish in time or there is no
    // job to wait for.
    std::optional<ExplorerJobResult>
    waitForNewest(std::optional<std::chrono::milliseconds> timeout);

  signals:
    // The newest job finished (emitted on the GUI thread, from collect()); older jobs' results
    // never come here.
    void resultReady(const fpx::gui::ExplorerJobResult& result);
    // The last job still running, superseded or not, finished: drained() holds.
    void jobsDrained();

  private:
    // Where a worker leaves its result for the GUI thread.
    struct Handoff {
        std::mutex mutex;
        std::condition_variable finished;
        std::optional<ExplorerJobResult> result;
    };
    struct Running {
        std::uint64_t generation = 0;
        std::shared_ptr<Handoff> handoff;
        QFutureWatcher<void>* watcher = nullptr;
    };

    void start(ExplorerJob job);
    // Takes the results of finished jobs, starts the pending job if a thread is free and
    // emits the newest job's result if it is among them.
    void collect();
    // Takes the result of running job `index` (waiting up to `timeout`) and forgets the job.
    std::optional<ExplorerJobResult> take(std::size_t index,
                                          std::optional<std::chrono::milliseconds> timeout);
    void startPending();

    static constexpr int kMaxRunning = 2; // one superseded job and the newest

    ExplorerJobFunction run_ = runExplorerJob;
    QThreadPool pool_;
    std::vector<Running> running_;
    std::optional<ExplorerJob> pending_;
    std::uint64_t generation_ = 0;
    // generation_, for the workers: a job that finds itself superseded when it is done frees
    // its rows there, not on the GUI thread, where freeing thousands of exact values of a long
    // format list would be a stall of its own. (A job superseded after that check is freed
    // here; that is the rare case.)
    std::shared_ptr<std::atomic<std::uint64_t>> newestGeneration_ =
        std::make_shared<std::atomic<std::uint64_t>>(0);
    bool newestDone_ = true;
};

} // namespace fpx::gui
