// SPDX-License-Identifier: GPL-3.0-or-later
// fpx accumulate: N terms summed in each accumulator format by each method, beside the exact
// sum. The options, the sums the core computes from them, and their text, JSON and CSV
// renderers.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"
#include "term_options.h"
#include "text_table.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/arithmetic.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"

#include <unistd.h>

#include <functional>
#include <map>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx accumulate --terms N --values DIST [--element ID] [--accumulator ID,...]\n"
    "                      [--method M,...] [--round MODE] [--overflow POLICY] [--seed S]\n"
    "                      [--scale S] [--trace K] [--json|--csv]\n"
    "  Sums N terms, each first rounded into the element format (default: each\n"
    "  accumulator's own), in every accumulator format (default fp16,bf16,fp32) and by\n"
    "  every method, and compares each sum with the exact one.\n"
    "  DIST: ones, const:V, uniform:A:B, normal:MU:SIGMA, file:PATH (one value per line,\n"
    "        a .npy array, or a .safetensors file's first tensor; file:PATH:TENSOR picks\n"
    "        one by name; --terms then defaults to all of it)\n"
    "  M: sequential (default), pairwise, kahan, blocked:K (K terms in the accumulator,\n"
    "     each block's sum promoted into an FP32 total); repeat --method or give a list.\n"
    "  --trace K: the running sum after every K terms.\n";

struct Job {
    FormatSpec accumulator;
    SumMethodSpec method;
    AccumulationResult result;
};

struct AccumulateOptions {
    TermDistribution distribution;
    std::size_t terms = 0; // 0: as many as the file holds
    std::vector<FormatSpec> accumulators;
    std::optional<FormatSpec> element; // else each accumulator's own format
    std::vector<SumMethodSpec> methods;
    std::size_t traceEvery = 0;
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    OutputForm form = OutputForm::Text;
};

struct AccumulateReport {
    std::size_t terms = 0;
    std::string values; // the distribution as written
    std::optional<FormatSpec> element;
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    std::size_t traceEvery = 0;
    std::vector<Job> jobs;
};

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
        << roundingModeId(report.rounding.mode) << ", overflow "
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

// Whether the additions run on the exact core, one big-number operation each, rather than on a
// hardware fast path: that bounds how many terms a run may take.
bool onExactCore(const FormatSpec& element, const FormatSpec& accumulator,
                 const RoundingOptions& rounding) {
    return !accumulationFastPath(element, accumulator, rounding) ||
           termStorageFor(element) == TermSequence::Storage::Exact;
}

Outcome<AccumulateOptions> parseAccumulateOptions(const Arguments& args) {
    AccumulateOptions options;
    const auto form = readOutputForm(args);
    if (!form)
        return CommandError{"choose one of --json and --csv"};
    options.form = *form;
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return CommandError{setup.error};
    options.rounding = setup.rounding;
    options.seed = setup.seed;

    const auto valuesText = args.value("values");
    if (!valuesText)
        return CommandError{"--values DIST is required"};
    std::string error;
    const auto distribution = parseTermDistribution(*valuesText, error);
    if (!distribution)
        return CommandError{"--values " + error};
    options.distribution = *distribution;
    if (auto text = args.value("terms")) {
        const auto parsed = parseTermCount(*text);
        if (!parsed)
            return CommandError{
                "--terms: expected a count of at least 1 such as 4096 or 1e8, got '" + *text + "'"};
        options.terms = *parsed;
    } else if (distribution->kind != TermDistribution::Kind::File) {
        return CommandError{"--terms N is required (only file:PATH supplies its own count)"};
    }
    if (options.terms > kMaxHardwareTerms)
        return CommandError{"--terms: at most " + std::to_string(kMaxHardwareTerms) +
                            " terms (each is stored in memory, once per element format)"};

    const FormatListLookup lookup =
        findFormats(args.value("accumulator").value_or("fp16,bf16,fp32"));
    if (!lookup.error.empty())
        return CommandError{"--accumulator: " + lookup.error};
    options.accumulators = lookup.specs;
    if (auto id = args.value("element")) {
        const FormatLookup found = findFormat(*id);
        if (!found)
            return CommandError{"--element: " + found.error};
        options.element = *found.spec;
        setup.applyScale(*options.element);
        if (options.element->kind == FormatKind::Lookup)
            return CommandError{"--element: " + options.element->id +
                                " holds table levels, not values to add (use a float or "
                                "integer format)"};
    }
    std::vector<std::string> methodTexts = args.values("method");
    if (methodTexts.empty())
        methodTexts.push_back("sequential");
    for (const std::string& text : methodTexts)
        for (const std::string_view piece : splitAt(text, ',')) {
            const std::string item(piece);
            const auto method = parseSumMethod(item);
            if (!method)
                return CommandError{"--method: '" + item +
                                    "' is not sequential, pairwise, kahan or blocked:K (K ≥ 1)"};
            options.methods.push_back(*method);
        }
    if (auto text = args.value("trace")) {
        const auto parsed = parseTermCount(*text);
        if (!parsed)
            return CommandError{"--trace: expected a count of terms K ≥ 1, got '" + *text + "'"};
        options.traceEvery = *parsed;
    }

    // Check every accumulator before any work, and bound the work.
    for (FormatSpec& accumulator : options.accumulators) {
        setup.applyScale(accumulator);
        if (auto why = arithmeticUnsupported(accumulator))
            return CommandError{"--accumulator: " + *why};
        const FormatSpec& e = options.element ? *options.element : accumulator;
        if (onExactCore(e, accumulator, options.rounding) && options.terms > kMaxExactTerms)
            return CommandError{
                std::to_string(options.terms) + " terms: " + accumulator.id + " with rounding " +
                std::string(roundingModeId(options.rounding.mode)) + " and element " + e.id +
                " go through the exact core, one exact big-number operation per addition "
                "(slow); use at most " +
                std::to_string(kMaxExactTerms) +
                " terms there (sums rounded to nearest even in a format of at most 53 bits, of "
                "terms no more precise than the sum, take a fast path)"};
    }
    if (options.traceEvery > 0 && options.terms / options.traceEvery > kMaxTracePoints)
        return CommandError{"--trace: " + std::to_string(options.terms / options.traceEvery) +
                            " trace points; at most " + std::to_string(kMaxTracePoints) +
                            " (choose a larger K)"};
    return options;
}

