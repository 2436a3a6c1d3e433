// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"

#include <QString>

#include <optional>

namespace fpx::gui {

// The Training page as options and lessons set it: each field that is set is applied, the
// others are left as they are (TrainingPage::apply). The source and formats are the range
// view's; TrainingPage::state() sets the view, the loss scale, the range view's formats and
// the master-weights view's update rule.
struct TrainingPageState {
    enum class View { Range, LossScale, Fp8, MasterWeights };

    std::optional<View> view;
    std::optional<int> lossScaleExponent; // S = 2^k
    std::optional<QString> input;         // "PATH" or "PATH:TENSOR"
    std::optional<QString> dist;
    std::optional<qulonglong> count;
    std::optional<qulonglong> seed;
    std::optional<QString> formats; // comma-separated
    // The master-weights view's update rule: a built-in's name or a formula.
    std::optional<QString> update;
};

} // namespace fpx::gui
