// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"

#include <QString>
#include <QVariantList>

#include <optional>

namespace fpx::gui {

// The Training page as options and lessons set it: each field that is set is applied, the
// others are left as they are (TrainingPage::apply). The source and formats are the range
// view's; TrainingPage::state() sets the view, the loss scale, the range view's source (a file,
// or a distribution with its count and seed) and formats, the master-weights view's update rule
// and the pipeline view's fields.
struct TrainingPageState {
    enum class View { Range, LossScale, Fp8, MasterWeights, Pipeline };

    std::optional<View> view;
    std::optional<int> lossScaleExponent; // S = 2^k
    std::optional<QString> input;         // "PATH" or "PATH:TENSOR"
    std::optional<QString> dist;
    std::optional<qulonglong> count;
    std::optional<qulonglong> seed;
    std::optional<QString> formats; // comma-separated
    // The master-weights view's update rule: a built-in's name or a formula.
    std::optional<QString> update;
    // The pipeline view: a story (preset) first, then the fields given, as written; the clip
    // norm "none" for no clipping, the passes' format fp16 or bf16.
    std::optional<QString> pipelinePreset;
    std::optional<QString> pipelineGradient;
    std::optional<QString> pipelineScale;
    std::optional<QString> pipelineWeight;
    std::optional<QString> pipelineLr;
    std::optional<QString> pipelineClip;
    std::optional<QString> pipelineDecay;
    std::optional<QString> pipelineHalf;
    // The loss-scale, FP8 and master-weights forms whole, as ViewFrame::formValues reads them:
    // no option names their fields one by one, yet a lesson's reset must undo what the user
    // typed there. The update rule above is applied after the master-weights form.
    std::optional<QVariantList> lossScaleForm;
    std::optional<QVariantList> fp8Form;
    std::optional<QVariantList> weightsForm;
};

} // namespace fpx::gui
