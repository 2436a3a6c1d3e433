// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/detail_panel.h"

#include "common/bit_cells.h"
#include "common/decimal_layout.h"
#include "pages/explorer/rounding_number_line.h"

#include "fpx/exact/approximate_error.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/decode_explanation.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/nan_payload.h"
#include "fpx/exact/rounding_neighbourhood.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace fpx::gui {

namespace {

// The table's Value and Error columns for one row, as a line: the value cut (never rounded) to
// a line's worth of digits with its exponent kept, the error to four significant digits, in the
// notation that reads plainly (docs/pages.md, "Explorer").
QString storedText(const ConversionReport& r, bool inputExact) {
    constexpr int kChars = 24;
    auto written = [](const std::string& text, bool goesOn) {
        const std::optional<DecimalParts> parts = decimalParts(text);
        if (!parts)
            return QString::fromStdString(text);
        return fittedDecimal(*parts,
                             readsPlain(*parts, kChars) ? Notation::Plain : Notation::Scientific,
                             kChars, goesOn);
    };
    const DecimalText value = toDecimal(r.details.decoded.value);
    QString line = QObject::tr("<b>Stored</b> %1").arg(written(value.text, !value.exact));
    if (!r.error.isNaN()) {
        const QString plus = r.error.isFinite() && !r.error.isZero() && !r.error.isNegative()
                                 ? QStringLiteral("+")
                                 : QString();
        line += QObject::tr("   <b>Error</b> %1%2%3")
                    .arg(errorIsApproximate(inputExact, r.error)
                             ? QString::fromUtf8(kApproximateMark.data(),
                                                 qsizetype(kApproximateMark.size()))
                             : QString(),
                         plus, written(toSignificantDigits(r.error, 4), false));
    }
    return line;
}

QString exact(const ExactValue& v, int limit = 400) {
    const DecimalText t = toDecimal(v);
    QString text = QString::fromStdString(t.text);
    if (text.size() > limit)
        text = text.left(limit) + QStringLiteral("…");
    else if (!t.exact)
        text += QStringLiteral("…");
    return text.toHtmlEscaped();
}

QString powerOfTwo(const ExactValue& v) {
    if (v.isFinite() && !v.isZero() && v.numerator() == 1 && v.denominator() == 1)
        return QStringLiteral(" = 2<sup>%1</sup>").arg(v.exponent2());
    return {};
}

QString fieldRow(const QString& name, const QString& value) {
    return QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>")
        .arg(name, value);
}

} // namespace

BitStrip::BitStrip(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(26);
}

void BitStrip::setRow(const FormatSpec& spec, const DecodedCode& decoded) {
    spec_ = spec;
    decoded_ = decoded;
    updateGeometry();
    update();
}

int BitStrip::naturalCellWidth() const {
    return std::max(16, fontMetrics().horizontalAdvance(QLatin1Char('0')) + 8);
}

QSize BitStrip::sizeHint() const {
    const int cell = naturalCellWidth();
    if (!spec_)
        return {200, cell + 12};
    const BitCellLayout layout = BitCellLayout::forFormats({*spec_}, cell);
    return {layout.totalWidth(), cell + 14};
}

void BitStrip::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        updateGeometry();
}

void BitStrip::paintEvent(QPaintEvent*) {
    if (!spec_)
        return;
    QPainter painter(this);
    if (!isEnabled())
        painter.setOpacity(kDisabledBitCellsOpacity);
    BitCellLayout layout = BitCellLayout::forFormats({*spec_}, naturalCellWidth());
    const int cells = layout.leftCells + layout.rightCells;
    if (layout.totalWidth() > width() && cells > 0)
        layout.cellWidth = std::max(6, (width() - 2 * layout.margin - 3) / cells - layout.cellGap);
    paintBitCells(painter, rect(), layout, *spec_, decoded_, palette());
}

