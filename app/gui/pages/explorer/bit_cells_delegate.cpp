// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/bit_cells_delegate.h"

#include "pages/explorer/format_table_model.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cstdlib>

namespace fpx::gui {

namespace {

const FormatTableModel* tableOf(const QModelIndex& index) {
    return qobject_cast<const FormatTableModel*>(index.model());
}

} // namespace

BitCellsDelegate::BitCellsDelegate(QObject* parent)
    : CodeCellsDelegate(
          [](const QModelIndex& index) -> std::optional<CellCode> {
              const auto* model = tableOf(index);
              if (!model)
                  return std::nullopt;
              const ExplorerRow& row = model->row(index.row());
              return CellCode{row.spec, row.report.details.decoded.code};
          },
          parent) {}

void BitCellsDelegate::attach(QAbstractItemView* view) {
    view_ = view;
    view->installEventFilter(this);
    connect(view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &BitCellsDelegate::onCurrentChanged);
}

int BitCellsDelegate::labelStripHeight(const QFont& font) const {
    return QFontMetrics(fieldLabelFont(font, layout().cellWidth)).height() + 3;
}

QSize BitCellsDelegate::sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
    // The names take the room the cells leave beside a line of text, then what more they need.
    const QSize cells = CodeCellsDelegate::sizeHint(option, index);
    const int labelled = layout().cellWidth + 10 + labelStripHeight(option.font);
    return {cells.width(), std::max(option.fontMetrics.height() + 8, labelled)};
}

void BitCellsDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
    const FormatTableModel* model = tableOf(index);
    if (!model) {
        CodeCellsDelegate::paint(painter, option, index);
        return;
    }
    const ExplorerRow& row = model->row(index.row());
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    background.state &= ~QStyle::State_HasFocus; // the frame below, not the style's
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    const int strip = labelStripHeight(option.font);
    painter->save();
    if (!(option.state & QStyle::State_Enabled))
        painter->setOpacity(kDisabledBitCellsOpacity);
    painter->setFont(option.font);
    paintFieldLabels(
        *painter, QRect(option.rect.left(), option.rect.top() + 1, option.rect.width(), strip - 1),
        layout(), row.spec, row.report.details.decoded, option.palette,
        (option.state & QStyle::State_Selected) != 0);
    const QRect cells = option.rect.adjusted(0, strip, 0, 0);
    paintBitCells(*painter, cells, layout(), row.spec, row.report.details.decoded, option.palette,
                  (option.state & QStyle::State_Selected) != 0);
    painter->restore();
    if (!(option.state & QStyle::State_HasFocus))
        return;
    paintFocusFrame(*painter, option);
    if (const std::optional<int> bit = focusedBit(index.row())) {
        for (const BitCell& cell : storedCells(index.row()))
            if (cell.bit == bit)
                paintFocusedBit(*painter, cells, layout(), cell.column, option.palette,
                                (option.state & QStyle::State_Selected) != 0);
    }
}

std::vector<BitCell> BitCellsDelegate::storedCells(int row) const {
    std::vector<BitCell> stored;
    const auto* model = view_ ? qobject_cast<const FormatTableModel*>(view_->model()) : nullptr;
    if (!model || row < 0 || row >= model->rowCount())
        return stored;
    const ExplorerRow& r = model->row(row);
    for (const BitCell& cell : bitCells(r.spec, r.report.details.decoded, layout()))
        if (cell.bit)
            stored.push_back(cell);
    return stored;
}

std::optional<int> BitCellsDelegate::focusedBit(int row) const {
    if (!focusColumn_)
        return std::nullopt;
    std::optional<BitCell> nearest;
    for (const BitCell& cell : storedCells(row))
        if (!nearest ||
            std::abs(cell.column - *focusColumn_) < std::abs(nearest->column - *focusColumn_))
            nearest = cell;
    return nearest ? nearest->bit : std::nullopt;
}

void BitCellsDelegate::setFocusedBit(int row, int bit) {
    for (const BitCell& cell : storedCells(row))
        if (cell.bit == bit)
            focusColumn_ = cell.column;
    if (view_)
        view_->viewport()->update();
}

bool BitCellsDelegate::moveFocus(int row, int direction) {
    const std::vector<BitCell> cells = storedCells(row);
    if (cells.empty())
        return false;
    const std::optional<int> bit = focusedBit(row);
    std::size_t at = 0;
    while (bit && at < cells.size() && cells[at].bit != bit)
        ++at;
    if (!bit) {
        focusColumn_ = cells.front().column;
    } else {
        const auto target = static_cast<std::ptrdiff_t>(at) + direction;
        if (target < 0 || target >= static_cast<std::ptrdiff_t>(cells.size()))
            return false; // past the last bit: the view moves on to the next column
        focusColumn_ = cells[static_cast<std::size_t>(target)].column;
    }
    view_->viewport()->update();
    return true;
}

