// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/rounding.h"

class QComboBox;

namespace fpx::gui {

// The rounding-mode and overflow-policy selectors, with a tooltip per entry explaining the
// concept; the explorer and the Arithmetic page show the same choices. Item data is the enum
// value as int.
void addRoundingModeItems(QComboBox& box);
// Which overflow policies a page offers: every one, or the two its computation implements (the
// range fit's zones, like the benchmarks, know IEEE and saturation only).
enum class OverflowChoices { All, IeeeAndSaturate };
void addOverflowPolicyItems(QComboBox& box, OverflowChoices choices = OverflowChoices::All);
// Selects the entry of `mode` / `policy` without emitting a change.
void showRoundingMode(QComboBox& box, RoundingMode mode);
void showOverflowPolicy(QComboBox& box, OverflowPolicy policy);

} // namespace fpx::gui
