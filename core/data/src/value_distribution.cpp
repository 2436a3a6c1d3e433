// SPDX-License-Identifier: GPL-3.0-or-later
// The one generator of random values for experiments (generated tensors, accumulation terms).
#include "fpx/data/value_distribution.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"

#include <cmath>
#include <numbers>

namespace fpx {

namespace {

// A finite parameter as the double nearest to it (parsed exactly, rounded once).
std::optional<double> parseParameter(std::string_view text, const std::string& what,
                                     std::string& error) {
    const std::optional<ExactValue> exact = parseFiniteParameter(text, what, error);
    if (!exact)
        return std::nullopt;
    const double value = nearestDouble(*exact);
    if (!std::isfinite(value)) {
        error = what + ": '" + std::string(text) + "' is beyond the range of a double";
        return std::nullopt;
    }
    return value;
}

// A uniform double in [0, 1) from the top 53 of 64 random bits.
double unitInterval(std::uint64_t bits) {
    return static_cast<double>(bits >> 11) * 0x1p-53;
}

// Streams other than the main one (value i's own bits, stochasticBits(seed, i) or, for the
// normal, (seed, 2i) and (seed, 2i + 1)) start from seeds derived from the main seed, so the
// outlier choice and the Student rejection loop never reuse the bits that drew a value.
constexpr std::uint64_t kOutlierStream = 0x6f75746c69657273ULL; // "outliers"
constexpr std::uint64_t kStudentStream = 0x73747564656e7421ULL; // "student!"

// Student's t by Bailey's polar method (Bailey 1994): (U, V) uniform in the unit disc,
// W = U² + V², T = U·sqrt(ν·(W^(−2/ν) − 1)/W). Exact in distribution for every real ν > 0,
// without a gamma generator. The attempts for value i draw from a stream of their own seeded
// by (seed, i), so value i still depends only on the seed and i.
double drawStudent(double nu, std::uint64_t seed, std::size_t index) {
    const std::uint64_t stream = stochasticBits(seed ^ kStudentStream, index);
    for (std::uint64_t attempt = 0;; attempt += 2) {
        const double u = 2 * unitInterval(stochasticBits(stream, attempt)) - 1;
        const double v = 2 * unitInterval(stochasticBits(stream, attempt + 1)) - 1;
        const double w = u * u + v * v;
        if (w > 0 && w <= 1)
            return u * std::sqrt(nu * (std::pow(w, -2 / nu) - 1) / w);
    }
}

// Box–Muller on two independent uniforms per value; 1 − u keeps the logarithm finite.
double standardNormal(std::uint64_t seed, std::size_t index) {
    const double u1 = unitInterval(stochasticBits(seed, 2 * index));
    const double u2 = unitInterval(stochasticBits(seed, 2 * index + 1));
    return std::sqrt(-2 * std::log(1 - u1)) * std::cos(2 * std::numbers::pi * u2);
}

double drawPlain(const ValueDistribution& d, std::uint64_t seed, std::size_t index) {
    switch (d.kind) {
    case ValueDistribution::Kind::Uniform: {
        const double width = d.b - d.a;
        return d.a + width * unitInterval(stochasticBits(seed, index));
    }
    case ValueDistribution::Kind::Normal:
        return d.a + d.b * standardNormal(seed, index);
    case ValueDistribution::Kind::LogNormal:
        // The same normal draw, exponentiated: value i of lognormal:MU:SIGMA is exp of value i
        // of normal:MU:SIGMA. exp of a finite argument is positive or +0 (below 2^−1074), +∞
        // beyond 709.78; the parser keeps MU and SIGMA where neither is a likely draw.
        return std::exp(d.a + d.b * standardNormal(seed, index));
    case ValueDistribution::Kind::Laplace: {
        // An exponential magnitude −B·ln(1 − u) from the top 53 bits, the sign from the lowest
        // bit, which the magnitude does not use.
        const std::uint64_t bits = stochasticBits(seed, index);
        const double magnitude = -d.b * std::log(1 - unitInterval(bits));
        return (bits & 1) != 0 ? -magnitude : magnitude;
    }
    case ValueDistribution::Kind::Student:
        return drawStudent(d.a, seed, index);
    }
    return 0;
}

} // namespace

std::optional<ValueDistribution> parseValueDistribution(std::string_view text, std::string& error) {
    ValueDistribution d;
    d.text = std::string(text);
    const std::vector<std::string_view> parts = splitAt(text, ':');
    const std::string_view kind = parts.front();
    auto expectParts = [&](std::size_t n, const char* form) {
        if (parts.size() == n)
            return true;
        error = "'" + std::string(text) + "': expected " + form;
        return false;
    };
    if (kind == "uniform") {
        if (!expectParts(3, "uniform:A:B"))
            return std::nullopt;
        const auto a = parseParameter(parts[1], "uniform:A:B, A", error);
        const auto b = a ? parseParameter(parts[2], "uniform:A:B, B", error) : std::nullopt;
        if (!a || !b)
            return std::nullopt;
        if (!(*b > *a)) {
            error = "uniform:A:B: B must exceed A";
            return std::nullopt;
        }
        if (!std::isfinite(*b - *a)) {
            error = "uniform:A:B: B − A is beyond the range of a double";
            return std::nullopt;
        }
        d.kind = ValueDistribution::Kind::Uniform;
        d.a = *a;
        d.b = *b;
        return d;
    }
    if (kind == "normal") {
        if (!expectParts(3, "normal:MU:SIGMA"))
            return std::nullopt;
        const auto mu = parseParameter(parts[1], "normal:MU:SIGMA, MU", error);
        const auto sigma =
            mu ? parseParameter(parts[2], "normal:MU:SIGMA, SIGMA", error) : std::nullopt;
        if (!mu || !sigma)
            return std::nullopt;
        if (!(*sigma >= 0)) {
            error = "normal:MU:SIGMA: SIGMA must not be negative";
            return std::nullopt;
        }
        d.kind = ValueDistribution::Kind::Normal;
        d.a = *mu;
        d.b = *sigma;
        return d;
    }
    if (kind == "lognormal") {
        if (!expectParts(3, "lognormal:MU:SIGMA"))
            return std::nullopt;
        const auto mu = parseParameter(parts[1], "lognormal:MU:SIGMA, MU", error);
        const auto sigma =
            mu ? parseParameter(parts[2], "lognormal:MU:SIGMA, SIGMA", error) : std::nullopt;
        if (!mu || !sigma)
            return std::nullopt;
        if (!(*sigma >= 0)) {
            error = "lognormal:MU:SIGMA: SIGMA must not be negative";
            return std::nullopt;
        }
        // Natural-log units: exp(±709) is the edge of a double, and a draw lies within about
        // 9 SIGMA of MU (Box–Muller's largest |z| from 53-bit uniforms is below 8.6).
        if (std::abs(*mu) + 9 * *sigma > 700) {
            error = "lognormal:MU:SIGMA: |MU| + 9·SIGMA must stay below 700 (natural-log units; "
                    "exp(709) is the edge of a double)";
            return std::nullopt;
        }
        d.kind = ValueDistribution::Kind::LogNormal;
        d.a = *mu;
        d.b = *sigma;
        return d;
    }
    if (kind == "laplace") {
        if (!expectParts(2, "laplace:B"))
            return std::nullopt;
        const auto b = parseParameter(parts[1], "laplace:B, B", error);
        if (!b)
            return std::nullopt;
        if (!(*b > 0)) {
            error = "laplace:B: B must be positive";
            return std::nullopt;
        }
        d.kind = ValueDistribution::Kind::Laplace;
        d.a = 0;
        d.b = *b;
        return d;
    }
    if (kind == "student") {
        if (!expectParts(2, "student:NU"))
            return std::nullopt;
        const auto nu = parseParameter(parts[1], "student:NU, NU", error);
        if (!nu)
            return std::nullopt;
        if (!(*nu > 0)) {
            error = "student:NU: NU must be positive";
            return std::nullopt;
        }
        d.kind = ValueDistribution::Kind::Student;
        d.a = *nu;
        d.b = 0;
        return d;
    }
    error = "'" + std::string(text) +
            "': use uniform:A:B, normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B or student:NU";
    return std::nullopt;
}

bool isValueDistributionKind(std::string_view kind) {
    for (std::string_view known : {"uniform", "normal", "lognormal", "laplace", "student"})
        if (kind == known)
            return true;
    return false;
}

bool parseOutliers(std::string_view text, ValueDistribution& distribution, std::string& error) {
    const std::vector<std::string_view> parts = splitAt(text, ':');
    if (parts.size() != 2) {
        error = "'" + std::string(text) + "': expected FRACTION:SCALE";
        return false;
    }
    const auto fraction = parseParameter(parts[0], "outliers FRACTION:SCALE, FRACTION", error);
    const auto scale =
        fraction ? parseParameter(parts[1], "outliers FRACTION:SCALE, SCALE", error) : std::nullopt;
    if (!fraction || !scale)
        return false;
    if (!(*fraction >= 0 && *fraction <= 1)) {
        error = "outliers FRACTION:SCALE: FRACTION must lie in [0, 1]";
        return false;
    }
    distribution.outlierFraction = *fraction;
    distribution.outlierScale = *scale;
    return true;
}

double drawValue(const ValueDistribution& distribution, std::uint64_t seed, std::size_t index) {
    const double value = drawPlain(distribution, seed, index);
    // Value i is an outlier when its own uniform from the outlier stream falls below FRACTION:
    // each value independently, so the count is binomial around FRACTION·N.
    if (distribution.outlierFraction > 0 &&
        unitInterval(stochasticBits(seed ^ kOutlierStream, index)) < distribution.outlierFraction)
        return value * distribution.outlierScale;
    return value;
}

std::vector<double> drawValues(const ValueDistribution& distribution, std::size_t count,
                               std::uint64_t seed) {
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i)
        values[i] = drawValue(distribution, seed, i);
    return values;
}

std::vector<float> drawFloats(const ValueDistribution& distribution, std::size_t count,
                              std::uint64_t seed) {
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i)
        values[i] = static_cast<float>(drawValue(distribution, seed, i));
    return values;
}

} // namespace fpx
