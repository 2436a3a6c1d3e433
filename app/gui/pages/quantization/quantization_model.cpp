// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_model.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/wide_rounding.h"
#include "fpx/quantization/block_size_sweep.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

void fillErrorHistogram(const TensorInput& input, FormatOutcome& outcome, int bins) {
    const QuantizedTensor& q = *outcome.quantized;
    const std::size_t n = input.view.size();
    // |x − q| in double is for drawing only: the report's sums are the exact figures.
    auto errorAt = [&](std::size_t i) {
        const double x = input.view.at(i);
        const double v = q.dequantized(i);
        return std::isfinite(x) && std::isfinite(v) ? std::abs(x - v)
                                                    : std::numeric_limits<double>::quiet_NaN();
    };
    double smallest = std::numeric_limits<double>::infinity();
    double largest = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (const double e = errorAt(i); e > 0) {
            smallest = std::min(smallest, e);
            largest = std::max(largest, e);
        }
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
    // The range is fixed above, so the errors can be counted one at a time: a large tensor
    // never needs a second copy of itself.
    outcome.errors = makeHistogram(std::span<const double>(), options);
    for (std::size_t i = 0; i < n; ++i)
        outcome.errors.add(errorAt(i));
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
    result.values = makeHistogram(view, valueOptions);

    // Every format first, so that the progress bar knows the whole amount of work.
    std::vector<std::optional<BlockFormat>> formats;
    std::size_t passes = 0;
    for (const std::string& id : request.formats) {
        FormatOutcome outcome;
        outcome.id = id;
        formats.push_back(resolveFormat(id, request.options, outcome.error));
        if (formats.back()) {
            passes += 1;
            if (formats.back()->scheme != BlockScheme::Direct)
                passes += request.sweepSizes.size();
        }
        result.outcomes.push_back(std::move(outcome));
    }
    const std::size_t total = std::max<std::size_t>(1, passes * n);
    std::size_t base = 0;
    bool stopped = false;
    QuantizeRun run;
    run.progress = [&](std::size_t done, std::size_t) {
        if (progress && !progress(base + done, total))
            stopped = true;
        return !stopped;
    };

    for (std::size_t f = 0; f < formats.size() && !stopped; ++f) {
        if (!formats[f])
            continue;
        FormatOutcome& outcome = result.outcomes[f];
        outcome.format = formats[f];
        outcome.path = quantizerPath(*outcome.format, view).name;
        std::optional<QuantizedTensor> q =
            quantizeTensor(*outcome.format, view, outcome.error, run);
        base += n;
        if (stopped)
            break;
        if (!q)
            continue;
        outcome.quantized = std::make_shared<const QuantizedTensor>(std::move(*q));
        outcome.report = measureQuantization(view, *outcome.quantized);
        fillErrorHistogram(*input, outcome, request.errorBins);
    }

    for (std::size_t f = 0; f < formats.size() && !stopped; ++f) {
        if (!formats[f] || formats[f]->scheme == BlockScheme::Direct)
            continue;
        SweepCurve curve;
        curve.format = request.formats[f];
        const std::vector<BlockSizePoint> points =
            sweepBlockSizes(*formats[f], view, request.sweepSizes, curve.note, run);
        base += n * request.sweepSizes.size();
        for (const BlockSizePoint& point : points) {
            curve.blockSizes.push_back(point.blockSize);
            curve.sqnrDb.push_back(point.report.sqnrDb);
        }
        if (!stopped)
            result.sweep.push_back(std::move(curve));
    }
    result.cancelled = stopped;
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
    std::size_t best = 0;
    double largest = -1;
    for (std::size_t b = 0; b < quantized.blockCount(); ++b) {
        const double s = std::abs(quantized.blockScale(b));
        if (s > largest) {
            largest = s;
            best = b;
        }
    }
    return best;
}

std::size_t blockNearestValue(const TensorInput& input, const QuantizedTensor& quantized,
                              double x) {
    std::size_t nearest = 0;
    double distance = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < input.view.size(); ++i) {
        const double d = std::abs(input.view.at(i) - x);
        if (d < distance) {
            distance = d;
            nearest = i;
        }
    }
    return nearest / inspectorBlockSize(quantized);
}

std::vector<double> representableGrid(const BlockFormat& format, double scale, double low,
                                      double high, std::size_t maxLines) {
    const FormatSpec& spec = format.element;
    if (spec.totalBits() > 16 || !std::isfinite(scale))
        return {};
    std::vector<double> grid;
    const Code codes = Code(1) << spec.totalBits();
    for (Code c = 0; c < codes; ++c) {
        const ExactValue v = decodeCode(spec, c).value;
        if (!v.isFinite())
            continue;
        const double x = doubleFromExact(v) * scale;
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
