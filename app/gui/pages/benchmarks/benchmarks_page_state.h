// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace fpx::gui {

// The Benchmarks page as options set it: each field that is set is applied, the others are
// left as they are (BenchmarksPanel::apply); BenchmarksPanel::state() sets the form's fields
// (the sizes only when custom sizes are checked). A comparison and a run start only from the
// command line, never from a lesson step.
struct BenchmarksPageState {
    std::optional<QStringList> formats; // canonical ids
    std::optional<double> budget;       // seconds per measurement
    std::optional<QString> sizes;       // custom sizes, "4k,1M"
    std::optional<QString> compare;     // a run saved as JSON
    bool classPreset = false;           // --bench-run starts the class run, not the full one
    bool run = false;
};

} // namespace fpx::gui
