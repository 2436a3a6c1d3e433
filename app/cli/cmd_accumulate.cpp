// SPDX-License-Identifier: GPL-3.0-or-later
// fpx accumulate: N terms summed in each accumulator format by each method, beside the exact
// sum. The options and the sums the core computes from them; accumulate_render.cpp prints them.
#include "accumulate.h"
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"
#include "term_options.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/arithmetic.h"
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
    "  DIST: ones, const:V, a distribution (uniform:A:B, normal:MU:SIGMA,\n"
    "        lognormal:MU:SIGMA, laplace:B, student:NU) or file:PATH (one value per line,\n"
    "        a .npy array, or a .safetensors file's first tensor; file:PATH:TENSOR picks\n"
    "        one by name; --terms then defaults to all of it)\n"
    "  M: sequential (default), pairwise, kahan, blocked:K (K terms in the accumulator,\n"
    "     each block's sum promoted into an FP32 total); repeat --method or give a list.\n"
    "  --trace K: the running sum after every K terms.\n";

// Whether the additions run on the exact core, one big-number operation each, rather than on a
// hardware fast path: that bounds how many terms a run may take.
bool onExactCore(const FormatSpec& element, const FormatSpec& accumulator,
                 const RoundingOptions& rounding) {
    return !accumulationFastPath(element, accumulator, rounding) ||
           termStorageFor(element) == TermSequence::Storage::Exact;
}

} // namespace

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
                roundingChoiceId(options.rounding) + " and element " + e.id +
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
