// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/background_runner.h"
#include "pages/training/training_runs.h"
#include "pages/training/view_frame.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace fpx::gui {

// The loss-scale view: PyTorch GradScaler's dynamic scaler (or a static scale) over a run of
// steps driven by a gradient amax series or a trace file; the scale over the steps, skipped
// steps marked, and the flushed fraction of simulated gradients.
class LossScaleView : public ViewFrame {
    Q_OBJECT

  public:
    explicit LossScaleView(QWidget* parent = nullptr);

    std::optional<LossScaleRequest> request(QString& error) const;
    QString setAmaxSeries(const QString& spec); // parseStepSeries; an error or empty
    QString setTraceFile(const QString& path);
    void setSteps(int steps);
    void setGradients(const QString& distribution, int perStep); // empty: amax only
    void setStaticScale(std::optional<double> scale);

    bool isBusy() const { return runs_.busy(); }
    const LossScaleResult& result() const { return result_; }

  protected:
    void start() override;
    std::string csvText() const override;

  private:
    void apply(LossScaleResult result);

    QLineEdit* amax_;
    QLineEdit* trace_;
    QSpinBox* steps_;
    QComboBox* format_;
    QLineEdit* init_;
    QDoubleSpinBox* growth_;
    QDoubleSpinBox* backoff_;
    QSpinBox* interval_;
    QCheckBox* static_;
    QLineEdit* staticScale_;
    QLineEdit* gradients_;
    QSpinBox* gradientCount_;
    QSpinBox* seed_;
    LossScaleResult result_;
    BackgroundRunner<LossScaleResult> runs_;
};

} // namespace fpx::gui
