// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// A positive quantity per training step, synthetic or read from a file: the gradient amax that
// drives a loss scaler, the drift that multiplies an FP8 recipe's tensors.
//   geometric:START:END       START at step 0 to END at the last step, log-linearly (gradients
//                             that shrink over training: geometric:1:1e-4)
//   constant:V                V at every step
// followed by any of, comma-separated:
//   spikes:P:FACTOR           each step, with probability P (seeded, step i depends only on the
//                             seed and i), multiplied by FACTOR (an occasional exploding batch)
//   spike-at:I:FACTOR         step I multiplied by FACTOR (crafted traces, lessons)
// Example: "geometric:1:1e-3,spikes:0.01:1e4,spike-at:0:1e6".
struct StepSeriesSpec {
    enum class Shape { Geometric, Constant };
    Shape shape = Shape::Constant;
    double start = 1, end = 1;
    double spikeProbability = 0, spikeFactor = 1;
    std::vector<std::pair<std::size_t, double>> spikesAt;
    std::string text; // as written, for reports
};

// nullopt with `error` naming the part that is wrong ("geometric:1:x: END is not a number").
std::optional<StepSeriesSpec> parseStepSeries(std::string_view text, std::string& error);

// The values of steps 0 … steps − 1; deterministic from the seed.
std::vector<double> stepSeriesValues(const StepSeriesSpec& spec, std::size_t steps,
                                     std::uint64_t seed);

// A trace from a text file: one value per line, or CSV "step,value" (a header line allowed),
// '#' comments and blank lines skipped. Values must be finite or "inf"/"nan" (an overflowed
// step, as recorded by a framework) and not negative. nullopt with `error` naming the file,
// line and column of the first problem ("trace.csv:12:7: 'abc' is not a number").
std::optional<std::vector<double>> readStepTrace(const std::string& path, std::string& error);

} // namespace fpx
