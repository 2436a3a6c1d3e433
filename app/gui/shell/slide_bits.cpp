// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/slide_bits.h"

#include "common/bit_cells.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/format_table_model.h"
#include "shell/main_window.h"

#include "fpx/exact/code.h"

#include <QItemSelectionModel>
#include <QPainter>
#include <QTableView>

#include <algorithm>

namespace fpx::gui {

namespace {

// The cells stop growing at this many times the type's line height: FP4's four cells would
// otherwise fill the screen.
constexpr double kLargestCell = 2.2;
// Below this many pixels a cell cannot hold its digit.
constexpr int kSmallestCell = 10;

const ExplorerRow* rowOf(const MainWindow& window, int row) {
    const std::vector<ExplorerRow>& rows = window.controller()->rows();
    if (row < 0 || row >= int(rows.size()) || !rows[std::size_t(row)].problem.isEmpty())
        return nullptr;
    return &rows[std::size_t(row)];
}

// Large cells stand apart by a twelfth of their width.
int cellGapFor(int cellWidth) {
    return std::max(1, cellWidth / 12);
}

int cellCount(const FormatSpec& spec) {
    const BitCellLayout layout = BitCellLayout::forFormats({spec}, 1);
    return layout.leftCells + layout.rightCells;
}

// A row of `cells` cells of `width` pixels, the layout's other measures as in the table.
BitCellLayout layoutFor(int cells, int width) {
    BitCellLayout layout;
    layout.leftCells = cells;
    layout.cellWidth = width;
    layout.cellGap = cellGapFor(width);
    return layout;
}

} // namespace

SlideBits::SlideBits(MainWindow& window, QWidget* parent) : QWidget(parent), window_(window) {
    setObjectName("slideBits");
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto repaint = [this] { update(); };
    connect(window.controller(), &ExplorerController::rowsChanged, this, repaint);
    connect(window.table()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            repaint);
}

int SlideBits::row() const {
    const int row = window_.selectedRow();
    return rowOf(window_, row) ? row : -1;
}

QString SlideBits::caption() const {
    const ExplorerRow* shown = rowOf(window_, window_.selectedRow());
    if (!shown)
        return {};
    const QAbstractItemModel* model = window_.model();
    const int row = window_.selectedRow();
    const QString value = model->index(row, FormatTableModel::Value).data().toString();
    const QString hex =
        QString::fromStdString(codeToHex(shown->report.conversion.code, shown->spec.totalBits()));
    return QStringLiteral("%1   %2   = %3")
        .arg(QString::fromStdString(shown->spec.displayName), hex, value);
}

int SlideBits::captionHeight() const {
    return QFontMetrics(font()).height() + 4;
}

QFont SlideBits::labelFont() const {
    QFont label = font();
    label.setBold(false);
    return label;
}

int SlideBits::labelHeight() const {
    return QFontMetrics(labelFont()).height() + 4;
}

int SlideBits::cellWidthFor(const QRect& area, int cells) const {
    const int byHeight = area.height() - captionHeight() - labelHeight() - 10;
    const int largest = int(QFontMetrics(font()).height() * kLargestCell);
    int width = std::max(kSmallestCell, std::min(byHeight, largest));
    // The widest cells whose row, with its gaps, fits the width.
    while (width > kSmallestCell && cells > 0 &&
           layoutFor(cells, width).totalWidth() > area.width())
        --width;
    return width;
}

int SlideBits::cellWidth() const {
    const ExplorerRow* shown = rowOf(window_, window_.selectedRow());
    return shown ? cellWidthFor(contentsRect(), cellCount(shown->spec)) : 0;
}

QSize SlideBits::sizeHint() const {
    const int largest = int(QFontMetrics(font()).height() * kLargestCell);
    return {400, captionHeight() + labelHeight() + largest + 10};
}

QSize SlideBits::minimumSizeHint() const {
    return {100, captionHeight() + labelHeight() + kSmallestCell + 10};
}

void SlideBits::paintEvent(QPaintEvent*) {
    const ExplorerRow* shown = rowOf(window_, window_.selectedRow());
    if (!shown)
        return;
    QPainter painter(this);
    const QRect area = contentsRect();
    const FormatSpec& spec = shown->spec;
    BitCellLayout layout = BitCellLayout::forFormats({spec}, cellWidthFor(area, cellCount(spec)));
    layout.cellGap = cellGapFor(layout.cellWidth);
    // Centred: the cells are the slide's figure.
    const int left = area.left() + std::max(0, (area.width() - layout.totalWidth()) / 2);

    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(area.left(), area.top(), area.width(), captionHeight()),
                     Qt::AlignHCenter | Qt::AlignVCenter,
                     // On a narrow screen the line ends in "…" rather than run off both sides.
                     fontMetrics().elidedText(caption(), Qt::ElideRight, area.width()));

    // Each field's name over its cells, the longest that fits, in the field's colour.
    const QRect strip(left, area.top() + captionHeight(), layout.totalWidth(), labelHeight());
    const QFont label = labelFont();
    const QFontMetrics metrics(label);
    painter.setFont(label);
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    for (const FieldLabel& field : fieldLabels(spec, shown->report.details.decoded, layout)) {
        const int x0 = strip.left() + bitCellX(layout, field.firstColumn);
        const int x1 = strip.left() + bitCellX(layout, field.lastColumn) + layout.cellWidth;
        const QColor colour =
            dark ? fieldColour(field.kind).lighter(140) : fieldColour(field.kind).darker(130);
        painter.setPen(QPen(colour, std::max(1, layout.cellWidth / 16)));
        const int y = strip.bottom() - 1;
        painter.drawLine(x0 + 1, y, x1 - 1, y);
        for (const QString& name : field.names)
            if (metrics.horizontalAdvance(name) <= x1 - x0 + layout.cellGap) {
                painter.drawText(QRect(x0 - 1, strip.top(), x1 - x0 + 2, strip.height() - 3),
                                 Qt::AlignHCenter | Qt::AlignBottom, name);
                break;
            }
    }
    const QRect cells(left, strip.bottom() + 1, layout.totalWidth(), layout.cellWidth + 10);
    paintBitCells(painter, cells, layout, spec, shown->report.details.decoded, palette());
}

} // namespace fpx::gui
