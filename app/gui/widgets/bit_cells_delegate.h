// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "bit_cells.h"

#include <QStyledItemDelegate>

namespace fpx::gui {

// Draws the Bits column as coloured cells and turns a click on a cell into a bit flip.
class BitCellsDelegate : public QStyledItemDelegate {
    Q_OBJECT

  public:
    explicit BitCellsDelegate(QObject* parent = nullptr) : QStyledItemDelegate(parent) {}

    void setLayout(const BitCellLayout& layout) { layout_ = layout; }
    const BitCellLayout& layout() const { return layout_; }

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override;

  private:
    BitCellLayout layout_;
};

} // namespace fpx::gui
