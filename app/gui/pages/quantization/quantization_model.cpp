// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_model.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/parallel_chunks.h"
#include "fpx/exact/wide_rounding.h"
#include "fpx/quantization/quantization_pass.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace fpx::gui {

namespace {

// The page's block size and scale rule apply to every format they fit: a direct cast has no
// blocks and only MX blocks have a scale rule, so those formats keep their own.
std::optional<BlockFormat> resolveFormat(const std::string& id, const QuantizerOptions& wanted,
                                         std::string& error) {
    const std::optional<BlockFormat> plain = findBlockFormat(id, {}, error);
    if (!plain)
        return std::nullopt;
    QuantizerOptions options;
    if (plain->scheme != BlockScheme::Direct)
        options.blocks = wanted.blocks;
    if (plain->scheme == BlockScheme::Mx)
        options.scaleRule = wanted.scaleRule;
    return findBlockFormat(id, options, error);
}

// Thrown out of a dequantizer's sink to stop at once when the run is cancelled.
struct Stopped {};

// The run's stages, each counted in elements read, and the one callback that reports them.
// A stage's count is an estimate until the stage starts and says its own.
class RunProgress {
  public:
    RunProgress(const QuantizationProgress& progress, std::vector<std::size_t> estimates)
        : progress_(progress), totals_(std::move(estimates)) {}

    // Whether to go on; `total` 0 keeps the estimate. Safe from several threads.
    bool report(QuantizationStage stage, std::size_t done, std::size_t total) {
        const std::lock_guard lock(mutex_);
        if (stopped_)
            return false;
        if (!progress_)
            return true;
        const auto s = std::size_t(stage) - 1; // Reading counts nothing
        if (total > 0)
            totals_[s] = total;
        std::size_t before = 0, all = 0;
        for (std::size_t i = 0; i < totals_.size(); ++i) {
            before += i < s ? totals_[i] : 0;
            all += totals_[i];
        }
        stopped_ = !progress_(stage, before + std::min(done, totals_[s]), all);
        return !stopped_;
    }
    bool stopped() const {
        const std::lock_guard lock(mutex_);
        return stopped_;
    }

  private:
    const QuantizationProgress& progress_;
    std::vector<std::size_t> totals_; // Quantizing, Errors, Sweeping
    mutable std::mutex mutex_;
    bool stopped_ = false;
};

// The elements a quantization pass over `view` in `formats` reads, as runQuantizationPass
// counts them: the tensor once, twice when a format needs its amax first, and once more for
// each format the fused loops leave to quantizeTensor (those without a fast path).
std::size_t passEstimate(const std::vector<BlockFormat>& formats, const TensorView& view) {
    const std::size_t n = view.size();
    std::size_t reads = 1;
    bool amaxFirst = false;
    for (const BlockFormat& format : formats) {
        amaxFirst = amaxFirst || quantizerPasses(format, view) > 1;
        reads += quantizerPath(format, view).fast ? 0 : 1;
    }
    return n * (reads + (amaxFirst ? 1 : 0));
}

// The elements one thread takes at a time from a dequantized piece: placing a value in a bin
// costs more than dequantizing it, so the pieces are dequantized on one thread and binned on
// all.
constexpr std::size_t kBinChunk = std::size_t(1) << 16;

// Counts values into a copy of `shape`'s bins exactly as Histogram::add does (the i with
// binLow(i) <= position < binLow(i + 1), `high` in the last bin; below, above, zeros, NaN and
// ±∞ apart), with the edges read once from binLow and each position taken once: add() takes
// a log2 and reckons edges twice per value, which over tens of millions of values is most of
// a run.
class BinCounter {
  public:
    explicit BinCounter(const Histogram& shape) : counts_(shape) {
        std::fill(counts_.counts.begin(), counts_.counts.end(), 0);
        counts_.below = counts_.above = counts_.zeros = counts_.nans = counts_.infs = 0;
        for (std::size_t i = 0; i <= shape.binCount(); ++i)
            edges_.push_back(shape.binLow(i));
        log2_ = shape.axis == HistogramAxis::Log2Magnitude;
    }
    void add(double x) {
        if (std::isnan(x)) {
            ++counts_.nans;
            return;
        }
        if (std::isinf(x)) {
            ++counts_.infs;
            return;
        }
        if (log2_ && x == 0) {
            ++counts_.zeros;
            return;
        }
        const double p = log2_ ? std::log2(std::fabs(x)) : x;
        if (p < counts_.low) {
            ++counts_.below;
        } else if (p > counts_.high) {
            ++counts_.above;
        } else {
            // The first edge above p closes p's bin; p == high is in the last bin.
            const auto above = std::upper_bound(edges_.begin() + 1, edges_.end() - 1, p);
            ++counts_.counts[std::size_t(above - edges_.begin()) - 1];
        }
    }
    const Histogram& counts() const { return counts_; }

