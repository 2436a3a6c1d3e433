// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/bit_cells.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/posit.h"

#include <QCoreApplication>
#include <QFontInfo>
#include <QFontMetrics>
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
    for (const BitField& field : bitLayout(spec, code)) {
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
    case BitFieldKind::Regime:
        return QColor(0x8e, 0x44, 0xad);
    }
    return Qt::gray;
}

QColor implicitBitColour() {
    return QColor(0x8a, 0x90, 0x99);
}

void paintBitCells(QPainter& painter, const QRect& rect, const BitCellLayout& layout,
                   const FormatSpec& spec, const DecodedCode& decoded, const QPalette& palette,
                   bool onSelection) {
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
        const int x = rect.left() + bitCellX(layout, cell.column);
        const QRectF box(x, top, layout.cellWidth, height);
        const QColor colour = cell.bit ? fieldColour(cell.kind) : implicitBitColour();
        QColor fill = colour;
        QColor text = Qt::white;
        if (!cell.value) {
            fill.setAlpha(dark ? 70 : 45);
            text = dark ? colour.lighter(150) : colour.darker(140);
        }
        painter.setPen(Qt::NoPen);
        if (onSelection && !cell.value) {
            // A pale 0 lets the row's background through: on the selection's strong colour it
            // would vanish, so it stands on the view's own background there, as on any row.
            painter.setBrush(palette.color(QPalette::Base));
            painter.drawRoundedRect(box, 2, 2);
        }
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

std::optional<BitCell> cellAt(const QPoint& pos, const QRect& rect, const BitCellLayout& layout,
                              const FormatSpec& spec, const DecodedCode& decoded) {
    for (const BitCell& cell : bitCells(spec, decoded, layout)) {
        const int x = rect.left() + bitCellX(layout, cell.column);
        if (pos.x() >= x && pos.x() < x + layout.cellWidth + layout.cellGap)
            return cell;
    }
    return std::nullopt;
}

std::optional<int> bitAt(const QPoint& pos, const QRect& rect, const BitCellLayout& layout,
                         const FormatSpec& spec, const DecodedCode& decoded) {
    const std::optional<BitCell> cell = cellAt(pos, rect, layout, spec, decoded);
    return cell ? cell->bit : std::nullopt;
}

int bitCellX(const BitCellLayout& layout, int column) {
    return layout.margin + column * (layout.cellWidth + layout.cellGap) +
           (column >= layout.leftCells ? 3 : 0); // a hair of space at the binary point
}

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("fpx::gui::BitCells", text);
}

QStringList namesOf(const FormatSpec& spec, BitFieldKind kind, int width) {
    const QString n = QString::number(width);
    switch (kind) {
    case BitFieldKind::Sign:
        return {tr("sign"), QStringLiteral("s")};
    case BitFieldKind::Exponent:
        return {tr("exponent (%1)").arg(n), tr("exponent"), tr("exp"), QStringLiteral("e")};
    case BitFieldKind::IntegerBit:
        return {tr("integer bit"), tr("int"), QStringLiteral("i")};
    case BitFieldKind::Fraction:
        if (spec.kind == FormatKind::Posit) // the standard's word; its width varies by code
            return {tr("fraction (%1)").arg(n), tr("fraction"), tr("frac"), QStringLiteral("f")};
        return {tr("mantissa (%1)").arg(n), tr("mantissa"), tr("man"), QStringLiteral("m")};
    case BitFieldKind::Regime: // fieldLabels puts the run's length in front
        return {tr("regime"), tr("reg"), QStringLiteral("r")};
    case BitFieldKind::Level:
        if (spec.kind == FormatKind::Lookup)
            return {tr("level index (%1)").arg(n), tr("level index"), tr("index"), tr("idx"),
                    QStringLiteral("i")};
        if (spec.isSigned)
            return {tr("two's complement integer (%1)").arg(n), tr("two's complement"),
                    tr("integer"), tr("int")};
        return {tr("unsigned integer (%1)").arg(n), tr("unsigned"), tr("uint")};
    }
    return {};
}