DetailPanel::DetailPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    title_ = new QLabel(this);
    title_->setTextFormat(Qt::RichText);
    title_->setWordWrap(true);
    stored_ = new QLabel(this);
    stored_->setObjectName("storedValue");
    stored_->setTextFormat(Qt::RichText);
    stored_->setVisible(false);
    strip_ = new BitStrip(this);
    text_ = new QTextBrowser(this);
    text_->setOpenLinks(false);
    text_->setToolTip(tr("How this code decodes, step by step, and what surrounds it."));
    previous_ = new QPushButton(tr("◀ Previous value"), this);
    next_ = new QPushButton(tr("Next value ▶"), this);
    previous_->setToolTip(tr("Step to the next smaller representable value of this format "
                             "(Ctrl+Down). The gap you step over is one ULP."));
    next_->setToolTip(tr("Step to the next larger representable value of this format "
                         "(Ctrl+Up)."));
    previous_->setObjectName("previousValue");
    next_->setObjectName("nextValue");
    numberLine_ = new RoundingNumberLine(this);
    numberLine_->setObjectName("roundingNumberLine");
    // The buttons beside the title, not on a row of their own: the number line needs the height.
    auto* heading = new QHBoxLayout;
    heading->addWidget(title_, 1);
    heading->addWidget(previous_, 0, Qt::AlignTop);
    heading->addWidget(next_, 0, Qt::AlignTop);
    layout->addLayout(heading);
    layout->addWidget(stored_);
    layout->addWidget(strip_);
    layout->addWidget(numberLine_);
    layout->addWidget(text_, 1);
    connect(previous_, &QPushButton::clicked, this, [this] { emit stepRequested(-1); });
    connect(next_, &QPushButton::clicked, this, [this] { emit stepRequested(+1); });
    showRow(nullptr, {});
}

void DetailPanel::setStoredLineShown(bool shown) {
    stored_->setVisible(shown);
}

QString DetailPanel::currentHtml() const {
    return text_->toHtml();
}

