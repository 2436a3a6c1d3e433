// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"

#include <QObject>

#include <functional>
#include <vector>

class QFont;
class QTableView;

namespace fpx::gui {

class BitCellsDelegate;

// Fits the explorer's columns into the width the table has, so that each shown column holds
// its whole text and lies inside the view. The widths follow the formats, the zoom and the
// table's width, never the value shown: each column is as wide as the widest text it can show
// for these formats, the number columns hold a set number of characters (the model writes its
// numbers to fit them), and so no column comes or goes, and no bit moves, as the value
// changes. The bit cells keep their natural size at every zoom; when the width is short, the
// columns the Details tab repeats in full (relative error, flags, class, ULP error, hex code,
// error, value, in that order) step out of the table and come back when the width allows. The
// format and the bits always stay; if even they do not fit (FP64 at a large zoom), the table
// scrolls rather than shrink a bit. What is left over widens the value.
class TableFitter : public QObject {
    Q_OBJECT

  public:
    using Formats = std::function<std::vector<FormatSpec>()>;
    TableFitter(QTableView* table, BitCellsDelegate* bits, Formats formats);

    // Re-measures every column from its contents and lays them out again.
    void fit();
    // The columns stepped out of the table for want of width.
    std::vector<int> hiddenColumns() const { return hidden_; }
    // Whether `column`, once stepped out, is given by the Details tab's Stored line.
    static bool inStoredLine(int column);
    // Whether a column of the Stored line stepped out: the line shows.
    bool storedLineNeeded() const;
    // The width of a bit cell for a table in `font` whose widest row has `cells` cells: the
    // bits never get narrower than this at a zoom.
    static int naturalCellWidth(const QFont& font, int cells);

    bool eventFilter(QObject* watched, QEvent* event) override;

  signals:
    // The set of hiddenColumns() changed.
    void hiddenColumnsChanged();

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
