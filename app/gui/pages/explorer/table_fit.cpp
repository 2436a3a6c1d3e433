// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/table_fit.h"

#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/format_table_model.h"

#include <QEvent>
#include <QHeaderView>
#include <QTableView>

#include <algorithm>
#include <array>
#include <numeric>

namespace fpx::gui {

namespace {

// Columns that may step out when the width is short, the least read first: each is repeated,
// in full, in the Details tab of the selected row (the code is its first line). The format,
// its bits, the exact value and the error always stay.
constexpr std::array<int, 5> kOptionalColumns{FormatTableModel::RelativeError,
                                              FormatTableModel::Flags, FormatTableModel::Class,
                                              FormatTableModel::UlpError, FormatTableModel::Hex};

} // namespace

TableFitter::TableFitter(QTableView* table, BitCellsDelegate* bits, Formats formats)
    : QObject(table), table_(table), viewport_(table->viewport()), bits_(bits),
      formats_(std::move(formats)) {
    viewport_->installEventFilter(this);
}

bool TableFitter::eventFilter(QObject* watched, QEvent* event) {
    if (watched == viewport_ && event->type() == QEvent::Resize)
        fit();
    return false;
}

void TableFitter::fit() {
    // Setting widths can show or hide a scroll bar, which resizes the viewport and asks again.
    if (fitting_ || !table_->model())
        return;
    fitting_ = true;
    const int count = table_->model()->columnCount();
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(false);

    // Big cells for the small formats (a projector), narrower ones for FP32 and FP64. When the
    // width is short they narrow down to three quarters of a digit (the cells' bold digits are
    // drawn in a smaller pixel size than the text), which follows the table's font and zoom.
    const std::vector<FormatSpec> specs = formats_();
    const BitCellLayout shape = BitCellLayout::forFormats(specs, 1);
    const int cells = shape.leftCells + shape.rightCells;
    const int digit = table_->fontMetrics().horizontalAdvance('0');
    const int naturalCell = cells <= 20   ? digit + 12
                            : cells <= 36 ? digit + 7
                                          : std::max(10, digit + 2);
    const int minimumCell = std::max(7, (3 * digit + 3) / 4);
    auto bitsWidth = [&](int cellWidth) {
        return std::max(BitCellLayout::forFormats(specs, cellWidth).totalWidth(),
                        header->sectionSizeHint(FormatTableModel::Bits));
    };

    // Every column back, as wide as its widest text (header included).
    for (int c = 0; c < count; ++c)
        table_->setColumnHidden(c, false);
    bits_->setLayout(BitCellLayout::forFormats(specs, naturalCell));
    table_->resizeColumnsToContents();
    std::vector<int> width(static_cast<std::size_t>(count));
    for (int c = 0; c < count; ++c)
        width[static_cast<std::size_t>(c)] = table_->columnWidth(c);
    auto& bits = width[FormatTableModel::Bits];
    hidden_.clear();
    auto total = [&] {
        int sum = 0;
        for (int c = 0; c < count; ++c)
            if (std::find(hidden_.begin(), hidden_.end(), c) == hidden_.end())
                sum += width[static_cast<std::size_t>(c)];
        return sum;
    };

    const int available = table_->viewport()->width();
    int cell = naturalCell;
    bits = bitsWidth(cell);
    auto narrowBitsTo = [&](int smallest) {
        if (total() <= available)
            return;
        const int room = available - (total() - bits);
        while (cell > smallest && bitsWidth(cell) > room)
            --cell;
        bits = bitsWidth(cell);
    };
    // The bits are what a projector is for: the repeated columns step out before the cells
    // narrow, so that zooming in makes the cells larger rather than the other columns.
    for (int c : kOptionalColumns) {
        if (c >= count || total() <= available)
            break;
        hidden_.push_back(c);
    }
    narrowBitsTo(minimumCell);
    // Hiding a wide column may leave room for a narrower one hidden before it: the more
    // useful ones come back first.
    for (auto it = hidden_.rbegin(); it != hidden_.rend();) {
        const int c = *it;
        if (total() + width[static_cast<std::size_t>(c)] <= available)
            it = decltype(it)(hidden_.erase(std::next(it).base()));
        else
            ++it;
    }
    // What is left over widens the exact value, whose digits go on.
    if (FormatTableModel::Value < count && total() < available)
        width[FormatTableModel::Value] += available - total();

    bits_->setLayout(BitCellLayout::forFormats(specs, cell));
    for (int c = 0; c < count; ++c) {
        const bool hide = std::find(hidden_.begin(), hidden_.end(), c) != hidden_.end();
        table_->setColumnHidden(c, hide);
        if (!hide)
            table_->setColumnWidth(c, width[static_cast<std::size_t>(c)]);
    }
    table_->resizeRowsToContents();
    fitting_ = false;
}

} // namespace fpx::gui
