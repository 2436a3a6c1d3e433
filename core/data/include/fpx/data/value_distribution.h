// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// Random values for experiments, drawn in double, deterministic from a seed (value i depends
// only on the seed and i, so any range of a stream can be made on its own).
//   uniform:A:B      uniform on [A, B)
//   normal:MU:SIGMA  Gaussian (Box–Muller)
//   lognormal:MU:SIGMA  exp(N(MU, SIGMA)): positive, spread over many binades, as gradient
//                       magnitudes are (MU and SIGMA in natural-log units)
//   laplace:B        Laplace with scale B, mean 0
//   student:NU       Student's t with NU degrees of freedom (heavy tails, as weights have)
// Outliers ("FRACTION:SCALE"): that fraction of the values, chosen by the seed, multiplied by
// SCALE, as activations with a few huge channels.
struct ValueDistribution {
    enum class Kind { Uniform, Normal, LogNormal, Laplace, Student };
    Kind kind = Kind::Normal;
    double a = 0, b = 1; // uniform: A, B; (log)normal: MU, SIGMA; laplace: B in b; student: NU in a
    double outlierFraction = 0;
    double outlierScale = 1;
    std::string text; // as written, for reports
};

// nullopt with `error` saying what is wrong and where ("laplace:B: B must be positive").
std::optional<ValueDistribution> parseValueDistribution(std::string_view text, std::string& error);
// Whether `kind` names a distribution ("normal" of "normal:0:1"): another grammar that admits
// distributions among its own forms can say which error is the distribution's.
bool isValueDistributionKind(std::string_view kind);
bool parseOutliers(std::string_view text, ValueDistribution& distribution, std::string& error);

double drawValue(const ValueDistribution& distribution, std::uint64_t seed, std::size_t index);
std::vector<double> drawValues(const ValueDistribution& distribution, std::size_t count,
                               std::uint64_t seed);
// The values a tensor made from a distribution holds: each double draw rounded once (nearest
// even) to FP32, as every tensor fpx draws, on the command line and on the pages.
std::vector<float> drawFloats(const ValueDistribution& distribution, std::size_t count,
                              std::uint64_t seed);

} // namespace fpx