// 2^k, and its exact decimal where that is short enough to read.
QString powerOfTwoText(std::int64_t k, const ExactValue& factor = ExactValue::integer(1)) {
    const ExactValue value = ExactValue::dyadic(false, 1, k) * factor;
    const DecimalText decimal = toDecimal(value);
    QString text = QStringLiteral("2^%1").arg(k);
    if (!factor.isIdenticalTo(ExactValue::integer(1)))
        text += QStringLiteral(" × %1").arg(QString::fromStdString(toDecimal(factor).text));
    if (decimal.exact && decimal.text.size() <= 40)
        text += QStringLiteral(" = ") + QString::fromStdString(decimal.text);
    return text;
}

// The exponent of the binade a float code's significand is scaled by: the field minus the
// bias, and for field 0 of a format with subnormals the smallest normal exponent.
std::int64_t binadeExponent(const FormatSpec& spec, const DecodedCode& decoded) {
    if (decoded.exponentField == 0 && spec.exponentZeroIsSubnormal)
        return spec.minExponent();
    return static_cast<std::int64_t>(decoded.exponentField) - spec.bias;
}

QString binaryOf(Code value, int width) {
    return QString::fromStdString(codeToBinary(value, width));
}

// What one bit of a posit code does: which field it falls in depends on the regime's run.
QString positBitText(const FormatSpec& spec, const DecodedCode& decoded, int bit) {
    const int total = spec.totalBits();
    const auto f = positFields(spec, decoded.code);
    if (bit == total - 1)
        return tr("sign bit: 1 makes the value (−2 + f) × 2^−(%1r + e + 1), minus the value of "
                  "the code's two's complement; with every other bit 0 it is NaR")
            .arg(1 << spec.positExponentBits);
    if (!f)
        return tr("bit %1: with every bit but the sign 0 the code is %2")
            .arg(bit)
            .arg(decoded.code == 0 ? tr("zero") : tr("NaR"));
    const int fromTop = total - 2 - bit; // 0 = the first bit after the sign
    const int useedLog2 = 1 << spec.positExponentBits;
    if (fromTop < f->regimeWidth) {
        const bool terminator = fromTop == f->regimeRun;
        return (terminator ? tr("regime bit: ends the run of %1 %2, so r = %3; each regime step "
                                "is a factor useed = 2^%4")
                           : tr("regime bit: one of a run of %1 %2, r = %3: the value's scale "
                                "is useed^r = 2^(%4 × r); a longer run, a larger or smaller "
                                "scale and fewer bits left for the fraction"))
            .arg(f->regimeRun)
            .arg(f->regimeOfOnes ? tr("ones") : tr("zeros"))
            .arg(f->regime)
            .arg(useedLog2);
    }
    const int intoExponent = fromTop - f->regimeWidth;
    if (intoExponent < f->exponentWidth) {
        const int j = spec.positExponentBits - 1 - intoExponent;
        return tr("exponent bit: adds 2^%1 = %2 to e (now %3), a factor of 2^%2")
            .arg(j)
            .arg(1 << j)
            .arg(f->exponent);
    }
    const int k = bit - f->fractionWidth; // weight relative to the leading 1
    const std::int64_t binade =
        (static_cast<std::int64_t>(f->regime) << spec.positExponentBits) + f->exponent;
    return tr("fraction bit: 2^%1 of the leading 1 (the code has %2 fraction bits here; the "
              "regime's run decides how many)")
               .arg(k)
               .arg(f->fractionWidth) +
           (f->sign ? QString() : tr(", worth %1").arg(powerOfTwoText(binade + k)));
}

} // namespace

