// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx bench in its steps: the options read from the command line, the backends they select,
// the report the measurements make, and the renderers that print it (cmd_bench.cpp,
// bench_render.cpp).

#include "arguments.h"
#include "commands.h"

#include "fpx/bench/accumulation_bench.h"
#include "fpx/bench/backend.h"
#include "fpx/bench/bench_preset.h"
#include "fpx/bench/quantization_bench.h"

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fpx::cli {

struct BenchOptions {
    bench::BenchPreset preset = bench::BenchPreset::Full; // --preset class: a short run
    bench::BenchRequest request;
    std::size_t accumulationTerms = 100'000'000;
    bench::QuantizationBenchRequest quantization;
    std::string backend = "cpu"; // --backend: cpu, cuda, opencl or all
    bool list = false;
    bool accumulationBench = true;       // unless --no-accumulation
    bool quantizationBench = true;       // unless --no-quantization
    std::optional<std::string> jsonPath; // --json FILE
    std::optional<std::string> csvPath;  // --csv FILE
};

Outcome<BenchOptions> parseBenchOptions(const Arguments& args);

// The backends --backend names that can run. `notes` (a backend of "all" that is unavailable,
// the plugin problems behind a refusal) are said on stderr before the error or the run.
struct BackendSelection {
    bench::LoadedBackends loaded; // owns the backends
    std::vector<bench::Backend*> backends;
    std::vector<std::string> notes;
    std::optional<CommandError> error;
};

BackendSelection selectBackends(const BenchOptions& options);

// How far the measurements have come, for a terminal: `step` with the running backend's id,
// the fraction done and what runs; `ended` when a backend's or a ratio's run is over.
struct BenchProgress {
    std::function<void(const std::string& backend, double fraction, const std::string& what)> step;
    std::function<void()> ended;
};

struct BenchReport {
    bench::BenchRequest request;
    std::vector<bench::DeviceInfo> devices;
    std::vector<bench::BenchResult> results;
    std::vector<bench::AccumulationBenchRow> accumulation;
    std::size_t accumulationTerms = 0;
    bench::QuantizationBenchReport quantization;
    // A path that should be bit-exact disagreed with the exact core.
    bool disagreed = false;
};

BenchReport computeBench(const BenchOptions& options, const std::vector<bench::Backend*>& backends,
                         const BenchProgress& progress);

// The progress as one line of a terminal's stderr, overwritten in place.
BenchProgress terminalBenchProgress(std::ostream& err);

// --list: every backend, its devices and the support of each format.
void renderBenchList(const bench::LoadedBackends& loaded, const std::vector<FormatSpec>& formats,
                     std::ostream& out);
void renderBenchText(const BenchReport& report, std::ostream& out);
// Every row of the report as results, as --json and --csv write them: the backends', then the
// sums' and the quantizers' (bench::accumulationResults, bench::quantizationResults).
std::vector<bench::BenchResult> benchResultRows(const BenchReport& report);
// --json FILE and --csv FILE; the error names a file that cannot be written.
std::optional<CommandError> writeBenchFiles(const BenchOptions& options, const BenchReport& report);

} // namespace fpx::cli
