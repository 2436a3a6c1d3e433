// SPDX-License-Identifier: GPL-3.0-or-later
// The Training page's options: the table the command line and lessons share, and the page's
// typed state applied and read back.
#include "common/folding_form.h"
#include "pages/training/fp8_view.h"
#include "pages/training/loss_scale_view.h"
#include "pages/training/pipeline_view.h"
#include "pages/training/range_view.h"
#include "pages/training/training_page.h"
#include "pages/training/training_plots.h"
#include "pages/training/weights_view.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"
#include "fpx/training/mixed_precision_step.h"
#include "fpx/training/update_rule.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <tuple>

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

// A pipeline field's text: an exact finite number ("none" too for the clip norm); what the
// numbers do together (S = 0, a negative decay) the view checks.
QString setPipelineNumber(const QString& text, std::optional<QString>& field, bool noneAllowed) {
    if (noneAllowed && text.trimmed() == QLatin1String("none")) {
        field = text.trimmed();
        return {};
    }
    const ParsedValue parsed = parseValue(text.toStdString());
    if (!parsed || !parsed.exact || !parsed.value->isFinite())
        return "'" + text + "' is not a finite number";
    field = text;
    return {};
}

// The pipeline view's options and the form fields they set, in one table.
struct PipelineField {
    const char* key;
    PipelineView::Field field;
    std::optional<QString> State::*member;
};
const PipelineField kPipelineFields[] = {
    {"pipeline-gradient", PipelineView::Field::Gradient, &State::pipelineGradient},
    {"pipeline-scale", PipelineView::Field::Scale, &State::pipelineScale},
    {"pipeline-weight", PipelineView::Field::Weight, &State::pipelineWeight},
    {"pipeline-lr", PipelineView::Field::LearningRate, &State::pipelineLr},
    {"pipeline-clip", PipelineView::Field::Clip, &State::pipelineClip},
    {"pipeline-decay", PipelineView::Field::Decay, &State::pipelineDecay},
};

