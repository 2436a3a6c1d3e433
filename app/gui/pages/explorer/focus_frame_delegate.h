// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace fpx::gui {

// Draws cells like QStyledItemDelegate, with a focus frame on the current cell
// (paintFocusFrame) in place of the style's, which some styles draw faintly or not at all.
// Fonts need nothing here: the models' fixed-width font (fixedPitchFont) has no size of its
// own and takes the view's, which the zoom sets.
class FocusFrameDelegate : public QStyledItemDelegate {
    Q_OBJECT

  public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

} // namespace fpx::gui
