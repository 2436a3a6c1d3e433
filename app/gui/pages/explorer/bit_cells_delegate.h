// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/code_cells_delegate.h"

#include <QPointer>

class QAbstractItemView;

namespace fpx::gui {

// Draws the explorer's Bits column as coloured cells (a CodeCellsDelegate reading each row's
// code) under the names of their fields, turns a click on a cell into a bit flip, tells a
// hovered bit's weight, and lets the keyboard move between bits and flip them:
// Left/Right move between the bits of the current row, Up/Down between rows (the focused bit
// keeps its place in the aligned layout), Space or Enter flips the focused bit.
class BitCellsDelegate : public CodeCellsDelegate {
    Q_OBJECT

  public:
    explicit BitCellsDelegate(QObject* parent = nullptr);

    // Takes the keyboard of `view` (whose model is a FormatTableModel) while its current cell
    // is in the Bits column.
    void attach(QAbstractItemView* view);

    // The stored bit the keyboard is on in row `row` (nullopt: none yet, or not the row's).
    std::optional<int> focusedBit(int row) const;
    void setFocusedBit(int row, int bit);

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override;
    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override;
    // The tooltip for `pos` in a cell painted into `rect` (empty: not over a bit).
    QString toolTipAt(const QPoint& pos, const QRect& rect, const QModelIndex& index) const;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    // Height of the strip of field names above the cells.
    int labelStripHeight(const QFont& font) const;
    std::vector<BitCell> storedCells(int row) const;
    bool moveFocus(int row, int direction);
    void onCurrentChanged(const QModelIndex& current, const QModelIndex& previous);

    QPointer<QAbstractItemView> view_;
    // The layout column the keyboard is on; rows of other widths show the nearest bit.
    std::optional<int> focusColumn_;
};

// The focus frame on the current cell of a focused view, drawn by the delegates themselves
// rather than left to the style, which may draw none (offscreen, some styles).
void paintFocusFrame(QPainter& painter, const QStyleOptionViewItem& option);

} // namespace fpx::gui
