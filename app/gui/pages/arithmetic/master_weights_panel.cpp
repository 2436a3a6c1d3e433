// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/master_weights_panel.h"

#include "common/error_style.h"
#include "common/format_selection.h"
#include "common/number_text.h"
#include "common/plot_legibility.h"
#include "plot_palette.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/value_parser.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace fpx::gui {

namespace {

constexpr const char* kHeaders[] = {"Format",          "w stored", "Δ stored",
                                    "w + Δ (rounded)", "Outcome",  "Smallest Δ that moves w",
                                    "ULP of w"};
constexpr const char* kTips[] = {
    "The number format the weight is kept in.",
    "w rounded into the format: the weight a machine of this format holds.",
    "Δ rounded into the format: the update it adds.",
    "w + Δ computed exactly and rounded once into the format.",
    "Whether the update changed the stored weight. 'Update lost': w + Δ rounded back to w.",
    "The smallest stored |Δ| that moves w: from w to the end of the interval of values that "
    "round to w (describeCode's rounding interval). '>' when a Δ of exactly that size is a tie "
    "that stays at w, '≥' when it already moves w. About half an ULP in round-to-nearest.",
    "Unit in the last place at w: the gap to the next representable value."};
static_assert(std::size(kHeaders) == MasterWeightsPanel::ColumnCount);
static_assert(std::size(kTips) == MasterWeightsPanel::ColumnCount);

QString thresholdText(const MasterWeightRow& row) {
    if (!row.threshold)
        return QObject::tr("none: %1").arg(QString::fromStdString(row.noThresholdReason));
    QString text = (row.thresholdReached ? QStringLiteral("≥ ") : QStringLiteral("> ")) +
                   shortDecimal(*row.threshold);
    const QString power = powerOfTwoText(*row.threshold);
    if (!power.isEmpty())
        text += QStringLiteral("  (%1)").arg(power);
    return text;
}

QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setToolTip(tip.isEmpty() ? text : tip);
    return item;
}

} // namespace

MasterWeightsPanel::MasterWeightsPanel(FormatSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection) {
    // Everything in a scroll area: the plots keep a legible height at every zoom
    // (common/plot_legibility.h), and a short window scrolls rather than squash them.
    QVBoxLayout* layout = scrollingPlotsLayout(*this);
    auto* bar = new QHBoxLayout;
    weightEdit_ = new QLineEdit(QStringLiteral("1"), this);
    weightEdit_->setObjectName("weightEdit");
    weightEdit_->setToolTip(tr("The weight w, any exact value (1, 0.75, 2^-3 …). It is first "
                               "rounded into each format, as a weight stored in that format."));
    deltaEdit_ = new QLineEdit(QStringLiteral("1e-3"), this);
    deltaEdit_->setObjectName("deltaEdit");
    deltaEdit_->setToolTip(tr("The update Δ (learning rate × gradient), rounded into each format "
                              "too; then w + Δ is rounded once."));
    auto* weightLabel = new QLabel(tr("Weight &w"), this);
    weightLabel->setBuddy(weightEdit_);
    auto* deltaLabel = new QLabel(tr("Update &Δ"), this);
    deltaLabel->setBuddy(deltaEdit_);
    bar->addWidget(weightLabel);
    bar->addWidget(weightEdit_, 1);
    bar->addSpacing(12);
    bar->addWidget(deltaLabel);
    bar->addWidget(deltaEdit_, 1);
    layout->addLayout(bar);
    error_ = new QLabel(this);
    error_->setObjectName("masterWeightsError");
    styleErrorLabel(*error_);
    error_->setVisible(false);
    layout->addWidget(error_);
    summary_ = new QLabel(this);
    summary_->setObjectName("masterWeightsSummary");
    summary_->setWordWrap(true);
    layout->addWidget(summary_);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    table_ = new QTableWidget(0, ColumnCount, splitter);
    table_->setObjectName("masterWeightsTable");
    for (int c = 0; c < ColumnCount; ++c) {
        auto* header = new QTableWidgetItem(tr(kHeaders[c]));
        header->setToolTip(tr(kTips[c]));
        table_->setHorizontalHeaderItem(c, header);
    }
    table_->verticalHeader()->setVisible(false);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    plot_ = new QCustomPlot(splitter);
    plot_->setObjectName("masterWeightsPlot");
    plot_->setMinimumHeight(200);
    plot_->setToolTip(tr("Per format, the smallest update that moves w (bar) against |Δ| (line): "
                         "a bar above the line means the update is lost."));
    // The legend above the bars, where it covers none of them.
    plot_->legend->setVisible(true);
    plots::placeLegendAbove(*plot_);
    splitter->addWidget(table_);
    splitter->addWidget(plot_);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(weightEdit_, &QLineEdit::textChanged, this, &MasterWeightsPanel::recompute);
    connect(deltaEdit_, &QLineEdit::textChanged, this, &MasterWeightsPanel::recompute);
    connect(selection_, &FormatSelection::formatsChanged, this, &MasterWeightsPanel::recompute);
    connect(selection_, &FormatSelection::optionsChanged, this, &MasterWeightsPanel::recompute);
    recompute();
}

