// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/fp8_view.h"

#include "common/replot_after_resize.h"

#include "pages/training/training_plots.h"
#include "plot_builder.h"
#include "plot_frame.h"

#include "fpx/exact/format_catalogue.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

namespace fpx::gui {

Fp8View::Fp8View(QWidget* parent)
    : ViewFrame("fp8", parent), runs_(this, [this](Fp8Result r) { apply(std::move(r)); }) {
    const Fp8Request defaults;
    QFormLayout* form = this->form();
    steps_ = new QSpinBox(this);
    steps_->setObjectName("fp8Steps");
    steps_->setRange(1, int(kMaxFp8ScalingSteps));
    steps_->setValue(int(defaults.steps));
    form->addRow(tr("&Steps"), steps_);
    distribution_ = new QLineEdit(QString::fromStdString(defaults.distribution), this);
    distribution_->setObjectName("fp8Distribution");
    distribution_->setToolTip(tr("Each step's tensor before the drift: normal:MU:SIGMA, "
                                 "laplace:B, student:NU, uniform:A:B, lognormal:MU:SIGMA."));
    form->addRow(tr("&Values"), distribution_);
    drift_ = new QLineEdit(QString::fromStdString(defaults.drift), this);
    drift_->setObjectName("fp8Drift");
    drift_->setToolTip(tr("The factor on step t's tensor: geometric:START:END or constant:V, "
                          "then spikes:P:FACTOR or spike-at:STEP:FACTOR."));
    form->addRow(tr("&Drift"), drift_);
    count_ = new QSpinBox(this);
    count_->setRange(1, 1'000'000);
    count_->setValue(int(defaults.count));
    count_->setGroupSeparatorShown(true);
    form->addRow(tr("Values per step"), count_);
    format_ = new QComboBox(this);
    format_->setObjectName("fp8Format");
    format_->addItems({"fp8_e4m3", "fp8_e5m2"});
    format_->setEditable(true);
    format_->setToolTip(tr("E4M3 for activations and weights, E5M2 for gradients (hybrid)."));
    form->addRow(tr("&Format"), format_);
    QString recipes;
    for (const std::string& r : defaults.recipes)
        recipes += (recipes.isEmpty() ? "" : ",") + QString::fromStdString(r);
    recipes_ = new QLineEdit(recipes, this);
    recipes_->setObjectName("fp8Recipes");
    recipes_->setToolTip(tr("Comma-separated: current, delayed:LEN:max, "
                            "delayed:LEN:most_recent."));
    form->addRow(tr("&Recipes"), recipes_);
    margin_ = new QSpinBox(this);
    margin_->setRange(0, 64); // as fpx fp8-scaling --margin
    margin_->setToolTip(tr("scale = max / amax / 2^margin for every recipe."));
    form->addRow(tr("&Margin"), margin_);
    seed_ = new QSpinBox(this);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    form->addRow(tr("S&eed"), seed_);
    losses_ = new QCustomPlot(this);
    losses_->setObjectName("fp8LossesPlot");
    losses_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    replotAfterResize(*losses_);
    results()->addWidget(losses_, 1);
    plots::drawMessage(*plot(), tr("FP8 scaling recipes"), tr("Run to compare the recipes."));
    plots::drawMessage(*losses_, tr("What each recipe's casts lost"),
                       tr("Run to compare the recipes."));
}

std::optional<Fp8Request> Fp8View::request(QString&) const {
    Fp8Request r;
    r.steps = std::size_t(steps_->value());
    r.distribution = distribution_->text().trimmed().toStdString();
    r.drift = drift_->text().trimmed().toStdString();
    r.count = std::size_t(count_->value());
    r.format = format_->currentText().trimmed().toStdString();
    r.recipes.clear();
    for (const QString& recipe : recipes_->text().split(',', Qt::SkipEmptyParts))
        r.recipes.push_back(recipe.trimmed().toStdString());
    r.margin = margin_->value();
    r.seed = std::uint64_t(seed_->value());
    return r; // the run checks each field and names the wrong one
}

QString Fp8View::setRecipes(const QString& commaSeparated) {
    recipes_->setText(commaSeparated);
    for (const QString& recipe : commaSeparated.split(',', Qt::SkipEmptyParts)) {
        std::string error;
        if (!parseFp8Recipe(recipe.trimmed().toStdString(), error))
            return recipe + ": " + QString::fromStdString(error);
    }
    return {};
}

QString Fp8View::setFormat(const QString& id) {
    const FormatLookup found = findFormat(id.toStdString());
    if (!found)
        return QString::fromStdString(found.error);
    format_->setEditText(id);
    return {};
}

void Fp8View::start() {
    QString error;
    std::optional<Fp8Request> request = this->request(error);
    if (!request) {
        refuse(error);
        return;
    }
    setStatus(tr("Simulating…"));
    runs_.start([request = std::move(*request)](JobControl& control) {
        return runFp8Recipes(request, control.stop);
    });
}

void Fp8View::apply(Fp8Result result) {
    if (!result.error.empty()) {
        fail(result.error, tr("Nothing simulated."), !result_.runs.empty(),
             tr("FP8 scaling recipes"));
        return;
    }
    showError({});
    result_ = std::move(result);
    setStatus(QString::fromStdString(result_.description) + '.');
    drawFp8Plot(*plot(), result_, Fp8Panels::Scales);
    drawFp8Plot(*losses_, result_, Fp8Panels::Losses);
    emit finished();
}

std::string Fp8View::csvText() const {
    return fp8Csv(result_);
}

bool Fp8View::exportImage(const QString& path, QString* error) {
    if (result_.runs.empty())
        return ViewFrame::exportImage(path, error);
    // The four panels in one picture, as tall as the two plots on screen.
    QCustomPlot whole;
    whole.resize(plot()->width(), plot()->height() + losses_->height());
    drawFp8Plot(whole, result_, Fp8Panels::All);
    return plots::exportPlot(whole, plots::PlotData{}, path, error);
}

} // namespace fpx::gui