  private:
    Histogram counts_;
    std::vector<double> edges_;
    bool log2_ = false;
};

// `options` with both ends of the range set, the histogram of `view` counted on every hardware
// thread.
Histogram histogramOnThreads(const TensorView& view, const HistogramOptions& options) {
    Histogram all = makeHistogram(std::span<const double>(), options);
    std::mutex mutex;
    parallelChunks(view.size(), kBinChunk, 0, [&](std::size_t begin, std::size_t end) {
        BinCounter part(all);
        if (view.isDouble())
            for (std::size_t i = begin; i < end; ++i)
                part.add(view.doubles[i]);
        else
            for (std::size_t i = begin; i < end; ++i)
                part.add(double(view.floats[i]));
        const std::lock_guard lock(mutex);
        all.merge(part.counts());
    });
    return all;
}

// The |x − q| histogram of one format on a log2 axis, from two reads of its dequantized values
// (dequantizeInChunks, the vector loops): the errors' range, then the counts, so that a large
// tensor never needs a copy of its errors. `advance(elements)` reports each piece and says
// whether to go on.
template <typename Advance>
void fillErrorHistogram(const TensorView& view, FormatOutcome& outcome, int bins,
                        const Advance& advance) {
    const QuantizedTensor& q = *outcome.quantized;
    const std::size_t piece = chunkThreads(view.size(), kBinChunk) * kBinChunk;
    // use(begin, end, error) over the elements [first + begin, first + end) of each piece, on
    // every hardware thread. |x − q| in double is for drawing only: the report's sums are the
    // exact figures. A NaN or ±∞ input or output is no error to draw: NaN, which the
    // histogram counts apart.
    const auto forEachPiece = [&](const auto& use) {
        dequantizeInChunks(q, piece, [&](std::size_t first, const std::vector<double>& values) {
            parallelChunks(values.size(), kBinChunk, 0, [&](std::size_t begin, std::size_t end) {
                const auto errorAt = [&](std::size_t i) {
                    const double x = view.at(first + i);
                    return std::isfinite(x) && std::isfinite(values[i])
                               ? std::abs(x - values[i])
                               : std::numeric_limits<double>::quiet_NaN();
                };
                use(begin, end, errorAt);
            });
            if (!advance(values.size()))
                throw Stopped{};
        });
    };
    double smallest = std::numeric_limits<double>::infinity();
    double largest = 0;
    std::mutex mutex;
    forEachPiece([&](std::size_t begin, std::size_t end, const auto& errorAt) {
        double low = std::numeric_limits<double>::infinity(), high = 0;
        for (std::size_t i = begin; i < end; ++i)
            if (const double e = errorAt(i); e > 0) {
                low = std::min(low, e);
                high = std::max(high, e);
            }
        const std::lock_guard lock(mutex);
        smallest = std::min(smallest, low);
        largest = std::max(largest, high);
    });
    HistogramOptions options;
    options.bins = std::size_t(std::max(1, bins));
    options.axis = HistogramAxis::Log2Magnitude;
    if (largest > 0) {
        // Forty binades below the largest error are plenty to see a format's shape; smaller
        // errors (flushed subnormals) are counted below the range.
        options.high = std::log2(largest);
        options.low = std::max(std::log2(smallest), *options.high - 40);
    } else {
        options.low = options.high = 0;
    }
    // The range is fixed above, so the errors can be counted a piece at a time.
    outcome.errors = makeHistogram(std::span<const double>(), options);
    forEachPiece([&](std::size_t begin, std::size_t end, const auto& errorAt) {
        BinCounter part(outcome.errors);
        for (std::size_t i = begin; i < end; ++i)
            part.add(errorAt(i));
        const std::lock_guard lock(mutex);
        outcome.errors.merge(part.counts());
    });
}

} // namespace

