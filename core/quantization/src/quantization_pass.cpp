// SPDX-License-Identifier: GPL-3.0-or-later
// runQuantizationPass: every tensor into every format, each chunk of a tensor read once for all
// the formats, the statistics taken piece by piece while the piece is in the cache
// (quantization_pass.h; docs/design.md, "Quantization statistics", for the order of the sums).
#include "fpx/quantization/quantization_pass.h"

#include "error_loops.h"
#include "fast_dequantizer.h"
#include "quantizer_plan.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <thread>
#include <utility>

namespace fpx {

namespace {

using quantizer::Plan;
using quantizer::Tally;

constexpr std::uint32_t kInfinityBits = 0x7f800000u;

// One tensor × format, quantized by the pass (fused) or apart (quantizeTensor and
// measureQuantization).
struct Job {
    std::size_t tensor = 0;
    std::size_t format = 0;
    std::optional<Plan> plan; // fused only
    std::unique_ptr<FastDequantizer> dequantizer;
    std::size_t blockSize = 0;
    std::size_t piece = 0;
    std::size_t chunk = 0;
    bool tensorWide = false; // NVFP4's tensor scale or one integer scale: the amax first
    bool oneScale = false;   // one integer scale for the whole tensor
    float tensorScale = 1;
    std::vector<ErrorSums> chunkSums;
    std::vector<Tally> chunkTallies;
};

// A unit of work: chunk `index` (of `chunk` elements) of a tensor, for every fused job of that
// tensor with that chunk size.
struct WorkItem {
    std::size_t tensor = 0;
    std::size_t chunk = 0;
    std::size_t index = 0;
    std::vector<Job*> jobs;
    std::size_t elements = 0;
};

// The amax of a tensor (FP32 magnitude bits), and of its finite elements.
struct TensorAmax {
    std::vector<std::uint32_t> chunkMax;
    std::vector<std::uint32_t> chunkFiniteMax;
    std::uint32_t amax = 0;
    std::uint32_t finiteAmax = 0;
};

constexpr std::size_t kAmaxChunk = std::size_t(1) << 16;

// Items shared among the threads, first come first served; the calling thread reports
// progress and may cancel between items.
class ItemRunner {
  public:
    ItemRunner(int threads, const QuantizeProgress& progress, std::size_t total)
        : threads_(threads), progress_(progress), total_(total) {}

    int threads() const { return threads_; }

    // work(item index, thread index) → elements read. false when cancelled.
    template <typename Work> bool run(std::size_t items, const Work& work) {
        std::atomic<std::size_t> next{0};
        const auto worker = [&](int index) {
            for (;;) {
                if (index == 0 && progress_ && !progress_(done_.load(), total_))
                    cancelled_.store(true);
                if (cancelled_.load(std::memory_order_relaxed))
                    return;
                const std::size_t item = next.fetch_add(1, std::memory_order_relaxed);
                if (item >= items)
                    return;
                done_.fetch_add(work(item, index), std::memory_order_relaxed);
            }
        };
        const int threads = static_cast<int>(
            std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads_), items)));
        std::vector<std::thread> helpers;
        for (int t = 1; t < threads; ++t)
            helpers.emplace_back(worker, t);
        worker(0);
        for (std::thread& helper : helpers)
            helper.join();
        return !cancelled_.load();
    }
    void advance(std::size_t elements) { done_.fetch_add(elements); }
    void addToTotal(std::size_t elements) { total_ += elements; }
    std::size_t done() const { return done_.load(); }
    std::size_t total() const { return total_; }

  private:
    int threads_;
    const QuantizeProgress& progress_;
    std::size_t total_;
    std::atomic<std::size_t> done_{0};
    std::atomic<bool> cancelled_{false};
};

