// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/table_fit.h"

#include "common/zoom.h"
#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/format_table_model.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHeaderView>
#include <QStyle>
#include <QTableView>

#include <algorithm>
#include <array>

namespace fpx::gui {

namespace {

// Columns that may step out when the width is short, the least read first: each is repeated,
// in full, in the Details tab of the selected row (the code is its first line; the value and
// the error get a line of their own at its top once they step out). The format and its bits
// always stay.
constexpr std::array<int, 7> kOptionalColumns{
    FormatTableModel::RelativeError, FormatTableModel::Flags, FormatTableModel::Class,
    FormatTableModel::UlpError,      FormatTableModel::Hex,   FormatTableModel::Error,
    FormatTableModel::Value};

// The exact value's room in characters: enough for a sign, nine digits and a three-digit
// exponent at least ("-1.40129846…e-45"), and no more than FP64's 0.1 written out whole.
constexpr int kMinimumValueChars = 18;
constexpr int kMaximumValueChars = 60;

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

bool TableFitter::inStoredLine(int column) {
    return column == FormatTableModel::Value || column == FormatTableModel::Error;
}

bool TableFitter::storedLineNeeded() const {
    return std::ranges::any_of(hidden_, &TableFitter::inStoredLine);
}

int TableFitter::naturalCellWidth(const QFont& font, int cells) {
    // Big cells for the small formats (a projector); for FP32's 33 cells a digit and a
    // margin, for FP64's 65 a digit, so that their rows fit 1024 pixels (beside the Lessons
    // panel for FP32) with the value and the error. All in proportion to a digit of the
    // table's font: they grow with the zoom and never depend on the width.
    const int digit = QFontMetrics(font).horizontalAdvance('0');
    return cells <= 20 ? digit + 12 : cells <= 36 ? digit + 2 : std::max(8, digit);
}

void TableFitter::fit() {
    // Setting widths can show or hide a scroll bar, which resizes the viewport and asks again.
    auto* model = qobject_cast<FormatTableModel*>(table_->model());
    if (fitting_ || !model)
        return;
    fitting_ = true;
    const int count = model->columnCount();
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(false);

    // Every width below comes from the formats, the font (and so the zoom) and the width of
    // the view, never from the value shown: a column must not come and go, nor a bit cell
    // move under the mouse, because the value changed.
    const std::vector<FormatSpec> specs = formats_();
    const BitCellLayout shape = BitCellLayout::forFormats(specs, 1);
    const int cell = naturalCellWidth(table_->font(), shape.leftCells + shape.rightCells);
    const QFont numberFont = fixedPitchFont().resolve(table_->font());
    const QFontMetrics numbers(numberFont);
    const QFontMetrics words(table_->font());
    // The item view's margins around a cell's text (QCommonStyle, CT_ItemViewItem), and a
    // pixel to spare for rounding at fractional scales.
    const int margin = 2 * (table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 1) + 2;
    auto widthOf = [&](int c) {
        int width = header->sectionSizeHint(c);
        const QFontMetrics& metrics = c == FormatTableModel::Name || c == FormatTableModel::Class ||
                                              c == FormatTableModel::Flags
                                          ? words
                                          : numbers;
        for (const QString& text : model->widestTexts(static_cast<FormatTableModel::Column>(c)))
            width = std::max(width, metrics.horizontalAdvance(text) + margin);
        return width;
    };
    // The value's room for `chars` characters.
    auto valueWidth = [&](int chars) {
        return std::max(header->sectionSizeHint(FormatTableModel::Value),
                        numbers.horizontalAdvance(FormatTableModel::widestNumber(chars)) + margin);
    };

    std::vector<int> width(static_cast<std::size_t>(count));
    for (int c = 0; c < count; ++c)
        width[static_cast<std::size_t>(c)] = widthOf(c);
    width[FormatTableModel::Bits] = std::max(BitCellLayout::forFormats(specs, cell).totalWidth(),
                                             header->sectionSizeHint(FormatTableModel::Bits));
    width[FormatTableModel::Value] = valueWidth(kMinimumValueChars);
    const std::vector<int> hiddenBefore = hidden_;
    hidden_.clear();
    auto total = [&] {
        int sum = 0;
        for (int c = 0; c < count; ++c)
            if (std::find(hidden_.begin(), hidden_.end(), c) == hidden_.end())
                sum += width[static_cast<std::size_t>(c)];
        return sum;
    };

    // The bits are what a projector is for: they keep their size at every zoom, and the
    // repeated columns step out instead, the value last. If even the format and its bits do
    // not fit, the table scrolls.
    const int available = table_->viewport()->width();
    for (int c : kOptionalColumns) {
        if (c >= count || total() <= available)
            break;
        hidden_.push_back(c);
    }
    // Hiding a wide column may leave room for a narrower one hidden before it: the more
    // useful ones come back first.
    for (auto it = hidden_.rbegin(); it != hidden_.rend();) {
        const int c = *it;
        if (total() + width[static_cast<std::size_t>(c)] <= available)
            it = decltype(it)(hidden_.erase(std::next(it).base()));
        else
            ++it;
    }
    // What is left over widens the exact value, whose digits go on: as many more characters
    // as fit, and the column takes the rest of the width.
    if (std::find(hidden_.begin(), hidden_.end(), FormatTableModel::Value) == hidden_.end()) {
        int chars = kMinimumValueChars;
        const int others = total() - width[FormatTableModel::Value];
        while (chars < kMaximumValueChars && others + valueWidth(chars + 1) <= available)
            ++chars;
        width[FormatTableModel::Value] = std::max(valueWidth(chars), available - others);
        model->setColumnChars(FormatTableModel::Value, chars);
    }

    bits_->setLayout(BitCellLayout::forFormats(specs, cell));
    for (int c = 0; c < count; ++c) {
        const bool hide = std::find(hidden_.begin(), hidden_.end(), c) != hidden_.end();
        table_->setColumnHidden(c, hide);
        if (!hide)
            table_->setColumnWidth(c, width[static_cast<std::size_t>(c)]);
    }
    table_->resizeRowsToContents();
    fitting_ = false;
    if (hidden_ != hiddenBefore)
        emit hiddenColumnsChanged();
}

} // namespace fpx::gui
