// SPDX-License-Identifier: GPL-3.0-or-later
// SGD on one weight held in a format, with and without a master copy, against exact arithmetic
// (docs/behaviour.md, "Master weights").
//
// Why it stays cheap over many steps: the held weight is a value of its format (dyadic, a few
// dozen bits), and lr·g is one exact product, so w − lr·g is a short number and its rounding
// is one roundToFormat. The exact reference is never iterated: e_t = W − lr·Σ_{s<t} g_s, and
// only the sum Σg is kept, exactly. When the gradients are doubles the sum is dyadic and its
// width stays bounded by the span of the gradients' exponents; it does not grow with the
// number of steps as e_t − lr·g_t, multiplied out at every step, could.
#include "fpx/training/sgd_simulation.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include <stdexcept>
#include <string>

namespace fpx {

namespace {

std::uint64_t streamOf(std::uint64_t seed, SgdStream stream) {
    return streamSeed(seed, static_cast<std::uint64_t>(stream));
}

ExactValue roundedValue(const ExactValue& x, const FormatSpec& spec, RoundingOptions options,
                        std::uint64_t randomBits) {
    options.randomBits = randomBits;
    return roundedInto(x, spec, options);
}

// An update is lost when it leaves the value where it was: equal values (−0 and +0 alike), or
// NaN staying NaN.
bool sameValue(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return a.isNaN() && b.isNaN();
    return compare(a, b) == 0;
}

void requireArithmetic(const FormatSpec& spec, const char* role) {
    if (auto why = arithmeticUnsupported(spec))
        throw std::invalid_argument(std::string("simulateSgd: ") + role + " " + spec.id + ": " +
                                    *why);
}

void requireFinite(const ExactValue& x, const std::string& what) {
    if (!x.isFinite())
        throw std::invalid_argument("simulateSgd: " + what + " is not finite");
}

// Evenly spaced steps of 0 … steps, the first and the last included: step i of `points` is
// ⌊i·steps / (points − 1)⌋, written as i·q + ⌊i·r / (points − 1)⌋ (steps = q·(points − 1) + r)
// so that no product overflows.
std::vector<std::size_t> sampledSteps(std::size_t steps, std::size_t points) {
    std::vector<std::size_t> sampled;
    if (points == 0)
        return sampled;
    if (points == 1)
        return {steps};
    if (points > steps + 1)
        points = steps + 1;
    if (points == 1)
        return {steps};
    const std::size_t intervals = points - 1;
    const std::size_t q = steps / intervals;
    const std::size_t r = steps % intervals;
    sampled.reserve(points);
    for (std::size_t i = 0; i < points; ++i)
        sampled.push_back(i * q + i * r / intervals);
    return sampled;
}

} // namespace

SgdRun simulateSgd(const std::vector<ExactValue>& gradients, const FormatSpec& format,
                   const std::optional<FormatSpec>& master, const SgdOptions& options) {
    requireArithmetic(format, "the weight format");
    if (master)
        requireArithmetic(*master, "the master format");
    if (options.gradientFormat)
        requireArithmetic(*options.gradientFormat, "the gradient format");
    requireFinite(options.initialWeight, "the initial weight");
    requireFinite(options.learningRate, "the learning rate");
    for (std::size_t t = 0; t < gradients.size(); ++t)
        requireFinite(gradients[t], "gradient " + std::to_string(t));

    const RoundingOptions& rounding = options.rounding;
    const std::uint64_t seed = options.seed;
    const std::uint64_t castSeed = streamOf(seed, SgdStream::Cast);
    const std::uint64_t gradientSeed = streamOf(seed, SgdStream::Gradient);
    const std::uint64_t initialSeed = streamOf(seed, SgdStream::Initial);
    const std::uint64_t updateSeed = streamOf(seed, SgdStream::Update);

    SgdRun run;
    run.format = format;
    run.master = master;
    // `updated` is the value the optimizer steps: the master copy when there is one.
    const FormatSpec& updatedFormat = master ? *master : format;
    ExactValue working =
        roundedValue(options.initialWeight, format, rounding, stochasticBits(initialSeed, 0));
    ExactValue updated = master ? roundedValue(options.initialWeight, *master, rounding,
                                               stochasticBits(initialSeed, 1))
                                : working;
    ExactValue gradientSum; // Σ g_s over the steps so far, exact

    const std::size_t steps = gradients.size();
    const std::vector<std::size_t> sampled = sampledSteps(steps, options.trajectoryPoints);
    std::size_t nextSample = 0;
    auto record = [&](std::size_t step) {
        if (nextSample == sampled.size() || sampled[nextSample] != step)
            return;
        ++nextSample;
        const ExactValue exact = options.initialWeight - options.learningRate * gradientSum;
        run.trajectory.push_back({step, nearestDouble(working), nearestDouble(exact)});
    };
    run.trajectory.reserve(sampled.size());
    record(0);
    for (std::size_t t = 0; t < steps; ++t) {
        const ExactValue& given = gradients[t];
        const ExactValue gradient = options.gradientFormat
                                        ? roundedValue(given, *options.gradientFormat, rounding,
                                                       stochasticBits(gradientSeed, t))
                                        : given;
        const ExactValue update = options.learningRate * gradient;
        const ExactValue next =
            roundedValue(updated - update, updatedFormat, rounding, stochasticBits(updateSeed, t));
        if (!update.isZero() && sameValue(next, updated))
            ++run.lostUpdates;
        updated = next;
        working =
            master ? roundedValue(updated, format, rounding, stochasticBits(castSeed, t)) : updated;
        gradientSum = gradientSum + given;
        record(t + 1);
    }
    run.finalWeight = working;
    run.finalExact = options.initialWeight - options.learningRate * gradientSum;
    run.error = run.finalWeight - run.finalExact;
    return run;
}

} // namespace fpx