std::size_t largestCount(const Histogram& histogram) {
    const auto& c = histogram.counts;
    return c.empty() ? 0 : *std::max_element(c.begin(), c.end());
}

QuantizationResult runQuantization(const QuantizationRequest& request,
                                   const QuantizationProgress& progress) {
    QuantizationResult result;
    result.request = request;
    if (progress && !progress(QuantizationStage::Reading, 0, 0)) {
        result.cancelled = true;
        return result;
    }
    std::shared_ptr<TensorInput> input = loadTensorInput(request.source, result.error);
    if (!input)
        return result;
    result.input = input;
    const TensorView& view = input->view;
    const std::size_t n = view.size();

    HistogramOptions valueOptions;
    valueOptions.bins = std::size_t(std::max(1, request.valueBins));
    const double central = 6 * input->std;
    if (input->std > 0 && 2 * central < (input->max - input->min) / 2) {
        valueOptions.low = std::max(input->min, input->mean - central);
        valueOptions.high = std::min(input->max, input->mean + central);
    }
    // The range the histogram would take from the finite values, given, so that the threads'
    // counts share it.
    valueOptions.low = valueOptions.low.value_or(input->min);
    valueOptions.high = valueOptions.high.value_or(input->max);
    result.values = histogramOnThreads(view, valueOptions);

    // Every format first, so that the progress bar knows the whole amount of work: the formats
    // the page asked for, then each scaled one at each sweep size.
    std::vector<BlockFormat> formats;
    std::vector<std::size_t> formatRow; // formats[i] is outcome formatRow[i]'s
    for (const std::string& id : request.formats) {
        FormatOutcome outcome;
        outcome.id = id;
        outcome.format = resolveFormat(id, request.options, outcome.error);
        if (outcome.format) {
            formats.push_back(*outcome.format);
            formatRow.push_back(result.outcomes.size());
        }
        result.outcomes.push_back(std::move(outcome));
    }
    std::vector<BlockFormat> sweepFormats;
    std::vector<std::size_t> sweepRow; // the outcome each sweep curve belongs to
    for (std::size_t i = 0; i < formats.size(); ++i) {
        if (formats[i].scheme == BlockScheme::Direct)
            continue;
        sweepRow.push_back(formatRow[i]);
        for (const std::size_t size : request.sweepSizes) {
            BlockFormat sized = formats[i];
            sized.blocks = BlockLayout{BlockLayout::Kind::Elements, size};
            sweepFormats.push_back(std::move(sized));
        }
    }
    RunProgress work(progress, {passEstimate(formats, view), 2 * n * formats.size(),
                                sweepFormats.empty() ? 0 : passEstimate(sweepFormats, view)});
    const auto cancelled = [&result] {
        QuantizationResult stopped;
        stopped.request = std::move(result.request);
        stopped.cancelled = true;
        return stopped;
    };

    // Every format in one read of the tensor, the codes kept for the plots and the inspector.
    if (!formats.empty()) {
        QuantizationPass pass;
        pass.tensors = {view};
        pass.formats = formats;
        pass.keepQuantized = true;
        QuantizeRun run;
        run.progress = [&work](std::size_t done, std::size_t total) {
            return work.report(QuantizationStage::Quantizing, done, total);
        };
        std::string error;
        std::optional<QuantizationPassResult> done = runQuantizationPass(pass, error, run);
        if (work.stopped())
            return cancelled();
        if (!done) {
            for (const std::size_t row : formatRow)
                result.outcomes[row].error = error;
        } else {
            for (std::size_t i = 0; i < formats.size(); ++i) {
                FormatOutcome& outcome = result.outcomes[formatRow[i]];
                if (!done->errors[0][i].empty()) {
                    outcome.error = done->errors[0][i];
                    continue;
                }
                outcome.path = quantizerPath(formats[i], view).name;
                outcome.report = done->reports[0][i];
                outcome.quantized =
                    std::make_shared<const QuantizedTensor>(std::move(done->quantized[0][i]));
                outcome.largestScaleBlock = blockWithLargestScale(*outcome.quantized);
                outcome.elementValues = elementGrid(formats[i]);
            }
        }
    }

    // The error histograms, one format after another, each on every hardware thread.
    std::size_t quantized = 0;
    for (const FormatOutcome& outcome : result.outcomes)
        quantized += outcome.quantized ? 1 : 0;
    std::size_t read = 0;
    const auto advance = [&](std::size_t elements) {
        read += elements;
        return work.report(QuantizationStage::Errors, read, 2 * n * quantized);
    };
    try {
        for (FormatOutcome& outcome : result.outcomes)
            if (outcome.quantized)
                fillErrorHistogram(view, outcome, request.errorBins, advance);
    } catch (const Stopped&) {
        return cancelled();
    }

    // SQNR against block size: every scaled format at every size in one more read, no codes
    // kept.
    if (!sweepFormats.empty()) {
        QuantizationPass pass;
        pass.tensors = {view};
        pass.formats = sweepFormats;
        QuantizeRun run;
        run.progress = [&work](std::size_t done, std::size_t total) {
            return work.report(QuantizationStage::Sweeping, done, total);
        };
        std::string error;
        const std::optional<QuantizationPassResult> done = runQuantizationPass(pass, error, run);
        if (work.stopped())
            return cancelled();
        const std::size_t sizes = request.sweepSizes.size();
        for (std::size_t c = 0; c < sweepRow.size(); ++c) {
            SweepCurve curve;
            curve.format = result.outcomes[sweepRow[c]].id;
            for (std::size_t s = 0; s < sizes; ++s) {
                const std::size_t k = c * sizes + s;
                if (!done || !done->errors[0][k].empty()) {
                    curve.note = done ? done->errors[0][k] : error;
                    continue;
                }
                curve.blockSizes.push_back(request.sweepSizes[s]);
                curve.sqnrDb.push_back(done->reports[0][k].sqnrDb);
            }
            result.sweep.push_back(std::move(curve));
        }
    }
    return result;
}

