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

QString choiceId(const RoundingChoice& choice) {
    return QString::fromStdString(roundingChoiceId(choice.mode, choice.stochastic));
}

// "Stochastic, 8 random bits (sr:8)" and its tooltip, after the item of plain "sr".
void insertRandomBitItem(QComboBox& box, const RoundingChoice& choice) {
    int at = box.findData(choiceId({RoundingMode::Stochastic, {}})) + 1;
    while (at < box.count() && roundingChoiceAt(box, at).mode == RoundingMode::Stochastic &&
           roundingChoiceAt(box, at).stochastic.count > choice.stochastic.count)
        ++at;
    const QString id = choiceId(choice);
    box.insertItem(
        at, QObject::tr("Stochastic, %1 random bits (%2)").arg(choice.stochastic.count).arg(id),
        id);
    box.setItemData(at,
                    QString::fromStdString(roundingChoiceName(choice.mode, choice.stochastic)) +
                        QObject::tr(": as hardware rounds (NVIDIA's cvt.rs, P3109's stochastic "
                                    "modes), the probability of rounding up is the discarded "
                                    "fraction cut to this many bits, a bias that small residues "
                                    "feel most."),
                    Qt::ToolTipRole);
}

} // namespace

RoundingChoice roundingChoiceAt(const QComboBox& box, int index) {
    const ParsedRounding parsed = parseRoundingChoice(box.itemData(index).toString().toStdString());
    return parsed.choice ? *parsed.choice : RoundingChoice{};
}

void addRoundingModeItems(QComboBox& box) {
    for (const ModeItem& item : kModeItems) {
        box.addItem(QObject::tr(item.label), choiceId({item.mode, {}}));
        box.setItemData(box.count() - 1, QObject::tr(item.tip), Qt::ToolTipRole);
    }
    for (int bits : {8, 4})
        insertRandomBitItem(box, {RoundingMode::Stochastic, {bits, StochasticVariant::A}});
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

void showRoundingChoice(QComboBox& box, const RoundingChoice& choice) {
    const QSignalBlocker blocker(box);
    if (box.findData(choiceId(choice)) < 0)
        insertRandomBitItem(box, choice);
    box.setCurrentIndex(box.findData(choiceId(choice)));
}

void letNarrow(QComboBox& box) {
    box.setMinimumWidth(box.fontMetrics().horizontalAdvance(QLatin1Char('x')) * 14);
}

void showOverflowPolicy(QComboBox& box, OverflowPolicy policy) {
    const QSignalBlocker blocker(box);
    box.setCurrentIndex(box.findData(static_cast<int>(policy)));
}

} // namespace fpx::gui