void MasterWeightsPanel::setInputs(const QString& weight, const QString& delta) {
    weightEdit_->setText(weight);
    deltaEdit_->setText(delta);
}

QString MasterWeightsPanel::weightText() const {
    return weightEdit_->text();
}

QString MasterWeightsPanel::deltaText() const {
    return deltaEdit_->text();
}

QString MasterWeightsPanel::inputError() const {
    return error_->isVisible() ? error_->text() : QString();
}

void MasterWeightsPanel::recompute() {
    const std::string weightText = weightEdit_->text().toStdString();
    const std::string deltaText = deltaEdit_->text().toStdString();
    const ParsedValue weight = parseValue(weightText);
    const ParsedValue delta = parseValue(deltaText);
    QString problem;
    if (!weight)
        problem = tr("w: ") + parseErrorText(weightText, weight.error);
    else if (!delta)
        problem = tr("Δ: ") + parseErrorText(deltaText, delta.error);
    markInvalid(*weightEdit_, !weight);
    markInvalid(*deltaEdit_, !delta);
    error_->setText(problem.isEmpty() ? QString() : QStringLiteral("⚠ ") + problem);
    error_->setVisible(!problem.isEmpty());
    if (!problem.isEmpty())
        return; // the table keeps the last good inputs
    rows_ = masterWeightRows(*weight.value, *delta.value, selection_->formats(),
                             selection_->roundingOptions());
    fillTable();
    fillPlot(*delta.value);
}

void MasterWeightsPanel::fillTable() {
    const plots::PlotTheme theme = plots::plotTheme(palette());
    table_->setRowCount(static_cast<int>(rows_.size()));
    QStringList lost;
    QStringList kept;
    for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
        const MasterWeightRow& row = rows_[static_cast<std::size_t>(r)];
        const QString id = QString::fromStdString(row.spec.id);
        table_->setItem(r, Format, cell(id, QString::fromStdString(row.spec.displayName)));
        if (row.unsupported) {
            table_->setItem(r, Weight,
                            cell(tr("no arithmetic"), QString::fromStdString(*row.unsupported)));
            for (int c = Delta; c < ColumnCount; ++c)
                table_->setItem(r, c, cell(QString()));
            continue;
        }
        auto valueCell = [&](const ExactValue& v, Code code) {
            return cell(shortDecimal(v) + "  " + codeHex(row.spec, code),
                        fullDecimal(v) + "\n" + codeHex(row.spec, code));
        };
        table_->setItem(r, Weight, valueCell(row.weightValue, row.weight.code));
        table_->setItem(r, Delta, valueCell(row.deltaValue, row.delta.code));
        table_->setItem(r, Sum, valueCell(row.sum->value, row.sum->rounded.code));
        QTableWidgetItem* outcome =
            cell(row.changed ? tr("w changed") : tr("update lost: w unchanged"));
        outcome->setForeground(
            plots::meaningColour(row.changed ? plots::Meaning::Good : plots::Meaning::Bad, theme));
        QFont bold = outcome->font();
        bold.setBold(true);
        outcome->setFont(bold);
        table_->setItem(r, Outcome, outcome);
        table_->setItem(r, Threshold,
                        cell(thresholdText(row),
                             row.threshold ? fullDecimal(*row.threshold) : thresholdText(row)));
        table_->setItem(r, Ulp, cell(row.ulp ? shortDecimal(*row.ulp) : QString()));
        (row.changed ? kept : lost) << id;
    }
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->setStretchLastSection(true);
    QString text;
    if (!lost.isEmpty())
        text += tr("<b style='color:%1'>Update lost in %2.</b> ")
                    .arg(plots::meaningColour(plots::Meaning::Bad, theme).name(), lost.join(", "));
    if (!kept.isEmpty())
        text += tr("<b style='color:%1'>w changed in %2.</b> ")
                    .arg(plots::meaningColour(plots::Meaning::Good, theme).name(), kept.join(", "));
    text += tr("Each row computes F(F(w) + F(Δ)): w and Δ rounded into the format, their sum "
               "rounded once. A weight kept in a format ignores every update smaller than the "
               "smallest Δ that moves it (half an ULP when rounding to nearest): training keeps "
               "an FP32 master copy of the weights and adds the updates there. How a framework "
               "computes a step (PyTorch's kernels, FP32 arithmetic) is the update rule of the "
               "Training page's Master weights view.");
    summary_->setText(text);
}