std::size_t inspectorBlockSize(const QuantizedTensor& quantized) {
    if (quantized.format.scheme == BlockScheme::Direct || quantized.blockSize == 0)
        return 32;
    return quantized.blockSize;
}

std::size_t inspectorBlockCount(const QuantizedTensor& quantized) {
    const std::size_t size = inspectorBlockSize(quantized);
    return std::max<std::size_t>(1, (quantized.elementCount + size - 1) / size);
}

std::vector<InspectedElement> inspectBlock(const TensorInput& input,
                                           const QuantizedTensor& quantized, std::size_t block,
                                           std::size_t limit) {
    std::vector<InspectedElement> rows;
    const std::size_t size = inspectorBlockSize(quantized);
    const std::size_t first = block * size;
    const std::size_t end = std::min({first + size, quantized.elementCount, first + limit});
    for (std::size_t i = first; i < end; ++i) {
        InspectedElement row;
        row.index = i;
        row.input = input.view.at(i);
        row.code = quantized.code(i);
        row.value = quantized.dequantized(i);
        row.error = row.input - row.value;
        rows.push_back(row);
    }
    return rows;
}

std::size_t blockWithLargestScale(const QuantizedTensor& quantized) {
    if (quantized.format.scheme == BlockScheme::Direct)
        return 0;
    // An MX or NVFP4 block's scale is its code's value (times the tensor scale): a narrow code
    // is decoded once, not once per block.
    const bool coded = (quantized.format.scheme == BlockScheme::Mx ||
                        quantized.format.scheme == BlockScheme::Nvfp4) &&
                       quantized.format.scale && quantized.format.scale->totalBits() <= 16;
    std::vector<double> byCode(coded ? std::size_t(1) << quantized.format.scale->totalBits() : 0,
                               -2); // −2: not decoded yet
    std::size_t best = 0;
    double largest = -1;
    for (std::size_t b = 0; b < quantized.blockCount(); ++b) {
        double s = 0;
        if (coded && b < quantized.scaleCodes.size() && quantized.scaleCodes[b] < byCode.size()) {
            double& known = byCode[quantized.scaleCodes[b]];
            if (known == -2)
                known = std::abs(quantized.blockScale(b));
            s = known;
        } else {
            s = std::abs(quantized.blockScale(b));
        }
        if (s > largest) {
            largest = s;
            best = b;
        }
    }
    return best;
}

