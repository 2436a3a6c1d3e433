// SPDX-License-Identifier: GPL-3.0-or-later
// The Training page's options: the table the command line and lessons share, and the page's
// typed state applied and read back.
#include "pages/training/range_view.h"
#include "pages/training/training_page.h"
#include "pages/training/training_plots.h"
#include "pages/training/weights_view.h"

#include "fpx/exact/value_parser.h"
#include "fpx/training/update_rule.h"

#include <algorithm>
#include <array>

namespace fpx::gui {
namespace {

using Option = PageOption<TrainingPageState>;
using State = TrainingPageState;

// Values the range view's distribution draws unless --count says.
constexpr qulonglong kDefaultCount = 1'000'000;

QString setWholeNumber(const QString& text, std::optional<qulonglong>& field) {
    QString error;
    field = wholeNumber(text, error);
    return error;
}

const std::array kOptions{
    Option{"training-view", "VIEW",
           "Training page: show VIEW: range, loss-scale, fp8 or master (--formats, --dist, "
           "--count, --seed and --input set the range view there).",
           [](const QString& text, State& state) {
               state.view = TrainingPage::parseView(text);
               return state.view ? QString()
                                 : QStringLiteral("use range, loss-scale, fp8 or master");
           },
           OpensPage::Yes},
    Option{"loss-scale", "S",
           "Training page: the range view's loss scale, a power of two 2^-24 … 2^24 (2^10, "
           "1024, 2^-3).",
           [](const QString& text, State& state) {
               const ParsedValue parsed = parseValue(text.toStdString());
               const ExactValue* scale = parsed ? &*parsed.value : nullptr;
               // A power of two: odd numerator 1, denominator 1, any exponent.
               if (!scale || !scale->isFinite() || scale->isNegative() || scale->isZero() ||
                   scale->numerator() != 1 || scale->denominator() != 1)
                   return "'" + text + "' is not a power of two (2^k)";
               // Clamped one past the reach, so the view names the reach in its message.
               state.lossScaleExponent = int(
                   std::clamp<std::int64_t>(scale->exponent2(), -kScaleReach - 1, kScaleReach + 1));
               return QString();
           },
           OpensPage::Yes},
    Option{"input", "FILE[:TENSOR]",
           "Training page (with --page training): the range view's tensor.",
           [](const QString& text, State& state) {
               state.input = text;
               return QString();
           }},
    Option{"dist", "SPEC", "Training page (with --page training): the range view's distribution.",
           [](const QString& text, State& state) {
               state.dist = text;
               return QString();
           }},
    Option{"count", "N",
           "Training page (with --page training): how many values --dist draws (1000000).",
           [](const QString& text, State& state) { return setWholeNumber(text, state.count); }},
    Option{"seed", "S", "Training page (with --page training): the seed of --dist.",
           [](const QString& text, State& state) { return setWholeNumber(text, state.seed); }},
    Option{"formats", "LIST",
           "Training page (with --page training): the range view's formats, comma-separated.",
           [](const QString& text, State& state) {
               state.formats = text;
               return QString(); // the view checks them
           }},
    Option{"update", "RULE",
           "Training page: the master-weights view's update rule: exact, pytorch-cpu, "
           "pytorch2-cpu, fp32-opmath or a formula in w, lr, g with explicit roundings, such as "
           "bf16(fp32(w + bf16(-lr)*g)) (as fpx sgd --update).",
           [](const QString& text, State& state) {
               const UpdateRuleParse parsed = parseUpdateRule(text.toStdString());
               if (!parsed)
                   return QStringLiteral("column %1: %2")
                       .arg(parsed.error.position + 1)
                       .arg(QString::fromStdString(parsed.error.message));
               state.update = text;
               return QString();
           },
           OpensPage::Yes},
};

} // namespace

std::span<const PageOption<TrainingPageState>> TrainingPage::options() {
    return kOptions;
}

QString TrainingPage::apply(const TrainingPageState& state) {
    // The update rule is the master-weights view's: it shows that view unless one is named.
    if (state.view)
        showView(*state.view);
    else if (state.update)
        showView(View::MasterWeights);
    if (state.update)
        if (QString error = weights_->setUpdateRule(*state.update); !error.isEmpty())
            return "--update: " + error;
    if (state.lossScaleExponent)
        if (QString error = range_->setScaleExponent(*state.lossScaleExponent); !error.isEmpty())
            return "--loss-scale: " + error;
    if (state.input && state.dist)
        return "--input and --dist: give one source";
    if (state.input)
        if (QString error = range_->setInputFile(*state.input); !error.isEmpty())
            return "--input: " + error;
    if (state.dist) {
        if (QString error = range_->setDistribution(
                *state.dist, state.count.value_or(kDefaultCount), state.seed.value_or(1));
            !error.isEmpty())
            return "--dist: " + error;
    } else if (state.count || state.seed) {
        return QStringLiteral("--%1: only with --dist").arg(state.count ? "count" : "seed");
    }
    if (state.formats)
        if (QString error = range_->setFormats(*state.formats); !error.isEmpty())
            return "--formats: " + error;
    return {};
}

TrainingPageState TrainingPage::state() const {
    TrainingPageState state;
    state.view = currentView();
    state.lossScaleExponent = range_->scaleExponent();
    state.formats = range_->formatsText();
    state.update = weights_->updateRuleText();
    return state;
}

} // namespace fpx::gui
