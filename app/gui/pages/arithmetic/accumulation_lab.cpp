// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/accumulation_lab.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/decimal_text.h"

#include <algorithm>
#include <map>

namespace fpx::gui {

namespace {

std::string decimal(const ExactValue& v) {
    return v.isNaN() ? std::string() : toDecimal(v).text;
}

ExactValue relativeError(const ExactValue& sum, const ExactValue& exact) {
    if (!sum.isFinite() || !exact.isFinite() || exact.isZero())
        return ExactValue::nan();
    return (sum - exact) / exact.abs();
}

} // namespace

std::string AccumulationLabRun::label() const {
    std::string text = accumulator.id + " " + sumMethodId(method);
    if (element.id != accumulator.id)
        text += " (terms " + element.id + ")";
    return text;
}

AccumulationLabResult
runAccumulationLab(const AccumulationLabRequest& request,
                   const std::function<bool(std::size_t done, std::size_t total)>& progress) {
    AccumulationLabResult lab;
    lab.request = request;
    if (request.terms == 0 || request.terms > kMaxLabTerms) {
        lab.error = "terms: expected 1 to " + std::to_string(kMaxLabTerms);
        return lab;
    }
    const auto distribution = parseTermDistribution(request.distribution, lab.error);
    if (!distribution)
        return lab;
    const std::size_t total = request.terms * request.accumulators.size() * request.methods.size();
    std::size_t finished = 0;
    // The terms of each element format are made once and shared by its runs.
    std::map<std::string, TermSequence> termsByElement;
    for (const FormatSpec& accumulator : request.accumulators) {
        const FormatSpec& element = request.element ? *request.element : accumulator;
        for (const SumMethodSpec& method : request.methods) {
            AccumulationLabRun run;
            run.element = element;
            run.accumulator = accumulator;
            run.method = method;
            AccumulationOptions options;
            options.element = element;
            options.accumulator = accumulator;
            options.method = method;
            options.rounding = request.rounding;
            options.seed = request.seed;
            options.traceEvery = std::max<std::size_t>(1, request.terms / request.tracePoints);
            run.unsupported = accumulationUnsupported(options);
            if (run.unsupported) {
                lab.runs.push_back(std::move(run));
                finished += request.terms;
                continue;
            }
            auto terms = termsByElement.find(element.id);
            if (terms == termsByElement.end()) {
                auto made =
                    makeTerms(*distribution, request.terms, element, request.seed, lab.error);
                if (!made)
                    return lab;
                terms = termsByElement.emplace(element.id, std::move(*made)).first;
            }
            run.result = accumulate(terms->second, options, [&](std::size_t done) {
                return !progress || progress(finished + done, total);
            });
            finished += request.terms;
            const bool cancelled = run.result.cancelled;
            lab.runs.push_back(std::move(run));
            if (cancelled) {
                lab.cancelled = true;
                return lab;
            }
        }
        if (!request.element)
            termsByElement.erase(accumulator.id); // no later run sums these: free them now
    }
    if (progress)
        progress(total, total);
    return lab;
}

std::string accumulationLabCsv(const AccumulationLabResult& result) {
    std::string csv =
        "accumulator,element,method,point,terms,sum,exact_sum,rel_error,stagnation_term\n";
    for (const AccumulationLabRun& run : result.runs) {
        if (run.unsupported)
            continue;
        const std::string head =
            run.accumulator.id + "," + run.element.id + "," + sumMethodId(run.method) + ",";
        for (const TracePoint& point : run.result.trace)
            csv += head + "trace," + std::to_string(point.terms) + "," + decimal(point.sum) + "," +
                   decimal(point.exactSum) + "," +
                   decimal(relativeError(point.sum, point.exactSum)) + ",\n";
        const AccumulationResult& r = run.result;
        const std::size_t summed =
            r.cancelled && !r.trace.empty() ? r.trace.back().terms : result.request.terms;
        csv += head + "final," + std::to_string(summed) + "," + decimal(r.sum) + "," +
               decimal(r.exactSum) + "," + decimal(r.relativeError) + "," +
               (r.stagnationTerm ? std::to_string(*r.stagnationTerm) : std::string()) + "\n";
    }
    return csv;
}

} // namespace fpx::gui
