// SPDX-License-Identifier: GPL-3.0-or-later
#include "bit_cells_delegate.h"

#include "models/format_table_model.h"

#include <QMouseEvent>

namespace fpx::gui {

BitCellsDelegate::BitCellsDelegate(QObject* parent)
    : CodeCellsDelegate(
          [](const QModelIndex& index) -> std::optional<CellCode> {
              const auto* model = qobject_cast<const FormatTableModel*>(index.model());
              if (!model)
                  return std::nullopt;
              const ExplorerRow& row = model->row(index.row());
              return CellCode{row.spec, row.report.details.decoded.code};
          },
          parent) {}

bool BitCellsDelegate::editorEvent(QEvent* event, QAbstractItemModel* model,
                                   const QStyleOptionViewItem& option, const QModelIndex& index) {
    auto* table = qobject_cast<FormatTableModel*>(model);
    if (!table || event->type() != QEvent::MouseButtonRelease)
        return QStyledItemDelegate::editorEvent(event, model, option, index);
    const auto* mouse = static_cast<QMouseEvent*>(event);
    if (mouse->button() != Qt::LeftButton)
        return false;
    const ExplorerRow& row = table->row(index.row());
    const auto bit = bitAt(mouse->position().toPoint(), option.rect, layout(), row.spec,
                           row.report.details.decoded);
    if (!bit)
        return false;
    table->toggleBit(index.row(), *bit);
    return true;
}

} // namespace fpx::gui
