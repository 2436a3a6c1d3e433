// SPDX-License-Identifier: GPL-3.0-or-later
#include "bit_cells.h"

#include <QPainter>

#include <algorithm>

namespace fpx::gui {

namespace {

// Cells left of the binary point: sign, exponent and the leading significand bit (implicit,
// or x87's explicit integer bit); integers and tables put all their bits there.
int leftCellsOf(const FormatSpec& spec) {
    if (spec.kind != FormatKind::BinaryFloat)
        return spec.totalBits();
    return (spec.isSigned ? 1 : 0) + spec.exponentBits + 1;
}

int rightCellsOf(const FormatSpec& spec) {
    return spec.kind == FormatKind::BinaryFloat ? spec.fractionBits : 0;
}

bool hasImplicitBit(const FormatSpec& spec) {
    return spec.kind == FormatKind::BinaryFloat && !spec.explicitIntegerBit;
}

} // namespace

BitCellLayout BitCellLayout::forFormats(const std::vector<FormatSpec>& specs, int cellWidth) {
    BitCellLayout layout;
    layout.cellWidth = cellWidth;
    for (const FormatSpec& spec : specs) {
        layout.leftCells = std::max(layout.leftCells, leftCellsOf(spec));
        layout.rightCells = std::max(layout.rightCells, rightCellsOf(spec));
    }
    return layout;
}

std::vector<BitCell> bitCells(const FormatSpec& spec, const DecodedCode& decoded,
                              const BitCellLayout& layout) {
    std::vector<BitCell> cells;
    int column = layout.leftCells - leftCellsOf(spec);
    int bit = spec.totalBits() - 1;
    const Code code = decoded.code;
    auto stored = [&](BitFieldKind kind) {
        cells.push_back({kind, bit, ((code >> bit) & 1) != 0, column++});
        --bit;
    };
    for (const BitField& field : bitLayout(spec)) {
        if (field.kind == BitFieldKind::Fraction && hasImplicitBit(spec)) {
            // The leading bit the encoding leaves out: 1 unless the exponent field is 0
            // (subnormals and zero), where the significand is 0.fff.
            const bool one = decoded.exponentField != 0 || !spec.exponentZeroIsSubnormal;
            cells.push_back({BitFieldKind::IntegerBit, std::nullopt, one, column++});
        }
        for (int i = 0; i < field.width; ++i)
            stored(field.kind);
    }
    if (hasImplicitBit(spec) && spec.fractionBits == 0) // E8M0: the implicit 1 still shows
        cells.push_back({BitFieldKind::IntegerBit, std::nullopt, true, column++});
    return cells;
}

QColor fieldColour(BitFieldKind kind) {
    switch (kind) {
    case BitFieldKind::Sign:
        return QColor(0x3d, 0x7e, 0xe8);
    case BitFieldKind::Exponent:
        return QColor(0x2e, 0xa8, 0x5a);
    case BitFieldKind::IntegerBit:
        return QColor(0xd9, 0x9a, 0x00);
    case BitFieldKind::Fraction:
        return QColor(0xde, 0x4b, 0x42);
    case BitFieldKind::Level:
        return QColor(0x16, 0x9d, 0xb3);
    }
    return Qt::gray;
}

QColor implicitBitColour() {
    return QColor(0x8a, 0x90, 0x99);
}

void paintBitCells(QPainter& painter, const QRect& rect, const BitCellLayout& layout,
                   const FormatSpec& spec, const DecodedCode& decoded, const QPalette& palette) {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const int height = std::min(rect.height() - 4, layout.cellWidth + 6);
    const int top = rect.top() + (rect.height() - height) / 2;
    QFont font = painter.font();
    font.setPixelSize(std::max(8, layout.cellWidth - 3));
    font.setBold(true);
    painter.setFont(font);
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    for (const BitCell& cell : bitCells(spec, decoded, layout)) {
        const int x = rect.left() + layout.margin +
                      cell.column * (layout.cellWidth + layout.cellGap) +
                      (cell.column >= layout.leftCells ? 3 : 0); // a hair of space at the point
        const QRectF box(x, top, layout.cellWidth, height);
        const QColor colour = cell.bit ? fieldColour(cell.kind) : implicitBitColour();
        QColor fill = colour;
        QColor text = Qt::white;
        if (!cell.value) {
            fill.setAlpha(dark ? 70 : 45);
            text = dark ? colour.lighter(150) : colour.darker(140);
        }
        painter.setPen(Qt::NoPen);
        painter.setBrush(fill);
        painter.drawRoundedRect(box, 2, 2);
        if (!cell.bit) { // implicit: dashed outline, not stored
            painter.setPen(QPen(colour, 1, Qt::DotLine));
            painter.setBrush(Qt::NoBrush);
            painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 2, 2);
        }
        painter.setPen(text);
        painter.drawText(box, Qt::AlignCenter,
                         cell.value ? QStringLiteral("1") : QStringLiteral("0"));
    }
    painter.restore();
}

std::optional<int> bitAt(const QPoint& pos, const QRect& rect, const BitCellLayout& layout,
                         const FormatSpec& spec, const DecodedCode& decoded) {
    for (const BitCell& cell : bitCells(spec, decoded, layout)) {
        const int x = rect.left() + layout.margin +
                      cell.column * (layout.cellWidth + layout.cellGap) +
                      (cell.column >= layout.leftCells ? 3 : 0);
        if (pos.x() >= x && pos.x() < x + layout.cellWidth + layout.cellGap)
            return cell.bit;
    }
    return std::nullopt;
}

} // namespace fpx::gui
