// SPDX-License-Identifier: GPL-3.0-or-later
// fpx accumulate: N terms summed in each accumulator format by each method, beside the exact
// sum.
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

void printCsv(std::ostream& out, const std::vector<Job>& jobs, std::size_t terms) {
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

void printText(std::ostream& out, const std::vector<Job>& jobs, std::size_t terms,
               const std::string& values, const std::string& element,
               const RoundingOptions& rounding, std::size_t traceEvery) {
    out << terms << " terms of " << values << ", each rounded into "
        << (element.empty() ? "the accumulator's format" : element) << "; rounding "
        << roundingModeId(rounding.mode) << ", overflow " << overflowPolicyId(rounding.overflow)
        << "\n\n";
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
    if (traceEvery == 0)
        return;
    out << "\nrunning sums every " << traceEvery << " terms:\n";
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

} // namespace

int runAccumulate(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs,
                   {"terms", "values", "element", "accumulator", "method", "round", "overflow",
                    "seed", "scale", "trace"},
                   {"json", "csv"});
    auto usageError = [&](const std::string& message) {
        return cli::usageError(io, "accumulate", message);
    };
    if (const auto stop = checkOptionsOnly(args, io, "accumulate", kUsage))
        return *stop;
    if (args.has("json") && args.has("csv"))
        return usageError("choose one of --json and --csv");
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return usageError(setup.error);

    const auto valuesText = args.value("values");
    if (!valuesText)
        return usageError("--values DIST is required");
    std::string error;
    const auto distribution = parseTermDistribution(*valuesText, error);
    if (!distribution)
        return usageError("--values " + error);
    std::size_t terms = 0;
    if (auto text = args.value("terms")) {
        const auto parsed = parseTermCount(*text);
        if (!parsed)
            return usageError("--terms: expected a count of at least 1 such as 4096 or 1e8, got '" +
                              *text + "'");
        terms = *parsed;
    } else if (distribution->kind != TermDistribution::Kind::File) {
        return usageError("--terms N is required (only file:PATH supplies its own count)");
    }
    if (terms > kMaxHardwareTerms)
        return usageError("--terms: at most " + std::to_string(kMaxHardwareTerms) +
                          " terms (each is stored in memory, once per element format)");

    std::vector<FormatSpec> accumulators;
    {
        const FormatListLookup lookup =
            findFormats(args.value("accumulator").value_or("fp16,bf16,fp32"));
        if (!lookup.error.empty())
            return usageError("--accumulator: " + lookup.error);
        accumulators = lookup.specs;
    }
    std::optional<FormatSpec> element;
    if (auto id = args.value("element")) {
        const FormatLookup lookup = findFormat(*id);
        if (!lookup)
            return usageError("--element: " + lookup.error);
        element = *lookup.spec;
        setup.applyScale(*element);
        if (element->kind == FormatKind::Lookup)
            return usageError("--element: " + element->id +
                              " holds table levels, not values to add (use a float or integer "
                              "format)");
    }
    std::vector<SumMethodSpec> methods;
    std::vector<std::string> methodTexts = args.values("method");
    if (methodTexts.empty())
        methodTexts.push_back("sequential");
    for (const std::string& text : methodTexts)
        for (const std::string_view piece : splitAt(text, ',')) {
            const std::string item(piece);
            const auto method = parseSumMethod(item);
            if (!method)
                return usageError("--method: '" + item +
                                  "' is not sequential, pairwise, kahan or blocked:K (K ≥ 1)");
            methods.push_back(*method);
        }
    std::size_t traceEvery = 0;
    if (auto text = args.value("trace")) {
        const auto parsed = parseTermCount(*text);
        if (!parsed)
            return usageError("--trace: expected a count of terms K ≥ 1, got '" + *text + "'");
        traceEvery = *parsed;
    }

    // Check every accumulator before any work, and bound the work.
    for (FormatSpec& accumulator : accumulators) {
        setup.applyScale(accumulator);
        if (auto why = arithmeticUnsupported(accumulator))
            return usageError("--accumulator: " + *why);
        const FormatSpec& e = element ? *element : accumulator;
        const bool exactCore = !accumulationFastPath(e, accumulator, setup.rounding) ||
                               termStorageFor(e) == TermSequence::Storage::Exact;
        if (exactCore && terms > kMaxExactTerms)
            return usageError(
                std::to_string(terms) + " terms: " + accumulator.id + " with rounding " +
                std::string(roundingModeId(setup.rounding.mode)) + " and element " + e.id +
                " go through the exact core, one exact big-number operation per addition "
                "(slow); use at most " +
                std::to_string(kMaxExactTerms) +
                " terms there (sums rounded to nearest even in a format of at most 53 bits, of "
                "terms no more precise than the sum, take a fast path)");
    }
    if (traceEvery > 0 && terms / traceEvery > kMaxTracePoints)
        return usageError("--trace: " + std::to_string(terms / traceEvery) +
                          " trace points; at most " + std::to_string(kMaxTracePoints) +
                          " (choose a larger K)");

    // The terms, made once per element format.
    std::map<std::string, TermSequence> termsByElement;
    const bool showProgress = isatty(STDERR_FILENO) == 1 && !args.has("json") && !args.has("csv");
    std::vector<Job> jobs;
    for (const FormatSpec& accumulator : accumulators) {
        const FormatSpec& e = element ? *element : accumulator;
        auto found = termsByElement.find(e.id);
        if (found == termsByElement.end()) {
            auto made = makeTerms(*distribution, terms, e, setup.seed, error);
            if (!made) {
                io.err << "fpx accumulate: " << error << '\n';
                return kExitDataError;
            }
            if (made->size() == 0) {
                io.err << "fpx accumulate: " << distribution->text << " holds no values\n";
                return kExitDataError;
            }
            found = termsByElement.emplace(e.id, std::move(*made)).first;
        }
        const TermSequence& sequence = found->second;
        const bool exactCore = !accumulationFastPath(e, accumulator, setup.rounding) ||
                               termStorageFor(e) == TermSequence::Storage::Exact;
        if (exactCore && sequence.size() > kMaxExactTerms)
            return usageError(distribution->text + " holds " + std::to_string(sequence.size()) +
                              " values; where the exact core does the additions it takes "
                              "at most " +
                              std::to_string(kMaxExactTerms));
        if (terms == 0)
            terms = sequence.size();
        if (traceEvery > 0 && sequence.size() / traceEvery > kMaxTracePoints)
            return usageError("--trace: too many trace points (choose a larger K)");
        for (const SumMethodSpec& method : methods) {
            AccumulationOptions options;
            options.element = e;
            options.accumulator = accumulator;
            options.method = method;
            options.rounding = setup.rounding;
            options.seed = setup.seed;
            options.traceEvery = traceEvery;
            const std::string label = accumulator.id + " " + sumMethodId(method);
            Job job{accumulator, method, {}};
            job.result = accumulate(sequence, options, [&](std::size_t done) {
                if (showProgress)
                    io.err << "\r\033[K" << label << "  " << done << " / " << sequence.size()
                           << std::flush;
                return true;
            });
            jobs.push_back(std::move(job));
        }
    }
    if (showProgress)
        io.err << "\r\033[K" << std::flush;

    if (args.has("json")) {
        Json json;
        json["terms"] = terms;
        json["values"] = distribution->text;
        json["element"] = element ? Json(element->id) : Json(nullptr);
        json["round"] = roundingModeId(setup.rounding.mode);
        json["overflow"] = overflowPolicyId(setup.rounding.overflow);
        json["seed"] = setup.seed;
        Json results = Json::array();
        for (const Job& job : jobs)
            results.push_back(resultJson(job));
        json["results"] = std::move(results);
        printJson(io.out, json);
    } else if (args.has("csv")) {
        printCsv(io.out, jobs, terms);
    } else {
        printText(io.out, jobs, terms, distribution->text, element ? element->id : "",
                  setup.rounding, traceEvery);
    }
    return kExitOk;
}

} // namespace fpx::cli
