// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page.h"
#include "pages/arithmetic/arithmetic_page_state.h"
#include <QString>

#include <optional>

class QComboBox;
class QTabWidget;

namespace fpx::gui {

class AccumulationPanel;
class FormatSelection;
class ExpressionPanel;
class MasterWeightsPanel;
class StochasticPanel;

// The Arithmetic page: what happens when a machine *computes* in a format. Four labs share
// the explorer's formats, rounding mode and overflow policy (the FormatSelection).
class ArithmeticPage : public Page {
    Q_OBJECT

  public:
    using Lab = ArithmeticPageState::Lab;

    explicit ArithmeticPage(FormatSelection* selection, QWidget* parent = nullptr);

    void showLab(Lab lab);
    Lab currentLab() const;
    // Whether a lab is still computing (the accumulation lab's worker).
    bool isComputing() const;
    bool busy() const override { return isComputing(); }

    // The page's options and typed state (common/page_options.h): apply() sets the fields
    // that are set and returns the first problem as "--key: what is wrong"; state() is what
    // the page shows, every field set.
    using State = ArithmeticPageState;
    static std::span<const PageOption<State>> options();
    QString apply(const State& state);
    State state() const;
    // "expression", "accumulation", "stochastic", "weights".
    static std::optional<Lab> parseLab(const QString& id);

    AccumulationPanel* accumulationPanel() const { return accumulation_; }
    ExpressionPanel* expressionPanel() const { return expression_; }
    StochasticPanel* stochasticPanel() const { return stochastic_; }
    MasterWeightsPanel* masterWeightsPanel() const { return weights_; }

  signals:
    void formatsRequested(); // the Formats… button: the explorer's format manager

  private:
    FormatSelection* selection_;
    QComboBox* roundCombo_;
    QComboBox* overflowCombo_;
    QTabWidget* labs_;
    ExpressionPanel* expression_;
    AccumulationPanel* accumulation_;
    StochasticPanel* stochastic_;
    MasterWeightsPanel* weights_;
};

} // namespace fpx::gui
