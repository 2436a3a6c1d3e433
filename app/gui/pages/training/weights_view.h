// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/background_runner.h"
#include "pages/training/training_runs.h"
#include "pages/training/view_frame.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace fpx::gui {

// The master-weights view: plain SGD on one weight held in FP32, BF16, FP16, or in BF16/FP16
// with an FP32 master copy, against exact arithmetic: the trajectories and, per variant, the
// final weight, the updates lost and the error. Each step is computed by the chosen update
// rule (exact, PyTorch's CPU kernel, FP32 arithmetic or a formula), whose formula the view
// shows.
class WeightsView : public ViewFrame {
    Q_OBJECT

  public:
    explicit WeightsView(QWidget* parent = nullptr);

    std::optional<SgdRequest> request(QString& error) const;
    // "fp32,bf16,bf16+fp32": a format, or FORMAT+MASTER for a working copy with a master.
    QString setVariants(const QString& commaSeparated);
    // A built-in rule's name or a formula (update_rule.h); the problem, if it does not read.
    QString setUpdateRule(const QString& text);
    // The rule as fpx sgd --update takes it: the built-in's name, or the formula.
    QString updateRuleText() const;

    bool isBusy() const { return runs_.busy(); }
    const SgdResult& result() const { return result_; }
    QTableWidget* table() const { return table_; }

  protected:
    void start() override;
    std::string csvText() const override;

  private:
    void apply(SgdResult result);
    void showChosenRule(); // the formula field and its tooltip, for the combo's rule

    QLineEdit* weight_;
    QLineEdit* rate_;
    QLineEdit* gradients_;
    QSpinBox* steps_;
    QLineEdit* variants_;
    QSpinBox* seed_;
    QComboBox* rule_;
    QLineEdit* formula_;
    QString customFormula_; // the formula last written, kept while a built-in is chosen
    QLabel* ruleShown_;     // the formulas the last run computed, F written out
    QTableWidget* table_;
    SgdResult result_;
    BackgroundRunner<SgdResult> runs_;
};

} // namespace fpx::gui
