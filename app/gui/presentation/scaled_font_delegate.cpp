// SPDX-License-Identifier: GPL-3.0-or-later
#include "presentation/scaled_font_delegate.h"

#include "widgets/bit_cells_delegate.h"

#include <QStyle>

#include <algorithm>
#include <cmath>

namespace fpx::gui {

void ScaledFontDelegate::initStyleOption(QStyleOptionViewItem* option,
                                         const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (factor_ == 1.0 || !index.data(Qt::FontRole).isValid())
        return;
    QFont font = option->font;
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * factor_);
    else if (font.pixelSize() > 0)
        font.setPixelSize(std::max(1, static_cast<int>(std::lround(font.pixelSize() * factor_))));
    option->font = font;
    option->fontMetrics = QFontMetrics(font);
}

void ScaledFontDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                               const QModelIndex& index) const {
    QStyleOptionViewItem plain = option;
    plain.state &= ~QStyle::State_HasFocus;
    QStyledItemDelegate::paint(painter, plain, index);
    if (option.state & QStyle::State_HasFocus)
        paintFocusFrame(*painter, option);
}

} // namespace fpx::gui
