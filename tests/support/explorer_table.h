// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the explorer's GUI tests: a format list from ids, and the table row that
// shows a format.
#pragma once

#include "pages/explorer/format_table_model.h"

#include "fpx/exact/format_catalogue.h"

#include <QString>

#include <vector>

namespace fpx::test {

inline std::vector<FormatSpec> specs(const char* list) {
    return findFormats(list).specs;
}

// The row whose Format cell reads exactly `id`, or −1.
inline int rowOf(const gui::FormatTableModel* model, const QString& id) {
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->fullText(r, gui::FormatTableModel::Name) == id)
            return r;
    return -1;
}

} // namespace fpx::test
