// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "widgets/code_cells_delegate.h"

namespace fpx::gui {

// Draws the explorer's Bits column as coloured cells (a CodeCellsDelegate reading each row's
// code) and turns a click on a cell into a bit flip.
class BitCellsDelegate : public CodeCellsDelegate {
    Q_OBJECT

  public:
    explicit BitCellsDelegate(QObject* parent = nullptr);

    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override;
};

} // namespace fpx::gui
