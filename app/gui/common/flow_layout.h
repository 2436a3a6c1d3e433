// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLayout>
#include <QList>

namespace fpx::gui {

// Controls in a row that breaks into more rows where the room is narrower than the row: a
// control bar beside the Lessons panel at 150 % is wider than the page, and a plain row would
// hold the page (and so the window) wider than the screen or cut its last controls. Each
// control keeps its preferred width (its minimum where the room is narrower still); hidden
// ones take no room. The layout asks only for its widest control's width and reports its
// height for a width, so a box layout above it gives it the rows it needs.
class FlowLayout : public QLayout {
  public:
    explicit FlowLayout(QWidget* parent = nullptr);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;

    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

  private:
    // Places the items in `rect` (only measures where `place` is false); the height used.
    int arrange(const QRect& rect, bool place) const;
    // The largest of the shown items' sizes (minimumSize or sizeHint), margins added.
    QSize largestItem(QSize (QLayoutItem::*size)() const) const;
    int horizontalGap() const;
    int verticalGap() const;

    QList<QLayoutItem*> items_;
};

} // namespace fpx::gui