const std::array kOptions{
    Option{"training-view", "VIEW",
           "Training page: show VIEW: range, loss-scale, fp8, master or pipeline (--formats, "
           "--dist, --count, --seed and --input set the range view there).",
           [](const QString& text, State& state) {
               state.view = TrainingPage::parseView(text);
               return state.view ? QString()
                                 : QStringLiteral("use range, loss-scale, fp8, master or pipeline");
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
    Option{"pipeline-preset", "STORY",
           "Training page: the pipeline view's story: survives (gradient 1e-8, S = 2^16), "
           "flushed (S = 1), overflow (gradient 4: the step is skipped), master-keeps (an update "
           "FP16 loses and the FP32 master keeps) or clip-decay; --pipeline-* options change it.",
           [](const QString& text, State& state) {
               if (!findMixedPrecisionPreset(text.trimmed().toStdString()))
                   return QStringLiteral(
                       "use survives, flushed, overflow, master-keeps or clip-decay");
               state.pipelinePreset = text.trimmed();
               return QString();
           },
           OpensPage::Yes},
    Option{"pipeline-gradient", "G",
           "Training page: the pipeline view's gradient dL/dw, exact (1e-8, 2^-30).",
           [](const QString& text, State& state) {
               return setPipelineNumber(text, state.pipelineGradient, false);
           },
           OpensPage::Yes},
    Option{"pipeline-scale", "S",
           "Training page: the pipeline view's loss scale S, held in FP32 (65536, 2^16).",
           [](const QString& text, State& state) {
               return setPipelineNumber(text, state.pipelineScale, false);
           },
           OpensPage::Yes},
    Option{"pipeline-weight", "W",
           "Training page: the pipeline view's weight, rounded into the FP32 master.",
           [](const QString& text, State& state) {
               return setPipelineNumber(text, state.pipelineWeight, false);
           },
           OpensPage::Yes},
    Option{"pipeline-lr", "LR", "Training page: the pipeline view's learning rate, exact.",
           [](const QString& text, State& state) {
               return setPipelineNumber(text, state.pipelineLr, false);
           },
           OpensPage::Yes},
    Option{"pipeline-clip", "C",
           "Training page: the pipeline view's clip norm (|g| > C becomes sign(g)·C), or none.",
           [](const QString& text, State& state) {
               return setPipelineNumber(text, state.pipelineClip, true);
           },
           OpensPage::Yes},
    Option{"pipeline-decay", "L",
           "Training page: the pipeline view's weight decay: the gradient plus L·w.",
           [](const QString& text, State& state) {
               return setPipelineNumber(text, state.pipelineDecay, false);
           },
           OpensPage::Yes},
    Option{"pipeline-half", "ID",
           "Training page: the pipeline view's format of the passes: fp16 or bf16.",
           [](const QString& text, State& state) {
               const FormatLookup found = findFormat(text.trimmed().toStdString());
               if (!found || (found.spec->id != "fp16" && found.spec->id != "bf16"))
                   return QStringLiteral("use fp16 or bf16");
               state.pipelineHalf = QString::fromStdString(found.spec->id);
               return QString();
           },
           OpensPage::Yes},
};

// Whether the state sets anything of the pipeline view.
bool setsPipeline(const State& state) {
    if (state.pipelinePreset || state.pipelineHalf)
        return true;
    for (const PipelineField& f : kPipelineFields)
        if (state.*f.member)
            return true;
    return false;
}

// The story, then the fields given; a problem as "--key: what is wrong", the key the field's.
QString applyPipeline(const State& state, PipelineView& view) {
    if (state.pipelinePreset)
        if (QString error = view.setPreset(*state.pipelinePreset); !error.isEmpty())
            return "--pipeline-preset: " + error;
    if (state.pipelineHalf)
        if (QString error = view.setHalfFormat(*state.pipelineHalf); !error.isEmpty())
            return "--pipeline-half: " + error;
    for (const PipelineField& f : kPipelineFields)
        if (const std::optional<QString>& text = state.*f.member)
            view.setField(f.field, *text);
    if (view.errorText().isEmpty())
        return {};
    const std::optional<PipelineView::Field> field = view.errorField();
    for (const PipelineField& f : kPipelineFields)
        if (field && f.field == *field)
            return QStringLiteral("--%1: %2").arg(QLatin1String(f.key), view.errorText());
    return "--pipeline-half: " + view.errorText();
}

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
    else if (setsPipeline(state))
        showView(View::Pipeline);
    if (setsPipeline(state))
        if (QString error = applyPipeline(state, *pipeline_); !error.isEmpty())
            return error;
    // What state() read of a form goes back as it was; a list of another form (none is ever
    // made but by state()) is the caller's fault, said as such.
    const std::tuple<const std::optional<QVariantList>&, ViewFrame*, const char*> forms[] = {
        {state.lossScaleForm, lossScale_, "loss-scale"},
        {state.fp8Form, fp8_, "fp8"},
        {state.weightsForm, weights_, "master"}};
    for (const auto& [values, view, name] : forms)
        if (values && !view->setFormValues(*values))
            return QStringLiteral("the %1 view's form has %2 fields, not %3")
                .arg(QLatin1String(name))
                .arg(view->formValues().size())
                .arg(values->size());
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
    // What each view shows follows its form, whatever ran before, and each form folds by the
    // room again: the same state shows the same page.
    for (ViewFrame* view : std::initializer_list<ViewFrame*>{range_, lossScale_, fp8_, weights_}) {
        view->fold()->forgetChoice();
        view->runIfChanged();
    }
    return {};
}

TrainingPageState TrainingPage::state() const {
    TrainingPageState state;
    state.view = currentView();
    state.lossScaleExponent = range_->scaleExponent();
    if (const std::optional<TensorSource> source = range_->source()) {
        if (source->kind == TensorSource::Kind::File) {
            state.input = QString::fromStdString(source->argument);
        } else {
            state.dist = QString::fromStdString(source->distribution);
            state.count = source->count;
            state.seed = source->seed;
        }
    }
    state.formats = range_->formatsText();
    state.update = weights_->updateRuleText();
    for (const PipelineField& f : kPipelineFields)
        state.*f.member = pipeline_->fieldText(f.field);
    state.pipelineHalf = pipeline_->halfFormat();
    state.lossScaleForm = lossScale_->formValues();
    state.fp8Form = fp8_->formValues();
    state.weightsForm = weights_->formValues();
    return state;
}

} // namespace fpx::gui