int threadsFor(const QuantizeRun& run) {
    return run.threads > 0 ? run.threads
                           : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// A thread's buffers for one piece of one format.
struct Scratch {
    std::vector<std::uint8_t> codes;
    std::vector<std::uint32_t> scales;
    std::vector<double> values;
};

// Piece [first, first + count) of a tensor quantized by a fused job into `codes` and `scales`
// (element first's and block first / blockSize's), its counts added to `tally`. Returns
// whether the piece is known to hold no NaN or ±∞.
bool quantizePiece(const Job& job, const BlockFormat& format, const TensorView& input,
                   std::size_t first, std::size_t count, std::uint8_t* codes, std::uint32_t* scales,
                   Tally& tally) {
    const auto* in = reinterpret_cast<const std::uint32_t*>(input.floats.data());
    const Plan& plan = *job.plan;
    if (plan.cast) {
        CastTally counts;
        plan.cast->cast(in + first, count, codes, counts);
        tally.add(Tally{counts.clipped, counts.flushed, counts.nanInputs, counts.infInputs, false});
        return counts.nanInputs + counts.infInputs == 0;
    }
    const quantizer::BlockQuantLoops& loops = quantizer::fastestLoops();
    kernels::BlockTally counts;
    if (job.oneScale) {
        loops.integerWithScale(plan.params, in + first, count, job.tensorScale, codes, counts);
        tally.add(counts); // the prepass found no NaN or ±∞ in the tensor
        return true;
    }
    const quantizer::BlockQuantLoops::BlockLoop loop =
        format.scheme == BlockScheme::Mx      ? loops.mx
        : format.scheme == BlockScheme::Nvfp4 ? loops.nvfp4
        : format.scheme == BlockScheme::Nf4   ? loops.nf4
                                              : loops.integer;
    loop(plan.params, in + first, count, job.blockSize, codes, scales, counts);
    if (counts.nonFinite) {
        quantizer::blocksAroundNonFinite(loop, loops, plan.params, format, job.blockSize, input,
                                         first, count, codes, scales, tally);
        return false;
    }
    tally.add(counts);
    return true;
}

// Whether the pass quantizes `format` on `input` itself.
bool fusable(const BlockFormat& format, const TensorView& input, const std::optional<Plan>& plan) {
    return plan && !input.isDouble() && !format.doubleQuantized;
}

// One run of the pass: the jobs, the amaxes, the work shared among the threads, the results.
class PassRun {
  public:
    PassRun(const QuantizationPass& pass, const QuantizeRun& run) : pass_(pass), run_(run) {
        const std::size_t tensors = pass.tensors.size();
        const std::size_t formats = pass.formats.size();
        result_.reports.assign(tensors, std::vector<QuantizationReport>(formats));
        result_.errors.assign(tensors, std::vector<std::string>(formats));
        if (pass.keepQuantized)
            result_.quantized.assign(tensors, std::vector<QuantizedTensor>(formats));
    }

    // The result, or nullopt when the progress callback cancelled.
    std::optional<QuantizationPassResult> run() {
        runner_ = std::make_unique<ItemRunner>(threadsFor(run_), run_.progress, planJobs());
        if (!readAmaxes())
            return std::nullopt;
        setTensorScales();
        prepareKept();
        if (!quantizeChunks())
            return std::nullopt;
        finishFused();
        if (!runApart())
            return std::nullopt;
        if (run_.progress)
            run_.progress(runner_->total(), runner_->total());
        return std::move(result_);
    }

  private:
    // The jobs, and what each tensor needs read first; returns the elements to be read.
    std::size_t planJobs() {
        const std::size_t tensorCount = pass_.tensors.size();
        const std::size_t formatCount = pass_.formats.size();
        needsAmax_.assign(tensorCount, false);
        std::size_t total = 0;
        for (std::size_t t = 0; t < tensorCount; ++t) {
            const TensorView& input = pass_.tensors[t];
            for (std::size_t f = 0; f < formatCount; ++f) {
                const BlockFormat& format = pass_.formats[f];
                auto job = std::make_unique<Job>();
                job->tensor = t;
                job->format = f;
                std::optional<Plan> plan = quantizer::planFor(format, input);
                if (fusable(format, input, plan)) {
                    job->plan = std::move(plan);
                    job->blockSize = quantizer::blockSizeFor(format, input);
                    const std::size_t n = input.size();
                    const std::size_t unit = statisticsUnit(format, n, job->blockSize);
                    job->piece = statisticsPiece(unit);
                    job->chunk = statisticsChunk(unit);
                    job->oneScale = format.scheme == BlockScheme::IntAbsmax && job->blockSize >= n;
                    job->tensorWide = job->oneScale || format.scheme == BlockScheme::Nvfp4;
                    job->dequantizer = std::make_unique<FastDequantizer>(format);
                    const std::size_t chunks = (n + job->chunk - 1) / job->chunk;
                    job->chunkSums.resize(chunks);
                    job->chunkTallies.resize(chunks);
                    needsAmax_[t] = needsAmax_[t] || job->tensorWide;
                } else {
                    apart_.push_back(job.get());
                }
                jobs_.push_back(std::move(job));
            }
            total += input.size() * (needsAmax_[t] ? 2 : 1);
        }
        // A job that goes apart_ reads its tensor again (a second look at a tensor with a NaN or
        // ±∞ under one integer scale is counted when it is found).
        for (const Job* job : apart_)
            total += pass_.tensors[job->tensor].size();
        return total;
    }

    // The amax of every tensor that needs one: chunks of every such tensor on every thread.
    bool readAmaxes() {
        const std::size_t tensorCount = pass_.tensors.size();
        amaxes_.assign(tensorCount, {});
        {
            std::vector<std::pair<std::size_t, std::size_t>> items; // tensor, chunk
            for (std::size_t t = 0; t < tensorCount; ++t) {
                if (!needsAmax_[t])
                    continue;
                const std::size_t chunks = (pass_.tensors[t].size() + kAmaxChunk - 1) / kAmaxChunk;
                amaxes_[t].chunkMax.assign(chunks, 0);
                amaxes_[t].chunkFiniteMax.assign(chunks, 0);
                for (std::size_t c = 0; c < chunks; ++c)
                    items.emplace_back(t, c);
            }
            const quantizer::BlockQuantLoops& loops = quantizer::fastestLoops();
            const bool finished = runner_->run(items.size(), [&](std::size_t i, int) {
                const auto [t, c] = items[i];
                const TensorView& input = pass_.tensors[t];
                const std::size_t first = c * kAmaxChunk;
                const std::size_t count = std::min(kAmaxChunk, input.size() - first);
                const auto* in =
                    reinterpret_cast<const std::uint32_t*>(input.floats.data()) + first;
                const std::uint32_t largest = loops.maxMagnitude(in, count);
                std::uint32_t finite = largest;
                if (largest >= kInfinityBits) { // a NaN or ±∞: the finite ones' largest apart_
                    finite = 0;
                    for (std::size_t k = 0; k < count; ++k) {
                        const std::uint32_t m = in[k] & 0x7fffffffu;
                        finite = m < kInfinityBits && m > finite ? m : finite;
                    }
                }
                amaxes_[t].chunkMax[c] = largest;
                amaxes_[t].chunkFiniteMax[c] = finite;
                return count;
            });
            if (!finished)
                return false;
            for (TensorAmax& a : amaxes_) {
                for (const std::uint32_t m : a.chunkMax)
                    a.amax = std::max(a.amax, m);
                for (const std::uint32_t m : a.chunkFiniteMax)
                    a.finiteAmax = std::max(a.finiteAmax, m);
            }
        }
        return true;
    }

    void setTensorScales() {
        // The tensor-wide scales; one integer scale over a tensor with a NaN or ±∞ goes apart_ (the
        // exact core stores that tensor as zeros at once).
        for (const std::unique_ptr<Job>& job : jobs_) {
            if (!job->plan || !job->tensorWide)
                continue;
            const TensorAmax& a = amaxes_[job->tensor];
            if (job->oneScale && a.amax >= kInfinityBits) {
                job->plan.reset();
                apart_.push_back(job.get());
                runner_->addToTotal(pass_.tensors[job->tensor].size());
                continue;
            }
            job->tensorScale = quantizer::tensorScaleFor(pass_.formats[job->format], a.finiteAmax,
                                                         job->plan->params);
        }
    }

    void prepareKept() {
        // Kept codes are written in place.
        for (const std::unique_ptr<Job>& job : jobs_) {
            if (!job->plan || !pass_.keepQuantized)
                continue;
            const TensorView& input = pass_.tensors[job->tensor];
            QuantizedTensor& q = result_.quantized[job->tensor][job->format];
            q.format = pass_.formats[job->format];
            q.shape = input.shape;
            q.elementCount = input.size();
            q.blockSize = job->blockSize;
            const std::size_t bytes = job->plan->cast ? job->plan->cast->bytesPerCode() : 1;
            q.codes.resize(q.elementCount * bytes);
            if (job->oneScale)
                q.scaleCodes.assign(1, std::bit_cast<std::uint32_t>(job->tensorScale));
            else if (!job->plan->cast)
                q.scaleCodes.resize((q.elementCount + job->blockSize - 1) / job->blockSize);
            if (q.format.scheme == BlockScheme::Nvfp4)
                q.tensorScale = job->tensorScale;
        }
    }

    bool quantizeChunks() {
        // The work: every chunk of every tensor, for the fused jobs_ of that tensor and chunk size.
        std::vector<WorkItem> items;
        for (std::size_t t = 0; t < pass_.tensors.size(); ++t) {
            std::map<std::size_t, std::vector<Job*>> byChunk;
            for (const std::unique_ptr<Job>& job : jobs_)
                if (job->tensor == t && job->plan)
                    byChunk[job->chunk].push_back(job.get());
            const std::size_t n = pass_.tensors[t].size();
            for (auto& [chunk, group] : byChunk)
                for (std::size_t c = 0; c * chunk < n; ++c)
                    items.push_back(WorkItem{t, chunk, c, group, std::min(chunk, n - c * chunk)});
        }
        std::vector<Scratch> scratches(static_cast<std::size_t>(runner_->threads()));
        const bool finished = runner_->run(items.size(), [&](std::size_t i, int thread) {
            const WorkItem& item = items[i];
            const TensorView& input = pass_.tensors[item.tensor];
            const std::size_t n = input.size();
            Scratch& scratch = scratches[static_cast<std::size_t>(thread)];
            const std::size_t begin = item.index * item.chunk;
            const std::size_t end = std::min(n, begin + item.chunk);
            for (Job* job : item.jobs) {
                const BlockFormat& format = pass_.formats[job->format];
                ErrorSums& sums = job->chunkSums[item.index];
                Tally& tally = job->chunkTallies[item.index];
                const std::size_t bytes = job->plan->cast ? job->plan->cast->bytesPerCode() : 1;
                for (std::size_t first = begin; first < end; first += job->piece) {
                    const std::size_t count = std::min(job->piece, end - first);
                    std::uint8_t* codes = nullptr;
                    std::uint32_t* scales = nullptr;
                    StoredCodes stored;
                    stored.blockSize = job->blockSize;
                    stored.elementCount = n;
                    if (format.scheme == BlockScheme::Nvfp4)
                        stored.tensorScale = job->tensorScale;
                    if (pass_.keepQuantized) {
                        QuantizedTensor& q = result_.quantized[job->tensor][job->format];
                        codes = q.codes.data() + first * bytes;
                        scales = q.scaleCodes.empty() || job->oneScale
                                     ? nullptr
                                     : q.scaleCodes.data() + first / job->blockSize;
                    } else {
                        scratch.codes.resize(job->piece * bytes);
                        scratch.scales.resize(job->piece / job->blockSize + 1);
                        codes = scratch.codes.data();
                        scales = scratch.scales.data();
                    }
                    const bool finite =
                        quantizePiece(*job, format, input, first, count, codes, scales, tally);
                    const std::uint32_t oneScaleBits =
                        std::bit_cast<std::uint32_t>(job->tensorScale);
                    stored.codes = codes;
                    stored.firstElement = first;
                    stored.scaleCodes = job->oneScale ? &oneScaleBits : scales;
                    sums.append(job->dequantizer->pieceSums(stored, input.floats.data(), first,
                                                            count, scratch.values, finite));
                }
            }
            return end - begin;
        });
        return finished;
    }

    void finishFused() {
        // The fused jobs_' reports: the counts summed, the sums met in their order.
        for (const std::unique_ptr<Job>& job : jobs_) {
            if (!job->plan)
                continue;
            const TensorView& input = pass_.tensors[job->tensor];
            Tally tally;
            for (const Tally& t : job->chunkTallies)
                tally.add(t);
            QuantizedTensor shell;
            QuantizedTensor& q =
                pass_.keepQuantized ? result_.quantized[job->tensor][job->format] : shell;
            q.format = pass_.formats[job->format];
            q.shape = input.shape;
            q.elementCount = input.size();
            q.blockSize = job->blockSize;
            q.clipped = tally.clipped;
            q.flushed = tally.flushed;
            q.nanInputs = tally.nanInputs;
            q.infInputs = tally.infInputs;
            if (q.format.scheme == BlockScheme::Nvfp4)
                q.tensorScale = job->tensorScale;
            QuantizationReport& report = result_.reports[job->tensor][job->format];
            report = quantizationReportHead(input, q);
            finishReport(chunkSumsInOrder(job->chunkSums.data(), job->chunkSums.size()), 0, report);
        }
    }

    bool runApart() {
        // The jobs_ apart_, one after another, each on every thread.
        for (const Job* job : apart_) {
            const TensorView& input = pass_.tensors[job->tensor];
            const BlockFormat& format = pass_.formats[job->format];
            QuantizeRun apartRun;
            apartRun.threads = run_.threads;
            const std::size_t before = runner_->done();
            bool cancelled = false;
            if (run_.progress)
                apartRun.progress = [&](std::size_t done, std::size_t) {
                    cancelled = cancelled || !run_.progress(before + done, runner_->total());
                    return !cancelled;
                };
            std::string why;
            std::optional<QuantizedTensor> q = quantizeTensor(format, input, why, apartRun);
            runner_->advance(input.size());
            if (cancelled)
                return false;
            if (!q) {
                result_.errors[job->tensor][job->format] = why;
                continue;
            }
            result_.reports[job->tensor][job->format] =
                measureQuantization(input, *q, run_.threads);
            if (pass_.keepQuantized)
                result_.quantized[job->tensor][job->format] = std::move(*q);
        }
        return true;
    }

    const QuantizationPass& pass_;
    const QuantizeRun& run_;
    QuantizationPassResult result_;
    std::vector<std::unique_ptr<Job>> jobs_;
    std::vector<Job*> apart_;
    std::vector<bool> needsAmax_;
    std::vector<TensorAmax> amaxes_;
    std::unique_ptr<ItemRunner> runner_;
};

} // namespace

