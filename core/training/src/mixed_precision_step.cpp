// SPDX-License-Identifier: GPL-3.0-or-later
// One gradient through one step of mixed-precision training, each stage computed exactly and
// rounded once (docs/behaviour.md, "The mixed-precision step").
#include "fpx/training/mixed_precision_step.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/code_details.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/value_parser.h"

#include <cctype>
#include <stdexcept>

namespace fpx {

namespace {

// Nearest even with IEEE overflow: what a framework's cast and FP32 arithmetic do.
constexpr RoundingOptions kRounding{RoundingMode::NearestEven, OverflowPolicy::Ieee, 0};

ExactValue half() {
    return ExactValue::dyadic(false, 1, -1);
}

// A short form for the notes: six significant digits, and 2^k where the value is one.
std::string brief(const ExactValue& v) {
    std::string text = toSignificantDigits(v, 6);
    // Powers of two far enough from 1 that the exponent says more than the digits.
    if (v.isFinite() && !v.isZero() && v.numerator() == 1 && v.denominator() == 1 &&
        (v.exponent2() < -3 || v.exponent2() > 10)) {
        const std::string power = (v.isNegative() ? "-2^" : "2^") + std::to_string(v.exponent2());
        if (power != text)
            text += " = " + power;
    }
    return text;
}

std::string upper(const FormatSpec& spec) {
    std::string name = spec.id;
    for (char& c : name)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return name;
}

// |rounded − exact| / |exact|, two digits.
std::string relativeErrorText(const ExactValue& rounded, const ExactValue& exact) {
    return toSignificantDigits((rounded - exact).abs() / exact.abs(), 2);
}

// Significant bits a subnormal keeps: the length of its stored fraction.
int subnormalBits(const DecodedCode& decoded) {
    int bits = 0;
    for (Code f = decoded.significandField; f != 0; f >>= 1)
        ++bits;
    return bits;
}

// How rounding `exact` into `format` went, and the words for it.
struct Rounding {
    Conversion conversion;
    ExactValue value;
    StageOutcome outcome = StageOutcome::Exact;
    std::string words;
};

Rounding roundStage(const ExactValue& exact, const FormatSpec& format) {
    Rounding r;
    r.conversion = roundToFormat(exact, format, kRounding);
    const DecodedCode decoded = decodeCode(format, r.conversion.code);
    r.value = decoded.value;
    const std::string name = upper(format);
    if (!exact.isFinite()) {
        r.outcome = StageOutcome::NotFinite;
        r.words =
            std::string(exact.isNaN() ? "NaN" : "∞") + " stays " + (exact.isNaN() ? "NaN" : "∞");
        return r;
    }
    const FormatLimits limits = deriveLimits(format);
    if (r.conversion.flags.overflow) {
        r.outcome = StageOutcome::Overflow;
        r.words = "above " + name + "'s largest value " + brief(limits.max) + ": overflow to " +
                  (r.value.isNaN() ? "NaN" : "∞");
        return r;
    }
    if (!r.conversion.flags.inexact) {
        r.outcome = StageOutcome::Exact;
        r.words = decoded.valueClass == ValueClass::Subnormal ? "exact in " + name + ", a subnormal"
                                                              : "exact in " + name;
        return r;
    }
    if (r.value.isZero()) {
        r.outcome = StageOutcome::Flushed;
        r.words = "below half of " + name + "'s smallest subnormal " + brief(limits.minPositive) +
                  ": flushed to 0";
        return r;
    }
    if (decoded.valueClass == ValueClass::Subnormal) {
        r.outcome = StageOutcome::Subnormal;
        r.words = "subnormal in " + name + ": " + std::to_string(subnormalBits(decoded)) +
                  " significant bits of " + std::to_string(format.precision()) +
                  ", relative error " + relativeErrorText(r.value, exact);
        return r;
    }
    r.outcome = StageOutcome::Rounded;
    r.words = "rounded to the nearest " + name + " value, relative error " +
              relativeErrorText(r.value, exact);
    return r;
}

MixedPrecisionStage makeStage(PipelineStage stage, std::string name, const FormatSpec& format,
                              const ExactValue& exact, const Rounding& rounding) {
    MixedPrecisionStage s;
    s.stage = stage;
    s.name = std::move(name);
    s.format = format;
    s.exact = exact;
    s.rounded = rounding.conversion;
    s.value = rounding.value;
    s.outcome = rounding.outcome;
    s.note = rounding.words;
    return s;
}

// Half the gap from `value` (a code of `format`) to its neighbour in the direction of `step`
// (negative: down), or nullopt where that neighbour is not finite.
std::optional<ExactValue> halfGap(const FormatSpec& format, const ExactValue& value,
                                  const ExactValue& step) {
    const Conversion code = roundToFormat(value, format, kRounding);
    const std::optional<Neighbour> next =
        step.isNegative() ? nextDown(format, code.code) : nextUp(format, code.code);
    if (!next || !next->value.isFinite())
        return std::nullopt;
    return (next->value - value).abs() * half();
}

std::string belowHalfGap(const FormatSpec& format, const ExactValue& value,
                         const ExactValue& step) {
    const std::optional<ExactValue> gap = halfGap(format, value, step);
    return gap ? " is below half the gap from " + brief(value) + " to its " + upper(format) +
                     " neighbour (" + brief(*gap) + ")"
               : " does not move " + brief(value) + " in " + upper(format);
}

void check(bool ok, MixedPrecisionInput input, const std::string& message) {
    if (!ok)
        throw MixedPrecisionInputError(input, message);
}

void checkFormat(const FormatSpec& format, MixedPrecisionInput input, const char* role) {
    check(format.kind == FormatKind::BinaryFloat && !arithmeticUnsupported(format), input,
          std::string(role) + " format " + format.id +
              ": use a binary float with arithmetic (fp16, bf16, fp32, …)");
}

// The step in one sentence, from the stages' outcomes: what a lecturer says over the view.
std::string summaryOf(const MixedPrecisionStep& step) {
    const std::string half = upper(step.inputs.half);
    const std::string master = upper(step.inputs.master);
    const std::string next = brief(step.nextScale);
    if (step.skipped)
        return "Step skipped: S·g overflowed " + half +
               ", so the weights stay and the next step uses S = " + next + ".";
    const MixedPrecisionStage& scaled = step.at(PipelineStage::ScaledGradient);
    if (scaled.outcome == StageOutcome::Flushed)
        return "The gradient " + brief(step.inputs.gradient) + " was flushed to 0 in the " + half +
               " backward pass: the weight learns nothing; a larger S keeps it.";
    std::string text = "Step taken";
    if (scaled.outcome == StageOutcome::Subnormal)
        text += ", the gradient subnormal in " + half;
    switch (step.at(PipelineStage::NextHalfCopy).outcome) {
    case StageOutcome::CopyUnchanged:
        return text + ": the " + master + " master moved, the " + half +
               " copy not yet; the master keeps the update.";
    case StageOutcome::CopyMoved:
        return text + ": the " + master + " master and its " + half + " copy moved.";
    default:
        break;
    }
    if (step.at(PipelineStage::MasterUpdate).outcome == StageOutcome::UpdateLost)
        return text + ", but the update is lost even in the " + master + " master.";
    return text + ": nothing to update.";
}

} // namespace

std::string_view pipelineStageId(PipelineStage stage) {
    switch (stage) {
    case PipelineStage::MasterWeight:
        return "master-weight";
    case PipelineStage::HalfWeight:
        return "half-weight";
    case PipelineStage::LossScale:
        return "loss-scale";
    case PipelineStage::ScaledGradient:
        return "scaled-gradient";
    case PipelineStage::Unscaled:
        return "unscaled";
    case PipelineStage::Check:
        return "check";
    case PipelineStage::Processed:
        return "processed";
    case PipelineStage::MasterUpdate:
        return "master-update";
    case PipelineStage::NextHalfCopy:
        return "next-half-copy";
    }
    return "?";
}

int recipeStep(PipelineStage stage) {
    switch (stage) {
    case PipelineStage::MasterWeight:
        return 1;
    case PipelineStage::HalfWeight:
        return 2;
    case PipelineStage::LossScale:
        return 4;
    case PipelineStage::ScaledGradient:
        return 5;
    case PipelineStage::Unscaled:
        return 6;
    case PipelineStage::Check:
        return 0;
    case PipelineStage::Processed:
    case PipelineStage::MasterUpdate:
        return 7;
    case PipelineStage::NextHalfCopy:
        return 2;
    }
    return 0;
}

std::string_view stageOutcomeId(StageOutcome outcome) {
    switch (outcome) {
    case StageOutcome::Exact:
        return "exact";
    case StageOutcome::Rounded:
        return "rounded";
    case StageOutcome::Subnormal:
        return "subnormal";
    case StageOutcome::Flushed:
        return "flushed";
    case StageOutcome::Overflow:
        return "overflow";
    case StageOutcome::NotFinite:
        return "not-finite";
    case StageOutcome::Passed:
        return "passed";
    case StageOutcome::Skipped:
        return "skipped";
    case StageOutcome::UpdateKept:
        return "update-kept";
    case StageOutcome::UpdateLost:
        return "update-lost";
    case StageOutcome::NoUpdate:
        return "no-update";
    case StageOutcome::CopyMoved:
        return "copy-moved";
    case StageOutcome::CopyUnchanged:
        return "copy-unchanged";
    }
    return "?";
}

MixedPrecisionInputs defaultMixedPrecisionInputs() {
    return mixedPrecisionPresets().front().inputs;
}

const MixedPrecisionStage& MixedPrecisionStep::at(PipelineStage stage) const {
    return stages.at(static_cast<std::size_t>(stage));
}

MixedPrecisionStep runMixedPrecisionStep(const MixedPrecisionInputs& in) {
    checkFormat(in.half, MixedPrecisionInput::Half, "the half");
    checkFormat(in.master, MixedPrecisionInput::Master, "the master");
    check(in.gradient.isFinite(), MixedPrecisionInput::Gradient, "the gradient must be finite");
    check(in.weight.isFinite(), MixedPrecisionInput::Weight, "the weight must be finite");
    check(in.learningRate.isFinite(), MixedPrecisionInput::LearningRate,
          "the learning rate must be finite");
    check(in.lossScale.isFinite() && !in.lossScale.isNegative() && !in.lossScale.isZero(),
          MixedPrecisionInput::Scale, "the loss scale must be a positive number");
    check(!in.clipNorm ||
              (in.clipNorm->isFinite() && !in.clipNorm->isNegative() && !in.clipNorm->isZero()),
          MixedPrecisionInput::Clip, "the clip norm must be a positive number");
    check(in.weightDecay.isFinite() && !in.weightDecay.isNegative(), MixedPrecisionInput::Decay,
          "the weight decay must be zero or positive");

    MixedPrecisionStep out;
    out.inputs = in;
    const std::string halfName = upper(in.half);
    const std::string masterName = upper(in.master);

    // 1. The master weight: the weight as written, rounded once into FP32.
    const Rounding master = roundStage(in.weight, in.master);
    check(master.value.isFinite(), MixedPrecisionInput::Weight,
          "the weight overflows " + masterName);
    out.stages.push_back(makeStage(PipelineStage::MasterWeight, masterName + " master", in.master,
                                   in.weight, master));
    const ExactValue& w = master.value;

    // 2, 3. Its copy in the half format, read by the forward pass.
    Rounding copy = roundStage(w, in.half);
    copy.words = "the forward pass reads this copy; " + copy.words;
    out.stages.push_back(
        makeStage(PipelineStage::HalfWeight, halfName + " copy", in.half, w, copy));

    // 4. The loss times S: S is held in FP32, as GradScaler's scale tensor is.
    Rounding scale = roundStage(in.lossScale, in.master);
    check(scale.value.isFinite() && !scale.value.isZero(), MixedPrecisionInput::Scale,
          "the loss scale " + brief(in.lossScale) + " is not a positive " + masterName + " number");
    scale.words =
        "the loss is multiplied by S, so by the chain rule every gradient is; S: " + scale.words;
    out.stages.push_back(
        makeStage(PipelineStage::LossScale, "Loss × S", in.master, in.lossScale, scale));
    const ExactValue& s = scale.value;

    // 5. The backward pass of the scaled loss yields S·g, held in the half format.
    const ExactValue scaledExact = s * in.gradient;
    Rounding scaled = roundStage(scaledExact, in.half);
    std::string scaledWords = "S·g = " + brief(scaledExact) + ": " + scaled.words;
    if (scaled.outcome == StageOutcome::Flushed)
        scaledWords += "; the weight learns nothing this step";
    else if (scaled.outcome == StageOutcome::Overflow)
        scaledWords += "; the check will skip the step";
    scaled.words = std::move(scaledWords);
    out.stages.push_back(
        makeStage(PipelineStage::ScaledGradient, "Backward, S·g", in.half, scaledExact, scaled));

    // 6. Unscaled in FP32: the half-format value divided by S exactly, rounded once.
    const ExactValue unscaledExact = scaled.value / s;
    Rounding unscaled = roundStage(unscaledExact, in.master);
    if (unscaled.value.isFinite() && !in.gradient.isZero() && !unscaled.value.isZero())
        unscaled.words += "; against the true gradient " + brief(in.gradient) +
                          ", relative error " + relativeErrorText(unscaled.value, in.gradient);
    else if (unscaled.value.isZero() && !in.gradient.isZero())
        unscaled.words = "0: the gradient " + brief(in.gradient) + " was lost in the backward pass";
    out.stages.push_back(
        makeStage(PipelineStage::Unscaled, "Unscale × 1/S", in.master, unscaledExact, unscaled));
    const ExactValue& u = unscaled.value;

    // The check: ∞ or NaN skips the step and halves S (GradScaler's backoff); otherwise S stays
    // until a run of clean steps doubles it.
    out.skipped = !u.isFinite();
    const ExactValue nextExact = out.skipped ? s * half() : s;
    Rounding next = roundStage(nextExact, in.master);
    out.nextScale = next.value;
    if (out.skipped) {
        next.outcome = StageOutcome::Skipped;
        next.words = std::string(u.isNaN() ? "NaN" : "∞") +
                     " found: the step is skipped (no update) and S is halved to " +
                     brief(next.value);
    } else {
        next.outcome = StageOutcome::Passed;
        next.words = "finite: the step goes on; S stays " + brief(next.value) +
                     " (GradScaler doubles it after 2000 steps without ∞ or NaN)";
    }
    out.stages.push_back(
        makeStage(PipelineStage::Check, "Check, next S", in.master, nextExact, next));

    if (out.skipped) {
        // Nothing after the check runs: the gradient is dropped, both weights stay.
        auto skippedStage = [&](PipelineStage stage, std::string name, const FormatSpec& format,
                                const ExactValue& value, std::string words) {
            Rounding r = roundStage(value, format);
            r.outcome = StageOutcome::Skipped;
            r.words = std::move(words);
            out.stages.push_back(makeStage(stage, std::move(name), format, value, r));
        };
        skippedStage(PipelineStage::Processed, "Clip and decay", in.master, u,
                     "skipped: the gradient is dropped");
        skippedStage(PipelineStage::MasterUpdate, "Master update", in.master, w,
                     "skipped: the master is not updated");
        skippedStage(PipelineStage::NextHalfCopy, "Next " + halfName + " copy", in.half, w,
                     "skipped: the copy stays as it was");
        out.summary = summaryOf(out);
        return out;
    }

    // 7a. Clipping (one gradient: its norm is |u|) and SGD's L2 decay, exactly, rounded once.
    ExactValue processedExact = u;
    std::vector<std::string> done;
    if (in.clipNorm && compare(u.abs(), *in.clipNorm) > 0) {
        processedExact = in.clipNorm->withSign(u.isNegative());
        done.push_back("clipped to " + brief(processedExact));
    }
    if (!in.weightDecay.isZero()) {
        const ExactValue decay = in.weightDecay * w;
        processedExact = processedExact + decay;
        done.push_back("plus λ·w = " + brief(decay));
    }
    Rounding processed = roundStage(processedExact, in.master);
    if (done.empty()) {
        processed.words = "no clipping or decay: the gradient as unscaled";
    } else {
        std::string words;
        for (const std::string& d : done)
            words += (words.empty() ? "" : ", ") + d;
        processed.words = words + "; " + processed.words;
    }
    out.stages.push_back(makeStage(PipelineStage::Processed, "Clip and decay", in.master,
                                   processedExact, processed));
    const ExactValue& p = processed.value;

    // 7b. The master update w − lr·p, exactly, rounded once into FP32.
    const ExactValue step = in.learningRate * p;
    const ExactValue updatedExact = w - step;
    Rounding updated = roundStage(updatedExact, in.master);
    check(updated.value.isFinite(), MixedPrecisionInput::LearningRate,
          "the updated weight overflows " + masterName);
    const bool masterMoved = compare(updated.value, w) != 0;
    if (step.isZero()) {
        updated.outcome = StageOutcome::NoUpdate;
        updated.words = "lr·g = 0: nothing to update";
    } else if (!masterMoved) {
        updated.outcome = StageOutcome::UpdateLost;
        updated.words = "lr·g = " + brief(step) + belowHalfGap(in.master, w, step.negated()) +
                        ": the update is lost";
    } else {
        updated.outcome = StageOutcome::UpdateKept;
        updated.words = "w − lr·g = " + brief(updatedExact) + ": " + updated.words +
                        "; the master moves by " + brief(updated.value - w);
    }
    out.stages.push_back(
        makeStage(PipelineStage::MasterUpdate, "Master update", in.master, updatedExact, updated));

    // 2 of the next step: the new master copied into the half format.
    Rounding nextCopy = roundStage(updated.value, in.half);
    const bool copyMoved = compare(nextCopy.value, copy.value) != 0;
    if (!masterMoved) {
        nextCopy.outcome = StageOutcome::NoUpdate;
        nextCopy.words = "the master did not move: the copy stays " + brief(copy.value);
    } else if (!copyMoved) {
        nextCopy.outcome = StageOutcome::CopyUnchanged;
        // Held in the half format alone, the step is w16 − lr·g rounded there.
        const bool lostInHalf =
            compare(roundedInto(copy.value - step, in.half, kRounding), copy.value) == 0;
        nextCopy.words =
            "the copy stays " + brief(copy.value) + ": the update " + brief(step) +
            (lostInHalf ? belowHalfGap(in.half, copy.value, step.negated()) +
                              ", lost if the weight were held in " + halfName + " alone"
                        : " does not show in " + halfName + " yet") +
            "; the " + masterName + " master keeps it";
    } else {
        nextCopy.outcome = StageOutcome::CopyMoved;
        nextCopy.words = "the copy moves from " + brief(copy.value) + " to " +
                         brief(nextCopy.value) + "; " + nextCopy.words;
    }
    out.stages.push_back(makeStage(PipelineStage::NextHalfCopy, "Next " + halfName + " copy",
                                   in.half, updated.value, nextCopy));
    out.summary = summaryOf(out);
    return out;
}

const std::vector<MixedPrecisionPreset>& mixedPrecisionPresets() {
    static const std::vector<MixedPrecisionPreset> presets = [] {
        auto value = [](const char* text) {
            // The presets' numbers are written as decimals, read exactly.
            return *parseValue(text).value;
        };
        MixedPrecisionInputs base;
        base.half = *findFormat("fp16").spec;
        base.master = fp32Spec();
        auto make = [&](const char* gradient, const char* scale, const char* weight,
                        const char* lr) {
            MixedPrecisionInputs in = base;
            in.gradient = value(gradient);
            in.lossScale = value(scale);
            in.weight = value(weight);
            in.learningRate = value(lr);
            return in;
        };
        std::vector<MixedPrecisionPreset> list;
        list.push_back({"survives", "Gradient 1e-8, S = 2^16: survives",
                        "Scaled by 65536 the gradient 1e-8 is a normal FP16 number; unscaled in "
                        "FP32 it is 1e-8 again, to FP16's precision.",
                        make("1e-8", "65536", "0.01", "0.1")});
        list.push_back({"flushed", "Gradient 1e-8, S = 1: flushed to 0",
                        "Without loss scaling the gradient 1e-8 is below half of FP16's "
                        "smallest subnormal and the backward pass flushes it to 0.",
                        make("1e-8", "1", "0.01", "0.1")});
        list.push_back({"overflow", "Gradient 4, S = 2^16: overflow, step skipped",
                        "4 × 65536 is above FP16's largest value 65504: the scaled gradient is "
                        "∞, the check skips the step and halves S.",
                        make("4", "65536", "0.01", "0.1")});
        list.push_back({"master-keeps", "Update 1e-4 on w = 1: lost in FP16, kept in FP32",
                        "lr·g = 1e-4 is below half FP16's gap below 1: the FP16 copy stays 1, "
                        "the FP32 master moves to 0.9999.",
                        make("0.1", "65536", "1", "0.001")});
        MixedPrecisionInputs clipped = make("4", "1024", "1", "0.1");
        clipped.clipNorm = ExactValue::integer(1);
        clipped.weightDecay = value("0.01");
        list.push_back({"clip-decay", "Gradient 4 clipped to 1, decay 0.01",
                        "The unscaled gradient 4 is clipped to the norm 1 and gets λ·w = 0.01 "
                        "added, in FP32, before the update.",
                        std::move(clipped)});
        return list;
    }();
    return presets;
}

const MixedPrecisionPreset* findMixedPrecisionPreset(std::string_view id) {
    for (const MixedPrecisionPreset& preset : mixedPrecisionPresets())
        if (preset.id == id)
            return &preset;
    return nullptr;
}

} // namespace fpx
