// SPDX-License-Identifier: GPL-3.0-or-later
// The Explorer page's options: the table the command line and lessons share, and the page's
// typed state applied and read back.
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/explorer_page.h"
#include "pages/explorer/plots_panel.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/quantization/training_recipe.h"

#include <QTabWidget>

#include <array>

namespace fpx::gui {
namespace {

using Option = PageOption<ExplorerPageState>;
using State = ExplorerPageState;

const std::array kOptions{
    Option{"value", "VALUE", "Explorer: start with VALUE in the value field.",
           [](const QString& text, State& state) {
               state.value = text;
               return QString(); // a bad value is shown in the field, as if typed
           }},
    Option{"formats", "LIST",
           "Explorer: show these formats, comma-separated (ids, aliases or specs like "
           "e4m3b11fnuz).",
           [](const QString& text, State& state) {
               const FormatListLookup lookup = findFormats(text.toStdString());
               if (!lookup.error.empty())
                   return QString::fromStdString(lookup.error);
               state.formats = lookup.specs;
               return QString();
           }},
    Option{"round", "MODE",
           "Rounding mode: rne, rna, rtz, rup, rdn, sr or rto; sr:N, srb:N, src:N (N = 1 to "
           "32): stochastic with N random bits (P3109's StochasticA, B, C).",
           [](const QString& text, State& state) {
               const ParsedRounding parsed = parseRoundingChoice(text.toStdString());
               state.round = parsed.choice;
               return state.round ? QString() : QString::fromStdString(parsed.error);
           }},
    Option{"overflow", "POLICY", "Overflow policy: ieee or saturate.",
           [](const QString& text, State& state) {
               state.overflow = parseOverflowPolicy(text.toStdString());
               return state.overflow ? QString() : "unknown policy '" + text + "'";
           }},
    Option{"select", "FORMAT", "Explorer: select the row of FORMAT (its detail panel shows).",
           [](const QString& text, State& state) {
               const FormatLookup lookup = findFormat(text.trimmed().toStdString());
               if (!lookup)
                   return "unknown format '" + text.trimmed() + "'";
               state.select = lookup.spec->id;
               return QString();
           }},
    Option{"plot", "KIND", "Show the Plots tab with KIND: error, ulp, range, values or memory.",
           [](const QString& text, State& state) {
               state.plot = plots::parsePlotKind(text);
               return state.plot
                          ? QString()
                          : "unknown plot '" + text + "' (use error, ulp, range, values or memory)";
           }},
    Option{"tab", "TAB", "Explorer page: the lower tab, details or plots.",
           [](const QString& text, State& state) {
               if (text != "details" && text != "plots")
                   return QStringLiteral("use details or plots");
               state.tab = text == "plots" ? State::Tab::Plots : State::Tab::Details;
               return QString();
           }},
    Option{"params", "N",
           "Plots tab, memory plot: the model's parameter count (1B, 7B, 70B, 405B, 13B, 350M, "
           "7e9).",
           [](const QString& text, State& state) {
               state.params = text;
               return QString(); // the panel reads it (PlotsPanel::setParameters)
           }},
    Option{"memory-recipe", "NAME",
           "Plots tab, memory plot: inference (the weights by format), or training by recipe: "
           "bf16-mixed, fp8 (Transformer Engine style), qlora, or training for all three.",
           [](const QString& text, State& state) {
               std::string error;
               const auto recipes = parseMemoryRecipes(text.toStdString(), error);
               if (!recipes)
                   return QString::fromStdString(error);
               state.memoryRecipes = *recipes;
               return QString();
           }},
    Option{"memory-training", nullptr,
           "Plots tab, memory plot: memory-recipe bf16-mixed (BF16 mixed-precision training "
           "with FP32 master weights and Adam).",
           [](const QString&, State& state) {
               state.memoryRecipes = std::vector{TrainingRecipe::Bf16Mixed};
               return QString();
           }},
    Option{"adapter-params", "N|P%",
           "Plots tab, memory plot: QLoRA's adapter parameters, a count (40M) or a share of the "
           "model's (0.5%).",
           [](const QString& text, State& state) {
               state.adapterParams = text;
               return QString(); // the panel reads it (PlotsPanel::setAdapterParams)
           }},
    Option{"gib", nullptr, "Plots tab, memory plot: bars in GiB instead of GB.",
           [](const QString&, State& state) {
               state.gib = true;
               return QString();
           }},
    Option{"plot-range", "A:B", "Plots tab: the x range A:B of the plot (any value: 1/16:8).",
           [](const QString& text, State& state) {
               const QStringList ends = text.split(':');
               if (ends.size() != 2)
                   return "expected A:B, got '" + text + "'";
               state.plotRange = std::pair{ends[0], ends[1]};
               return QString();
           }},
};

} // namespace

std::span<const PageOption<ExplorerPageState>> ExplorerPage::options() {
    return kOptions;
}

QString ExplorerPage::apply(const ExplorerPageState& state) {
    if (state.formats)
        controller_->setFormats(*state.formats);
    if (state.round)
        controller_->setRoundingChoice(*state.round);
    if (state.overflow)
        controller_->setOverflowPolicy(*state.overflow);
    if (state.value)
        controller_->setInputText(*state.value);
    // What the state sets is shown, and a bad value's error known, before anything reads them
    // (a lesson's next step, a screenshot, the row to select); a slow value is waited for.
    controller_->waitForIdle();
    if (state.select) {
        const auto& rows = controller_->rows();
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (rows[i].spec.id == *state.select)
                selectRow(static_cast<int>(i));
    }
    if (state.plot) {
        showLowerTab(1);
        plots_->setKind(*state.plot);
    }
    // After the plot, so a lesson step that showed a plot earlier can go back to the details.
    if (state.tab)
        showLowerTab(*state.tab == ExplorerPageState::Tab::Plots ? 1 : 0);
    if (state.params) {
        QString error;
        if (!plots_->setParameters(*state.params, &error))
            return "--params: " + error;
    }
    if (state.memoryRecipes)
        plots_->setMemoryRecipes(*state.memoryRecipes);
    if (state.adapterParams) {
        QString error;
        if (!plots_->setAdapterParams(*state.adapterParams, &error))
            return "--adapter-params: " + error;
    }
    if (state.gib)
        plots_->setMemoryGib(*state.gib);
    if (state.plotRange)
        plots_->setXRange(state.plotRange->first, state.plotRange->second);
    return {};
}

ExplorerPageState ExplorerPage::state() const {
    ExplorerPageState state;
    state.value = controller_->inputText();
    state.formats = controller_->formats();
    state.round = controller_->roundingChoice();
    state.overflow = controller_->overflowPolicy();
    if (const int row = selectedRow(); row >= 0)
        state.select = controller_->rows()[std::size_t(row)].spec.id;
    state.plot = plots_->kind();
    state.tab = lowerTabs_->currentIndex() == 1 ? ExplorerPageState::Tab::Plots
                                                : ExplorerPageState::Tab::Details;
    state.params = QString::number(plots_->parameters());
    state.memoryRecipes = plots_->memoryRecipes();
    state.adapterParams = plots_->adapterParams();
    state.gib = plots_->memoryGib();
    state.plotRange = plots_->xRange();
    return state;
}

} // namespace fpx::gui
