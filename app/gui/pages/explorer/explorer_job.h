// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code_details.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace fpx::gui {

// One format shown by the explorer and what the current input became in it.
struct ExplorerRow {
    FormatSpec spec;
    ConversionReport report;
    QString problem; // why this row shows no result (a stand-in input into a scaled format)
};

// Everything one recomputation of the explorer's rows needs, copied, so that it can run on
// any thread while the controller goes on taking changes.
struct ExplorerJob {
    std::uint64_t generation = 0;
    // The input as text, and whether it is a typed text not parsed yet (parsed first).
    QString text;
    bool parseText = false;
    // The input when there is no text to parse, and what the rows keep when the text does not
    // parse (the last good value).
    ExactValue value;
    bool exact = true;
    std::optional<std::pair<int, Code>> pinnedCode;
    RoundingOptions options;
    std::vector<FormatSpec> formats;
    // False when only the text changed since the rows were last computed: a text that does not
    // parse then leaves the rows as they are.
    bool rowsStale = true;
};

// What a job found: the parse's verdict (when it parsed a text) and the rows.
struct ExplorerJobResult {
    std::uint64_t generation = 0;
    bool parsed = false; // the job parsed a text; parseError says whether it was refused
    QString parseError;  // "Column 3: expected a digit"
    int parseErrorPosition = -1;
    ExactValue value; // the value the rows are for
    bool exact = true;
    std::optional<std::pair<int, Code>> pinnedCode;
    // None when the rows stay as they are. Shared, never copied: the controller keeps the very
    // rows the worker made (thousands of exact values for a long format list).
    std::shared_ptr<const std::vector<ExplorerRow>> rows;
    std::int64_t microseconds = 0; // how long computing the rows took
    // Why the job failed (it ran out of memory, say): shown like a parse error, no rows.
    QString failure;
};

// Parses (when asked) and rounds the input into every format. Touches nothing but `job`.
ExplorerJobResult runExplorerJob(const ExplorerJob& job);

// What computes a job: runExplorerJob, or a stand-in in tests.
using ExplorerJobFunction = std::function<ExplorerJobResult(const ExplorerJob&)>;

// Runs `run` on `job`; an exception it throws (std::bad_alloc, an arithmetic error) becomes a
// result that says what failed and has no rows, so that whoever waits for it always gets one.
ExplorerJobResult runExplorerJobGuarded(const ExplorerJobFunction& run, const ExplorerJob& job);

// Whether a job on `value` without a text to parse is cheap enough to run where it is asked
// for, without a worker: a value of up to about ten thousand bits (kFreeValueWork).
bool isLightValue(const ExactValue& value);

} // namespace fpx::gui
