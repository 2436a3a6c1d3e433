// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/machines/instruction_picture.h"

#include "common/error_style.h"
#include "common/number_text.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/machines/fused_dot.h"

#include <QEvent>
#include <QFileInfo>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>
#include <QToolTip>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace fpx::gui {
namespace {

// Columns drawn below the window: enough to show what a cut term loses, never so many that
// the window itself becomes thin.
constexpr std::int64_t kMinTail = 2;
constexpr std::int64_t kMaxTail = 8;
// A generic fused:F model may keep up to 200 bits: the picture stays drawable, and scrolls.
constexpr std::int64_t kMaxColumns = 260;
constexpr int kMargin = 8;

// Bit `position` (worth 2^position) of |value|, a dyadic value.
bool bitAt(const ExactValue& value, std::int64_t position) {
    if (!value.isFinite() || value.isZero() || position < value.exponent2())
        return false;
    const std::int64_t shift = position - value.exponent2();
    if (shift > 100000)
        return false;
    return ((value.numerator() >> unsigned(shift)) & 1) != 0;
}

// Whether |value| has a set bit below `position`.
bool bitsBelow(const ExactValue& value, std::int64_t position) {
    return value.isFinite() && !value.isZero() && value.exponent2() < position;
}

QString number(const ExactValue& value) {
    return shortDecimal(value, 9);
}

QColor mix(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t),
                            float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

} // namespace

struct InstructionPicture::Row {
    enum class Kind { Term, Sum, Output, Exact };
    Kind kind = Kind::Term;
    QString label;
    ExactValue value;                  // the bits drawn
    std::int64_t keepFrom = INT64_MIN; // set bits below are drawn struck, in red
    ExactValue struck;                 // the bits drawn struck below keepFrom (the term itself)
    bool lost = false;                 // the row's text in the error colour
    std::optional<std::pair<std::int64_t, std::int64_t>> frame; // output significand, high, low
    QString text;
    QString tooltip;
};

