// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/training_runs.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/training/step_series.h"
#include "fpx/training/update_rule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace fpx::gui {

namespace {

std::optional<FormatSpec> lookUp(const std::string& id, std::string& error) {
    FormatLookup found = findFormat(id);
    if (!found)
        error = found.error;
    return found.spec;
}

std::string counted(std::size_t n, const char* what) {
    std::string digits = std::to_string(n);
    for (int i = int(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(std::size_t(i), " ");
    return digits + " " + what;
}

// A CSV number: shortest text that reads back as the same double.
std::string number(double x) {
    std::ostringstream out;
    out.precision(17);
    out << x;
    return out.str();
}

std::string optionalNumber(const std::optional<double>& x) {
    return x ? number(*x) : std::string();
}

// The amaxes (or drifts) of a run: a step series spec or a trace file.
std::optional<std::vector<double>> seriesValues(const std::string& spec, const std::string& file,
                                                std::size_t steps, std::uint64_t seed,
                                                std::string& error) {
    if (!file.empty())
        return readStepTrace(file, error);
    const std::optional<StepSeriesSpec> series = parseStepSeries(spec, error);
    if (!series)
        return std::nullopt;
    if (steps == 0) {
        error = "the number of steps must be at least 1";
        return std::nullopt;
    }
    return stepSeriesValues(*series, steps, seed);
}

} // namespace

double log2Magnitude(const ExactValue& v) {
    // |v| = m × 2^e with m in [1, 2): the double m is v's leading bits, rounded once.
    const std::int64_t e = v.floorLog2();
    return double(e) + std::log2(std::abs(doubleFromExact(v.abs().timesPowerOfTwo(-e))));
}

RangeResult runRangeFit(const RangeRequest& request, const std::atomic<bool>& stop) {
    RangeResult result;
    result.scaleExponent = request.scaleExponent;
    result.input = request.input;
    if (!result.input) {
        result.input = loadTensorInput(request.source, result.error);
        if (!result.input)
            return result;
    }
    HistogramOptions options;
    options.bins = std::max<std::size_t>(1, request.bins);
    options.axis = HistogramAxis::Log2Magnitude;
    result.magnitudes = makeHistogram(result.input->view, options);

    RangeFitOptions fitOptions;
    fitOptions.scale = ExactValue::integer(1).timesPowerOfTwo(request.scaleExponent);
    fitOptions.rounding = request.rounding;
    for (const std::string& id : request.formats) {
        if (stop.load()) {
            result.cancelled = true;
            return result;
        }
        RangeFormatFit fit;
        fit.id = id;
        fit.spec = lookUp(id, fit.error);
        if (fit.spec) {
            fit.edges = rangeZoneEdges(*fit.spec, request.rounding);
            if (fit.edges.flushEdge && !fit.edges.flushEdge->isZero())
                fit.flushLog2 = log2Magnitude(*fit.edges.flushEdge);
            if (fit.edges.normalEdge && !fit.edges.normalEdge->isZero())
                fit.normalLog2 = log2Magnitude(*fit.edges.normalEdge);
            if (fit.edges.overflowEdge && fit.edges.overflowEdge->isFinite())
                fit.overflowLog2 = log2Magnitude(*fit.edges.overflowEdge);
            fit.fit = fitRange(result.input->view, *fit.spec, fitOptions);
        }
        result.fits.push_back(std::move(fit));
    }
    return result;
}

LossScaleResult runLossScale(const LossScaleRequest& request, const std::atomic<bool>& stop) {
    LossScaleResult result;
    const std::optional<FormatSpec> format = lookUp(request.format, result.error);
    if (!format)
        return result;
    const std::optional<std::vector<double>> amaxes = seriesValues(
        request.amaxSeries, request.traceFile, request.steps, request.seed, result.error);
    if (!amaxes)
        return result;
    if (amaxes->empty()) {
        result.error = request.traceFile + ": the trace has no steps";
        return result;
    }
    std::optional<StepGradients> gradients;
    if (!request.gradients.empty()) {
        std::optional<ValueDistribution> distribution =
            parseValueDistribution(request.gradients, result.error);
        if (!distribution)
            return result;
        if (request.gradientCount == 0 || request.gradientCount > kMaxGradientsPerStep ||
            request.gradientCount > kMaxSimulatedGradients / amaxes->size()) {
            result.error = "gradients per step: from 1 to " + std::to_string(kMaxGradientsPerStep) +
                           ", and at most " + std::to_string(kMaxSimulatedGradients) +
                           " over all steps";
            return result;
        }
        gradients = StepGradients{*distribution, request.gradientCount, request.seed};
    }
    if (stop.load()) {
        result.cancelled = true;
        return result;
    }
    result.run = simulateLossScaling(*amaxes, *format, request.options, gradients);
    result.description = (request.traceFile.empty() ? request.amaxSeries : request.traceFile) +
                         ", " + counted(amaxes->size(), "steps") + " in " + format->id +
                         (gradients ? ", " + counted(request.gradientCount, "gradients") +
                                          " a step from " + request.gradients
                                    : std::string());
    return result;
}

Fp8Result runFp8Recipes(const Fp8Request& request, const std::atomic<bool>& stop) {
    Fp8Result result;
    const std::optional<FormatSpec> format = lookUp(request.format, result.error);
    if (!format)
        return result;
    if (const auto why = fp8ScalingUnsupported(*format)) {
        result.error = *why;
        return result;
    }
    std::optional<ValueDistribution> distribution =
        parseValueDistribution(request.distribution, result.error);
    if (!distribution)
        return result;
    const std::optional<std::vector<double>> drift =
        seriesValues(request.drift, {}, request.steps, request.seed, result.error);
    if (!drift)
        return result;
    if (request.count == 0) {
        result.error = "values per step: at least 1";
        return result;
    }
    if (request.count > kMaxFp8ScalingValues / std::max<std::size_t>(drift->size(), 1)) {
        result.error = "steps × values per step: at most " + std::to_string(kMaxFp8ScalingValues);
        return result;
    }
    std::vector<Fp8Recipe> recipes;
    for (const std::string& text : request.recipes) {
        std::optional<Fp8Recipe> recipe = parseFp8Recipe(text, result.error);
        if (!recipe) {
            result.error = text + ": " + result.error;
            return result;
        }
        recipe->margin += request.margin;
        recipes.push_back(std::move(*recipe));
    }
    if (recipes.empty()) {
        result.error = "choose at least one recipe";
        return result;
    }
    // Step t's tensor as `fpx fp8-scaling --dist` draws it, so that the same settings give the
    // same numbers.
    std::vector<std::vector<float>> values(drift->size());
    std::vector<TensorView> tensors(drift->size());
    for (std::size_t t = 0; t < drift->size(); ++t) {
        if (stop.load()) {
            result.cancelled = true;
            return result;
        }
        values[t] = driftedStepValues(*distribution, request.count, request.seed, t, (*drift)[t]);
        float amax = 0;
        for (const float v : values[t])
            amax = std::max(amax, std::abs(v));
        result.amax.push_back(amax);
        tensors[t].name = "step " + std::to_string(t);
        tensors[t].shape = {values[t].size()};
        tensors[t].floats = std::span<const float>(values[t]);
    }
    for (const Fp8Recipe& recipe : recipes) {
        if (stop.load()) {
            result.cancelled = true;
            return result;
        }
        result.runs.push_back(simulateFp8Scaling(tensors, *format, recipe));
    }
    result.description = request.distribution + " × " + request.drift + ", " +
                         counted(request.count, "values") + " a step, " +
                         counted(drift->size(), "steps") + " in " + format->id;
    return result;
}

SgdResult runSgd(const SgdRequest& request, const std::atomic<bool>& stop) {
    SgdResult result;
    SgdOptions options;
    const ParsedValue weight = parseValue(request.weight);
    if (!weight || !weight.value->isFinite()) {
        result.error = "weight: " + (weight ? std::string("must be finite") : weight.error.message);
        return result;
    }
    // The learning rate as `fpx sgd` takes it by default: the double nearest the text, as
    // PyTorch's Python-float lr is.
    const ParsedValue rate = parseValue(request.learningRate);
    const std::optional<ExactValue> learningRate =
        rate && rate.value->isFinite() ? learningRateAsDouble(*rate.value) : std::nullopt;
    if (!learningRate) {
        result.error = "learning rate: " +
                       (rate ? std::string("must be finite in a double") : rate.error.message);
        return result;
    }
    options.initialWeight = *weight.value;
    options.learningRate = *learningRate;
    options.seed = request.seed;
    options.trajectoryPoints = std::max<std::size_t>(2, request.trajectoryPoints);
    if (request.steps == 0) {
        result.error = "the number of steps must be at least 1";
        return result;
    }

    // The update rule as `fpx sgd --update` reads it.
    UpdateRuleParse rule = parseUpdateRule(request.updateRule);
    if (!rule) {
        result.error = "update rule: column " + std::to_string(rule.error.position + 1) + ": " +
                       rule.error.message;
        return result;
    }
    result.updateRule = rule.rule->name;
    result.updateDescription = rule.rule->description;
    options.update = std::move(*rule.rule);

    // The gradients as `fpx sgd --grads` reads them.
    std::string gradientError;
    const std::optional<std::vector<ExactValue>> gradients =
        parseGradientSequence(request.gradients, request.steps, request.seed, gradientError);
    if (!gradients) {
        result.error = "gradients: " + gradientError;
        return result;
    }

    for (const SgdVariant& variant : request.variants) {
        if (stop.load()) {
            result.cancelled = true;
            return result;
        }
        const std::optional<FormatSpec> format = lookUp(variant.format, result.error);
        if (!format)
            return result;
        std::optional<FormatSpec> master;
        if (!variant.master.empty() && !(master = lookUp(variant.master, result.error)))
            return result;
        const std::string label = format->id + (master ? " + " + master->id + " master" : "");
        if (auto why = options.update->unsupported(master ? *master : *format)) {
            result.error = label + ": " + *why;
            return result;
        }
        try {
            result.runs.push_back(simulateSgd(*gradients, *format, master, options));
        } catch (const std::invalid_argument& refused) { // no arithmetic in the format (NF4)
            result.error = label + ": " + refused.what();
            return result;
        }
        result.labels.push_back(label);
    }
    result.description = "w₀ = " + request.weight + ", lr = " + request.learningRate +
                         ", gradients " + request.gradients + ", " +
                         counted(request.steps, "steps");
    return result;
}

std::string rangeCsv(const RangeResult& result) {
    std::string csv = "format,scale_log2,zero,flushed,subnormal,normal,overflow,non_finite,"
                      "flushed_fraction,subnormal_fraction,normal_fraction,overflow_fraction,"
                      "best_scale_low,best_scale_high,max_relative_error\n";
    for (const RangeFormatFit& f : result.fits) {
        if (!f.fit)
            continue;
        const RangeFit& r = *f.fit;
        csv += f.id + "," + std::to_string(result.scaleExponent);
        for (std::size_t z = 0; z < kRangeZoneCount; ++z)
            csv += "," + std::to_string(r.counts[z]);
        csv += "," + std::to_string(r.nonFinite);
        for (RangeZone z :
             {RangeZone::Flushed, RangeZone::Subnormal, RangeZone::Normal, RangeZone::Overflow})
            csv += "," + number(r.fraction(z));
        // An empty lowest: unbounded below (see RangeFit::bestScales).
        if (r.bestScales) {
            const auto [lowest, highest] = *r.bestScales;
            csv += "," +
                   (lowest == std::numeric_limits<std::int64_t>::min() ? std::string()
                                                                       : std::to_string(lowest)) +
                   "," + std::to_string(highest);
        } else {
            csv += ",,";
        }
        csv += "," + optionalNumber(r.maxRelativeError) + "\n";
    }
    // The histogram as drawn: log2|x·S| bins.
    csv += "\nlog2_low,log2_high,count\n";
    const Histogram& h = result.magnitudes;
    const double k = double(result.scaleExponent);
    for (std::size_t i = 0; i < h.binCount(); ++i)
        csv += number(h.binLow(i) + k) + "," + number(h.binLow(i + 1) + k) + "," +
               std::to_string(h.counts[i]) + "\n";
    return csv;
}

std::string lossScaleCsv(const LossScaleResult& result) {
    std::string csv = "step,amax,scale,overflow,skipped,flushed_fraction,subnormal_fraction\n";
    if (!result.run)
        return csv;
    for (const LossScaleStep& s : result.run->steps)
        csv += std::to_string(s.step) + "," + number(s.amax) + "," + number(s.scale) + "," +
               (s.overflow ? "1" : "0") + "," + (s.skipped ? "1" : "0") + "," +
               optionalNumber(s.flushedFraction) + "," + optionalNumber(s.subnormalFraction) + "\n";
    return csv;
}

std::string fp8Csv(const Fp8Result& result) {
    std::string csv = "recipe,step,amax,amax_used,scale,overflow_fraction,flushed_fraction,"
                      "sqnr_db\n";
    for (const Fp8ScalingRun& run : result.runs)
        for (const Fp8ScalingStep& s : run.steps)
            csv += run.recipe.text + "," + std::to_string(s.step) + "," + number(s.amax) + "," +
                   number(s.amaxUsed) + "," + number(s.scale) + "," + number(s.overflowFraction) +
                   "," + number(s.flushedFraction) + "," + optionalNumber(s.sqnrDb) + "\n";
    return csv;
}

std::string sgdCsv(const SgdResult& result) {
    std::string csv = "variant,final,exact,lost_updates,error\n";
    for (std::size_t i = 0; i < result.runs.size(); ++i) {
        const SgdRun& r = result.runs[i];
        csv += result.labels[i] + "," + toDecimal(r.finalWeight).text + "," +
               toSignificantDigits(r.finalExact, 40) + "," + std::to_string(r.lostUpdates) + "," +
               toSignificantDigits(r.error, 40) + "\n";
    }
    csv += "\nvariant,step,weight,exact\n";
    for (std::size_t i = 0; i < result.runs.size(); ++i)
        for (const SgdRun::Point& p : result.runs[i].trajectory)
            csv += result.labels[i] + "," + std::to_string(p.step) + "," + number(p.weight) + "," +
                   number(p.exact) + "\n";
    return csv;
}

} // namespace fpx::gui