std::size_t blockNearestValue(const TensorInput& input, const QuantizedTensor& quantized,
                              double x) {
    const TensorView& view = input.view;
    struct Nearest {
        double distance = std::numeric_limits<double>::infinity();
        std::size_t index = 0;
    };
    // A NaN distance is never smaller: NaN elements are never the nearest.
    const auto search = [x](const auto* values, std::size_t begin, std::size_t end) {
        Nearest found{std::numeric_limits<double>::infinity(), begin};
        for (std::size_t i = begin; i < end; ++i)
            if (const double d = std::abs(double(values[i]) - x); d < found.distance)
                found = {d, i};
        return found;
    };
    Nearest nearest;
    std::mutex mutex;
    parallelChunks(view.size(), std::size_t(1) << 18, 0, [&](std::size_t begin, std::size_t end) {
        const Nearest found = view.isDouble() ? search(view.doubles.data(), begin, end)
                                              : search(view.floats.data(), begin, end);
        const std::lock_guard lock(mutex);
        // The first of equally near elements, whichever thread finishes first.
        if (found.distance < nearest.distance ||
            (found.distance == nearest.distance && found.index < nearest.index))
            nearest = found;
    });
    return nearest.index / inspectorBlockSize(quantized);
}

std::vector<double> elementGrid(const BlockFormat& format) {
    const FormatSpec& spec = format.element;
    if (spec.totalBits() > 16)
        return {};
    std::vector<double> grid;
    const Code codes = Code(1) << spec.totalBits();
    for (Code c = 0; c < codes; ++c) {
        const ExactValue v = decodeCode(spec, c).value;
        if (v.isFinite()) {
            const double x = doubleFromExact(v);
            grid.push_back(x == 0 ? 0.0 : x); // −0 and +0 are one value
        }
    }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    return grid;
}

std::vector<double> scaledGrid(const std::vector<double>& elementValues, double scale, double low,
                               double high, std::size_t maxLines) {
    if (!std::isfinite(scale))
        return {};
    std::vector<double> grid;
    for (const double v : elementValues) {
        const double x = v * scale;
        if (x >= low && x <= high)
            grid.push_back(x == 0 ? 0.0 : x); // −0 and +0 are one line
    }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    if (grid.size() > maxLines)
        return {};
    return grid;
}

} // namespace fpx::gui
