// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"
#include "fpx/bench/result_io.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace fpx::gui {

// What the form needs to know about one backend, gathered off the GUI thread when the
// backends are loaded: the GUI never calls into a backend itself.
struct BackendSummary {
    QString id;                // "cpu", "cuda", "opencl"
    QString displayName;       // "CPU"
    QString unavailableReason; // empty when it can run
    bool loaded = true;        // false: a plugin that could not be loaded (reason above)
    std::vector<bench::DeviceInfo> devices;
    // support[{device, format id, direction}]; missing entries are unknown.
    std::map<std::tuple<int, std::string, bench::Direction>, bench::Support> support;

    bool available() const { return loaded && unavailableReason.isEmpty(); }
    bench::Support supportFor(int device, const std::string& format,
                              bench::Direction direction) const;
};

// One backend's part of a run: which backend (index into summaries()) and what to measure.
// `sumsAndQuantizers` (the CPU's job only) times, after the request, the sums and block
// quantizers as fpx bench does beside a CPU run (accumulation_bench.h, quantization_bench.h):
// on the request's largest size, the quantizers on every thread, with the file check on a
// tensor of that size. Their rows come as results (ratio_results.h).
struct BenchJob {
    int backend = 0;
    bench::BenchRequest request;
    bool sumsAndQuantizers = false;
};

// Owns the benchmark backends and runs them on a worker thread, one job after another.
// Results and progress come back to the GUI thread through queued calls, so the window never
// blocks; cancel() stops between measurements, and destruction cancels and waits.
class BenchController : public QObject {
    Q_OBJECT

  public:
    using Loader = std::function<bench::LoadedBackends()>;

    // `loader` defaults to fpx::bench::loadBackends (tests inject their own).
    explicit BenchController(QObject* parent = nullptr, Loader loader = {});
    ~BenchController() override;

    // Loads the backends on the worker thread (once); backendsReady() follows.
    void loadBackends();
    bool backendsLoaded() const { return loaded_; }
    bool isLoading() const { return loading_; }
    const std::vector<BackendSummary>& summaries() const { return summaries_; }

    // Starts the jobs; false (and `error`) when a run is in progress or nothing can run.
    bool start(std::vector<BenchJob> jobs, QString* error = nullptr);
    void cancel();
    // Cancels a run in progress and waits for the worker to stop (closing the window).
    void cancelAndWait();
    bool isRunning() const { return running_; }
    bool wasCancelled() const { return cancelledRun_; }

    const std::vector<bench::BenchResult>& results() const { return results_; }
    const bench::RunMetadata& metadata() const { return metadata_; }
    void clearResults();

    // Writes the current results with the run's metadata (result_io's formats).
    bool exportJson(const QString& path, QString* error = nullptr) const;
    bool exportCsv(const QString& path, QString* error = nullptr) const;

  signals:
    void backendsReady();
    void started();
    void resultAdded(int index);
    void resultsCleared();
    // Fraction of the whole run (0 … 1) and what is being measured now.
    void progress(double fraction, const QString& current);
    // A job failed (an exception from the backend): the run goes on with the next job.
    void errorOccurred(const QString& message);
    void finished(bool cancelled);

  private:
    void work(std::vector<BenchJob> jobs, int generation);
    // On the worker: BenchJob::sumsAndQuantizers after the CPU's run; `stage` follows them for
    // the progress.
    void runSumsAndQuantizers(const bench::Backend& cpu, const bench::BenchRequest& request,
                              const bench::ResultSink& sink, const bench::ProgressSink& progress,
                              int& stage);
    void post(std::function<void()> call);

    Loader loader_;
    // Touched by the worker only while running_ (the GUI thread waits for it to finish).
    std::vector<std::unique_ptr<bench::Backend>> backends_;
    std::vector<BackendSummary> summaries_;
    std::vector<bench::BenchResult> results_;
    bench::RunMetadata metadata_;
    std::atomic<bool> cancel_{false};
    bool loaded_ = false;
    bool loading_ = false;
    bool running_ = false;
    bool cancelledRun_ = false;
    int generation_ = 0; // GUI thread only: queued calls of an abandoned run are dropped
    QThreadPool pool_;   // one worker thread; declared last, so it is destroyed (joined) first
};

} // namespace fpx::gui
