// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/training_page.h"
#include "common/shown_tab_size.h"

#include "pages/training/fp8_view.h"
#include "pages/training/loss_scale_view.h"
#include "pages/training/pipeline_view.h"
#include "pages/training/range_view.h"
#include "pages/training/view_frame.h"
#include "pages/training/weights_view.h"

#include <QTabWidget>

#include <QVBoxLayout>
#include <initializer_list>

namespace fpx::gui {

std::optional<TrainingPage::View> TrainingPage::parseView(const QString& name) {
    if (name == "range")
        return View::Range;
    if (name == "loss-scale")
        return View::LossScale;
    if (name == "fp8")
        return View::Fp8;
    if (name == "master" || name == "master-weights")
        return View::MasterWeights;
    if (name == "pipeline")
        return View::Pipeline;
    return std::nullopt;
}

TrainingPage::TrainingPage(QWidget* parent) : Page(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    views_ = new QTabWidget(this);
    views_->setObjectName("trainingViews");
    range_ = new RangeView(views_);
    range_->setObjectName("rangeView");
    lossScale_ = new LossScaleView(views_);
    lossScale_->setObjectName("lossScaleView");
    fp8_ = new Fp8View(views_);
    fp8_->setObjectName("fp8View");
    weights_ = new WeightsView(views_);
    weights_->setObjectName("weightsView");
    views_->addTab(range_, tr("&Range and loss scale"));
    views_->addTab(lossScale_, tr("&Dynamic loss scaling"));
    views_->addTab(fp8_, tr("&FP8 recipes"));
    views_->addTab(weights_, tr("Master &weights"));
    pipeline_ = new PipelineView(views_);
    pipeline_->setObjectName("pipelineView");
    views_->addTab(pipeline_, tr("Mixed-precision &pipeline"));
    sizeTabsByShownPage(*views_);
    views_->setTabToolTip(0, tr("A tensor's |values| against each format's flushed, subnormal, "
                                "normal and overflow zones, under a loss-scale slider."));
    views_->setTabToolTip(1, tr("PyTorch GradScaler's dynamic loss scale over a run of steps."));
    views_->setTabToolTip(2, tr("Transformer Engine's current and delayed FP8 scaling, side by "
                                "side."));
    views_->setTabToolTip(3, tr("SGD with the weight in FP32, BF16, FP16 or with an FP32 master "
                                "copy, against exact arithmetic."));
    views_->setTabToolTip(4, tr("One gradient through one step of NVIDIA's mixed-precision "
                                "recipe, stage by stage, with its bits."));
    layout->addWidget(views_);
    for (ViewFrame* view : std::initializer_list<ViewFrame*>{range_, lossScale_, fp8_, weights_})
        connect(view, &ViewFrame::finished, this, [this] { workEnded(); });
}

void TrainingPage::showView(View view) {
    switch (view) {
    case View::Range:
        views_->setCurrentWidget(range_);
        break;
    case View::LossScale:
        views_->setCurrentWidget(lossScale_);
        break;
    case View::Fp8:
        views_->setCurrentWidget(fp8_);
        break;
    case View::MasterWeights:
        views_->setCurrentWidget(weights_);
        break;
    case View::Pipeline:
        views_->setCurrentWidget(pipeline_);
        break;
    }
}

TrainingPage::View TrainingPage::currentView() const {
    if (views_->currentWidget() == lossScale_)
        return View::LossScale;
    if (views_->currentWidget() == fp8_)
        return View::Fp8;
    if (views_->currentWidget() == weights_)
        return View::MasterWeights;
    if (views_->currentWidget() == pipeline_)
        return View::Pipeline;
    return View::Range;
}

bool TrainingPage::busy() const {
    return range_->isBusy() || lossScale_->isBusy() || fp8_->isBusy() || weights_->isBusy();
}

bool TrainingPage::isBusy() const {
    switch (currentView()) {
    case View::Range:
        return range_->isBusy();
    case View::LossScale:
        return lossScale_->isBusy();
    case View::Fp8:
        return fp8_->isBusy();
    case View::MasterWeights:
        return weights_->isBusy();
    case View::Pipeline:
        return false; // computed at once
    }
    return false;
}

QString TrainingPage::errorText() const {
    switch (currentView()) {
    case View::Range:
        return range_->errorText();
    case View::LossScale:
        return lossScale_->errorText();
    case View::Fp8:
        return fp8_->errorText();
    case View::MasterWeights:
        return weights_->errorText();
    case View::Pipeline:
        return pipeline_->errorText();
    }
    return {};
}

} // namespace fpx::gui
