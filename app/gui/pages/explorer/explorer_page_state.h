// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"

#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "plot_request.h"

#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace fpx::gui {

// The Explorer page as options and lessons set it: each field that is set is applied, the
// others are left as they are (ExplorerPage::apply); ExplorerPage::state() sets every field.
struct ExplorerPageState {
    enum class Tab { Details, Plots };

    std::optional<QString> value; // as typed; a bad one is shown in the value field
    std::optional<std::vector<FormatSpec>> formats;
    std::optional<RoundingChoice> round;
    std::optional<OverflowPolicy> overflow;
    std::optional<std::string> select;   // the id of a shown format whose row is selected
    std::optional<plots::PlotKind> plot; // shows the Plots tab
    std::optional<Tab> tab;
    std::optional<QString> params; // the memory plot's parameter count ("70B")
    std::optional<std::vector<TrainingRecipe>> memoryRecipes; // empty: inference
    std::optional<QString> adapterParams;                     // QLoRA's adapters ("0.5%")
    std::optional<bool> gib;
    std::optional<std::pair<QString, QString>> plotRange;
};

} // namespace fpx::gui
