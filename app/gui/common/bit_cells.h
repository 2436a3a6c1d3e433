// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/bit_layout.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_spec.h"

#include <QColor>
#include <QPalette>
#include <QRect>
#include <QStringList>

#include <optional>
#include <vector>

class QFont;
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

// How opaque the cells are painted where their widget is disabled: the explorer greys rows
// that show a previous value while a new one is computed, and the field colours, the loudest
// thing on the screen, must grey with the text.
constexpr double kDisabledBitCellsOpacity = 0.35;

// Paints the cells of one code into `rect` (vertically centred). `onSelection`: the cells lie
// on a selected row, whose colour must not swallow the pale 0 cells.
void paintBitCells(QPainter& painter, const QRect& rect, const BitCellLayout& layout,
                   const FormatSpec& spec, const DecodedCode& decoded, const QPalette& palette,
                   bool onSelection = false);

// Where cell `column` of a layout starts, relative to the left edge of the painted rect.
int bitCellX(const BitCellLayout& layout, int column);

// A field of one row as drawn: its kind, first and last layout column, and its name as the
// format spells it, longest first ("exponent (5)", "exponent", "exp", "e") so that a painter
// can take the longest that fits.
struct FieldLabel {
    BitFieldKind kind;
    int firstColumn = 0;
    int lastColumn = 0;
    QStringList names;
};
// The fields of `decoded`'s code: the same for every code of a float or integer, but a posit's
// regime run moves its exponent and fraction from code to code.
std::vector<FieldLabel> fieldLabels(const FormatSpec& spec, const DecodedCode& decoded,
                                    const BitCellLayout& layout);

// Paints the field labels of one row into `strip`, each centred over its cells, in the
// field's colour (on a selected row, the selection's text colour, which stays readable).
void paintFieldLabels(QPainter& painter, const QRect& strip, const BitCellLayout& layout,
                      const FormatSpec& spec, const DecodedCode& decoded, const QPalette& palette,
                      bool onSelection = false);
// The font of the field labels for cells of `cellWidth` pixels under text in `base`.
QFont fieldLabelFont(const QFont& base, int cellWidth);

// A frame around cell `column` of a row painted into `rect`: the keyboard's focused bit.
void paintFocusedBit(QPainter& painter, const QRect& rect, const BitCellLayout& layout, int column,
                     const QPalette& palette, bool onSelection);

// What stored bit `bit` of `decoded` is worth, exactly: a mantissa bit's 2^k in its binade
// and in absolute terms, an exponent bit's +2^j to the biased exponent (a factor 2^(2^j)), the
// sign, an integer bit's 2^j times the scale, a table index bit.
QString bitWeightText(const FormatSpec& spec, const DecodedCode& decoded, int bit);
// The same for the implicit leading bit, which is not stored.
QString implicitBitText(const FormatSpec& spec, const DecodedCode& decoded);

// The cell (stored or implicit) under `pos`, or nullopt.
std::optional<BitCell> cellAt(const QPoint& pos, const QRect& rect, const BitCellLayout& layout,
                              const FormatSpec& spec, const DecodedCode& decoded);

// The stored bit under `pos`, or nullopt.
std::optional<int> bitAt(const QPoint& pos, const QRect& rect, const BitCellLayout& layout,
                         const FormatSpec& spec, const DecodedCode& decoded);

} // namespace fpx::gui
