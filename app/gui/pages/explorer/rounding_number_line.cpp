// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/rounding_number_line.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace fpx::gui {

namespace {

const QString kEllipsis = QStringLiteral("…");

// The exact decimal, cut to at most `chars` characters (numberLineDecimal): a value of 10^-20000
// keeps its exponent and does not cost 20000 digits at every paint.
QString decimal(const ExactValue& v, int chars = 120) {
    const DecimalText t = toDecimal(v);
    return numberLineDecimal(QString::fromStdString(t.text) + (t.exact ? QString() : kEllipsis),
                             [chars](const QString& s) { return s.size() <= chars; });
}

QString hex(Code code, const FormatSpec& spec) {
    return QString::fromStdString(codeToHex(code, spec.totalBits()));
}

// A position of the stretch as a double, for drawing only; ±∞ stays ±∞.
double positionOf(const RoundingNeighbourhood& n, const ExactValue& v) {
    const ExactValue p = numberLinePosition(n, v);
    if (p.isInfinity())
        return p.isNegative() ? -HUGE_VAL : HUGE_VAL;
    return nearestDouble(p);
}

int significantDigitCount(const QString& text) {
    int count = 0;
    bool leading = true;
    for (const QChar c : text) {
        if (c == QLatin1Char('e'))
            break;
        if (!c.isDigit())
            continue;
        if (leading && c == QLatin1Char('0'))
            continue;
        leading = false;
        ++count;
    }
    return count;
}

// The colour of the input's mark: orange, apart from the selection colour of the band.
const QColor kInputColour(217, 72, 15);

// How far past the stretch's ends the drawing goes, as a share of the stretch: room for a band
// that runs on and for an input off the stretch.
constexpr double kOverhang = 0.12;

} // namespace

QString numberLineDecimal(const QString& fullText,
                          const std::function<bool(const QString&)>& fits) {
    if (fits(fullText))
        return fullText;
    // No room holds more than this many characters: longer expansions are cut to it first.
    constexpr qsizetype kMost = 400;
    QString text = fullText;
    bool cut = text.endsWith(kEllipsis);
    if (cut)
        text.chop(kEllipsis.size());
    QString sign;
    if (text.startsWith(QLatin1Char('-'))) {
        sign = QStringLiteral("-");
        text.remove(0, 1);
    }
    // digits × 10^(exponent − digits + 1): the significant digits, the first at 10^exponent.
    QString digits;
    int exponent = 0;
    const qsizetype e = text.indexOf(QLatin1Char('e'));
    const QString mantissa = e < 0 ? text : text.left(e);
    const int shift = e < 0 ? 0 : text.mid(e + 1).toInt();
    const qsizetype point = mantissa.indexOf(QLatin1Char('.'));
    const QString integerPart = point < 0 ? mantissa : mantissa.left(point);
    const QString fractionPart = point < 0 ? QString() : mantissa.mid(point + 1);
    const QString all = integerPart + fractionPart;
    const qsizetype first = std::max<qsizetype>(0, all.indexOf(QRegularExpression("[1-9]")));
    digits = all.mid(first);
    exponent = static_cast<int>(integerPart.size() - 1 - first) + shift;
    // Plain, cut after the point, while the integer part is whole and two digits show.
    if (e < 0 && !fractionPart.isEmpty()) {
        for (qsizetype keep = std::min(fractionPart.size() - 1, kMost); keep >= 0; --keep) {
            const QString candidate = sign + integerPart +
                                      (keep > 0 ? "." + fractionPart.left(keep) : QString()) +
                                      kEllipsis;
            if (significantDigitCount(candidate) < 2)
                break;
            if (fits(candidate))
                return candidate;
        }
    }
    // Scientific, as many digits as fit.
    QString candidate;
    for (qsizetype keep = std::clamp<qsizetype>(digits.size(), 1, kMost); keep >= 1; --keep) {
        const bool shortened = keep < digits.size() || cut;
        candidate = sign + digits.left(1) + (keep > 1 ? "." + digits.mid(1, keep - 1) : QString()) +
                    (shortened ? kEllipsis : QString()) + "e" + QString::number(exponent);
        if (fits(candidate))
            return candidate;
    }
    return candidate;
}

