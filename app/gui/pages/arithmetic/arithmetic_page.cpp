// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/arithmetic_page.h"

#include "common/format_selection.h"
#include "common/rounding_choices.h"
#include "common/shown_tab_size.h"
#include "pages/arithmetic/accumulation_panel.h"
#include "pages/arithmetic/expression_panel.h"
#include "pages/arithmetic/master_weights_panel.h"
#include "pages/arithmetic/stochastic_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

namespace fpx::gui {

ArithmeticPage::ArithmeticPage(FormatSelection* selection, QWidget* parent)
    : Page(parent), selection_(selection) {
    auto* layout = new QVBoxLayout(this);
    // One short line above the labs: what every lab computes in, and its rounding. (What a
    // literal and an operation do is the Expression lab's first line.)
    auto* bar = new QHBoxLayout;
    roundCombo_ = new QComboBox(this);
    roundCombo_->setObjectName("arithmeticRounding");
    addRoundingModeItems(*roundCombo_);
    overflowCombo_ = new QComboBox(this);
    overflowCombo_->setObjectName("arithmeticOverflow");
    addOverflowPolicyItems(*overflowCombo_);
    for (QComboBox* box : {roundCombo_, overflowCombo_})
        letNarrow(*box);
    auto* formats = new QPushButton(tr("Formats…"), this);
    formats->setToolTip(tr("Show, hide and reorder the formats (shared with the explorer)."));
    bar->addWidget(roundCombo_);
    bar->addWidget(overflowCombo_);
    bar->addWidget(formats);
    bar->addStretch(1);
    layout->addLayout(bar);

    labs_ = new QTabWidget(this);
    labs_->setObjectName("arithmeticLabs");
    expression_ = new ExpressionPanel(selection_, labs_);
    expression_->setObjectName("expressionPanel");
    accumulation_ = new AccumulationPanel(selection_, labs_);
    accumulation_->setObjectName("accumulationPanel");
    connect(accumulation_, &AccumulationPanel::finished, this, [this] { workEnded(); });
    stochastic_ = new StochasticPanel(selection_, labs_);
    stochastic_->setObjectName("stochasticPanel");
    weights_ = new MasterWeightsPanel(selection_, labs_);
    weights_->setObjectName("masterWeightsPanel");
    labs_->addTab(expression_, tr("&Expression"));
    labs_->setTabToolTip(labs_->indexOf(expression_),
                         tr("An expression computed in every format, with every operation's "
                            "rounding written out for the selected format."));
    labs_->addTab(accumulation_, tr("A&ccumulation"));
    labs_->setTabToolTip(labs_->indexOf(accumulation_),
                         tr("N terms summed in several formats and ways: running sums, their "
                            "error against N, the term where the sum stops growing."));
    labs_->addTab(stochastic_, tr("&Stochastic rounding"));
    labs_->addTab(weights_, tr("Master &weights"));
    sizeTabsByShownPage(*labs_);
    labs_->setTabToolTip(labs_->indexOf(stochastic_),
                         tr("The two neighbours of a value and the probability of each; draws; "
                            "many small terms summed with and without stochastic rounding."));
    labs_->setTabToolTip(labs_->indexOf(weights_),
                         tr("w + Δ in every format: which formats lose a small update, and the "
                            "smallest update each one keeps."));
    layout->addWidget(labs_, 1);

    showRoundingChoice(*roundCombo_, selection_->roundingChoice());
    showOverflowPolicy(*overflowCombo_, selection_->overflowPolicy());
    connect(roundCombo_, &QComboBox::currentIndexChanged, this,
            [this](int i) { selection_->setRoundingChoice(roundingChoiceAt(*roundCombo_, i)); });
    connect(overflowCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
        selection_->setOverflowPolicy(
            static_cast<OverflowPolicy>(overflowCombo_->itemData(i).toInt()));
    });
    connect(selection_, &FormatSelection::optionsChanged, this, [this] {
        showRoundingChoice(*roundCombo_, selection_->roundingChoice());
        showOverflowPolicy(*overflowCombo_, selection_->overflowPolicy());
    });
    connect(formats, &QPushButton::clicked, this, &ArithmeticPage::formatsRequested);
}

void ArithmeticPage::showLab(Lab lab) {
    switch (lab) {
    case Lab::Expression:
        labs_->setCurrentWidget(expression_);
        break;
    case Lab::Accumulation:
        labs_->setCurrentWidget(accumulation_);
        break;
    case Lab::Stochastic:
        labs_->setCurrentWidget(stochastic_);
        break;
    case Lab::MasterWeights:
        labs_->setCurrentWidget(weights_);
        break;
    }
}

ArithmeticPage::Lab ArithmeticPage::currentLab() const {
    if (labs_->currentWidget() == weights_)
        return Lab::MasterWeights;
    if (labs_->currentWidget() == accumulation_)
        return Lab::Accumulation;
    if (labs_->currentWidget() == stochastic_)
        return Lab::Stochastic;
    return Lab::Expression;
}

bool ArithmeticPage::isComputing() const {
    return accumulation_->isRunning();
}

std::optional<ArithmeticPage::Lab> ArithmeticPage::parseLab(const QString& id) {
    if (id == "expression")
        return Lab::Expression;
    if (id == "accumulation")
        return Lab::Accumulation;
    if (id == "stochastic")
        return Lab::Stochastic;
    if (id == "weights")
        return Lab::MasterWeights;
    return std::nullopt;
}

} // namespace fpx::gui