std::vector<FieldLabel> fieldLabels(const FormatSpec& spec, const DecodedCode& decoded,
                                    const BitCellLayout& layout) {
    std::vector<FieldLabel> labels;
    // The fields' columns follow the cells; the implicit bit belongs to no label.
    for (const BitCell& cell : bitCells(spec, decoded, layout)) {
        if (!cell.bit)
            continue;
        if (!labels.empty() && labels.back().kind == cell.kind &&
            labels.back().lastColumn + 1 == cell.column) {
            labels.back().lastColumn = cell.column;
            continue;
        }
        labels.push_back({cell.kind, cell.column, cell.column, {}});
    }
    for (FieldLabel& label : labels) {
        label.names = namesOf(spec, label.kind, label.lastColumn - label.firstColumn + 1);
        if (label.kind != BitFieldKind::Regime)
            continue;
        const auto f = positFields(spec, decoded.code);
        const int run = f ? f->regimeRun : label.lastColumn - label.firstColumn + 1;
        label.names.prepend(tr("regime, run %1").arg(run));
        if (f)
            label.names.prepend(tr("regime: run %1, r = %2").arg(run).arg(f->regime));
    }
    return labels;
}

QFont fieldLabelFont(const QFont& base, int cellWidth) {
    QFont font = base;
    // Three quarters of the text's size, or more over large cells, and with no upper bound:
    // both grow with the zoom, and the names must stay as readable as the bits at 200 %. A
    // field too narrow for its name takes a shorter one (paintFieldLabels).
    const int text = QFontInfo(base).pixelSize();
    font.setPixelSize(std::max({8, text * 3 / 4, cellWidth * 7 / 10}));
    font.setBold(false);
    return font;
}

void paintFieldLabels(QPainter& painter, const QRect& strip, const BitCellLayout& layout,
                      const FormatSpec& spec, const DecodedCode& decoded, const QPalette& palette,
                      bool onSelection) {
    painter.save();
    const QFont font = fieldLabelFont(painter.font(), layout.cellWidth);
    painter.setFont(font);
    const QFontMetrics metrics(font);
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    for (const FieldLabel& label : fieldLabels(spec, decoded, layout)) {
        const int left = strip.left() + bitCellX(layout, label.firstColumn);
        const int right = strip.left() + bitCellX(layout, label.lastColumn) + layout.cellWidth;
        const QRect span(left, strip.top(), right - left, strip.height());
        const QColor colour = onSelection ? palette.color(QPalette::HighlightedText)
                              : dark      ? fieldColour(label.kind).lighter(140)
                                          : fieldColour(label.kind).darker(130);
        // A bracket under the name shows which cells it names.
        painter.setPen(QPen(colour, 1));
        const int y = span.bottom();
        painter.drawLine(left + 1, y, right - 1, y);
        painter.drawLine(left + 1, y, left + 1, y - 2);
        painter.drawLine(right - 1, y, right - 1, y - 2);
        // The longest name that fits; a field too narrow for even one letter stays unnamed.
        for (const QString& name : label.names) {
            if (metrics.horizontalAdvance(name) <= span.width() + layout.cellGap) {
                painter.drawText(span.adjusted(-1, 0, 1, -2), Qt::AlignHCenter | Qt::AlignBottom,
                                 name);
                break;
            }
        }
    }
    painter.restore();
}

void paintFocusedBit(QPainter& painter, const QRect& rect, const BitCellLayout& layout, int column,
                     const QPalette& palette, bool onSelection) {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const int height = std::min(rect.height() - 4, layout.cellWidth + 6);
    const int top = rect.top() + (rect.height() - height) / 2;
    const QRectF box(rect.left() + bitCellX(layout, column), top, layout.cellWidth, height);
    // Two rings, the text colour inside a ring that stands out from the row's background, so
    // that the frame shows on every cell colour, selected or not.
    painter.setBrush(Qt::NoBrush);
    painter.setPen(
        QPen(palette.color(onSelection ? QPalette::HighlightedText : QPalette::Highlight), 2));
    painter.drawRoundedRect(box.adjusted(-3, -3, 3, 3), 4, 4);
    painter.setPen(QPen(palette.color(QPalette::Text), 2));
    painter.drawRoundedRect(box.adjusted(-1, -1, 1, 1), 3, 3);
    painter.restore();
}