InstructionPicture::InstructionPicture(QWidget* parent) : QWidget(parent) {
    setObjectName("machineInstructionPicture");
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void InstructionPicture::setInstruction(std::optional<DrawnInstruction> drawn,
                                        const QString& message) {
    drawn_ = std::move(drawn);
    message_ = message;
    updateGeometry();
    update();
}

std::pair<std::int64_t, std::int64_t> InstructionPicture::columnRange() const {
    if (!drawn_)
        return {0, -1};
    const FusedStep& step = drawn_->step;
    bool any = false;
    for (const FusedTerm& term : step.terms)
        any = any || (term.value.isFinite() && !term.value.isZero());
    const std::int64_t e = any ? step.alignment : 0;
    const std::int64_t windowLow = e - drawn_->instruction.model.fractionBits;
    std::int64_t top = e;
    std::int64_t lowest = windowLow;
    auto see = [&](const ExactValue& v, bool low) {
        if (!v.isFinite() || v.isZero())
            return;
        top = std::max(top, v.floorLog2());
        if (low)
            lowest = std::min(lowest, v.exponent2());
    };
    for (const FusedTerm& term : step.terms)
        see(term.value, true);
    see(step.sum, false);
    see(step.output, false);
    see(drawn_->exact, true);
    const std::int64_t tail = std::clamp(windowLow - lowest, kMinTail, kMaxTail);
    top = std::min(top, windowLow - tail + kMaxColumns - 1);
    return {top, windowLow - tail};
}

std::vector<InstructionPicture::Row> InstructionPicture::rows() const {
    std::vector<Row> rows;
    if (!drawn_)
        return rows;
    const DrawnInstruction& d = *drawn_;
    const FusedStep& step = d.step;
    const std::int64_t windowLow = step.alignment - d.instruction.model.fractionBits;
    for (std::size_t t = 0; t < step.terms.size(); ++t) {
        // Products past the typed ones are the zeros the instruction is padded with.
        if (t > d.typed)
            break;
        const FusedTerm& term = step.terms[t];
        Row row;
        row.label = QString::fromStdString(d.termLabel(t));
        row.value = term.value;
        row.keepFrom = windowLow;
        row.struck = term.value;
        const TermFate fate = d.fates[t];
        row.lost = fate == TermFate::Cut || fate == TermFate::Vanished;
        switch (fate) {
        case TermFate::Zero:
            // A block-scaled run whose sum is zero still aligns by its scales.
            row.text = t > 0 && d.isBlock() && term.aligns
                           ? tr("0 (its scales still set 2^%1)").arg(qlonglong(term.exponent))
                           : QStringLiteral("0");
            break;
        case TermFate::Whole:
            row.text = number(term.value);
            break;
        case TermFate::Cut:
            row.text = tr("%1 → %2 (cut)").arg(number(term.value), number(term.kept));
            break;
        case TermFate::Vanished:
            row.text = tr("%1 → 0 (vanished)").arg(number(term.value));
            break;
        case TermFate::Special:
            row.text = fullDecimal(term.value);
            break;
        }
        QString what;
        if (t == 0) {
            what = tr("c = %1, the accumulator (in %2)")
                       .arg(fullDecimal(term.value), QString::fromStdString(d.outputFormat().id));
        } else if (!d.isBlock()) {
            what =
                tr("a%1·b%1 = %2 × %3 = %4")
                    .arg(t)
                    .arg(fullDecimal(d.a[t - 1]), fullDecimal(d.b[t - 1]), fullDecimal(term.value));
        } else if (d.instruction.subBlock <= 0) {
            what = tr("a%1·b%1·sa·sb = %2 × %3 × %4 × %5 = %6")
                       .arg(t)
                       .arg(fullDecimal(d.a[t - 1]), fullDecimal(d.b[t - 1]),
                            fullDecimal(d.quantizedA.scales[t - 1]),
                            fullDecimal(d.quantizedB.scales[t - 1]), fullDecimal(term.value));
        } else {
            const std::size_t run = std::size_t(d.instruction.subBlock);
            const std::size_t first = (t - 1) * run;
            const std::size_t last = std::min(d.typed, t * run);
            ExactValue sum;
            for (std::size_t i = first; i < last; ++i)
                sum = sum + d.a[i] * d.b[i];
            what = tr("run %1: the products of a%2…a%3 and b%2…b%3 added exactly, %4, times the "
                      "run's scales %5 and %6: %7")
                       .arg(t)
                       .arg(qulonglong(first + 1))
                       .arg(qulonglong(last))
                       .arg(fullDecimal(sum), fullDecimal(d.quantizedA.scales[first]),
                            fullDecimal(d.quantizedB.scales[first]), fullDecimal(term.value));
        }
        if (term.value.isFinite() && (term.aligns || !term.value.isZero()))
            what +=
                d.isBlock() && d.instruction.subBlock > 0
                    ? tr("\nalignment exponent %1, its scales' alone").arg(qlonglong(term.exponent))
                    : tr("\nalignment exponent %1").arg(qlonglong(term.exponent));
        if (row.lost)
            what += tr("\nkept %1: its bits below 2^%2 are cut")
                        .arg(fullDecimal(term.kept))
                        .arg(qlonglong(windowLow));
        row.tooltip = what;
        rows.push_back(std::move(row));
    }
    Row sum;
    sum.kind = Row::Kind::Sum;
    sum.label = tr("kept sum");
    sum.value = step.sum;
    sum.text = number(step.sum);
    sum.tooltip = tr("The kept terms added exactly: %1").arg(fullDecimal(step.sum));
    rows.push_back(sum);

    Row output;
    output.kind = Row::Kind::Output;
    output.label = tr("output");
    output.value = step.output;
    const FormatSpec& format = d.outputFormat();
    const QString rounding =
        QString::fromStdString(std::string(outputRoundingId(d.instruction.model.output)));
    if (step.output.isFinite() && !step.output.isZero()) {
        const std::int64_t lead =
            std::max<std::int64_t>(step.output.floorLog2(), format.minExponent());
        output.frame = {{step.output.floorLog2(), lead - format.fractionBits}};
        output.keepFrom = lead - format.fractionBits;
        output.struck = step.sum; // what the output's rounding left behind
    }
    output.text =
        tr("%1 in %2, %3").arg(number(step.output), QString::fromStdString(format.id), rounding);
    output.lost = !step.output.isIdenticalTo(step.sum) && step.output.isFinite();
    output.tooltip = tr("The kept sum rounded into %1 (%2 fraction bits, %3): %4")
                         .arg(QString::fromStdString(format.id))
                         .arg(format.fractionBits)
                         .arg(rounding, fullDecimal(step.output));
    rows.push_back(output);

    Row exact;
    exact.kind = Row::Kind::Exact;
    exact.label = tr("exact");
    exact.value = d.exact;
    exact.text = number(d.exact);
    exact.tooltip = d.isBlock() ? tr("c + the terms without any cut: %1 (the exact value of the "
                                     "quantized operands before the tensor scales)")
                                      .arg(fullDecimal(d.exact))
                                : tr("c + Σ a·b without any cut: %1").arg(fullDecimal(d.exact));
    rows.push_back(exact);
    return rows;
}

QStringList InstructionPicture::rowLabels() const {
    QStringList labels;
    for (const Row& row : rows())
        labels << row.label;
    return labels;
}

int InstructionPicture::rowHeight(int cell) const {
    // The cells square, with a margin above and below; never tighter than the text.
    return std::max(fontMetrics().height() * 3 / 2, cell + 2 * std::max(2, cell / 6));
}

int InstructionPicture::cellWidth(int width) const {
    const auto [top, bottom] = columnRange();
    const int columns = std::max(1, int(top - bottom + 1));
    const QFontMetrics fm(font());
    const int minCell = std::max(5, fm.height() * 2 / 5);
    // Up to twice the type's height: on a projector the bits are what the room reads.
    const int maxCell = fm.height() * 2;
    const int ellipsisW = fm.horizontalAdvance(QStringLiteral("…")) + 4;
    const int room = width - 2 * kMargin - labelWidth() - ellipsisW - textWidth();
    return std::clamp(room / columns, minCell, maxCell);
}

int InstructionPicture::labelWidth() const {
    int width = fontMetrics().horizontalAdvance(tr("kept sum"));
    for (const Row& row : rows())
        width = std::max(width, fontMetrics().horizontalAdvance(row.label));
    return width + fontMetrics().horizontalAdvance(QStringLiteral("  −"));
}

int InstructionPicture::textWidth() const {
    int width = 0;
    for (const Row& row : rows())
        width = std::max(width, fontMetrics().horizontalAdvance(row.text));
    return width + kMargin;
}

QSize InstructionPicture::sizeHint() const {
    const auto [top, bottom] = columnRange();
    const int columns = int(top - bottom + 1);
    const int cell = fontMetrics().height() * 3 / 2;
    const int lines = int(rows().size()) + 6 +
                      (drawn_ ? int(drawn_->notes.size()) + (drawn_->isBlock() ? 3 : 0) : 1);
    return {2 * kMargin + labelWidth() + columns * cell + textWidth() + cell,
            2 * kMargin + lines * rowHeight(cell)};
}

QSize InstructionPicture::minimumSizeHint() const {
    const auto [top, bottom] = columnRange();
    const int columns = int(top - bottom + 1);
    const int minCell = std::max(5, fontMetrics().height() * 2 / 5);
    const int lines = int(rows().size()) + 6 +
                      (drawn_ ? int(drawn_->notes.size()) + (drawn_->isBlock() ? 3 : 0) : 1);
    return {2 * kMargin + labelWidth() + columns * minCell + fontMetrics().height() * 8,
            2 * kMargin + lines * rowHeight(minCell)};
}

bool InstructionPicture::hasHeightForWidth() const {
    return true;
}

int InstructionPicture::heightForWidth(int width) const {
    // As tall as the rows at that width (the cells, and so the rows, follow the width), so that
    // the picture scrolls rather than overlaps.
    const int lines = int(rows().size()) + 6 +
                      (drawn_ ? int(drawn_->notes.size()) + (drawn_->isBlock() ? 3 : 0) : 1);
    return 2 * kMargin + lines * rowHeight(cellWidth(width));
}

void InstructionPicture::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    paintPicture(painter, rect());
}

