// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/rounding.h"

class QComboBox;

namespace fpx::gui {

// The rounding-mode and overflow-policy selectors, with a tooltip per entry explaining the
// concept; the explorer and the Arithmetic page show the same choices. A rounding item's data
// is its choice's id ("rne", "sr:8"); an overflow item's the policy as int. Stochastic
// rounding with 8 and 4 random bits (sr:8, sr:4, as hardware rounds) follows plain "sr"; any
// other choice is added where it is shown.
void addRoundingModeItems(QComboBox& box);
RoundingChoice roundingChoiceAt(const QComboBox& box, int index);
// Which overflow policies a page offers: every one, or the two its computation implements (the
// range fit's zones, like the benchmarks, know IEEE and saturation only).
enum class OverflowChoices { All, IeeeAndSaturate };
void addOverflowPolicyItems(QComboBox& box, OverflowChoices choices = OverflowChoices::All);
// A selector asks for its whole text but gives way to about fourteen characters (its text cut)
// where the page is narrow: 1.5 × scaling on a 1024-pixel projector, beside the Lessons panel.
void letNarrow(QComboBox& box);
// Selects the entry of `mode` / `policy` without emitting a change.
void showRoundingChoice(QComboBox& box, const RoundingChoice& choice);
void showOverflowPolicy(QComboBox& box, OverflowPolicy policy);

} // namespace fpx::gui
