// SPDX-License-Identifier: GPL-3.0-or-later
#include "presentation/focus_frame_delegate.h"

#include "widgets/bit_cells_delegate.h"

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