void DetailPanel::showRow(const ExplorerRow* row, const RoundingOptions& options, bool inputExact) {
    previous_->setEnabled(row && row->report.details.nextDown);
    next_->setEnabled(row && row->report.details.nextUp);
    if (!row) {
        title_->setText(tr("<b>Select a format</b> to see how its code decodes."));
        stored_->clear();
        text_->clear();
        numberLine_->setVisible(false);
        return;
    }
    const FormatSpec& spec = row->spec;
    const ConversionReport& r = row->report;
    const DecodedCode& d = r.details.decoded;
    const int bits = spec.totalBits();
    strip_->setRow(spec, d);
    numberLine_->setNeighbourhood(roundingNeighbourhood(r.input, spec, options), spec, options);
    numberLine_->setVisible(true);
    title_->setText(QStringLiteral("<b>%1</b> — %2<br><i>%3</i>")
                        .arg(QString::fromStdString(spec.id),
                             QString::fromStdString(spec.displayName).toHtmlEscaped(),
                             QString::fromStdString(spec.description).toHtmlEscaped()));
    stored_->setText(storedText(r, inputExact));
    QString html = "<table cellspacing=2>";
    html += fieldRow(tr("Code"), QString::fromStdString(codeToHex(d.code, bits)) + "  " +
                                     QString::fromStdString(binaryByField(spec, d.code)));
    if (spec.kind == FormatKind::BinaryFloat) {
        if (spec.isSigned)
            html += fieldRow(tr("Sign"), d.sign ? tr("1 → negative") : tr("0 → positive"));
        QString exponent = QStringLiteral("%1 = %2").arg(
            QString::fromStdString(codeToBinary(d.exponentField, spec.exponentBits)),
            QString::fromStdString(codeToDecimal(d.exponentField)));
        if (d.valueClass == ValueClass::Normal || d.valueClass == ValueClass::Subnormal)
            exponent += tr(", unbiased %1 − %2 = %3")
                            .arg(d.valueClass == ValueClass::Subnormal
                                     ? QStringLiteral("1")
                                     : QString::fromStdString(codeToDecimal(d.exponentField)))
                            .arg(spec.bias)
                            .arg(d.unbiasedExponent);
        html += fieldRow(tr("Exponent"), exponent);
        if (spec.storedSignificandBits() > 0)
            html += fieldRow(tr("Mantissa"),
                             QStringLiteral("%1 = %2").arg(
                                 QString::fromStdString(codeToBinary(d.significandField,
                                                                     spec.storedSignificandBits())),
                                 QString::fromStdString(codeToDecimal(d.significandField))));
    } else if (spec.kind == FormatKind::Posit) {
        for (const FieldLine& field : positFieldLines(spec, d.code)) {
            QString name = QString::fromStdString(field.name);
            name[0] = name[0].toUpper();
            html += fieldRow(name, QString::fromStdString(field.text).toHtmlEscaped());
        }
    } else {
        html += fieldRow(tr("Level"), QString::number(d.level));
        html += fieldRow(spec.kind == FormatKind::Lookup ? tr("Absmax") : tr("Scale"),
                         exact(spec.scale));
    }
    html += fieldRow(tr("Decode"), QString::fromStdString(explainDecode(spec, d)).toHtmlEscaped());
    html += fieldRow(tr("Class"), QString::fromStdString(codeClassName(spec, d.code)));
    const NaNKind nan = nanKind(spec, d.code);
    if (nan == NaNKind::Quiet || nan == NaNKind::Signaling) {
        const Code payload = d.code & lowBitsMask(spec.fractionBits - 1);
        html += fieldRow(
            tr("NaN"),
            (nan == NaNKind::Quiet ? tr("quiet: the top mantissa bit is set")
                                   : tr("signaling: the top mantissa bit is clear; converting "
                                        "it raises invalid and quiets it")) +
                tr(", payload %1 <i>(kept, aligned at the top of the mantissa, by "
                   "conversions into formats that can hold it)</i>")
                    .arg(QString::fromStdString(codeToHex(payload, spec.fractionBits - 1))));
    }
    html += fieldRow(tr("Exact value"), exact(d.value));
    const QString readBackMode =
        QString::fromStdString(std::string(roundingModeId(shortestReadBackMode(options.mode))));
    html += fieldRow(
        tr("Shortest"),
        QString::fromStdString(shortestRoundTrip(spec, d.code, options)).toHtmlEscaped() +
            (options.mode == RoundingMode::Stochastic
                 ? tr(" <i>(the shortest decimal that reads back as this code under %1: under "
                      "sr only the exact value reads back for certain)</i>")
                       .arg(readBackMode)
                 : tr(" <i>(the shortest decimal that reads back as this code under %1)</i>")
                       .arg(readBackMode)));
    if (!r.error.isNaN()) {
        // Against a stand-in for an input beyond 10^±20000: marked ≈, as `fpx show` does.
        auto mark = [&](const QString& text, const ExactValue& e) {
            return errorIsApproximate(inputExact, e)
                       ? QString::fromUtf8(kApproximateMark.data(),
                                           static_cast<qsizetype>(kApproximateMark.size())) +
                             text
                       : text;
        };
        html += fieldRow(tr("Error"),
                         mark(exact(r.error), r.error) +
                             (errorIsApproximate(inputExact, r.error)
                                  ? tr(" <i>(stored − input, approximate: the input is held as "
                                       "a stand-in beyond 10<sup>±20000</sup>)</i>")
                                  : tr(" <i>(stored − input)</i>")));
        html += fieldRow(
            tr("Relative"),
            mark(QString::fromStdString(toSignificantDigits(r.relativeError, 6)), r.relativeError));
        html +=
            fieldRow(tr("In ULPs"),
                     mark(QString::fromStdString(toSignificantDigits(r.ulpError, 6)), r.ulpError));
    }
    if (r.details.ulp)
        html += fieldRow(tr("ULP here"), exact(*r.details.ulp) + powerOfTwo(*r.details.ulp));
    auto neighbour = [&](const std::optional<Neighbour>& n) {
        return n ? QString::fromStdString(codeToHex(n->code, bits)) + "  " + exact(n->value)
                 : tr("none");
    };
    html += fieldRow(tr("Next up"), neighbour(r.details.nextUp));
    html += fieldRow(tr("Next down"), neighbour(r.details.nextDown));
    if (r.details.interval) {
        const RoundingInterval& in = *r.details.interval;
        html += fieldRow(tr("Rounds here"),
                         QString(in.lowClosed ? "[" : "(") + exact(in.low, 80) + ", " +
                             exact(in.high, 80) + (in.highClosed ? "]" : ")") +
                             tr(" <i>(inputs that give this code under %1)</i>")
                                 .arg(QString::fromStdString(roundingChoiceId(options))));
    }
    const FormatLimits limits = deriveLimits(spec);
    html += fieldRow(tr("Largest finite"), exact(limits.max, 80) + powerOfTwo(limits.max));
    if (limits.minNormal)
        html += fieldRow(tr("Smallest normal"),
                         exact(*limits.minNormal, 80) + powerOfTwo(*limits.minNormal));
    if (limits.minSubnormal)
        html += fieldRow(tr("Smallest subnormal"),
                         exact(*limits.minSubnormal, 80) + powerOfTwo(*limits.minSubnormal));
    html += fieldRow(tr("Flags"), r.conversion.flags.any()
                                      ? QString::fromStdString(flagsToString(r.conversion.flags))
                                      : tr("none: exact"));
    html += "</table>";
    text_->setHtml(html);
}

} // namespace fpx::gui