void InstructionPicture::paintPicture(QPainter& painter, const QRect& area) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setFont(font());
    const QFontMetrics fm(font());
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    const QColor red = errorColour(*this);
    const QColor faint = mix(base, text, 0.25);
    const QColor keptFill = mix(base, text, 0.8);
    const QColor band = mix(base, palette().color(QPalette::Highlight), 0.14);
    const QColor frameColour = palette().color(QPalette::Highlight);
    const int x0 = area.left() + kMargin;
    int y = area.top() + kMargin;
    if (!drawn_) {
        painter.setPen(message_.startsWith(QStringLiteral("⚠")) ? red : text);
        painter.drawText(QRect(x0, y, area.width() - 2 * kMargin, area.height() - 2 * kMargin),
                         Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, message_);
        painter.restore();
        return;
    }
    const DrawnInstruction& d = *drawn_;
    const std::vector<Row> all = rows();
    // Plain names rather than a structured binding: the lambdas below capture them, which
    // C++20 allows but not every compiler the project builds with (clang 14).
    const std::pair<std::int64_t, std::int64_t> range = columnRange();
    const std::int64_t top = range.first;
    const std::int64_t bottom = range.second;
    const int columns = int(top - bottom + 1);
    const std::int64_t e = d.step.alignment;
    const int f = d.instruction.model.fractionBits;
    const std::int64_t windowLow = e - f;
    const int cell = cellWidth(area.width());
    const int rowH = rowHeight(cell);
    const int labelW = labelWidth();
    const int ellipsisW = fm.horizontalAdvance(QStringLiteral("…")) + 4;
    const int cellsX = x0 + labelW;
    const int textX = cellsX + columns * cell + ellipsisW;
    const int textRoom = std::max(0, area.right() - kMargin - textX);
    auto columnX = [&](std::int64_t position) { return cellsX + int(top - position) * cell; };
    // The digits grow with the cells, up to the type's own size and a half.
    QFont bitFont = font();
    bitFont.setPixelSize(std::clamp(cell * 3 / 5, 6, fm.height() * 3 / 2));
    const bool digits = cell >= QFontMetrics(bitFont).horizontalAdvance(QLatin1Char('0')) + 4;

    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.85);
    const QFontMetrics sfm(small);

    // The window's bracket and the exponents at its edges.
    const int bracketLeft = columnX(e);
    const int bracketRight = columnX(windowLow) + cell;
    // The header's lines are lines of text, whatever the cells' size.
    const int textH = fm.height() * 3 / 2;
    painter.setPen(QPen(text, 1.2));
    const QString title =
        tr("F = %1 bits below E: kept are multiples of 2^%2").arg(f).arg(qlonglong(windowLow));
    painter.drawText(
        QRect(x0, y, area.width() - 2 * kMargin, textH), Qt::AlignVCenter | Qt::AlignLeft,
        tr("%1, %2: %3, F = %4, output %5")
            .arg(QString::fromStdString(d.machine.name), QString::fromStdString(d.elementId))
            .arg(d.isBlock() && d.instruction.subBlock > 0
                     ? tr("%1 products an instruction in runs of %2")
                           .arg(d.instruction.products)
                           .arg(d.instruction.subBlock)
                     : tr("%1 products an instruction").arg(d.instruction.products))
            .arg(f)
            .arg(QString::fromStdString(d.outputFormat().id)));
    y += textH;
    const int bracketY = y + textH * 3 / 4;
    painter.drawLine(bracketLeft, bracketY, bracketRight, bracketY);
    painter.drawLine(bracketLeft, bracketY, bracketLeft, bracketY + textH / 4);
    painter.drawLine(bracketRight, bracketY, bracketRight, bracketY + textH / 4);
    {
        const int width = fm.horizontalAdvance(title);
        const int centre = (bracketLeft + bracketRight) / 2;
        const int left =
            std::clamp(centre - width / 2, x0, std::max(x0, area.right() - kMargin - width));
        painter.drawText(QRect(left, y, width + 2, textH * 3 / 4), Qt::AlignBottom | Qt::AlignLeft,
                         title);
    }
    y += textH;
    // Exponent numbers over E and E−F (and the columns' ends, where they do not crowd them).
    painter.setFont(small);
    int lastRight = INT_MIN;
    for (std::int64_t p : {top, e, windowLow, bottom}) {
        QString label = p == e ? QStringLiteral("E = %1").arg(qlonglong(p))
                               : (p == windowLow ? QStringLiteral("E−F = %1").arg(qlonglong(p))
                                                 : QString::number(qlonglong(p)));
        label.replace(QLatin1Char('-'), QChar(0x2212));
        const int width = sfm.horizontalAdvance(label);
        int left = columnX(p) + cell / 2 - width / 2;
        if (p == windowLow)
            left = std::max(left, columnX(p) + cell - width);
        if (left <= lastRight + 4)
            continue;
        painter.setPen(p == e || p == windowLow ? text : faint);
        painter.drawText(QRect(left, y, width + 2, sfm.height()), Qt::AlignLeft, label);
        lastRight = left + width;
    }
    painter.setFont(font());
    y += sfm.height() + 2;

    // The window, shaded behind the term rows, closed by the cut line at 2^(E−F).
    const int termsTop = y;
    int termRows = 0;
    for (const Row& row : all)
        termRows += row.kind == Row::Kind::Term ? 1 : 0;
    const int sumTop = termsTop + termRows * rowH + rowH / 3;
    const int bottomY = sumTop + 3 * rowH;
    painter.fillRect(
        QRect(columnX(top), termsTop, columnX(windowLow) + cell - columnX(top), bottomY - termsTop),
        band);

    auto drawRow = [&](const Row& row, int rowY) {
        // The label, the sign, the cells, the value.
        painter.setPen(text);
        painter.drawText(QRect(x0, rowY, labelW, rowH), Qt::AlignVCenter | Qt::AlignLeft,
                         row.label);
        if (row.value.isNegative() && row.value.isFinite() && !row.value.isZero())
            painter.drawText(QRect(x0, rowY, labelW - 2, rowH), Qt::AlignVCenter | Qt::AlignRight,
                             QStringLiteral("−"));
        const int inset = std::max(2, rowH / 7);
        for (std::int64_t p = top; p >= bottom; --p) {
            const QRect box(columnX(p) + 1, rowY + inset, cell - 2, rowH - 2 * inset);
            // A term's set bit below the window is cut; the output's are its own, and below
            // its last bit the kept sum's bits that its rounding dropped.
            const bool below = p < row.keepFrom;
            const bool set = bitAt(row.value, p);
            const bool lost =
                below && (row.kind == Row::Kind::Output ? bitAt(row.struck, p) && !set : set);
            const bool kept = set && !lost;
            painter.setFont(bitFont);
            if (kept) {
                painter.fillRect(box, keptFill);
                if (digits) {
                    painter.setPen(base);
                    painter.drawText(box, Qt::AlignCenter, QStringLiteral("1"));
                }
            } else if (lost) {
                QColor fill = red;
                fill.setAlpha(200);
                painter.fillRect(box, fill);
                if (digits) {
                    painter.setPen(base);
                    painter.drawText(box, Qt::AlignCenter, QStringLiteral("1"));
                }
                painter.setPen(QPen(base, 1.5));
                painter.drawLine(box.bottomLeft(), box.topRight());
            } else {
                painter.setPen(QPen(below ? mix(base, red, 0.45) : faint, 1));
                painter.drawRect(box.adjusted(0, 0, -1, -1));
                if (digits && row.value.isFinite() &&
                    (row.kind != Row::Kind::Term || !row.value.isZero())) {
                    painter.setPen(faint);
                    painter.drawText(box, Qt::AlignCenter, QStringLiteral("0"));
                }
            }
        }
        painter.setFont(font());
        // Set bits further down than the columns go.
        if (bitsBelow(row.kind == Row::Kind::Output ? row.struck : row.value, bottom)) {
            painter.setPen(row.lost ? red : text);
            painter.drawText(QRect(columnX(bottom) + cell, rowY, ellipsisW, rowH), Qt::AlignCenter,
                             QStringLiteral("…"));
        }
        if (row.frame) {
            const std::int64_t high = std::min(row.frame->first, top);
            const std::int64_t low = std::max(row.frame->second, bottom);
            if (high >= low) {
                painter.setPen(QPen(frameColour, 2));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(
                    QRect(columnX(high), rowY + 1, int(high - low + 1) * cell, rowH - 2));
            }
        }
        painter.setPen(row.lost ? red : text);
        painter.drawText(QRect(textX, rowY, textRoom, rowH), Qt::AlignVCenter | Qt::AlignLeft,
                         fm.elidedText(row.text, Qt::ElideRight, textRoom));
    };

    int rowY = termsTop;
    for (const Row& row : all) {
        if (row.kind == Row::Kind::Sum) {
            rowY = sumTop;
            painter.setPen(QPen(text, 1));
            painter.drawLine(x0, sumTop - rowH / 6, textX + textRoom, sumTop - rowH / 6);
        }
        drawRow(row, rowY);
        rowY += rowH;
    }
    // The cut line.
    painter.setPen(QPen(red, 2));
    const int cutX = columnX(windowLow) + cell;
    painter.drawLine(cutX, termsTop - 2, cutX, bottomY);
    y = bottomY + rowH / 3;

    // A key, then what is not drawn: the padding zeros and the typed values the formats changed.
    painter.setFont(small);
    const int key = sfm.height() * 3 / 4;
    int x = x0;
    auto keyEntry = [&](const QColor& fill, bool outline, bool strike, const QString& label) {
        const QRect box(x, y + (sfm.height() - key) / 2, key, key);
        if (outline) {
            painter.setPen(QPen(fill, 2));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(box);
        } else {
            painter.fillRect(box, fill);
        }
        if (strike) {
            painter.setPen(QPen(base, 1.5));
            painter.drawLine(box.bottomLeft(), box.topRight());
        }
        painter.setPen(text);
        const int width = sfm.horizontalAdvance(label);
        painter.drawText(QRect(x + key + 4, y, width + 2, sfm.height()), Qt::AlignLeft, label);
        x += key + 4 + width + sfm.horizontalAdvance(QStringLiteral("    "));
    };
    keyEntry(keptFill, false, false, tr("bit kept"));
    QColor cut = red;
    cut.setAlpha(200);
    keyEntry(cut, false, true, tr("bit cut"));
    keyEntry(band, false, false, tr("the window"));
    keyEntry(frameColour, true, false, tr("the output's significand"));
    y += sfm.height() + 4;
    QStringList lines;
    const std::size_t padding = std::size_t(d.instruction.products) - d.typed;
    if (padding > 0)
        lines << tr("%1 not drawn: the instruction takes %2, %3 typed.")
                     .arg(padding == 1 ? tr("1 product of 0")
                                       : tr("%1 products of 0").arg(qulonglong(padding)))
                     .arg(d.instruction.products)
                     .arg(qulonglong(d.typed));
    if (d.isBlock()) {
        lines << tr("a → %1").arg(
            QString::fromStdString(describeQuantized(*d.block, d.quantizedA)));
        lines << tr("b → %1").arg(
            QString::fromStdString(describeQuantized(*d.block, d.quantizedB)));
        if (d.block->scheme == BlockScheme::Nvfp4)
            lines << tr("The tensor scales are applied after the instruction (the epilogue): "
                        "the machine returns %1.")
                         .arg(number(d.value));
    }
    for (const std::string& note : d.notes)
        lines << QString::fromStdString(note);
    painter.setPen(text);
    for (const QString& line : lines) {
        painter.drawText(QRect(x0, y, area.width() - 2 * kMargin, sfm.height()), Qt::AlignLeft,
                         sfm.elidedText(line, Qt::ElideRight, area.width() - 2 * kMargin));
        y += sfm.height() + 2;
    }
    painter.restore();
}

