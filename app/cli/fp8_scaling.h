// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx fp8-scaling in its three steps: the options read from the command line, the runs the
// core simulates from them, and the renderers that print them (cmd_fp8_scaling.cpp,
// fp8_scaling_render.cpp).

#include "arguments.h"
#include "commands.h"

#include "fpx/data/tensor_file.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/training/fp8_scaling.h"

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace fpx::cli {

struct Fp8ScalingOptions {
    FormatSpec format;
    std::vector<Fp8Recipe> recipes;
    RoundingOptions rounding{RoundingMode::NearestEven, OverflowPolicy::Saturate, 0};
    int margin = 0;
    std::string source;                    // for reports
    std::vector<TensorFile::Loaded> files; // --inputs
    std::vector<std::vector<float>> drawn; // --dist
    std::vector<TensorView> tensors;       // one a step, viewing `files` or `drawn`
    OutputForm form = OutputForm::Text;
};

Outcome<Fp8ScalingOptions> parseFp8ScalingOptions(const Arguments& args);

// The runs, one a recipe, and how they were set up.
struct Fp8ScalingReport {
    FormatSpec format;
    RoundingOptions rounding;
    int margin = 0;
    std::string source;
    std::size_t steps = 0;
    std::vector<Fp8ScalingRun> runs;
};

Fp8ScalingReport computeFp8Scaling(const Fp8ScalingOptions& options);

void renderFp8ScalingText(const Fp8ScalingReport& report, std::ostream& out);
void renderFp8ScalingJson(const Fp8ScalingReport& report, std::ostream& out);
void renderFp8ScalingCsv(const Fp8ScalingReport& report, std::ostream& out);

} // namespace fpx::cli
