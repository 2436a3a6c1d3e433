// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx sgd in its three steps: the options read from the command line, the runs the core
// simulates from them, and the renderers that print them (cmd_sgd.cpp, sgd_render.cpp).

#include "arguments.h"
#include "commands.h"
#include "text_table.h"

#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/training/sgd_simulation.h"

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fpx::cli {

struct SgdCommandOptions {
    SgdOptions simulation;
    std::vector<FormatSpec> held;     // --formats
    std::optional<FormatSpec> master; // --master
    std::vector<ExactValue> gradients;
    std::string gradsText; // --grads as typed
    std::string lrText;    // --lr as typed
    bool exactLr = false;
    bool withTrajectory = false;
    bool json = false;
};

Outcome<SgdCommandOptions> parseSgdOptions(const Arguments& args);

// The runs, and what the renderers say about how they were set up.
struct SgdReport {
    SgdOptions simulation;
    std::string gradsText;
    std::string lrText;
    bool exactLr = false;
    bool withTrajectory = false;
    std::size_t steps = 0;
    std::vector<SgdRun> runs;
    ExactValue exactFinal;
};

SgdReport computeSgd(const SgdCommandOptions& options);

void renderSgdText(const SgdReport& report, const TerminalStyle& style, std::ostream& out);
void renderSgdJson(const SgdReport& report, std::ostream& out);

} // namespace fpx::cli
