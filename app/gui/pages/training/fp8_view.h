// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/background_runner.h"
#include "pages/training/training_runs.h"
#include "pages/training/view_frame.h"

class QComboBox;
class QCustomPlot;
class QLineEdit;
class QSpinBox;

namespace fpx::gui {

// The FP8 view: Transformer Engine's per-tensor scaling recipes (current, delayed with an
// amax history) side by side over a run of synthetic tensors that drift and spike: the amax
// each recipe used and its scale in one plot, the overflowed and flushed fractions and the SQNR
// per step in a second one under it.
class Fp8View : public ViewFrame {
    Q_OBJECT

  public:
    explicit Fp8View(QWidget* parent = nullptr);

    std::optional<Fp8Request> request(QString& error) const;
    QString setRecipes(const QString& commaSeparated);
    QString setFormat(const QString& id);

    bool isBusy() const { return runs_.busy(); }
    const Fp8Result& result() const { return result_; }
    QCustomPlot* lossesPlot() const { return losses_; }

  protected:
    void start() override;
    std::string csvText() const override;
    bool exportImage(const QString& path, QString* error) override; // both plots in one

  private:
    void apply(Fp8Result result);

    QSpinBox* steps_;
    QLineEdit* distribution_;
    QLineEdit* drift_;
    QSpinBox* count_;
    QComboBox* format_;
    QLineEdit* recipes_;
    QSpinBox* margin_;
    QSpinBox* seed_;
    QCustomPlot* losses_;
    Fp8Result result_;
    BackgroundRunner<Fp8Result> runs_;
};

} // namespace fpx::gui
