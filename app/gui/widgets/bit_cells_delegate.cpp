// SPDX-License-Identifier: GPL-3.0-or-later
#include "bit_cells_delegate.h"

#include "models/format_table_model.h"

#include <QApplication>
#include <QMouseEvent>
#include <QPainter>

namespace fpx::gui {

void BitCellsDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
    const auto* model = qobject_cast<const FormatTableModel*>(index.model());
    if (!model) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background (selection, hover) from the style, then the cells.
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);
    const ExplorerRow& row = model->row(index.row());
    paintBitCells(*painter, option.rect, layout_, row.spec, row.report.details.decoded,
                  option.palette);
}

QSize BitCellsDelegate::sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
    Q_UNUSED(index);
    return QSize(layout_.totalWidth(),
                 std::max(option.fontMetrics.height() + 8, layout_.cellWidth + 10));
}

bool BitCellsDelegate::editorEvent(QEvent* event, QAbstractItemModel* model,
                                   const QStyleOptionViewItem& option, const QModelIndex& index) {
    auto* table = qobject_cast<FormatTableModel*>(model);
    if (!table || event->type() != QEvent::MouseButtonRelease)
        return QStyledItemDelegate::editorEvent(event, model, option, index);
    const auto* mouse = static_cast<QMouseEvent*>(event);
    if (mouse->button() != Qt::LeftButton)
        return false;
    const ExplorerRow& row = table->row(index.row());
    const auto bit = bitAt(mouse->position().toPoint(), option.rect, layout_, row.spec,
                           row.report.details.decoded);
    if (!bit)
        return false;
    table->toggleBit(index.row(), *bit);
    return true;
}

} // namespace fpx::gui
