// SPDX-License-Identifier: GPL-3.0-or-later
// fpx accumulate's renderers: the sums as a table (and the running sums with --trace), JSON or
// CSV.
#include "accumulate.h"
#include "presentation.h"
#include "text_table.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"

#include <ostream>

namespace fpx::cli {

namespace {

std::string relativeText(const ExactValue& relative) {
    if (relative.isNaN())
        return "-";
    return toSignificantDigits(relative, 6);
}

std::string stagnationText(const Job& job) {
    if (!tracksStagnation(job.method.method))
        return "n/a";
    return job.result.stagnationTerm ? "term " + std::to_string(*job.result.stagnationTerm)
                                     : "none";
}

Json resultJson(const Job& job) {
    const AccumulationResult& r = job.result;
    Json json;
    json["accumulator"] = job.accumulator.id;
    json["method"] = sumMethodId(job.method);
    json["result_format"] = r.resultFormat.id;
    json["path"] = r.path;
    json["sum"] = decimalOrNull(r.sum);
    json["bits"] = codeToHex(r.bits, r.resultFormat.totalBits());
    json["exact_sum"] = decimalOrNull(r.exactSum);
    json["error"] = decimalOrNull(r.error);
    json["rel_error"] = decimalOrNull(r.relativeError);
    json["stagnation_term"] = r.stagnationTerm ? Json(*r.stagnationTerm) : Json(nullptr);
    Json trace = Json::array();
    for (const TracePoint& point : r.trace)
        trace.push_back({{"terms", point.terms},
                         {"sum", decimalOrNull(point.sum)},
                         {"exact_sum", decimalOrNull(point.exactSum)}});
    json["trace"] = std::move(trace);
    return json;
}

} // namespace

void renderAccumulateCsv(const AccumulateReport& report, std::ostream& out) {
    const std::vector<Job>& jobs = report.jobs;
    const std::size_t terms = report.terms;
    out << "accumulator,method,terms,sum,exact_sum,error,rel_error\n";
    auto row = [&](const Job& job, std::size_t n, const ExactValue& sum, const ExactValue& exact) {
        const ExactValue error = sum - exact;
        const ExactValue relative = exact.isFinite() && !exact.isZero() && !error.isNaN()
                                        ? error / exact.abs()
                                        : ExactValue::nan();
        out << job.accumulator.id << ',' << sumMethodId(job.method) << ',' << n << ','
            << toDecimal(sum).text << ',' << toDecimal(exact).text << ',' << toDecimal(error).text
            << ',' << (relative.isNaN() ? "" : toSignificantDigits(relative, 17)) << '\n';
    };
    for (const Job& job : jobs) {
        for (const TracePoint& point : job.result.trace)
            row(job, point.terms, point.sum, point.exactSum);
        if (job.result.trace.empty() || job.result.trace.back().terms != terms)
            row(job, terms, job.result.sum, job.result.exactSum);
    }
}

void renderAccumulateText(const AccumulateReport& report, std::ostream& out) {
    const std::vector<Job>& jobs = report.jobs;
    out << report.terms << " terms of " << report.values << ", each rounded into "
        << (report.element ? report.element->id : "the accumulator's format") << "; rounding "
        << roundingChoiceId(report.rounding) << ", overflow "
        << overflowPolicyId(report.rounding.overflow) << "\n\n";
    TextTable table({"accumulator", "method", "sum", "exact sum", "relative error", "stagnation",
                     "bits", "path"});
    for (const Job& job : jobs) {
        const AccumulationResult& r = job.result;
        table.addRow({job.accumulator.id, sumMethodId(job.method), humanValue(r.sum, 8),
                      humanValue(r.exactSum, 8), relativeText(r.relativeError), stagnationText(job),
                      codeToHex(r.bits, r.resultFormat.totalBits()) +
                          (r.resultFormat.id != job.accumulator.id ? " " + r.resultFormat.id : ""),
                      r.path});
    }
    table.print(out, false);
    out << "\nrelative error: (sum − exact) / |exact|. stagnation: the first non-zero term (from "
           "0)\n"
           "that left the running sum unchanged: from there on, terms that size are lost.\n";
    if (report.traceEvery == 0)
        return;
    out << "\nrunning sums every " << report.traceEvery << " terms:\n";
    std::vector<std::string> header = {"terms", "exact"};
    for (const Job& job : jobs)
        header.push_back(job.accumulator.id + " " + sumMethodId(job.method));
    TextTable trace(header);
    const std::size_t points = jobs.empty() ? 0 : jobs.front().result.trace.size();
    for (std::size_t k = 0; k < points; ++k) {
        std::vector<std::string> row = {std::to_string(jobs.front().result.trace[k].terms),
                                        humanValue(jobs.front().result.trace[k].exactSum, 8)};
        for (const Job& job : jobs)
            row.push_back(humanValue(job.result.trace[k].sum, 8));
        trace.addRow(row);
    }
    trace.print(out, false);
}

void renderAccumulateJson(const AccumulateReport& report, std::ostream& out) {
    Json json;
    json["terms"] = report.terms;
    json["values"] = report.values;
    json["element"] = report.element ? Json(report.element->id) : Json(nullptr);
    json["round"] = roundingChoiceId(report.rounding);
    json["overflow"] = overflowPolicyId(report.rounding.overflow);
    json["seed"] = report.seed;
    Json results = Json::array();
    for (const Job& job : report.jobs)
        results.push_back(resultJson(job));
    json["results"] = std::move(results);
    printJson(out, json);
}

} // namespace fpx::cli
