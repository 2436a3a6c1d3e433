// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace fpx::gui {

// The Machines page as options and lessons set it: each field that is set is applied, the
// others are left as they are (MachinesPage::apply); MachinesPage::state() sets every field
// from the form as it stands.
struct MachinesPageState {
    enum class View { Instruction, Error, Table };
    enum class Statistic { Max, Mean };

    // A machine file whose machines join the built-in ones (docs/behaviour.md, "Machine files"),
    // applied before every other field; empty: none.
    std::optional<QString> machineFile;
    // The instruction drawn: its machine, the element, a, b and c as typed.
    std::optional<QString> machine; // a machine's name or fused:F[:G]
    std::optional<QString> element; // a format id, for the whole page
    std::optional<QString> a, b, c;
    // Error against K.
    std::optional<QStringList> machines; // the machines plotted, by name
    std::optional<int> promote;          // every N elements, 0: off; a multiple of 16, ≤ 512
    std::optional<Statistic> statistic;
    std::optional<QString> dist;
    std::optional<int> resultRows, resultColumns; // m × n results per point
    std::optional<qulonglong> seed;
    std::optional<int> kMax; // the longest K, a power of two
    // One dot product on every machine: a and b repeated to K elements (0: as typed).
    std::optional<int> tableK;
    std::optional<View> view;
};

} // namespace fpx::gui
