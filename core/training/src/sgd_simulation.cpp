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

// One step of the update rule: its formula evaluated with w, lr and g bound and F the stepped
// format, then rounded into that format unless the formula's last step already is.
class RuleStep {
  public:
    RuleStep(const UpdateRule& rule, const FormatSpec& stepped, const SgdOptions& options,
             std::size_t steps)
        : stepped_(stepped), options_(options), steps_(steps) {
        if (auto why = rule.unsupported(stepped))
            throw std::invalid_argument("simulateSgd: " + *why);
        formula_ = rule.formulaFor(stepped);
        // The default rule is round_F(w − lr·g) by its formula; computed so directly, a long
        // run costs what one rounding a step costs.
        direct_ = rule.builtin() && rule.name == exactUpdateRule().name;
        const Expression& root = formula_->expression;
        settled_ = root.kind == Expression::Kind::Rounding && !root.format && root.slot == 0;
        bindings_.variables.resize(3);
        bindings_.variables[1] = options.learningRate;
        bindings_.formats = {stepped};
        evaluation_.rounding = options.rounding;
        evaluation_.trace = false;
        updateSeed_ = streamOf(options.seed, SgdStream::Update);
        settleSeed_ = streamOf(options.seed, SgdStream::Settle);
        // The exact rule's one rounding draws what the update of step t always drew.
        evaluation_.randomBits = [this](std::size_t k) {
            return stochasticBits(k == 0 ? updateSeed_ : streamSeed(updateSeed_, k), step_);
        };
    }

    // `update` is lr·g, exact.
    ExactValue operator()(std::size_t t, const ExactValue& weight, const ExactValue& gradient,
                          const ExactValue& update) {
        if (direct_)
            return roundedValue(weight - update, stepped_, options_.rounding,
                                stochasticBits(updateSeed_, t));
        step_ = t;
        bindings_.variables[0] = weight;
        bindings_.variables[2] = gradient;
        const ExplicitEvaluation e =
            evaluateExplicitly(formula_->expression, bindings_, evaluation_);
        if (e.error)
            throw std::invalid_argument("simulateSgd: the update rule at column " +
                                        std::to_string(e.error->position + 1) + ": " +
                                        e.error->message);
        work_ += e.work;
        // The steps cost alike (w is a value of its format, lr and g are as given), so the
        // first step's cost tells the run's; the running total holds the bound regardless.
        if ((t == 0 && e.work * static_cast<double>(steps_) > kMaxSgdRuleWork) ||
            work_ > kMaxSgdRuleWork)
            throw std::invalid_argument("simulateSgd: the update rule is too costly to compute "
                                        "exactly over " +
                                        std::to_string(steps_) + " steps (simplify it)");
        if (settled_)
            return e.value;
        return roundedValue(e.value, stepped_, options_.rounding, stochasticBits(settleSeed_, t));
    }

  private:
    const FormatSpec& stepped_;
    const SgdOptions& options_;
    std::size_t steps_;
    const UpdateFormula* formula_ = nullptr;
    bool direct_ = false;
    bool settled_ = false;
    ExplicitBindings bindings_;
    ExplicitOptions evaluation_;
    std::uint64_t updateSeed_ = 0;
    std::uint64_t settleSeed_ = 0;
    std::size_t step_ = 0;
    double work_ = 0;
};

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

    SgdRun run;
    run.format = format;
    run.master = master;
    // `updated` is the value the optimizer steps: the master copy when there is one.
    const FormatSpec& updatedFormat = master ? *master : format;
    const UpdateRule& rule = options.update ? *options.update : exactUpdateRule();
    RuleStep step(rule, updatedFormat, options, gradients.size());
    run.updateRule = rule.name;
    run.updateFormula = rule.expandedFormula(updatedFormat);
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
        const ExactValue next = step(t, updated, gradient, update);
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
