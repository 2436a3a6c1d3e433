// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/code_cells_delegate.h"

#include <QApplication>
#include <QPainter>

namespace fpx::gui {

void CodeCellsDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const {
    const std::optional<CellCode> cell = codeAt_(index);
    if (!cell) {
        QStyledItemDelegate::paint(painter, option, index); // the model's text, if any
        return;
    }
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);
    paintBitCells(*painter, option.rect, layout_, cell->spec, decodeCode(cell->spec, cell->code),
                  option.palette);
}

QSize CodeCellsDelegate::sizeHint(const QStyleOptionViewItem& option,
                                  const QModelIndex& index) const {
    Q_UNUSED(index);
    return QSize(layout_.totalWidth(),
                 std::max(option.fontMetrics.height() + 8, layout_.cellWidth + 10));
}

} // namespace fpx::gui
