// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// One gradient through one step of mixed-precision training, as NVIDIA's recipe runs it
// (docs/behaviour.md, "The mixed-precision step"): an FP32 master weight and its FP16 copy, the
// loss scaled by S, the gradient S·g out of the FP16 backward pass, unscaled in FP32, checked
// for ∞ and NaN (a step that has one is skipped and S halved), clipped and decayed, the master
// updated and copied to FP16 again. Every stage's value is computed exactly from the values
// before it and rounded once into the stage's format (roundToFormat, nearest even, IEEE
// overflow); the half and master formats are parameters (FP16 or BF16, FP32).
struct MixedPrecisionInputs {
    ExactValue gradient;                // dL/dw of the unscaled loss
    ExactValue lossScale;               // S, held in the master format
    ExactValue weight;                  // rounded into the master format
    ExactValue learningRate;            // exact, as written
    std::optional<ExactValue> clipNorm; // c > 0: a gradient with |g| > c becomes sign(g)·c
    ExactValue weightDecay;             // λ ≥ 0: the gradient plus λ·w (SGD's L2 decay)
    FormatSpec half;                    // the forward and backward passes' format
    FormatSpec master;                  // the master weight's, the scale's and the update's
};

// The first preset's: gradient 1e-8, S = 65536, w = 0.01, lr = 0.1, FP16 and FP32.
MixedPrecisionInputs defaultMixedPrecisionInputs();

// The stages, in the order the gradient meets them. `recipeStep` names NVIDIA's step.
enum class PipelineStage {
    MasterWeight,   // 1: the FP32 master copy of the weight
    HalfWeight,     // 2, 3: its FP16 copy, which the forward pass reads
    LossScale,      // 4: the loss multiplied by S
    ScaledGradient, // 5: S·g out of the FP16 backward pass
    Unscaled,       // 6: multiplied by 1/S, in FP32
    Check,          // dynamic scaling: ∞/NaN skips the step; the value is the next S
    Processed,      // 7: clipped and decayed, in FP32
    MasterUpdate,   // 7: w − lr·g into the FP32 master
    NextHalfCopy,   // 2 of the next step: the new master copied to FP16
};
inline constexpr int kPipelineStageCount = 9;

// "master-weight", "half-weight", "loss-scale", "scaled-gradient", "unscaled", "check",
// "processed", "master-update", "next-half-copy".
std::string_view pipelineStageId(PipelineStage stage);
// The step of NVIDIA's recipe a stage is: 1 … 7 (the FP16 copy is 2, read by 3; the next
// copy is the next step's 2); 0 for the check, which dynamic loss scaling adds.
int recipeStep(PipelineStage stage);

// What happened to the value at a stage.
enum class StageOutcome {
    Exact,        // held exactly
    Rounded,      // rounded to a normal value
    Subnormal,    // rounded into the subnormals: fewer significant bits
    Flushed,      // a non-zero value rounded to 0
    Overflow,     // a finite value too large: ±∞ (or NaN where the format has no ∞)
    NotFinite,    // ∞ or NaN carried from an earlier stage
    Passed,       // the check found a finite gradient: the step goes on
    Skipped,      // the check found ∞/NaN, or an earlier stage did: nothing is updated
    UpdateKept,   // the master moved
    UpdateLost,   // lr·g ≠ 0 but the master did not move (below half its gap)
    NoUpdate,     // lr·g = 0
    CopyMoved,    // the FP16 copy moved with the master
    CopyUnchanged // the master moved, its FP16 copy did not: the update lives on in the master
};
// "exact", "rounded", "subnormal", "flushed", "overflow", "not-finite", "passed", "skipped",
// "update-kept", "update-lost", "no-update", "copy-moved", "copy-unchanged".
std::string_view stageOutcomeId(StageOutcome outcome);

struct MixedPrecisionStage {
    PipelineStage stage = PipelineStage::MasterWeight;
    std::string name;   // "Backward, S·g"
    FormatSpec format;  // the format the stage's value is held in
    ExactValue exact;   // the exact value the stage computed, before its one rounding
    Conversion rounded; // that value rounded into `format`: the code and its flags
    ExactValue value;   // the code's value (NaN for a NaN code)
    StageOutcome outcome = StageOutcome::Exact;
    std::string note; // what happened, in words
};

struct MixedPrecisionStep {
    MixedPrecisionInputs inputs;
    std::vector<MixedPrecisionStage> stages; // kPipelineStageCount, in PipelineStage order
    bool skipped = false;                    // the check found ∞ or NaN
    ExactValue nextScale;                    // S for the next step: S/2 after a skip, else S
    std::string summary;                     // the story of the step in one sentence

    const MixedPrecisionStage& at(PipelineStage stage) const;
};

// The input a refused step names, so that a front end can point at its field.
enum class MixedPrecisionInput { Gradient, Scale, Weight, LearningRate, Clip, Decay, Half, Master };
struct MixedPrecisionInputError : std::invalid_argument {
    MixedPrecisionInputError(MixedPrecisionInput which, const std::string& message)
        : std::invalid_argument(message), input(which) {}
    MixedPrecisionInput input;
};

// Runs the step. Throws MixedPrecisionInputError when the gradient, weight or learning rate is
// not finite, S is not positive or not finite in the master format, the clip norm is not
// positive, the decay negative, a format is not a binary float with arithmetic, or the weight
// or its update overflows the master format.
MixedPrecisionStep runMixedPrecisionStep(const MixedPrecisionInputs& inputs);

// The stories the Training page and `fpx mixed-precision --preset` start from.
struct MixedPrecisionPreset {
    std::string_view id;      // "survives"
    std::string_view title;   // "Gradient 1e-8, S = 2^16: survives"
    std::string_view summary; // one sentence
    MixedPrecisionInputs inputs;
};
// survives, flushed, overflow, master-keeps, clip-decay; FP16 and FP32.
const std::vector<MixedPrecisionPreset>& mixedPrecisionPresets();
const MixedPrecisionPreset* findMixedPrecisionPreset(std::string_view id);

} // namespace fpx
