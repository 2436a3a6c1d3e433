// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace fpx::gui {

// Draws and measures cells like QStyledItemDelegate, with the fonts a model asks for (the
// explorer's fixed-width numbers) scaled by the window's zoom, and a focus frame on the current
// cell (paintFocusFrame). Cells without a font of their own already follow the view's font,
// which the zoom sets.
class ScaledFontDelegate : public QStyledItemDelegate {
    Q_OBJECT

  public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void setFactor(double factor) { factor_ = factor; }
    double factor() const { return factor_; }
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

  protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

  private:
    double factor_ = 1.0;
};

} // namespace fpx::gui
