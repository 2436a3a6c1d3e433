// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/stochastic_panel.h"

#include "common/error_style.h"
#include "common/format_selection.h"
#include "common/number_text.h"
#include "common/plot_legibility.h"
#include "common/replot_after_resize.h"
#include "common/rounding_choices.h"
#include "plot_palette.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/value_parser.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace fpx::gui {

namespace {

// Palette indices: the same series in the same colour in the text and the plots.
constexpr int kStochastic = 0; // blue
constexpr int kNearest = 1;    // vermillion
constexpr int kObserved = 0;
constexpr int kExpected = 3; // orange
// The sums with 8, 4 and 2 random bits (kSmallTermRandomBits): sky blue, bluish green, purple.
constexpr int kFewBits[] = {5, 2, 4};

} // namespace

StochasticPanel::StochasticPanel(FormatSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection) {
    // Everything in a scroll area: the plots keep a legible height at every zoom
    // (common/plot_legibility.h), and a short window scrolls rather than squash them.
    QVBoxLayout* layout = scrollingPlotsLayout(*this);
    // The value and its format on one line, the draws and their seed on the next: one line of
    // all four is wider than a page beside the Lessons panel.
    auto* bar = new QGridLayout;
    valueEdit_ = new QLineEdit(QStringLiteral("0.1"), this);
    valueEdit_->setObjectName("srValueEdit");
    valueEdit_->setToolTip(tr("The exact value to round stochastically (0.1, 1/3, 2^-24 …)."));
    formatBox_ = new QComboBox(this);
    formatBox_->setObjectName("srFormat");
    formatBox_->setToolTip(
        tr("The format to round into (the shown formats that have arithmetic)."));
    drawsBox_ = new QSpinBox(this);
    drawsBox_->setObjectName("srDraws");
    drawsBox_->setRange(1, static_cast<int>(kMaxStochasticDraws));
    drawsBox_->setValue(100000);
    drawsBox_->setGroupSeparatorShown(true);
    drawsBox_->setToolTip(tr("How many seeded stochastic roundings of the value to draw."));
    seedBox_ = new QSpinBox(this);
    seedBox_->setObjectName("srSeed");
    seedBox_->setRange(0, 1'000'000'000);
    seedBox_->setValue(1);
    seedBox_->setToolTip(tr("Seed of the random bits: the same seed draws the same roundings, "
                            "as `fpx show --round sr --seed` does."));
    bitsBox_ = new QSpinBox(this);
    bitsBox_->setObjectName("srRandomBits");
    bitsBox_->setRange(0, kMaxRandomBitCount);
    bitsBox_->setSpecialValueText(tr("all 64"));
    bitsBox_->setToolTip(tr("How many random bits decide each rounding. Hardware adds a few "
                            "to the bits it drops (NVIDIA's cvt.rs, P3109's stochastic modes): "
                            "the probability becomes the residue seen through N bits, as "
                            "`fpx show --round sr:N` reports."));
    variantBox_ = new QComboBox(this);
    variantBox_->setObjectName("srVariant");
    variantBox_->addItem(tr("truncate (P3109 A, cvt.rs)"), int(StochasticVariant::A));
    variantBox_->addItem(tr("round, ties up (P3109 B)"), int(StochasticVariant::B));
    variantBox_->addItem(tr("round, ties to even (P3109 C)"), int(StochasticVariant::C));
    variantBox_->setToolTip(tr("How the N random bits meet the residue: A truncates it to N "
                               "bits (biased toward zero), B and C round it to N bits."));
    variantBox_->setEnabled(false);
    letNarrow(*variantBox_);
    auto* valueLabel = new QLabel(tr("&Value"), this);
    valueLabel->setBuddy(valueEdit_);
    auto* drawsLabel = new QLabel(tr("&Draws"), this);
    drawsLabel->setBuddy(drawsBox_);
    auto* seedLabel = new QLabel(tr("S&eed"), this);
    seedLabel->setBuddy(seedBox_);
    bar->addWidget(valueLabel, 0, 0);
    bar->addWidget(valueEdit_, 0, 1);
    bar->addWidget(new QLabel(tr("in"), this), 0, 2);
    bar->addWidget(formatBox_, 0, 3);
    bar->addWidget(drawsLabel, 1, 0);
    bar->addWidget(drawsBox_, 1, 1);
    bar->addWidget(seedLabel, 1, 2);
    bar->addWidget(seedBox_, 1, 3);
    auto* bitsLabel = new QLabel(tr("Random &bits"), this);
    bitsLabel->setBuddy(bitsBox_);
    bar->addWidget(bitsLabel, 2, 0);
    bar->addWidget(bitsBox_, 2, 1);
    bar->addWidget(variantBox_, 2, 2, 1, 2);
    bar->setColumnStretch(1, 1);
    bar->setColumnStretch(3, 1);
    layout->addLayout(bar);
    error_ = new QLabel(this);
    error_->setObjectName("srError");
    styleErrorLabel(*error_);
    error_->setVisible(false);
    layout->addWidget(error_);

    // The neighbours in words, then the draws: the plot under the text keeps the page's width.
    neighbours_ = new QLabel(this);
    neighbours_->setObjectName("srNeighbours");
    neighbours_->setTextFormat(Qt::RichText);
    neighbours_->setWordWrap(true);
    neighbours_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    neighbours_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont larger = neighbours_->font();
    larger.setPointSizeF(larger.pointSizeF() * 1.15);
    neighbours_->setFont(larger);
    histogram_ = new QCustomPlot(this);
    histogram_->setObjectName("srHistogram");
    histogram_->setMinimumHeight(200);
    histogram_->setToolTip(tr("How many draws went to each neighbour, beside the count the exact "
                              "probability predicts."));
    replotAfterResize(*histogram_);
    plots::placeLegendAbove(*histogram_);
    plots::applyTheme(*histogram_);
    // What the draws gave stands under the histogram, so that the neighbours and the bars come
    // first on a projector, where the text around them wraps to many lines.
    draws_ = new QLabel(this);
    draws_->setObjectName("srDraws");
    draws_->setTextFormat(Qt::RichText);
    draws_->setWordWrap(true);
    draws_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(neighbours_);
    layout->addWidget(histogram_, 1);
    layout->addWidget(draws_);

    // Many small terms: the same sum to nearest and stochastically.
    // A group box's title is never cut: short enough for a 1024-pixel projector at 150 %.
    auto* sumsBox = new QGroupBox(tr("Many small terms, to nearest and stochastically"), this);
    auto* sumsLayout = new QVBoxLayout(sumsBox);
    auto* sumsForm = new QFormLayout;
    termEdit_ = new QLineEdit(QStringLiteral("0.001"), sumsBox);
    termEdit_->setObjectName("srTermEdit");
    termEdit_->setToolTip(tr("The small term added again and again (rounded into the format "
                             "first)."));
    countBox_ = new QSpinBox(sumsBox);
    countBox_->setObjectName("srTermCount");
    countBox_->setRange(1, static_cast<int>(kMaxSmallTerms));
    countBox_->setValue(10000);
    countBox_->setGroupSeparatorShown(true);
    countBox_->setToolTip(tr("How many times the term is added, in the format chosen above."));
    sumsForm->addRow(tr("&Term"), termEdit_);
    sumsForm->addRow(tr("&Count"), countBox_);
    sumsText_ = new QLabel(sumsBox);
    sumsText_->setObjectName("srSums");
    sumsText_->setTextFormat(Qt::RichText);
    sumsText_->setWordWrap(true);
    sumsText_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    sumsText_->setFont(larger);
    sumsPlot_ = new QCustomPlot(sumsBox);
    sumsPlot_->setObjectName("srSumsPlot");
    sumsPlot_->setMinimumHeight(220);
    sumsPlot_->setToolTip(tr("The running sum after n terms: exact, rounded to nearest (it "
                             "stops growing), rounded stochastically with all 64 random bits "
                             "(it follows the exact sum on average) and with 8, 4 and 2 of them "
                             "(the rule chosen above): a term below 2^−N of the ULP is lost to "
                             "truncation, so with few bits the sum falls behind."));
    replotAfterResize(*sumsPlot_);
    plots::placeLegendAbove(*sumsPlot_);
    plots::applyTheme(*sumsPlot_);
    sumsLayout->addLayout(sumsForm);
    sumsLayout->addWidget(sumsText_);
    sumsLayout->addWidget(sumsPlot_, 1);
    layout->addWidget(sumsBox, 1);

    connect(valueEdit_, &QLineEdit::textChanged, this, &StochasticPanel::recompute);
    connect(formatBox_, &QComboBox::currentIndexChanged, this, &StochasticPanel::recompute);
    connect(drawsBox_, &QSpinBox::valueChanged, this, &StochasticPanel::recompute);
    connect(seedBox_, &QSpinBox::valueChanged, this, &StochasticPanel::recompute);
    connect(bitsBox_, &QSpinBox::valueChanged, this, [this](int bits) {
        variantBox_->setEnabled(bits > 0);
        recompute();
    });
    connect(variantBox_, &QComboBox::currentIndexChanged, this, &StochasticPanel::recompute);
    connect(selection_, &FormatSelection::formatsChanged, this, [this] {
        refillFormats();
        recompute();
    });
    connect(selection_, &FormatSelection::optionsChanged, this, &StochasticPanel::recompute);
    connect(termEdit_, &QLineEdit::textChanged, this, &StochasticPanel::recomputeSums);
    connect(countBox_, &QSpinBox::valueChanged, this, &StochasticPanel::recomputeSums);
    refillFormats();
    setFormat(QStringLiteral("fp16"));
    recompute();
}

void StochasticPanel::refillFormats() {
    const QString current = formatBox_->currentData().toString();
    const QSignalBlocker blocker(formatBox_);
    formatBox_->clear();
    for (const FormatSpec& spec : selection_->formats())
        if (!arithmeticUnsupported(spec))
            formatBox_->addItem(QString::fromStdString(spec.id), QString::fromStdString(spec.id));
    const int index = formatBox_->findData(current);
    formatBox_->setCurrentIndex(index >= 0 ? index : 0);
}

void StochasticPanel::setValue(const QString& text) {
    valueEdit_->setText(text);
}

QString StochasticPanel::valueText() const {
    return valueEdit_->text();
}

QString StochasticPanel::formatId() const {
    return formatBox_->currentData().toString();
}

void StochasticPanel::setDraws(int draws) {
    drawsBox_->setValue(draws);
}

int StochasticPanel::draws() const {
    return drawsBox_->value();
}

void StochasticPanel::setSeed(int seed) {
    seedBox_->setValue(seed);
}

int StochasticPanel::seed() const {
    return seedBox_->value();
}

void StochasticPanel::setRandomBits(const RandomBitRule& rule) {
    {
        const QSignalBlocker variantBlocker(variantBox_);
        const QSignalBlocker bitsBlocker(bitsBox_);
        variantBox_->setCurrentIndex(variantBox_->findData(int(rule.variant)));
        bitsBox_->setValue(rule.count);
    }
    variantBox_->setEnabled(rule.count > 0);
    recompute(); // once for both
}

RandomBitRule StochasticPanel::randomBits() const {
    return RandomBitRule{bitsBox_->value(),
                         static_cast<StochasticVariant>(variantBox_->currentData().toInt())};
}

void StochasticPanel::setFormat(const QString& id) {
    const int index = formatBox_->findData(id);
    if (index >= 0)
        formatBox_->setCurrentIndex(index);
}

QString StochasticPanel::inputError() const {
    return error_->isVisible() ? error_->text() : QString();
}

void StochasticPanel::recompute() {
    const std::string text = valueEdit_->text().toStdString();
    const ParsedValue value = parseValue(text);
    error_->setVisible(!value);
    markInvalid(*valueEdit_, !value);
    if (!value) {
        error_->setText(QStringLiteral("⚠ ") + parseErrorText(text, value.error));
        return;
    }
    std::vector<FormatSpec> formats;
    const FormatSpec* spec = currentFormat(formats);
    if (!spec) {
        summary_.reset();
        showSummary();
        recomputeSums();
        return;
    }
    summary_ =
        summarizeStochasticDraws(*value.value, *spec, selection_->overflowPolicy(),
                                 static_cast<std::uint64_t>(seedBox_->value()),
                                 static_cast<std::uint64_t>(drawsBox_->value()), randomBits());
    showSummary();
    recomputeSums();
}

const FormatSpec* StochasticPanel::currentFormat(std::vector<FormatSpec>& storage) const {
    storage = selection_->formats();
    const QString id = formatBox_->currentData().toString();
    for (const FormatSpec& s : storage)
        if (QString::fromStdString(s.id) == id)
            return &s;
    return nullptr;
}

void StochasticPanel::setSmallTerms(const QString& term, int count) {
    termEdit_->setText(term);
    countBox_->setValue(count);
}

QString StochasticPanel::smallTerm() const {
    return termEdit_->text();
}

int StochasticPanel::smallTermCount() const {
    return countBox_->value();
}

void StochasticPanel::recomputeSums() {
    if (!termEdit_)
        return; // still being built
    const std::string text = termEdit_->text().toStdString();
    const ParsedValue term = parseValue(text);
    markInvalid(*termEdit_, !term);
    std::vector<FormatSpec> formats;
    const FormatSpec* spec = currentFormat(formats);
    if (!term || !spec) {
        sums_.reset();
        sumsText_->setText(term ? QString()
                                : QStringLiteral("⚠ ") + parseErrorText(text, term.error));
        sumsPlot_->clearPlottables();
        sumsPlot_->replot();
        return;
    }
    sums_ = sumSmallTerms(*term.value, static_cast<std::size_t>(countBox_->value()), *spec,
                          selection_->overflowPolicy(),
                          static_cast<std::uint64_t>(seedBox_->value()), randomBits().variant);
    showSums();
}

void StochasticPanel::showSums() {
    sumsPlot_->clearPlottables();
    const SmallTermSums& sums = *sums_;
    if (sums.problem) {
        sumsText_->setText(QString::fromStdString(*sums.problem).toHtmlEscaped());
        sumsPlot_->replot();
        return;
    }
    auto line = [](const QString& name, const AccumulationResult& r, const QString& colour) {
        QString text = QStringLiteral("<tr><td><b style='color:%1'>%2</b></td><td>%3</td>")
                           .arg(colour, name, shortDecimal(r.sum, 10).toHtmlEscaped());
        text += r.relativeError.isNaN()
                    ? QStringLiteral("<td></td>")
                    : QObject::tr("<td>rel. error %1</td>")
                          .arg(shortDecimal(r.relativeError, 3).toHtmlEscaped());
        return text + QStringLiteral("</tr>");
    };
    QString html = tr("<p>%1 × %2 (the term as stored in %3):</p><table cellspacing='4'>")
                       .arg(QLocale().toString(static_cast<qulonglong>(sums.count)),
                            shortDecimal(sums.term, 10).toHtmlEscaped(),
                            QString::fromStdString(sums.nearest.resultFormat.id));
    html += QStringLiteral("<tr><td><b>exact</b></td><td>%1</td><td></td></tr>")
                .arg(shortDecimal(sums.nearest.exactSum, 10).toHtmlEscaped());
    html += line(tr("nearest"), sums.nearest, plots::seriesColour(kNearest).name());
    html += line(tr("stochastic"), sums.stochastic, plots::seriesColour(kStochastic).name());
    for (std::size_t i = 0; i < sums.fewBits.size(); ++i)
        html += line(tr("%1 random bits").arg(sums.fewBits[i].rule.count), sums.fewBits[i].result,
                     plots::seriesColour(kFewBits[i]).name());
    html += QStringLiteral("</table>");
    if (sums.nearest.stagnationTerm)
        html += tr("<p>Rounding to nearest, the sum stopped growing at term %1: half its ULP "
                   "exceeds the term. Stochastic rounding still moves it up with probability "
                   "term / ULP.</p>")
                    .arg(QLocale().toString(static_cast<qulonglong>(*sums.nearest.stagnationTerm)));
    if (!sums.fewBits.empty())
        html += sums.fewBits.front().rule.variant == StochasticVariant::A
                    ? tr("<p>With N random bits the term's share of the ULP is truncated to N "
                         "bits: a term below 2<sup>−N</sup> of the ULP never moves the sum, and "
                         "a larger one moves it too rarely, so the sums fall behind.</p>")
                    : tr("<p>With N random bits the term's share of the ULP is rounded to N "
                         "bits: a term below 2<sup>−(N+1)</sup> of the ULP never moves the sum; a "
                         "larger one moves it too often or too rarely.</p>");
    sumsText_->setText(html);

    auto curve = [this](const std::vector<TracePoint>& trace, bool exact, const QPen& pen,
                        const QString& name) {
        QVector<double> xs, ys;
        for (const TracePoint& p : trace) {
            xs << static_cast<double>(p.terms);
            ys << nearestDouble(exact ? p.exactSum : p.sum);
        }
        QCPGraph* graph = sumsPlot_->addGraph();
        graph->setData(xs, ys, true);
        graph->setPen(pen);
        graph->setName(name);
    };
    const plots::PlotTheme theme = plots::plotTheme(sumsPlot_->palette());
    curve(sums.nearest.trace, true,
          QPen(plots::meaningColour(plots::Meaning::Reference, theme), 1.5, Qt::DashLine),
          tr("exact"));
    curve(sums.nearest.trace, false, plots::seriesPen(kNearest, 2), tr("round to nearest"));
    curve(sums.stochastic.trace, false, plots::seriesPen(kStochastic, 2), tr("stochastic"));
    for (std::size_t i = 0; i < sums.fewBits.size(); ++i)
        curve(sums.fewBits[i].result.trace, false, plots::seriesPen(kFewBits[i], 1.5),
              tr("%1 bits").arg(sums.fewBits[i].rule.count));
    sumsPlot_->xAxis->setLabel(tr("terms added"));
    sumsPlot_->yAxis->setLabel(tr("running sum"));
    sumsPlot_->rescaleAxes();
    sumsPlot_->yAxis->scaleRange(1.1, sumsPlot_->yAxis->range().center());
    sumsPlot_->legend->setVisible(true);
    plots::applyTheme(*sumsPlot_, theme);
    sumsPlot_->replot();
}

void StochasticPanel::showSummary() {
    histogram_->clearPlottables();
    histogram_->clearItems();
    if (!summary_ || summary_->problem) {
        neighbours_->setText(summary_ ? QString::fromStdString(*summary_->problem)
                                      : tr("Show a format with arithmetic (View → Formats…)."));
        draws_->clear();
        histogram_->replot();
        return;
    }
    const StochasticDrawSummary& s = *summary_;
    const StochasticOutcomes& o = *s.outcomes;
    const QString hexDown = codeHex(s.spec, o.down.code);
    const QString hexUp = codeHex(s.spec, o.up.code);
    const QString id = QString::fromStdString(s.spec.id);
    QString html = tr("<p><b>%1</b> in <b>%2</b> lies between two neighbours:</p>")
                       .arg(shortDecimal(s.value, 20).toHtmlEscaped(), id);
    html += QStringLiteral("<table cellspacing='6'>");
    auto line = [](const QString& name, const QString& value, const QString& hex,
                   const QString& p) {
        return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td><td><tt>%3</tt></td>"
                              "<td>p = <b>%4</b></td></tr>")
            .arg(name, value.toHtmlEscaped(), hex, p.toHtmlEscaped());
    };
    // Under N random bits the probability all 64 would give stands beside it: the bias at a
    // glance, in the lines the histogram already leaves to the text.
    const QString ideal =
        s.rule.count > 0 ? tr(" (all bits: %1)").arg(fullDecimal(o.idealProbabilityUp)) : QString();
    html +=
        line(tr("up"), shortDecimal(o.up.value, 20), hexUp, fullDecimal(o.probabilityUp) + ideal);
    html +=
        line(tr("down"), shortDecimal(o.down.value, 20), hexDown, fullDecimal(s.probabilityDown));
    html += QStringLiteral("</table>");
    // Why p is what it is, on hover: the text above the histogram stays short enough for the
    // histogram to be seen whole under it on a projector.
    neighbours_->setToolTip(
        s.rule.count == 0
            ? tr("p<sub>up</sub> = (x − down) / (up − down), exactly: the expected value of the "
                 "rounding is x itself, so errors cancel on average.")
            : tr("The residue ν = (|x| − the neighbour nearer zero) / gap is seen through %1 "
                 "random bits (%2): p<sub>away</sub> is ν rounded to a multiple of "
                 "2<sup>−%1</sup>, "
                 "so the expected value is no longer x itself.")
                  .arg(s.rule.count)
                  .arg(variantBox_->currentText().toHtmlEscaped()));
    neighbours_->setText(html);
    html = tr("%1 draws (seed %2): <b>%3</b> up (%4), expected %5.")
               .arg(QLocale().toString(static_cast<qulonglong>(s.draws)))
               .arg(seedBox_->value())
               .arg(QLocale().toString(static_cast<qulonglong>(s.drawsUp)))
               .arg(shortDecimal(s.observedFractionUp, 6))
               .arg(shortDecimal(s.expectedUp, 8));
    // Neighbouring seeds must give unrelated bits, or two runs would round alike.
    const SeedAudit& audit = s.seedAudit;
    if (audit.comparedBits > 0)
        html += tr(" Seed audit: seed %1 agrees with %2 on %3 of %4 bits (z = %5): <b>%6</b>.")
                    .arg(audit.neighbour)
                    .arg(audit.seed)
                    .arg(QLocale().toString(static_cast<qulonglong>(audit.agreeingBits)))
                    .arg(QLocale().toString(static_cast<qulonglong>(audit.comparedBits)))
                    .arg(audit.zScore, 0, 'f', 2)
                    .arg(audit.independent() ? tr("independent") : tr("correlated"));
    draws_->setText(html);

    // Observed and expected counts of each neighbour, side by side.
    const double draws = static_cast<double>(s.draws);
    const double up = static_cast<double>(s.drawsUp);
    const double expectedUp = nearestDouble(s.expectedUp);
    auto* group = new QCPBarsGroup(histogram_);
    auto bars = [&](int series, const QString& name, double downCount, double upCount) {
        auto* b = new QCPBars(histogram_->xAxis, histogram_->yAxis);
        b->setData({1, 2}, {downCount, upCount}, true);
        b->setBrush(plots::seriesBrush(series));
        b->setPen(QPen(plots::seriesColour(series).darker(130)));
        b->setWidth(0.35);
        b->setName(name);
        b->setBarsGroup(group);
    };
    bars(kObserved, tr("observed"), draws - up, up);
    bars(kExpected, tr("expected (draws × p)"), draws - expectedUp, expectedUp);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // The values stand in the text above: one line of labels leaves the bars their height.
    ticker->addTick(1, tr("down"));
    ticker->addTick(2, tr("up"));
    histogram_->xAxis->setTicker(ticker);
    histogram_->xAxis->setRange(0.4, 2.6);
    histogram_->yAxis->setRange(0, draws * 1.08);
    histogram_->yAxis->setLabel(tr("draws"));
    histogram_->legend->setVisible(true);
    plots::applyTheme(*histogram_);
    histogram_->replot();
}

} // namespace fpx::gui
