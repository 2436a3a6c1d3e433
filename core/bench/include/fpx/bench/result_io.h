// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"

#include <ostream>
#include <string>
#include <vector>

namespace fpx::bench {

// Everything needed to tell two runs apart: what was built, where it ran, how it was asked.
struct RunMetadata {
    std::string fpxVersion;
    std::string build;     // compiler, build type, target architecture
    std::string host;      // operating system, kernel, machine
    std::string startedAt; // ISO 8601, UTC
    std::string distribution;
    std::string rounding;
    std::string overflow;
    double budgetSeconds = 0;
    int samples = 0;
    std::vector<DeviceInfo> devices;
};

// Metadata of a run of `request` on these devices, stamped now.
RunMetadata describeRun(const BenchRequest& request, const std::vector<DeviceInfo>& devices);

// The JSON document's "version". A reader takes version 1 too: it holds copies, conversions
// and arithmetic alone, without the ratio keys, which read as none.
inline constexpr int kResultsVersion = 2;

// One JSON document (metadata, devices, results), each double in the shortest form that reads
// back as the same double, and a CSV table with one row per result (9 significant digits),
// its columns the JSON results' keys but device_index and iterations_per_sample. Numbers are
// written in the "C" locale (a point, never a comma), whatever the user's locale. The CPU's
// sums and quantizers are results too (ratio_results.h).
void writeResultsJson(std::ostream& out, const RunMetadata& metadata,
                      const std::vector<BenchResult>& results);
void writeResultsCsv(std::ostream& out, const std::vector<BenchResult>& results);

// "%.6g" in the "C" locale.
std::string formatNumber(double value, int significantDigits = 6);

} // namespace fpx::bench
