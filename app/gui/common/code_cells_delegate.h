// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/bit_cells.h"

#include <QStyledItemDelegate>

#include <functional>
#include <optional>

namespace fpx::gui {

// Draws a read-only column of codes as the explorer's coloured bit cells, aligned on the
// binary point across rows. `codeAt` says which format and code a cell shows (nullopt: none).
class CodeCellsDelegate : public QStyledItemDelegate {
    Q_OBJECT

  public:
    struct CellCode {
        FormatSpec spec;
        Code code = 0;
    };
    using CodeAt = std::function<std::optional<CellCode>(const QModelIndex&)>;

    CodeCellsDelegate(CodeAt codeAt, QObject* parent = nullptr)
        : QStyledItemDelegate(parent), codeAt_(std::move(codeAt)) {}

    void setLayout(const BitCellLayout& layout) { layout_ = layout; }
    const BitCellLayout& layout() const { return layout_; }

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

  private:
    CodeAt codeAt_;
    BitCellLayout layout_;
};

} // namespace fpx::gui