void MasterWeightsPanel::fillPlot(const ExactValue& delta) {
    plot_->clearPlottables();
    plot_->clearItems();
    QVector<double> ticks;
    QVector<QString> labels;
    QVector<double> keptValues, lostValues, keptKeys, lostKeys;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const MasterWeightRow& row = rows_[i];
        const double key = static_cast<double>(i + 1);
        ticks << key;
        labels << QString::fromStdString(row.spec.id);
        if (!row.threshold || row.threshold->isZero())
            continue;
        (row.changed ? keptKeys : lostKeys) << key;
        (row.changed ? keptValues : lostValues) << nearestDouble(*row.threshold);
    }
    auto bars = [this](const QVector<double>& keys, const QVector<double>& values,
                       const QColor& colour, const QString& name) {
        auto* b = new QCPBars(plot_->xAxis, plot_->yAxis);
        b->setData(keys, values, true);
        b->setWidth(0.6);
        b->setPen(QPen(colour.darker(120)));
        b->setBrush(colour);
        b->setName(name);
        b->setBaseValue(1e-300);
    };
    const plots::PlotTheme theme = plots::plotTheme(plot_->palette());
    bars(keptKeys, keptValues, plots::meaningColour(plots::Meaning::Good, theme),
         tr("smallest Δ that moves w (w changed)"));
    bars(lostKeys, lostValues, plots::meaningColour(plots::Meaning::Bad, theme),
         tr("smallest Δ that moves w (update lost)"));
    auto textTicker = QSharedPointer<QCPAxisTickerText>::create();
    textTicker->addTicks(ticks, labels);
    plot_->xAxis->setTicker(textTicker);
    plot_->xAxis->setTickLabelRotation(30);
    plot_->xAxis->setRange(0.3, static_cast<double>(rows_.size()) + 0.7);
    plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot_->yAxis->setNumberFormat("eb");
    plot_->yAxis->setNumberPrecision(0);
    plot_->yAxis->setLabel(tr("|Δ|"));
    const double d = std::abs(nearestDouble(delta));
    double low = d > 0 ? d : 1;
    double high = low;
    for (const QVector<double>* values : {&keptValues, &lostValues})
        for (double v : *values) {
            low = std::min(low, v);
            high = std::max(high, v);
        }
    plot_->yAxis->setRange(low / 8, high * 8);
    if (d > 0 && std::isfinite(d)) {
        auto* line = new QCPItemStraightLine(plot_);
        line->setPen(QPen(plots::seriesColour(0), 2, Qt::DashLine));
        line->point1->setCoords(0, d);
        line->point2->setCoords(1, d);
        auto* label = new QCPItemText(plot_);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->position->setCoords(0.4, d);
        label->setText(tr("your |Δ| = %1").arg(shortDecimal(delta.abs(), 6)));
        label->setColor(plots::seriesColour(0));
    }
    if (keptKeys.isEmpty() && lostKeys.isEmpty()) {
        // No bar to draw: say why instead of showing an empty plot.
        QString why;
        for (const MasterWeightRow& row : rows_)
            if (!row.noThresholdReason.empty())
                why = QString::fromStdString(row.noThresholdReason);
        auto* note = new QCPItemText(plot_);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.5, 0.25);
        note->setText(why.isEmpty() ? tr("No format here has a smallest Δ.")
                                    : tr("No smallest Δ: %1.").arg(why));
        note->setFont(QFont(font().family(), font().pointSize() + 1));
    }
    plots::applyTheme(*plot_, theme);
    plot_->replot();
}

} // namespace fpx::gui
