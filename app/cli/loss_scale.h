// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx loss-scale in its three steps: the options read from the command line, the run the core
// simulates from them, and the renderers that print it (cmd_loss_scale.cpp,
// loss_scale_render.cpp).

#include "arguments.h"
#include "commands.h"

#include "fpx/exact/format_spec.h"
#include "fpx/training/loss_scaling.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fpx::cli {

struct LossScaleOptions {
    FormatSpec format;
    LossScalerOptions scaler;
    std::vector<double> amaxes; // one a step
    std::string amaxSource;     // the trace file or the series, as written
    std::uint64_t seed = 0;
    std::optional<StepGradients> gradients; // --dist
    OutputForm form = OutputForm::Text;
};

Outcome<LossScaleOptions> parseLossScaleOptions(const Arguments& args);

// The run, and how it was set up.
struct LossScaleReport {
    LossScalerOptions scaler;
    std::string amaxSource;
    std::uint64_t seed = 0;
    std::optional<StepGradients> gradients;
    LossScaleRun run;
};

LossScaleReport computeLossScale(const LossScaleOptions& options);

void renderLossScaleText(const LossScaleReport& report, std::ostream& out);
void renderLossScaleJson(const LossScaleReport& report, std::ostream& out);
void renderLossScaleCsv(const LossScaleReport& report, std::ostream& out);

} // namespace fpx::cli
