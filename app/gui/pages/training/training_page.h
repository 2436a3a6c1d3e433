// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page.h"
#include "pages/training/training_page_state.h"

#include <optional>

class QTabWidget;

namespace fpx::gui {

class Fp8View;
class LossScaleView;
class PipelineView;
class RangeView;
class WeightsView;

// The Training page: the lessons of mixed-precision training, each a view with its own form,
// worker and export: a tensor against each format's range under a loss-scale slider, the
// dynamic loss scaler over a run, FP8 scaling recipes side by side, master weights, and one
// gradient through one mixed-precision step (which computes at once, with no worker).
class TrainingPage : public Page {
    Q_OBJECT

  public:
    using View = TrainingPageState::View;
    // "range", "loss-scale", "fp8", "master", "pipeline"
    static std::optional<View> parseView(const QString& name);

    explicit TrainingPage(QWidget* parent = nullptr);

    void showView(View view);
    View currentView() const;
    RangeView* rangeView() const { return range_; }
    LossScaleView* lossScaleView() const { return lossScale_; }
    Fp8View* fp8View() const { return fp8_; }
    WeightsView* weightsView() const { return weights_; }
    PipelineView* pipelineView() const { return pipeline_; }
    // The current view is computing (or has work waiting).
    bool isBusy() const;
    // Whether any view, shown or not, still runs.
    bool busy() const override;

    // The page's options and typed state (common/page_options.h): apply() sets the fields
    // that are set and returns the first problem as "--key: what is wrong"; state() is what
    // the page shows.
    using State = TrainingPageState;
    static std::span<const PageOption<State>> options();
    QString apply(const State& state);
    State state() const;
    QString errorText() const; // the current view's input problem; empty when none

  private:
    QTabWidget* views_;
    RangeView* range_;
    LossScaleView* lossScale_;
    Fp8View* fp8_;
    WeightsView* weights_;
    PipelineView* pipeline_;
};

} // namespace fpx::gui
