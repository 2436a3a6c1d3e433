// SPDX-License-Identifier: GPL-3.0-or-later
// The Arithmetic page's options: the table the command line and lessons share, and the page's
// typed state applied and read back.
#include "common/folding_form.h"
#include "common/format_selection.h"
#include "pages/arithmetic/accumulation_lab.h"
#include "pages/arithmetic/accumulation_panel.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/arithmetic/expression_panel.h"
#include "pages/arithmetic/master_weights_panel.h"
#include "pages/arithmetic/stochastic_lab.h"
#include "pages/arithmetic/stochastic_panel.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <array>

namespace fpx::gui {
namespace {

using Option = PageOption<ArithmeticPageState>;
using State = ArithmeticPageState;

// The canonical id of a format, or nullopt with `error`; whether the explorer shows it is
// apply()'s to check, since formats may be set in the same step.
std::optional<QString> canonicalId(const QString& text, QString& error) {
    const FormatLookup lookup = findFormat(text.trimmed().toStdString());
    if (!lookup) {
        error = "unknown format '" + text.trimmed() + "'";
        return std::nullopt;
    }
    return QString::fromStdString(lookup.spec->id);
}

// A value as the value field reads it (0.1, 1/3, 2^-24), or the parser's message.
QString valueProblem(const QString& text) {
    const ParsedValue parsed = parseValue(text.toStdString());
    return parsed ? QString() : QString::fromStdString(parsed.error.message) + " in '" + text + "'";
}

QString setValueField(const QString& text, std::optional<QString>& field) {
    if (QString error = valueProblem(text); !error.isEmpty())
        return error;
    field = text;
    return {};
}

const std::array kOptions{
    Option{"expr", "EXPR",
           "Arithmetic page: evaluate EXPR in every format (0.1+0.2, fma(a,b,c), sqrt(2), …).",
           [](const QString& text, State& state) {
               state.expression = text;
               return QString(); // a bad expression is shown in its field, as if typed
           },
           OpensPage::Yes},
    Option{"lab", "LAB",
           "Arithmetic page: show LAB: expression, accumulation, stochastic or weights.",
           [](const QString& text, State& state) {
               state.lab = ArithmeticPage::parseLab(text);
               return state.lab ? QString()
                                : QStringLiteral("use expression, accumulation, stochastic or "
                                                 "weights");
           },
           OpensPage::Yes},
    Option{"terms", "N", "Accumulation lab: sum N terms.",
           [](const QString& text, State& state) {
               QString error;
               state.terms = wholeNumberIn(text, 1, int(kMaxLabTerms), error);
               return error;
           },
           OpensPage::Yes},
    Option{"values", "DIST",
           "Accumulation lab: the terms: ones, const:V, a distribution (uniform:A:B, "
           "normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU) or file:PATH.",
           [](const QString& text, State& state) {
               std::string error;
               if (!parseTermDistribution(text.toStdString(), error))
                   return QString::fromStdString(error);
               state.values = text;
               return QString();
           },
           OpensPage::Yes},
    Option{"element", "FORMAT",
           "Accumulation lab: round each term to FORMAT first (default: each accumulator's "
           "own).",
           [](const QString& text, State& state) {
               QString error;
               state.element = canonicalId(text, error);
               return error;
           },
           OpensPage::Yes},
    Option{"accumulator", "LIST",
           "Accumulation lab: the accumulator formats, comma-separated (formats the explorer "
           "shows).",
           [](const QString& text, State& state) {
               QStringList ids;
               for (const QString& item : text.split(',')) {
                   QString error;
                   const auto id = canonicalId(item, error);
                   if (!id)
                       return error;
                   ids << *id;
               }
               state.accumulators = ids;
               return QString();
           },
           OpensPage::Yes},
    Option{"method", "LIST",
           "Accumulation lab: sequential, pairwise, kahan or blocked:K, comma-separated.",
           [](const QString& text, State& state) {
               QStringList methods;
               for (const QString& item : text.split(',')) {
                   if (!parseSumMethod(item.trimmed().toStdString()))
                       return "use sequential, pairwise, kahan or blocked:K, not '" +
                              item.trimmed() + "'";
                   methods << item.trimmed();
               }
               state.methods = methods;
               return QString();
           },
           OpensPage::Yes},
    Option{"sr-value", "VALUE", "Stochastic lab: the value rounded stochastically.",
           [](const QString& text, State& state) { return setValueField(text, state.srValue); },
           OpensPage::Yes},
    Option{"sr-format", "FORMAT", "Stochastic lab: the format it is rounded to.",
           [](const QString& text, State& state) {
               QString error;
               state.srFormat = canonicalId(text, error);
               return error;
           },
           OpensPage::Yes},
    Option{"sr-term", "VALUE", "Stochastic lab: the small term summed with RNE and with SR.",
           [](const QString& text, State& state) { return setValueField(text, state.srTerm); },
           OpensPage::Yes},
    Option{"sr-count", "N", "Stochastic lab: how many small terms.",
           [](const QString& text, State& state) {
               QString error;
               state.srCount = wholeNumberIn(text, 1, int(kMaxSmallTerms), error);
               return error;
           },
           OpensPage::Yes},
    Option{"sr-round", "MODE",
           "Stochastic lab: sr (all 64 random bits) or sr:N, srb:N, src:N (N random bits).",
           [](const QString& text, State& state) {
               const ParsedRounding parsed = parseRoundingChoice(text.toStdString());
               if (!parsed.choice)
                   return QString::fromStdString(parsed.error);
               if (parsed.choice->mode != RoundingMode::Stochastic)
                   return "the stochastic lab rounds stochastically: use sr or sr:N, not '" + text +
                          "'";
               state.srRound = parsed.choice->stochastic;
               return QString();
           },
           OpensPage::Yes},
    Option{"weight", "VALUE", "Master-weights lab: the weight w.",
           [](const QString& text, State& state) { return setValueField(text, state.weight); },
           OpensPage::Yes},
    Option{"delta", "VALUE", "Master-weights lab: the update added to w.",
           [](const QString& text, State& state) { return setValueField(text, state.delta); },
           OpensPage::Yes},
};

// Whether the explorer shows format `id`; otherwise the problem, naming the option.
QString shownFormatProblem(const FormatSelection& selection, const QString& id, const char* key) {
    for (const FormatSpec& spec : selection.formats())
        if (QString::fromStdString(spec.id) == id)
            return {};
    return QStringLiteral("--%1: %2 is not among the explorer's formats (add it with --formats)")
        .arg(QLatin1String(key), id);
}

} // namespace

std::span<const PageOption<ArithmeticPageState>> ArithmeticPage::options() {
    return kOptions;
}

QString ArithmeticPage::apply(const ArithmeticPageState& state) {
    // A lab's settings mean that lab unless the state names one; of several, the last in
    // the tabs' order.
    if (state.lab)
        showLab(*state.lab);
    else if (state.setsMasterWeights())
        showLab(Lab::MasterWeights);
    else if (state.setsStochastic())
        showLab(Lab::Stochastic);
    else if (state.setsAccumulation())
        showLab(Lab::Accumulation);
    if (state.expression)
        expression_->setExpressionText(*state.expression);

    if (state.terms)
        accumulation_->setTerms(*state.terms);
    if (state.values)
        accumulation_->setDistribution(*state.values);
    if (state.element && !state.element->isEmpty()) {
        if (QString error = shownFormatProblem(*selection_, *state.element, "element");
            !error.isEmpty())
            return error;
    }
    if (state.element)
        accumulation_->setElement(*state.element);
    if (state.accumulators) {
        for (const QString& id : *state.accumulators)
            if (QString error = shownFormatProblem(*selection_, id, "accumulator");
                !error.isEmpty())
                return error;
        accumulation_->setAccumulators(*state.accumulators);
    }
    if (state.methods)
        accumulation_->setMethods(*state.methods);
    if (state.seed)
        accumulation_->setSeed(*state.seed);

    if (state.srValue)
        stochastic_->setValue(*state.srValue);
    if (state.srFormat) {
        if (QString error = shownFormatProblem(*selection_, *state.srFormat, "sr-format");
            !error.isEmpty())
            return error;
        stochastic_->setFormat(*state.srFormat);
    }
    if (state.srDraws)
        stochastic_->setDraws(*state.srDraws);
    if (state.srSeed)
        stochastic_->setSeed(*state.srSeed);
    if (state.srRound)
        stochastic_->setRandomBits(*state.srRound);
    if (state.srTerm || state.srCount)
        stochastic_->setSmallTerms(state.srTerm.value_or(stochastic_->smallTerm()),
                                   state.srCount.value_or(stochastic_->smallTermCount()));
    if (state.setsMasterWeights())
        weights_->setInputs(state.weight.value_or(weights_->weightText()),
                            state.delta.value_or(weights_->deltaText()));
    if (state.setsAccumulation())
        accumulation_->run(); // as `fpx accumulate` does: the settings are a run
    // The form folds by the room again: the same state shows the same lab.
    accumulation_->fold()->forgetChoice();
    return {};
}

ArithmeticPageState ArithmeticPage::state() const {
    ArithmeticPageState state;
    state.expression = expression_->expressionText();
    state.lab = currentLab();
    const AccumulationLabRequest request = accumulation_->request();
    state.terms = int(request.terms);
    state.values = QString::fromStdString(request.distribution);
    state.element = request.element ? QString::fromStdString(request.element->id) : QString();
    state.accumulators = QStringList();
    for (const FormatSpec& spec : request.accumulators)
        *state.accumulators << QString::fromStdString(spec.id);
    state.methods = QStringList();
    for (const SumMethodSpec& method : request.methods)
        *state.methods << QString::fromStdString(sumMethodId(method));
    state.seed = int(request.seed);
    state.srValue = stochastic_->valueText();
    state.srFormat = stochastic_->formatId();
    state.srTerm = stochastic_->smallTerm();
    state.srCount = stochastic_->smallTermCount();
    state.srDraws = stochastic_->draws();
    state.srSeed = stochastic_->seed();
    state.srRound = stochastic_->randomBits();
    state.weight = weights_->weightText();
    state.delta = weights_->deltaText();
    return state;
}

} // namespace fpx::gui
