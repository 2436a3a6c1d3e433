// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/range_view.h"

#include "common/rounding_choices.h"
#include "common/tensor_source_form.h"
#include "pages/training/training_plots.h"
#include "plot_frame.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/training/percent_shares.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>

#include <array>
#include <cstdint>
#include <limits>

namespace fpx::gui {

namespace {

enum Column { Format, Flushed, Subnormal, Normal, Overflow, Zero, BestScales, MaxError, Columns };

} // namespace

RangeView::RangeView(QWidget* parent)
    : ViewFrame("range", parent), runs_(this, [this](RangeResult r) { apply(std::move(r)); }) {
    QFormLayout* form = this->form();
    source_ = new TensorSourceForm(
        {.objectPrefix = "range",
         .fileFirst = false,
         .kindTip = tr("Values drawn from a distribution (each rounded once to FP32), or a "
                       "tensor file (.npy, .safetensors, raw, text)."),
         .pathPlaceholder = tr("grads.npy or model.safetensors"),
         .distributions = {"lognormal:-12:2", "lognormal:-8:3", "normal:0:1e-4", "laplace:1"},
         .distributionTip = tr("lognormal:MU:SIGMA (e^N(MU, SIGMA), natural-log units: how "
                               "gradients spread over binades), normal:MU:SIGMA, laplace:B, "
                               "student:NU or uniform:A:B."),
         .count = 1'000'000,
         .outliers = false,
         .chooseFileMessage = tr("Choose a tensor file (Open…).")},
        this);
    form->addRow(source_);
    formats_ = new QLineEdit("fp16,bf16,fp8_e5m2", this);
    formats_->setObjectName("rangeFormats");
    formats_->setToolTip(tr("The formats whose ranges are drawn, comma-separated ids."));
    form->addRow(tr("&Formats"), formats_);
    overflow_ = new QComboBox(this);
    overflow_->setObjectName("rangeOverflow");
    addOverflowPolicyItems(*overflow_, OverflowChoices::IeeeAndSaturate);
    form->addRow(tr("O&verflow"), overflow_);
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName("rangeScaleSlider");
    slider_->setRange(-kScaleReach, kScaleReach);
    slider_->setValue(0);
    slider_->setPageStep(4);
    slider_->setTickPosition(QSlider::TicksBelow);
    slider_->setTickInterval(4);
    slider_->setToolTip(tr("The loss scale S = 2^k: every value is multiplied by S before it is "
                           "rounded into each format. The histogram moves at once; the "
                           "fractions follow from the exact core."));
    scaleLabel_ = new QLabel(this);
    scaleLabel_->setObjectName("rangeScaleLabel");
    scaleLabel_->setMinimumWidth(48);
    auto* scaleRow = new QHBoxLayout;
    scaleRow->addWidget(slider_, 1);
    scaleRow->addWidget(scaleLabel_);
    auto* scaleName = new QLabel(tr("Sc&ale"), this);
    scaleName->setBuddy(slider_);
    form->addRow(scaleName, scaleRow);
    scaleLabel_->setText("2^0");
    alignFormLabels(QList<QFormLayout*>{form} + source_->forms());

    table_ = new QTableWidget(0, Columns, this);
    table_->setObjectName("rangeTable");
    // Two-line headers where a word is wider than the numbers below it: the table fits beside
    // the form in a narrow window instead of scrolling.
    table_->setHorizontalHeaderLabels({tr("Format"), tr("Flushed"), tr("Sub-\nnormal"),
                                       tr("Normal"), tr("Over-\nflow"), tr("Zero"), tr("Best 2^k"),
                                       tr("Max rel.\nerror")});
    table_->horizontalHeaderItem(BestScales)
        ->setToolTip(tr("The power-of-two scales that overflow nothing and flush the fewest "
                        "values."));
    table_->verticalHeader()->setVisible(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Each column as wide as its header and values: equal widths cut the longer headers on a
    // narrow window, and a cut header names nothing; a wide window leaves room on the right
    // rather than set the numbers far apart.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setMaximumHeight(150);
    results()->addWidget(table_);
    plots::drawMessage(*plot(), tr("Range"),
                       tr("Run to see the values against each format's range."));

    connect(source_, &TensorSourceForm::fileChosen, this, &RangeView::run);
    connect(slider_, &QSlider::valueChanged, this, [this](int k) {
        scaleLabel_->setText(QStringLiteral("2^%1").arg(k));
        redraw(); // the histogram moves now; the fractions when the fit is done
        refit();
    });
    connect(formats_, &QLineEdit::editingFinished, this, &RangeView::refit);
    connect(overflow_, &QComboBox::currentIndexChanged, this, &RangeView::refit);
}

QString RangeView::setDistribution(const QString& spec, qulonglong count, qulonglong seed) {
    return source_->setDistribution(spec, count, seed);
}

QString RangeView::setInputFile(const QString& argument) {
    return source_->setFile(argument);
}

QString RangeView::setFormats(const QString& commaSeparated) {
    const FormatListLookup lookup = findFormats(commaSeparated.toStdString());
    if (!lookup.error.empty())
        return QString::fromStdString(lookup.error);
    formats_->setText(commaSeparated);
    return {};
}

QString RangeView::formatsText() const {
    return formats_->text();
}

QString RangeView::setScaleExponent(int k) {
    if (k < -kScaleReach || k > kScaleReach)
        return tr("the scale must be 2^%1 to 2^%2").arg(-kScaleReach).arg(kScaleReach);
    slider_->setValue(k);
    return {};
}

int RangeView::scaleExponent() const {
    return slider_->value();
}

std::optional<TensorSource> RangeView::source() const {
    QString error;
    return source_->source(error);
}

std::optional<RangeRequest> RangeView::request(QString& error) const {
    RangeRequest r;
    const std::optional<TensorSource> source = source_->source(error);
    if (!source)
        return std::nullopt;
    r.source = *source;
    const FormatListLookup lookup = findFormats(formats_->text().toStdString());
    if (!lookup.error.empty() || lookup.specs.empty()) {
        error = tr("Formats: %1")
                    .arg(lookup.error.empty() ? tr("name at least one")
                                              : QString::fromStdString(lookup.error));
        return std::nullopt;
    }
    for (const FormatSpec& spec : lookup.specs)
        r.formats.push_back(spec.id);
    r.scaleExponent = slider_->value();
    r.rounding.overflow = static_cast<OverflowPolicy>(overflow_->currentData().toInt());
    return r;
}

void RangeView::start() {
    input_.reset(); // the source may have changed: read it again
    refit();
}

void RangeView::refit() {
    if (!hasRun())
        return; // nothing shown yet: the first showing runs the form
    QString error;
    std::optional<RangeRequest> request = this->request(error);
    if (!request) {
        refuse(error);
        return;
    }
    request->input = input_;
    formRan();
    setStatus(input_ ? tr("Fitting at 2^%1…").arg(request->scaleExponent)
                     : tr("Reading the values…"));
    runs_.start([request = std::move(*request)](JobControl& control) {
        return runRangeFit(request, control.stop);
    });
}

void RangeView::apply(RangeResult result) {
    if (!result.error.empty()) {
        fail(result.error, tr("Nothing fitted."), result_.input != nullptr, tr("Range"));
        return;
    }
    showError({});
    result_ = std::move(result);
    input_ = result_.input;
    setStatus(tr("%1 · %L2 values · fitted at S = 2^%3")
                  .arg(QString::fromStdString(result_.input->description))
                  .arg(qulonglong(result_.input->view.size()))
                  .arg(result_.scaleExponent));
    fillTable();
    redraw();
    emit finished();
}

void RangeView::fillTable() {
    const plots::PlotTheme theme = plots::plotTheme(table_->palette());
    table_->setRowCount(int(result_.fits.size()));
    for (int r = 0; r < int(result_.fits.size()); ++r) {
        const RangeFormatFit& f = result_.fits[std::size_t(r)];
        auto set = [&](int column, const QString& text, const QColor& colour = {}) {
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(column == Format ? Qt::AlignLeft | Qt::AlignVCenter
                                                    : Qt::AlignRight | Qt::AlignVCenter);
            if (colour.isValid())
                item->setForeground(theme.dark ? colour : colour.darker(130));
            table_->setItem(r, column, item);
        };
        set(Format, QString::fromStdString(f.id));
        if (!f.fit) {
            set(Flushed, QString::fromStdString(f.error));
            continue;
        }
        const RangeFit& fit = *f.fit;
        const struct {
            int column;
            RangeZone zone;
        } zones[] = {{Flushed, RangeZone::Flushed},
                     {Subnormal, RangeZone::Subnormal},
                     {Normal, RangeZone::Normal},
                     {Overflow, RangeZone::Overflow},
                     {Zero, RangeZone::Zero}};
        // Shares that add up to 100 % with the non-finite inputs (in no column), "<0.01 %" for
        // a zone that holds values but less than that; the exact count on hover.
        std::vector<std::uint64_t> counts;
        for (const auto& z : zones)
            counts.push_back(fit.count(z.zone));
        counts.push_back(fit.nonFinite);
        const std::vector<PercentShare> shares = percentShares(counts, 2);
        for (std::size_t i = 0; i < std::size(zones); ++i) {
            const auto& z = zones[i];
            const QString share = QString::fromStdString(percentShareText(shares[i], 2));
            set(z.column, share == "0" ? share : share + QStringLiteral(" %"),
                fit.count(z.zone) ? rangeZoneColour(z.zone, theme) : QColor());
            table_->item(r, z.column)
                ->setToolTip(tr("%L1 of %L2 values")
                                 .arg(qulonglong(fit.count(z.zone)))
                                 .arg(qulonglong(fit.total())));
        }
        // A lowest k of INT64_MIN: nothing flushes at any scale below (RangeFit::bestScales).
        const auto bestText = [](const std::array<std::int64_t, 2>& k) {
            const QString highest = QStringLiteral("2^%1").arg(k[1]);
            return k[0] == std::numeric_limits<std::int64_t>::min()
                       ? QStringLiteral("any ≤ ") + highest
                       : QStringLiteral("2^%1 … ").arg(k[0]) + highest;
        };
        set(BestScales, fit.bestScales ? bestText(*fit.bestScales) : QStringLiteral("—"));
        set(MaxError, fit.maxRelativeError ? QString::number(*fit.maxRelativeError, 'g', 3)
                                           : QStringLiteral("—"));
    }
}

void RangeView::redraw() {
    if (result_.input)
        drawRangePlot(*plot(), result_, slider_->value());
}

std::string RangeView::csvText() const {
    return rangeCsv(result_);
}

} // namespace fpx::gui