QString bitWeightText(const FormatSpec& spec, const DecodedCode& decoded, int bit) {
    const int total = spec.totalBits();
    if (bit < 0 || bit >= total)
        return {};
    const bool set = ((decoded.code >> bit) & 1) != 0;
    const QString now = set ? tr("now 1") : tr("now 0");
    if (spec.kind == FormatKind::Integer) {
        const bool top = spec.isSigned && bit == total - 1;
        const QString weight = powerOfTwoText(bit, spec.scale);
        return (top ? tr("bit %1 (two's complement sign): worth −%2") : tr("bit %1: worth %2"))
                   .arg(bit)
                   .arg(weight) +
               QStringLiteral(" (%1)").arg(now);
    }
    if (spec.kind == FormatKind::Lookup)
        return tr("level index bit %1: adds 2^%1 = %2 to the index into the %3 levels (index "
                  "now %4); the value is the level times the scale")
            .arg(bit)
            .arg(1LL << bit)
            .arg(static_cast<qulonglong>(spec.table.size()))
            .arg(static_cast<qlonglong>(decoded.level));
    if (spec.kind == FormatKind::Posit)
        return positBitText(spec, decoded, bit) + QStringLiteral(" (%1)").arg(now);
    const int significand = spec.storedSignificandBits();
    if (spec.isSigned && bit == total - 1)
        return tr("sign bit: 0 is +, 1 is − (%1: %2)")
            .arg(now, decoded.sign ? tr("negative") : tr("positive"));
    const std::int64_t exponent = binadeExponent(spec, decoded);
    if (bit >= significand) {
        const int j = bit - significand;
        const std::int64_t step = std::int64_t{1} << j;
        return tr("exponent bit %1: adds 2^%1 = %2 to the biased exponent, i.e. between normal "
                  "values a factor of 2^%2 (field now %3 = %4, bias %5) (%6)")
            .arg(j)
            .arg(step)
            .arg(binaryOf(decoded.exponentField, spec.exponentBits))
            .arg(static_cast<qulonglong>(decoded.exponentField))
            .arg(spec.bias)
            .arg(now);
    }
    if (spec.explicitIntegerBit && bit == spec.fractionBits)
        return tr("integer bit (stored): worth 2^0 = 1 of this value's binade 2^%1, i.e. %2 (%3)")
            .arg(exponent)
            .arg(powerOfTwoText(exponent))
            .arg(now);
    const int k = bit - spec.fractionBits; // a fraction bit's weight relative to the leading 1
    if (decoded.valueClass == ValueClass::NaN || decoded.valueClass == ValueClass::Infinity)
        return tr("mantissa bit %1: 2^%2 in a finite binade; in this %3 code it is part of the "
                  "payload, not a weight (%4)")
            .arg(bit)
            .arg(k)
            .arg(decoded.valueClass == ValueClass::NaN ? tr("NaN") : tr("infinity"))
            .arg(now);
    return tr("mantissa bit %1: %2 of this value's binade 2^%3, worth %4 (%5)")
        .arg(bit)
        .arg(powerOfTwoText(k), QString::number(exponent), powerOfTwoText(exponent + k), now);
}

QString implicitBitText(const FormatSpec& spec, const DecodedCode& decoded) {
    if (spec.fractionBits == 0)
        return tr("implicit leading 1, not stored: every code is a power of two");
    if (decoded.exponentField == 0 && spec.exponentZeroIsSubnormal)
        return tr("implicit leading bit, not stored: 0 here, since the exponent field is 0 "
                  "(zero or a subnormal, binade 2^%1)")
            .arg(spec.minExponent());
    return tr("implicit leading bit, not stored: 1, worth %1 (this value's binade)")
        .arg(powerOfTwoText(binadeExponent(spec, decoded)));
}

} // namespace fpx::gui
