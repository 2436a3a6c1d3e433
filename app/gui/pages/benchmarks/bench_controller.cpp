// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/benchmarks/bench_controller.h"

#include "fpx/bench/ratio_results.h"
#include "fpx/bench/sizes.h"
#include "fpx/exact/format_catalogue.h"

#include <QMetaObject>

#include <algorithm>
#include <chrono>
#include <exception>
#include <fstream>

namespace fpx::gui {

bench::Support BackendSummary::supportFor(int device, const std::string& format,
                                          bench::Direction direction) const {
    const auto found = support.find({device, format, direction});
    return found == support.end() ? bench::Support::Unsupported : found->second;
}

namespace {

// The backend's id from a loader problem "opencl: libOpenCL.so.1: cannot open …".
QString problemBackendId(const std::string& problem) {
    const auto colon = problem.find(':');
    return colon == std::string::npos ? QStringLiteral("plugin")
                                      : QString::fromStdString(problem.substr(0, colon));
}

QString problemReason(const std::string& problem) {
    const auto colon = problem.find(':');
    QString reason =
        QString::fromStdString(colon == std::string::npos ? problem : problem.substr(colon + 1));
    return reason.trimmed();
}

BackendSummary summarize(const bench::Backend& backend) {
    BackendSummary summary;
    summary.id = QString::fromStdString(backend.id());
    summary.displayName = QString::fromStdString(backend.displayName());
    summary.unavailableReason = QString::fromStdString(backend.unavailableReason());
    if (!summary.available())
        return summary;
    summary.devices = backend.devices();
    for (const bench::DeviceInfo& device : summary.devices)
        for (const FormatSpec& spec : builtinFormats())
            for (bench::Direction direction : {bench::Direction::Encode, bench::Direction::Decode})
                summary.support[{device.index, spec.id, direction}] =
                    backend.support(device.index, spec, direction);
    return summary;
}

} // namespace

BenchController::BenchController(QObject* parent, Loader loader)
    : QObject(parent), loader_(loader ? std::move(loader) : Loader(&bench::loadBackends)) {
    pool_.setMaxThreadCount(1);
    pool_.setExpiryTimeout(-1);
}

BenchController::~BenchController() {
    // No signals from a destructor: receivers may be half destroyed already.
    blockSignals(true);
    cancelAndWait();
}

void BenchController::post(std::function<void()> call) {
    // Runs `call` on the GUI thread; dropped if this controller is gone by then.
    QMetaObject::invokeMethod(this, std::move(call), Qt::QueuedConnection);
}

void BenchController::loadBackends() {
    if (loaded_ || loading_)
        return;
    loading_ = true;
    pool_.start([this] {
        auto loaded = std::make_shared<bench::LoadedBackends>();
        auto summaries = std::make_shared<std::vector<BackendSummary>>();
        try {
            *loaded = loader_();
        } catch (const std::exception& e) {
            loaded->problems.push_back(std::string("backends: ") + e.what());
        }
        for (const auto& backend : loaded->backends) {
            try {
                summaries->push_back(summarize(*backend));
            } catch (const std::exception& e) {
                BackendSummary broken;
                broken.id = QString::fromStdString(backend->id());
                broken.displayName = QString::fromStdString(backend->displayName());
                broken.unavailableReason = QString::fromUtf8(e.what());
                summaries->push_back(std::move(broken));
            }
        }
        for (const std::string& problem : loaded->problems) {
            BackendSummary failed;
            failed.id = problemBackendId(problem);
            failed.displayName = failed.id.toUpper();
            failed.unavailableReason = problemReason(problem);
            failed.loaded = false;
            summaries->push_back(std::move(failed));
        }
        post([this, loaded, summaries] {
            backends_ = std::move(loaded->backends);
            summaries_ = std::move(*summaries);
            loading_ = false;
            loaded_ = true;
            emit backendsReady();
        });
    });
}

bool BenchController::start(std::vector<BenchJob> jobs, QString* error) {
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (running_)
        return fail(tr("A benchmark is already running."));
    if (!loaded_)
        return fail(tr("The backends are still loading."));
    std::vector<bench::DeviceInfo> devices;
    for (const BenchJob& job : jobs) {
        if (job.backend < 0 || job.backend >= static_cast<int>(backends_.size()) ||
            !summaries_[static_cast<std::size_t>(job.backend)].available())
            return fail(tr("That backend cannot run here."));
        for (const bench::DeviceInfo& device :
             summaries_[static_cast<std::size_t>(job.backend)].devices)
            if (job.request.devices.empty() ||
                std::find(job.request.devices.begin(), job.request.devices.end(), device.index) !=
                    job.request.devices.end())
                devices.push_back(device);
    }
    if (jobs.empty())
        return fail(tr("Choose at least one backend and device."));

    clearResults();
    metadata_ = bench::describeRun(jobs.front().request, devices);
    cancel_ = false;
    cancelledRun_ = false;
    running_ = true;
    emit started();
    emit progress(0, tr("starting…"));
    const int generation = ++generation_;
    pool_.start([this, generation, jobs = std::move(jobs)]() mutable {
        work(std::move(jobs), generation);
    });
    return true;
}

void BenchController::work(std::vector<BenchJob> jobs, int generation) {
    using Clock = std::chrono::steady_clock;
    const double jobCount = static_cast<double>(jobs.size());
    auto lastPost = Clock::now() - std::chrono::seconds(1);
    std::string lastText;
    for (std::size_t i = 0; i < jobs.size() && !cancel_; ++i) {
        bench::Backend& backend = *backends_[static_cast<std::size_t>(jobs[i].backend)];
        const bool sumsAndQuantizers = jobs[i].sumsAndQuantizers && backend.id() == "cpu";
        // The job's share of the bar: the backend's run, then the sums, then the quantizers.
        const double stages = sumsAndQuantizers ? 3 : 1;
        int stage = 0;
        const QString prefix = QString::fromStdString(backend.displayName()) + QStringLiteral(": ");
        const bench::ResultSink sink = [this, generation](const bench::BenchResult& result) {
            post([this, generation, result] {
                if (generation != generation_)
                    return; // a run abandoned by cancelAndWait()
                results_.push_back(result);
                emit resultAdded(static_cast<int>(results_.size()) - 1);
            });
        };
        const bench::ProgressSink progressSink = [&, i](double fraction, const std::string& text) {
            // At most ~30 updates a second, but every change of the item measured.
            const auto now = Clock::now();
            if (text == lastText && now - lastPost < std::chrono::milliseconds(33))
                return;
            lastPost = now;
            lastText = text;
            const double overall =
                (static_cast<double>(i) + (stage + std::clamp(fraction, 0.0, 1.0)) / stages) /
                jobCount;
            const QString current = prefix + QString::fromStdString(text);
            post([this, generation, overall, current] {
                if (generation == generation_)
                    emit progress(overall, current);
            });
        };
        try {
            backend.run(jobs[i].request, sink, progressSink, &cancel_);
            if (sumsAndQuantizers && !cancel_) {
                stage = 1;
                runSumsAndQuantizers(backend, jobs[i].request, sink, progressSink, stage);
            }
        } catch (const std::exception& e) {
            const QString message = prefix + QString::fromUtf8(e.what());
            post([this, generation, message] {
                if (generation == generation_)
                    emit errorOccurred(message);
            });
        }
    }
    const bool cancelled = cancel_;
    post([this, generation, cancelled] {
        if (generation != generation_)
            return;
        running_ = false;
        cancelledRun_ = cancelled;
        if (!cancelled)
            emit progress(1, tr("done"));
        emit finished(cancelled);
    });
}

void BenchController::runSumsAndQuantizers(const bench::Backend& cpu,
                                           const bench::BenchRequest& request,
                                           const bench::ResultSink& sink,
                                           const bench::ProgressSink& progress, int& stage) {
    const std::vector<bench::DeviceInfo> devices = cpu.devices();
    bench::DeviceInfo device = devices.empty() ? bench::DeviceInfo{} : devices.front();
    device.backend = cpu.id();
    // The largest size, as fpx bench sizes both from its largest --sizes count, so that a run
    // saved by either compares with the other's.
    const std::size_t size = request.sizes.empty()
                                 ? bench::kInCacheElements
                                 : *std::max_element(request.sizes.begin(), request.sizes.end());
    const std::vector<bench::AccumulationBenchRow> sums = bench::runAccumulationBench(
        bench::AccumulationBenchRequest{size, request.plan}, progress, &cancel_);
    for (const bench::BenchResult& r : bench::accumulationResults(sums, size, device))
        sink(r);
    if (cancel_)
        return;
    stage = 2;
    bench::QuantizationBenchRequest quantization;
    quantization.elements = size;
    quantization.fileBytes = size * sizeof(float);
    quantization.plan = request.plan;
    const bench::QuantizationBenchReport quantizers =
        bench::runQuantizationBench(quantization, progress, &cancel_);
    for (const bench::BenchResult& r : bench::quantizationResults(quantizers, device))
        sink(r);
}

void BenchController::cancel() {
    if (running_)
        cancel_ = true;
}

void BenchController::cancelAndWait() {
    cancel_ = true;
    pool_.waitForDone();
    // The worker's last queued calls are still pending: drop them and finish here, so that
    // the state is consistent (not running) when this returns.
    if (running_) {
        ++generation_;
        running_ = false;
        cancelledRun_ = true;
        emit finished(true);
    }
}

void BenchController::clearResults() {
    results_.clear();
    emit resultsCleared();
}

bool BenchController::exportJson(const QString& path, QString* error) const {
    std::ofstream out(path.toStdString(), std::ios::binary);
    if (out)
        bench::writeResultsJson(out, metadata_, results_);
    if (!out || !out.flush()) {
        if (error)
            *error = tr("Could not write %1.").arg(path);
        return false;
    }
    return true;
}

bool BenchController::exportCsv(const QString& path, QString* error) const {
    std::ofstream out(path.toStdString(), std::ios::binary);
    if (out)
        bench::writeResultsCsv(out, results_);
    if (!out || !out.flush()) {
        if (error)
            *error = tr("Could not write %1.").arg(path);
        return false;
    }
    return true;
}

} // namespace fpx::gui
