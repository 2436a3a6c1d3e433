// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"

#include <QString>

#include <optional>
#include <vector>

namespace fpx::gui {

// A benchmark run saved by writeResultsJson (Export JSON… or `fpx bench --json`), read back
// for comparison: every row, the CPU's sums and quantizers with their ratios too. A run of
// format version 1 (no sums, quantizers or ratio keys) reads as it is.
struct SavedRun {
    QString path;
    QString description; // "Intel Xeon …, 2025-06-01T12:00:00Z"
    std::vector<bench::BenchResult> results;
};

// Reads a saved run; nullopt and `error` (naming the file and what is wrong) when it is not
// readable JSON or not an fpx benchmark run.
std::optional<SavedRun> loadSavedRun(const QString& path, QString* error);

// What identifies a measurement across runs: backend, device, operation, format, direction,
// path, elements, threads and workload (a sum's terms: one accumulator is timed on two).
// Without the device, to compare two machines.
QString resultKey(const bench::BenchResult& result, bool withDevice = true);

} // namespace fpx::gui
