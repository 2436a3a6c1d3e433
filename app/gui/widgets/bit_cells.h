// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bit_layout.h"
#include "fpx/conversion.h"
#include "fpx/format_spec.h"

#include <QColor>
#include <QPalette>
#include <QRect>

#include <optional>
#include <vector>

class QPainter;

namespace fpx::gui {

// How the bit cells of all rows line up: every row is aligned on the boundary between its
// exponent (with the leading significand bit) and its mantissa, so the exponents of FP16 and
// BF16 and FP8 stack right-aligned and their mantissas left-aligned, as in the classic figure.
//
//     fp16      [s][e e e e e][1]|[m m m m m m m m m m]
//     bf16  [s][e e e e e e e e][1]|[m m m m m m m]
//     e4m3        [s][e e e e][1]|[m m m]
//                                ^ binary point
struct BitCellLayout {
    int leftCells = 0;  // cells left of the binary point in the widest row
    int rightCells = 0; // cells right of it
    int cellWidth = 14;
    int cellGap = 1;
    int margin = 4;

    int totalWidth() const {
        return 2 * margin + (leftCells + rightCells) * (cellWidth + cellGap) + 3;
    }
    static BitCellLayout forFormats(const std::vector<FormatSpec>& specs, int cellWidth);
};

// One drawn cell: a stored bit (with its index, 0 = least significant) or the implicit
// leading bit, which is not stored and cannot be clicked.
struct BitCell {
    BitFieldKind kind;
    std::optional<int> bit; // nullopt for the implicit bit
    bool value = false;
    int column = 0; // position counted from the layout's left edge
};

std::vector<BitCell> bitCells(const FormatSpec& spec, const DecodedCode& decoded,
                              const BitCellLayout& layout);

QColor fieldColour(BitFieldKind kind);
QColor implicitBitColour();

// Paints the cells of one code into `rect` (vertically centred).
void paintBitCells(QPainter& painter, const QRect& rect, const BitCellLayout& layout,
                   const FormatSpec& spec, const DecodedCode& decoded, const QPalette& palette);

// The stored bit under `pos`, or nullopt.
std::optional<int> bitAt(const QPoint& pos, const QRect& rect, const BitCellLayout& layout,
                         const FormatSpec& spec, const DecodedCode& decoded);

} // namespace fpx::gui
