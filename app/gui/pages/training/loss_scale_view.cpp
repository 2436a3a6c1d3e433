// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/loss_scale_view.h"

#include "pages/training/training_plots.h"
#include "plot_frame.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/value_parser.h"
#include "fpx/training/step_series.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

#include <cmath>
#include <string>

namespace fpx::gui {

namespace {

// A scale as the framework holds it: the exact value typed (2^16, 65536, 0.5) rounded once
// to FP32 (strtof of its exact decimal); nullopt when it is not finite and positive there.
std::optional<float> fp32Scale(const QString& text) {
    const ParsedValue parsed = parseValue(text.trimmed().toStdString());
    if (!parsed || !parsed.value->isFinite() || parsed.value->isNegative() ||
        parsed.value->isZero())
        return std::nullopt;
    const float scale = std::strtof(toDecimal(*parsed.value).text.c_str(), nullptr);
    if (!std::isfinite(scale) || scale <= 0)
        return std::nullopt;
    return scale;
}

} // namespace

LossScaleView::LossScaleView(QWidget* parent)
    : ViewFrame("lossScale", parent),
      runs_(this, [this](LossScaleResult r) { apply(std::move(r)); }) {
    const LossScaleRequest defaults;
    QFormLayout* form = this->form();
    amax_ = new QLineEdit(QString::fromStdString(defaults.amaxSeries), this);
    amax_->setObjectName("lossScaleAmax");
    amax_->setToolTip(tr("The gradient amax per step: geometric:START:END or constant:V, then "
                         "spikes:P:FACTOR (random, seeded) or spike-at:STEP:FACTOR."));
    form->addRow(tr("&Amax"), amax_);
    trace_ = new QLineEdit(this);
    trace_->setObjectName("lossScaleTrace");
    trace_->setPlaceholderText(tr("none, or amax.csv"));
    trace_->setToolTip(tr("A trace file instead: one amax per line or CSV step,value; inf or nan "
                          "for a step that overflowed at any scale."));
    form->addRow(tr("&Trace"), trace_);
    steps_ = new QSpinBox(this);
    steps_->setObjectName("lossScaleSteps");
    steps_->setRange(1, 1'000'000);
    steps_->setValue(int(defaults.steps));
    steps_->setGroupSeparatorShown(true);
    form->addRow(tr("&Steps"), steps_);
    format_ = new QComboBox(this);
    format_->setObjectName("lossScaleFormat");
    format_->setEditable(true);
    format_->addItems({"fp16", "bf16", "fp8_e5m2", "fp8_e4m3"});
    format_->setToolTip(tr("The format the scaled gradients are held in."));
    form->addRow(tr("&Format"), format_);
    init_ = new QLineEdit("2^16", this);
    init_->setObjectName("lossScaleInit");
    init_->setToolTip(tr("The initial scale (GradScaler: 2^16), rounded once to FP32."));
    form->addRow(tr("&Initial scale"), init_);
    growth_ = new QDoubleSpinBox(this);
    growth_->setRange(1.01, 1024); // GradScaler requires a factor above 1
    growth_->setValue(defaults.options.growthFactor);
    form->addRow(tr("&Growth factor"), growth_);
    backoff_ = new QDoubleSpinBox(this);
    backoff_->setDecimals(4);
    backoff_->setRange(0.0001, 0.9999); // and a backoff below 1
    backoff_->setValue(defaults.options.backoffFactor);
    form->addRow(tr("&Backoff factor"), backoff_);
    interval_ = new QSpinBox(this);
    interval_->setObjectName("lossScaleInterval");
    interval_->setRange(1, 1'000'000);
    interval_->setValue(int(defaults.options.growthInterval));
    interval_->setToolTip(tr("Clean steps in a row before the scale grows (GradScaler: 2000)."));
    form->addRow(tr("Growth &interval"), interval_);
    static_ = new QCheckBox(tr("Static scale"), this);
    static_->setObjectName("lossScaleStatic");
    staticScale_ = new QLineEdit("2^10", this);
    staticScale_->setEnabled(false);
    form->addRow(static_, staticScale_);
    // Each step's gradients spread over some thirty binades below its amax (only the spread
    // counts: they are rescaled to the amax), so that as the amax shrinks the smallest fall
    // under FP16's flush edge unless the scale grows to catch them.
    gradients_ = new QLineEdit("lognormal:0:4", this);
    gradients_->setObjectName("lossScaleGradients");
    gradients_->setToolTip(tr("Gradients simulated per step from this distribution, rescaled to "
                              "the step's amax, to show how many the format flushes; empty: "
                              "the amax alone."));
    form->addRow(tr("G&radients"), gradients_);
    gradientCount_ = new QSpinBox(this);
    gradientCount_->setRange(1, 1'000'000); // ≤ kMaxGradientsPerStep
    gradientCount_->setValue(int(defaults.gradientCount));
    form->addRow(tr("Per step"), gradientCount_);
    seed_ = new QSpinBox(this);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    form->addRow(tr("S&eed"), seed_);
    plots::drawMessage(*plot(), tr("Dynamic loss scaling"), tr("Run to see the scaler's steps."));

    connect(static_, &QCheckBox::toggled, staticScale_, &QLineEdit::setEnabled);
}

std::optional<LossScaleRequest> LossScaleView::request(QString& error) const {
    LossScaleRequest r;
    r.amaxSeries = amax_->text().trimmed().toStdString();
    r.traceFile = trace_->text().trimmed().toStdString();
    r.steps = std::size_t(steps_->value());
    r.seed = std::uint64_t(seed_->value());
    r.format = format_->currentText().trimmed().toStdString();
    const std::optional<float> init = fp32Scale(init_->text());
    if (!init) {
        error =
            tr("Initial scale: '%1' is not a positive number finite in FP32").arg(init_->text());
        return std::nullopt;
    }
    r.options.initScale = *init;
    r.options.growthFactor = growth_->value();
    r.options.backoffFactor = backoff_->value();
    r.options.growthInterval = std::size_t(interval_->value());
    if (static_->isChecked()) {
        r.options.staticScale = fp32Scale(staticScale_->text());
        if (!r.options.staticScale) {
            error = tr("Static scale: '%1' is not a positive number finite in FP32")
                        .arg(staticScale_->text());
            return std::nullopt;
        }
    }
    r.gradients = gradients_->text().trimmed().toStdString();
    r.gradientCount = std::size_t(gradientCount_->value());
    return r;
}

QString LossScaleView::setAmaxSeries(const QString& spec) {
    amax_->setText(spec);
    trace_->clear();
    std::string error;
    parseStepSeries(spec.toStdString(), error);
    return QString::fromStdString(error);
}

QString LossScaleView::setTraceFile(const QString& path) {
    trace_->setText(path);
    return {};
}

void LossScaleView::setSteps(int steps) {
    steps_->setValue(steps);
}

void LossScaleView::setGradients(const QString& distribution, int perStep) {
    gradients_->setText(distribution);
    gradientCount_->setValue(perStep);
}

void LossScaleView::setStaticScale(std::optional<double> scale) {
    static_->setChecked(scale.has_value());
    if (scale)
        staticScale_->setText(QString::number(*scale, 'g', 17));
}

void LossScaleView::start() {
    QString error;
    std::optional<LossScaleRequest> request = this->request(error);
    if (!request) {
        refuse(error);
        return;
    }
    setStatus(tr("Simulating…"));
    runs_.start([request = std::move(*request)](JobControl& control) {
        return runLossScale(request, control.stop);
    });
}

void LossScaleView::apply(LossScaleResult result) {
    if (!result.error.empty()) {
        fail(result.error, tr("Nothing simulated."), result_.run.has_value(),
             tr("Dynamic loss scaling"));
        return;
    }
    showError({});
    result_ = std::move(result);
    const LossScaleRun& run = *result_.run;
    const float last = run.steps.empty() ? run.options.initScale : run.steps.back().scale;
    setStatus(tr("%1. %L2 of %L3 steps skipped; last scale %4.")
                  .arg(QString::fromStdString(result_.description))
                  .arg(qulonglong(run.skipped.size()))
                  .arg(qulonglong(run.steps.size()))
                  .arg(QString::number(double(last), 'g', 9)));
    drawLossScalePlot(*plot(), result_);
    emit finished();
}

std::string LossScaleView::csvText() const {
    return lossScaleCsv(result_);
}

} // namespace fpx::gui