RoundingNumberLine::RoundingNumberLine(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void RoundingNumberLine::setNeighbourhood(const std::optional<RoundingNeighbourhood>& n,
                                          const FormatSpec& spec, const RoundingOptions& options) {
    empty_ = !n;
    if (!n) {
        inputText_ = lowText_ = highText_ = midpointText_ = QString();
        caption_ = tr("NaN has no place on the number line.");
        setToolTip(caption_);
        update();
        return;
    }
    input_ = positionOf(*n, n->input);
    result_ = positionOf(*n, n->result.value);
    intervalLow_ = positionOf(*n, n->interval.low);
    intervalHigh_ = positionOf(*n, n->interval.high);
    lowClosed_ = n->interval.lowClosed;
    highClosed_ = n->interval.highClosed;
    resultIsLow_ = n->low.code && *n->low.code == n->result.code;
    resultIsHigh_ = n->high.code && *n->high.code == n->result.code;
    // The tie point matters to the nearest modes; the other modes draw no tick there.
    showMidpoint_ =
        options.mode == RoundingMode::NearestEven || options.mode == RoundingMode::NearestAway;

    inputDecimal_ = decimal(n->input);
    lowDecimal_ = decimal(n->low.value);
    highDecimal_ = decimal(n->high.value);
    midpointDecimal_ = decimal(n->midpoint);
    lowCode_ = n->low.code ? hex(*n->low.code, spec) : tr("no code");
    highCode_ = n->high.code ? hex(*n->high.code, spec) : tr("no code");
    inputText_ = tr("input %1").arg(inputDecimal_);
    lowText_ = lowCode_ + " " + lowDecimal_;
    highText_ = highCode_ + " " + highDecimal_;
    midpointText_ = tr("half-way %1").arg(midpointDecimal_);

    const RoundingInterval& in = n->interval;
    const QString interval = QString(in.lowClosed ? "[" : "(") + decimal(in.low, 40) + ", " +
                             decimal(in.high, 40) + (in.highClosed ? "]" : ")");
    const QString mode = QString::fromStdString(roundingChoiceId(options));
    caption_ =
        (options.mode == RoundingMode::Stochastic ? tr("%1 → %2 = %3; under %4 it may take %5")
                                                  : tr("%1 → %2 = %3; under %4 it takes %5"))
            .arg(decimal(n->input, 40), hex(n->result.code, spec), decimal(n->result.value, 40),
                 mode, interval);
    if (options.mode == RoundingMode::NearestEven && n->midpointResult)
        caption_ += tr("; a tie goes to the even code, %1").arg(hex(n->midpointResult->code, spec));
    else if (options.mode == RoundingMode::NearestAway && n->midpointResult)
        caption_ +=
            tr("; a tie goes away from zero, to %1").arg(hex(n->midpointResult->code, spec));
    else if (n->probabilityUp)
        caption_ += tr("; it goes up to %1 with probability %2, the input's place between "
                       "the neighbours")
                        .arg(hex(n->above->code, spec), decimal(*n->probabilityUp, 40));
    if (!n->high.code || !n->low.code)
        caption_ += tr("; “no code”: one step past the range, where overflow rounds from");
    setToolTip(tr("<p>The exact input between the two representable values around it. The band "
                  "is the set of inputs that round to the ringed code; a filled dot is an end "
                  "that belongs to it, a hollow dot one that does not.</p><p>%1</p><p>low: "
                  "%2<br>high: %3<br>%4</p>")
                   .arg(caption_.toHtmlEscaped(), lowText_.toHtmlEscaped(),
                        highText_.toHtmlEscaped(), midpointText_.toHtmlEscaped()));
    update();
}

QSize RoundingNumberLine::sizeHint() const {
    const int h = fontMetrics().height();
    return {fontMetrics().horizontalAdvance(QLatin1Char('0')) * 60, h * 5};
}

QSize RoundingNumberLine::minimumSizeHint() const {
    return {fontMetrics().horizontalAdvance(QLatin1Char('0')) * 24, sizeHint().height()};
}

void RoundingNumberLine::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        updateGeometry();
}

