// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/flow_layout.h"

#include <QStyle>
#include <QWidget>

#include <algorithm>

namespace fpx::gui {

FlowLayout::FlowLayout(QWidget* parent) : QLayout(parent) {}

FlowLayout::~FlowLayout() {
    while (QLayoutItem* item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem* item) {
    items_.append(item);
}

int FlowLayout::count() const {
    return int(items_.size());
}

QLayoutItem* FlowLayout::itemAt(int index) const {
    return items_.value(index);
}

QLayoutItem* FlowLayout::takeAt(int index) {
    return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

Qt::Orientations FlowLayout::expandingDirections() const {
    return {};
}

bool FlowLayout::hasHeightForWidth() const {
    return true;
}

int FlowLayout::heightForWidth(int width) const {
    return arrange(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::largestItem(QSize (QLayoutItem::*size)() const) const {
    QSize largest;
    for (const QLayoutItem* item : items_)
        if (!item->isEmpty())
            largest = largest.expandedTo((item->*size)());
    const QMargins margins = contentsMargins();
    return largest + QSize(margins.left() + margins.right(), margins.top() + margins.bottom());
}

QSize FlowLayout::minimumSize() const {
    return largestItem(&QLayoutItem::minimumSize);
}

QSize FlowLayout::sizeHint() const {
    // No wider than the widest control: the row's full width is what the room may give, not
    // what the page should ask of the window.
    return largestItem(&QLayoutItem::sizeHint);
}

void FlowLayout::setGeometry(const QRect& rect) {
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::horizontalGap() const {
    const QWidget* parent = parentWidget();
    return parent
               ? parent->style()->pixelMetric(QStyle::PM_LayoutHorizontalSpacing, nullptr, parent)
               : 6;
}

int FlowLayout::verticalGap() const {
    const QWidget* parent = parentWidget();
    return parent ? parent->style()->pixelMetric(QStyle::PM_LayoutVerticalSpacing, nullptr, parent)
                  : 6;
}

int FlowLayout::arrange(const QRect& rect, bool place) const {
    const QRect room = rect.marginsRemoved(contentsMargins());
    const int hGap = std::max(0, horizontalGap());
    const int vGap = std::max(0, verticalGap());
    // Rows are broken at the controls' minimum widths, so that there are as few as the room
    // allows; then each row's spare width goes to its controls in equal shares, up to what
    // each would like (a box's whole text).
    struct Row {
        QList<QLayoutItem*> items;
        QList<int> widths;
        int used = 0; // the minimum widths and the gaps between them
        int height = 0;
    };
    QList<Row> rows(1);
    for (QLayoutItem* item : items_) {
        if (item->isEmpty())
            continue;
        const int least = std::min(item->minimumSize().width(), item->sizeHint().width());
        Row* row = &rows.last();
        if (!row->items.isEmpty() && row->used + hGap + least > room.width()) {
            rows.append(Row{});
            row = &rows.last();
        }
        row->used += (row->items.isEmpty() ? 0 : hGap) + least;
        row->items.append(item);
        row->widths.append(least);
        row->height = std::max(row->height, item->sizeHint().height());
    }
    int y = room.top();
    bool first = true;
    for (Row& row : rows) {
        if (row.items.isEmpty())
            continue;
        if (!first)
            y += vGap;
        first = false;
        if (place) {
            int spare = room.width() - row.used;
            for (bool grew = true; spare > 0 && grew;) {
                grew = false;
                int wanting = 0;
                for (qsizetype i = 0; i < row.items.size(); ++i)
                    wanting += row.widths[i] < row.items[i]->sizeHint().width();
                const int share = wanting > 0 ? std::max(1, spare / wanting) : 0;
                for (qsizetype i = 0; i < row.items.size() && spare > 0; ++i) {
                    const int more =
                        std::min({share, spare, row.items[i]->sizeHint().width() - row.widths[i]});
                    if (more > 0) {
                        row.widths[i] += more;
                        spare -= more;
                        grew = true;
                    }
                }
            }
            int left = room.left();
            for (qsizetype i = 0; i < row.items.size(); ++i) {
                const int height = std::min(row.height, row.items[i]->sizeHint().height());
                row.items[i]->setGeometry(
                    QRect(left, y + (row.height - height) / 2, row.widths[i], height));
                left += row.widths[i] + hGap;
            }
        }
        y += row.height;
    }
    const QMargins margins = contentsMargins();
    return y - room.top() + margins.top() + margins.bottom();
}

} // namespace fpx::gui
