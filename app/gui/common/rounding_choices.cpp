// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/rounding_choices.h"

#include <QComboBox>
#include <QObject>
#include <QSignalBlocker>

namespace fpx::gui {

namespace {

struct ModeItem {
    RoundingMode mode;
    const char* label;
    const char* tip;
};

constexpr ModeItem kModeItems[] = {
    {RoundingMode::NearestEven, "Nearest, ties to even (rne)",
     "IEEE 754's default: the nearest value; a tie goes to the code whose last bit is 0."},
    {RoundingMode::NearestAway, "Nearest, ties away (rna)",
     "The nearest value; a tie goes away from zero. NVIDIA's cvt.rna.tf32.f32 rounds TF32 this "
     "way."},
    {RoundingMode::TowardZero, "Toward zero (rtz)",
     "Truncate: drop the extra bits. Never increases the magnitude."},
    {RoundingMode::TowardPositive, "Toward +∞ (rup)", "Ceiling: the smallest value ≥ the input."},
    {RoundingMode::TowardNegative, "Toward −∞ (rdn)", "Floor: the largest value ≤ the input."},
    {RoundingMode::Stochastic, "Stochastic (sr)",
     "Round up with probability equal to the discarded fraction: unbiased on average, used in "
     "low-precision training."},
    {RoundingMode::ToOdd, "To odd (rto)",
     "Truncate, then set the last bit if anything was dropped: makes a later second rounding "
     "correct."},
};

} // namespace

void addRoundingModeItems(QComboBox& box) {
    for (const ModeItem& item : kModeItems) {
        box.addItem(QObject::tr(item.label), static_cast<int>(item.mode));
        box.setItemData(box.count() - 1, QObject::tr(item.tip), Qt::ToolTipRole);
    }
    box.setToolTip(QObject::tr("Rounding mode: which neighbouring value an input between two "
                               "representable values becomes."));
}

void addOverflowPolicyItems(QComboBox& box, OverflowChoices choices) {
    box.addItem(QObject::tr("Overflow: IEEE (∞ or NaN)"), static_cast<int>(OverflowPolicy::Ieee));
    box.addItem(QObject::tr("Overflow: saturate"), static_cast<int>(OverflowPolicy::Saturate));
    if (choices == OverflowChoices::All) {
        box.addItem(QObject::tr("Overflow: P3109 SatPropagate"),
                    static_cast<int>(OverflowPolicy::SatPropagate));
        box.addItem(QObject::tr("Overflow: P3109 SatNone"),
                    static_cast<int>(OverflowPolicy::SatNone));
    }
    box.setToolTip(
        QObject::tr("What a value beyond the largest finite one becomes. IEEE: ±∞ (NaN in formats "
                    "without ∞, ±max when rounding toward zero). Saturate (\"satfinite\"): ±max, "
                    "∞ included. P3109 SatPropagate: ±max, but ∞ stays ∞. P3109 SatNone: ±∞ where "
                    "the format has it, else ±max; negatives into unsigned formats are NaN. "
                    "Decided after rounding: in FP8 E4M3, 464 still rounds to 448."));
}

void showRoundingMode(QComboBox& box, RoundingMode mode) {
    const QSignalBlocker blocker(box);
    box.setCurrentIndex(box.findData(static_cast<int>(mode)));
}

void showOverflowPolicy(QComboBox& box, OverflowPolicy policy) {
    const QSignalBlocker blocker(box);
    box.setCurrentIndex(box.findData(static_cast<int>(policy)));
}

} // namespace fpx::gui