void BitCellsDelegate::onCurrentChanged(const QModelIndex& current, const QModelIndex& previous) {
    if (!current.isValid() || current.column() != FormatTableModel::Bits ||
        (previous.isValid() && previous.column() == FormatTableModel::Bits))
        return;
    // Entering the bits from the right starts at the last bit, from the left at the first.
    const std::vector<BitCell> cells = storedCells(current.row());
    if (cells.empty())
        return;
    if (previous.isValid() && previous.column() > FormatTableModel::Bits)
        focusColumn_ = cells.back().column;
    else if (previous.isValid() || !focusColumn_)
        focusColumn_ = cells.front().column;
}

bool BitCellsDelegate::eventFilter(QObject* watched, QEvent* event) {
    if (watched != view_ || event->type() != QEvent::KeyPress)
        return CodeCellsDelegate::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    const QModelIndex current = view_->currentIndex();
    auto* model = qobject_cast<FormatTableModel*>(view_->model());
    if (!model || !current.isValid() || current.column() != FormatTableModel::Bits ||
        (key->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier)
        return false; // Ctrl+Up and the like stay the window's
    switch (key->key()) {
    case Qt::Key_Left:
        return moveFocus(current.row(), -1);
    case Qt::Key_Right:
        return moveFocus(current.row(), +1);
    case Qt::Key_Space:
    case Qt::Key_Return:
    case Qt::Key_Enter: {
        std::optional<int> bit = focusedBit(current.row());
        if (!bit) {
            moveFocus(current.row(), +1);
            bit = focusedBit(current.row());
        }
        if (bit)
            model->toggleBit(current.row(), *bit);
        return true;
    }
    default:
        return false;
    }
}

bool BitCellsDelegate::editorEvent(QEvent* event, QAbstractItemModel* model,
                                   const QStyleOptionViewItem& option, const QModelIndex& index) {
    auto* table = qobject_cast<FormatTableModel*>(model);
    if (!table || event->type() != QEvent::MouseButtonRelease)
        return QStyledItemDelegate::editorEvent(event, model, option, index);
    const auto* mouse = static_cast<QMouseEvent*>(event);
    if (mouse->button() != Qt::LeftButton)
        return false;
    const ExplorerRow& row = table->row(index.row());
    const auto cell = cellAt(mouse->position().toPoint(), option.rect, layout(), row.spec,
                             row.report.details.decoded);
    if (!cell || !cell->bit)
        return false;
    focusColumn_ = cell->column;
    table->toggleBit(index.row(), *cell->bit);
    return true;
}

QString BitCellsDelegate::toolTipAt(const QPoint& pos, const QRect& rect,
                                    const QModelIndex& index) const {
    const FormatTableModel* model = tableOf(index);
    if (!model)
        return {};
    const ExplorerRow& row = model->row(index.row());
    const DecodedCode& decoded = row.report.details.decoded;
    const std::optional<BitCell> cell = cellAt(pos, rect, layout(), row.spec, decoded);
    if (!cell)
        return {};
    const QString text = cell->bit ? bitWeightText(row.spec, decoded, *cell->bit)
                                   : implicitBitText(row.spec, decoded);
    return QString::fromStdString(row.spec.id) + QStringLiteral(" — ") + text;
}

bool BitCellsDelegate::helpEvent(QHelpEvent* event, QAbstractItemView* view,
                                 const QStyleOptionViewItem& option, const QModelIndex& index) {
    if (event->type() != QEvent::ToolTip)
        return CodeCellsDelegate::helpEvent(event, view, option, index);
    const QString text = toolTipAt(event->pos(), option.rect, index);
    if (text.isEmpty())
        return CodeCellsDelegate::helpEvent(event, view, option, index);
    QToolTip::showText(event->globalPos(), text, view, option.rect);
    return true;
}

void paintFocusFrame(QPainter& painter, const QStyleOptionViewItem& option) {
    painter.save();
    const bool selected = (option.state & QStyle::State_Selected) != 0;
    painter.setPen(
        QPen(option.palette.color(selected ? QPalette::HighlightedText : QPalette::Highlight), 2,
             Qt::DashLine));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(option.rect).adjusted(1, 1, -1, -1));
    painter.restore();
}

} // namespace fpx::gui
