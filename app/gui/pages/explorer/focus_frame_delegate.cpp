// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/focus_frame_delegate.h"

#include "pages/explorer/bit_cells_delegate.h"

#include <QStyle>

namespace fpx::gui {

void FocusFrameDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                               const QModelIndex& index) const {
    QStyleOptionViewItem plain = option;
    plain.state &= ~QStyle::State_HasFocus;
    QStyledItemDelegate::paint(painter, plain, index);
    if (option.state & QStyle::State_HasFocus)
        paintFocusFrame(*painter, option);
}

} // namespace fpx::gui