bool InstructionPicture::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && drawn_) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QFontMetrics fm(font());
        QFont small = font();
        small.setPointSizeF(font().pointSizeF() * 0.85);
        const int rowH = rowHeight(cellWidth(width()));
        const int termsTop = kMargin + 2 * (fm.height() * 3 / 2) + QFontMetrics(small).height() + 2;
        const std::vector<Row> all = rows();
        int termRows = 0;
        for (const Row& row : all)
            termRows += row.kind == Row::Kind::Term ? 1 : 0;
        const int sumTop = termsTop + termRows * rowH + rowH / 3;
        const int y = help->pos().y();
        int index = -1;
        if (y >= termsTop && y < termsTop + termRows * rowH)
            index = (y - termsTop) / rowH;
        else if (y >= sumTop && y < sumTop + 3 * rowH)
            index = termRows + (y - sumTop) / rowH;
        if (index >= 0 && index < int(all.size()))
            QToolTip::showText(help->globalPos(), all[std::size_t(index)].tooltip, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void InstructionPicture::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) // the zoom: the cells follow the text
        updateGeometry();
    QWidget::changeEvent(event);
}

bool InstructionPicture::exportTo(const QString& path, QString* error) const {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QSize size = this->size().expandedTo(sizeHint());
    if (suffix == "svg") {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(tr("One tensor-core instruction"));
        QPainter painter;
        if (!painter.begin(&svg)) {
            if (error)
                *error = tr("cannot write %1").arg(path);
            return false;
        }
        painter.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Base));
        paintPicture(painter, QRect(QPoint(0, 0), size));
        return painter.end();
    }
    if (suffix != "png") {
        if (error)
            *error = tr("the picture is written as .png or .svg");
        return false;
    }
    QImage image(size * 2, QImage::Format_ARGB32);
    image.setDevicePixelRatio(2);
    image.fill(palette().color(QPalette::Base));
    {
        QPainter painter(&image);
        paintPicture(painter, QRect(QPoint(0, 0), size));
    }
    if (!image.save(path, "PNG")) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace fpx::gui