std::optional<QuantizationPassResult>
runQuantizationPass(const QuantizationPass& pass, std::string& error, const QuantizeRun& run) {
    std::optional<QuantizationPassResult> result = PassRun(pass, run).run();
    if (!result)
        error = "cancelled";
    return result;
}

QuantizationTotal quantizationTotal(const std::vector<const QuantizationReport*>& reports) {
    QuantizationTotal total;
    double weighted = 0;
    std::size_t weights = 0;
    for (const QuantizationReport* r : reports) {
        if (total.format.empty())
            total.format = r->format;
        ++total.tensors;
        total.elements += r->elements;
        total.bytes += r->bytes;
        total.maxAbsError = std::max(total.maxAbsError, r->maxAbsError);
        total.clipped += r->clipped;
        total.flushed += r->flushed;
        total.nanInputs += r->nanInputs;
        total.infInputs += r->infInputs;
        total.nonFiniteOutputs += r->nonFiniteOutputs;
        if (std::isinf(r->sqnrDb) && r->sqnrDb > 0)
            ++total.exactTensors;
        else if (std::isfinite(r->sqnrDb)) {
            weighted += double(r->elements) * r->sqnrDb;
            weights += r->elements;
        }
    }
    total.bitsPerElement = total.elements ? 8.0 * double(total.bytes) / double(total.elements) : 0;
    total.sqnrDb = weights              ? weighted / double(weights)
                   : total.exactTensors ? std::numeric_limits<double>::infinity()
                                        : std::numeric_limits<double>::quiet_NaN();
    return total;
}

} // namespace fpx
