// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"

#include <QObject>

#include <functional>
#include <vector>

class QTableView;

namespace fpx::gui {

class BitCellsDelegate;

// Fits the explorer's columns into the width the table has, every time the values, the
// formats, the zoom or the table's width change, so that each shown column holds its whole
// text and lies inside the view. Numbers are never cut: when the width is short, the bit cells
// narrow first, then the columns the Details tab repeats in full (relative error, flags, class,
// ULP error, hex code, in that order) step out of the table; they come back when the width
// allows. The format, the bits, the exact value and the error always stay; if even they do not
// fit (FP64 at a large zoom), the table scrolls rather than cut a number.
class TableFitter : public QObject {
    Q_OBJECT

  public:
    using Formats = std::function<std::vector<FormatSpec>()>;
    TableFitter(QTableView* table, BitCellsDelegate* bits, Formats formats);

    // Re-measures every column from its contents and lays them out again.
    void fit();
    // The columns stepped out of the table for want of width.
    std::vector<int> hiddenColumns() const { return hidden_; }

    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    QTableView* table_;
    // Kept, not asked of the table: the viewport still sends events while the table is being
    // destroyed, when the table is no longer a scroll area to ask.
    QObject* viewport_;
    BitCellsDelegate* bits_;
    Formats formats_;
    std::vector<int> hidden_;
    bool fitting_ = false;
};

} // namespace fpx::gui
