// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"

#include "fpx/exact/rounding.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace fpx::gui {

// The Arithmetic page as options and lessons set it: each field that is set is applied, the
// others are left as they are (ArithmeticPage::apply); ArithmeticPage::state() sets every
// field. Formats are ids of formats the explorer shows, which the labs compute in.
struct ArithmeticPageState {
    enum class Lab { Expression, Accumulation, Stochastic, MasterWeights };

    std::optional<QString> expression; // a bad one is shown in its field, as if typed
    std::optional<Lab> lab;
    // The accumulation lab, with `fpx accumulate`'s names: setting any of them runs it.
    std::optional<int> terms;
    std::optional<QString> values;  // ones, const:V, a distribution, file:PATH
    std::optional<QString> element; // empty: each accumulator's own format
    std::optional<QStringList> accumulators;
    std::optional<QStringList> methods;
    // The stochastic rounding lab.
    std::optional<QString> srValue;
    std::optional<QString> srFormat;
    std::optional<QString> srTerm;
    std::optional<int> srCount;
    std::optional<RandomBitRule> srRound; // how many random bits decide (sr, sr:N, srb:N, src:N)
    // The master-weights lab.
    std::optional<QString> weight;
    std::optional<QString> delta;
    // Set by state() only, no option: the seeds and the draws, so that a state read back and
    // applied again shows the same sums and draws whatever a user set since.
    std::optional<int> seed;
    std::optional<int> srDraws;
    std::optional<int> srSeed;

    bool setsAccumulation() const {
        return terms || values || element || accumulators || methods || seed;
    }
    bool setsStochastic() const {
        return srValue || srFormat || srTerm || srCount || srDraws || srSeed || srRound;
    }
    bool setsMasterWeights() const { return weight || delta; }
};

} // namespace fpx::gui