double RoundingNumberLine::xAt(double position) const {
    const double margin = fontMetrics().height();
    const double span = std::max(1.0, width() - 2 * margin);
    const double clamped = std::clamp(position, -kOverhang, 1 + kOverhang);
    return margin + span * (clamped + kOverhang) / (1 + 2 * kOverhang);
}

void RoundingNumberLine::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    if (!isEnabled())
        painter.setOpacity(0.35);
    const QFontMetrics fm = fontMetrics();
    const int h = fm.height();
    const QColor text = palette().color(QPalette::WindowText);
    const QColor band = palette().color(QPalette::Highlight);
    painter.setPen(text);
    if (empty_) {
        painter.drawText(rect(), Qt::AlignCenter, caption_);
        return;
    }
    const double inputRow = h * 0.2;
    const double axisY = inputRow + h * 1.8;
    const double labelRow = axisY + h * 0.6;
    const double captionRow = labelRow + h * 1.15;
    const double left = xAt(-kOverhang);
    const double right = xAt(1 + kOverhang);
    const double bandHalf = h * 0.28;
    const double dot = std::max(3.0, h * 0.22);
    const double lineWidth = std::max(1.0, h / 12.0);

    // The band: the inputs that round to the result, drawn where it meets the drawing.
    const double bandLeft = xAt(intervalLow_);
    const double bandRight = xAt(intervalHigh_);
    QColor fill = band;
    fill.setAlpha(150);
    painter.fillRect(
        QRectF(bandLeft, axisY - bandHalf, std::max(1.0, bandRight - bandLeft), 2 * bandHalf),
        fill);
    // An end past the drawing runs on: an arrowhead at the edge.
    auto arrow = [&](double x, int direction) {
        QPainterPath head;
        head.moveTo(x + direction * bandHalf * 1.2, axisY);
        head.lineTo(x, axisY - bandHalf * 1.4);
        head.lineTo(x, axisY + bandHalf * 1.4);
        head.closeSubpath();
        painter.fillPath(head, band);
    };
    // The axis.
    painter.setPen(QPen(text, lineWidth));
    painter.drawLine(QPointF(left, axisY), QPointF(right, axisY));
    if (intervalLow_ < -kOverhang)
        arrow(left, -1);
    if (intervalHigh_ > 1 + kOverhang)
        arrow(right, +1);

    // Ticks at the two neighbours (full height) and the half-way point (dashed, nearest modes).
    const double tick = h * 0.5;
    painter.drawLine(QPointF(xAt(0), axisY - tick), QPointF(xAt(0), axisY + tick));
    painter.drawLine(QPointF(xAt(1), axisY - tick), QPointF(xAt(1), axisY + tick));
    if (showMidpoint_) {
        painter.setPen(QPen(text, lineWidth, Qt::DashLine));
        painter.drawLine(QPointF(xAt(0.5), axisY - tick * 0.7), QPointF(xAt(0.5), axisY + tick));
    }

    // The interval's ends on the drawing: filled when the end belongs to it, hollow when not.
    auto endDot = [&](double position, bool closed) {
        if (position < -kOverhang || position > 1 + kOverhang)
            return;
        painter.setPen(QPen(band.darker(140), lineWidth * 1.5));
        painter.setBrush(closed ? QBrush(band.darker(140))
                                : QBrush(palette().color(QPalette::Base)));
        painter.drawEllipse(QPointF(xAt(position), axisY), dot, dot);
    };
    endDot(intervalLow_, lowClosed_);
    endDot(intervalHigh_, highClosed_);

    // The result, ringed (at the edge, with ∞, when it is ±∞).
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(band.darker(160), lineWidth * 2.2));
    const double ring = h * 0.5;
    painter.drawEllipse(QPointF(xAt(result_), axisY), ring, ring);

    // The input: an orange needle from its label down to the axis.
    const double inputX = xAt(input_);
    painter.setPen(QPen(kInputColour, lineWidth * 2));
    painter.drawLine(QPointF(inputX, inputRow + h * 1.05), QPointF(inputX, axisY));
    QPainterPath needle;
    needle.moveTo(inputX, axisY);
    needle.lineTo(inputX - dot, axisY - dot * 1.8);
    needle.lineTo(inputX + dot, axisY - dot * 1.8);
    needle.closeSubpath();
    painter.fillPath(needle, kInputColour);

    // Labels, fitted to their room and kept inside the widget.
    auto placed = [&](const QString& label, double centreX, double top, double room) {
        const QString shown = numberLineDecimal(
            label, [&](const QString& s) { return fm.horizontalAdvance(s) <= room; });
        const double w = fm.horizontalAdvance(shown);
        const double x = std::clamp(centreX - w / 2, 0.0, std::max(0.0, width() - w));
        return std::pair{shown, QRectF(x, top, w, h)};
    };
    // A third of the width for each neighbour's label, but no more than about 24 digits: on a
    // wide screen longer expansions only crowd the half-way label between them.
    const double third = std::max(
        1.0, std::min(width() / 3.0 - h * 0.5, fm.horizontalAdvance(QLatin1Char('0')) * 30.0));
    // The input's label, with "input" before it where it fits.
    {
        // Off the drawn stretch (past the range, ±∞) the needle stands at the edge, the label
        // says which way the input lies.
        const bool offLeft = input_ < -kOverhang;
        const bool offRight = input_ > 1 + kOverhang;
        const QString prefix = offLeft ? tr("← input ") : tr("input ");
        const QString suffix = offRight ? QStringLiteral(" →") : QString();
        const double room = width() * 0.7;
        auto [shown, box] =
            placed(inputDecimal_, inputX, inputRow, room - fm.horizontalAdvance(prefix + suffix));
        const QString label = prefix + shown + suffix;
        const double w = fm.horizontalAdvance(label);
        const double x = std::clamp(inputX - w / 2, 0.0, std::max(0.0, width() - w));
        painter.setPen(kInputColour);
        painter.drawText(QRectF(x, inputRow, w + 1, h), Qt::AlignLeft, label);
        Q_UNUSED(box);
    }
    // The neighbours: code and value under each end; the result's in bold.
    QFont bold = font();
    bold.setBold(true);
    auto endLabel = [&](const QString& code, const QString& value, double x, bool isResult) {
        painter.setFont(isResult ? bold : font());
        const QFontMetrics m(painter.font());
        const QString prefix = code + " ";
        const double room = third - m.horizontalAdvance(prefix);
        const QString shown = prefix + numberLineDecimal(value, [&](const QString& s) {
                                  return m.horizontalAdvance(s) <= room;
                              });
        const double w = m.horizontalAdvance(shown) + 1;
        const QRectF box(std::clamp(x - w / 2, 0.0, std::max(0.0, width() - w)), labelRow, w, h);
        painter.setPen(text);
        painter.drawText(box, Qt::AlignLeft, shown);
        return box;
    };
    const QRectF lowBox = endLabel(lowCode_, lowDecimal_, xAt(0), resultIsLow_);
    const QRectF highBox = endLabel(highCode_, highDecimal_, xAt(1), resultIsHigh_);
    painter.setFont(font());
    if (showMidpoint_) {
        // Between the neighbours' labels, where there is room.
        const double room = std::min(highBox.left() - lowBox.right() - h, third);
        if (room > fm.horizontalAdvance(QStringLiteral("0.0…e-0"))) {
            auto [shown, box] = placed(midpointDecimal_, xAt(0.5), labelRow, room);
            box.moveLeft(std::clamp(box.left(), lowBox.right() + h / 2.0,
                                    highBox.left() - h / 2.0 - box.width()));
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(box.adjusted(0, 0, 1, 0), Qt::AlignLeft, shown);
        }
    }
    // The caption: the result and its interval in words, cut at the width (whole in the tooltip).
    painter.setPen(text);
    painter.drawText(QRectF(0, captionRow, width(), h), Qt::AlignLeft,
                     fm.elidedText(caption_, Qt::ElideRight, width()));
}

} // namespace fpx::gui
