// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx accumulate in its three steps: the options read from the command line, the sums the core
// computes from them, and the renderers that print them (cmd_accumulate.cpp,
// accumulate_render.cpp).

#include "arguments.h"
#include "commands.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fpx::cli {

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

Outcome<AccumulateOptions> parseAccumulateOptions(const Arguments& args);

struct AccumulateReport {
    std::size_t terms = 0;
    std::string values; // the distribution as written
    std::optional<FormatSpec> element;
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    std::size_t traceEvery = 0;
    std::vector<Job> jobs;
};

// `progress(label, done, total)` is told how far each sum has come.
using AccumulateProgress =
    std::function<void(const std::string& label, std::size_t done, std::size_t total)>;

Outcome<AccumulateReport> computeAccumulate(const AccumulateOptions& options,
                                            const AccumulateProgress& progress);

void renderAccumulateText(const AccumulateReport& report, std::ostream& out);
void renderAccumulateJson(const AccumulateReport& report, std::ostream& out);
void renderAccumulateCsv(const AccumulateReport& report, std::ostream& out);

} // namespace fpx::cli