// `progress(label, done, total)` is told how far each sum has come.
using AccumulateProgress =
    std::function<void(const std::string& label, std::size_t done, std::size_t total)>;

Outcome<AccumulateReport> computeAccumulate(const AccumulateOptions& options,
                                            const AccumulateProgress& progress) {
    AccumulateReport report;
    report.terms = options.terms;
    report.values = options.distribution.text;
    report.element = options.element;
    report.rounding = options.rounding;
    report.seed = options.seed;
    report.traceEvery = options.traceEvery;
    // The terms, made once per element format.
    std::map<std::string, TermSequence> termsByElement;
    std::string error;
    for (const FormatSpec& accumulator : options.accumulators) {
        const FormatSpec& e = options.element ? *options.element : accumulator;
        auto found = termsByElement.find(e.id);
        if (found == termsByElement.end()) {
            auto made = makeTerms(options.distribution, options.terms, e, options.seed, error);
            if (!made)
                return dataError(error);
            if (made->size() == 0)
                return dataError(options.distribution.text + " holds no values");
            found = termsByElement.emplace(e.id, std::move(*made)).first;
        }
        const TermSequence& sequence = found->second;
        if (onExactCore(e, accumulator, options.rounding) && sequence.size() > kMaxExactTerms)
            return CommandError{options.distribution.text + " holds " +
                                std::to_string(sequence.size()) +
                                " values; where the exact core does the additions it takes "
                                "at most " +
                                std::to_string(kMaxExactTerms)};
        if (report.terms == 0)
            report.terms = sequence.size();
        if (options.traceEvery > 0 && sequence.size() / options.traceEvery > kMaxTracePoints)
            return CommandError{"--trace: too many trace points (choose a larger K)"};
        for (const SumMethodSpec& method : options.methods) {
            AccumulationOptions run;
            run.element = e;
            run.accumulator = accumulator;
            run.method = method;
            run.rounding = options.rounding;
            run.seed = options.seed;
            run.traceEvery = options.traceEvery;
            const std::string label = accumulator.id + " " + sumMethodId(method);
            Job job{accumulator, method, {}};
            job.result = accumulate(sequence, run, [&](std::size_t done) {
                if (progress)
                    progress(label, done, sequence.size());
                return true;
            });
            report.jobs.push_back(std::move(job));
        }
    }
    return report;
}

void renderAccumulateJson(const AccumulateReport& report, std::ostream& out) {
    Json json;
    json["terms"] = report.terms;
    json["values"] = report.values;
    json["element"] = report.element ? Json(report.element->id) : Json(nullptr);
    json["round"] = roundingModeId(report.rounding.mode);
    json["overflow"] = overflowPolicyId(report.rounding.overflow);
    json["seed"] = report.seed;
    Json results = Json::array();
    for (const Job& job : report.jobs)
        results.push_back(resultJson(job));
    json["results"] = std::move(results);
    printJson(out, json);
}

} // namespace

int runAccumulate(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs,
                         {"terms", "values", "element", "accumulator", "method", "round",
                          "overflow", "seed", "scale", "trace"},
                         {"json", "csv"});
    if (const auto stop = checkOptionsOnly(args, io, "accumulate", kUsage))
        return *stop;
    const Outcome<AccumulateOptions> options = parseAccumulateOptions(args);
    if (!options)
        return reportError(io, "accumulate", options.error());
    // Progress on a terminal's stderr, overwritten in place, for text output only.
    const bool showProgress = isatty(STDERR_FILENO) == 1 && options->form == OutputForm::Text;
    AccumulateProgress progress;
    if (showProgress)
        progress = [&io](const std::string& label, std::size_t done, std::size_t total) {
            io.err << "\r\033[K" << label << "  " << done << " / " << total << std::flush;
        };
    const Outcome<AccumulateReport> report = computeAccumulate(*options, progress);
    if (!report)
        return reportError(io, "accumulate", report.error());
    if (showProgress)
        io.err << "\r\033[K" << std::flush;
    switch (options->form) {
    case OutputForm::Json:
        renderAccumulateJson(*report, io.out);
        break;
    case OutputForm::Csv:
        renderAccumulateCsv(*report, io.out);
        break;
    case OutputForm::Text:
        renderAccumulateText(*report, io.out);
        break;
    }
    return kExitOk;
}

} // namespace fpx::cli
