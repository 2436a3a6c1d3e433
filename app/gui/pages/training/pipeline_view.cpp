// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/pipeline_view.h"

#include "common/error_style.h"
#include "common/number_text.h"
#include "common/zoom.h"
#include "pages/training/pipeline_view_bits.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace fpx::gui {

namespace {

// The columns of the stage grid; each stage's note spans Name … Bits on the line below.
enum Column { Number, Name, Format, Value, Bits, ColumnCount };

// The formats the passes can run in, as the recipes use them.
const char* const kHalfFormats[] = {"fp16", "bf16"};

struct FieldInfo {
    const char* objectName;
    const char* label;
    const char* tip;
};
const FieldInfo kFields[PipelineView::kFieldCount] = {
    {"pipelineGradient", QT_TRANSLATE_NOOP("PipelineView", "&Gradient"),
     QT_TRANSLATE_NOOP("PipelineView", "dL/dw of the unscaled loss, exact (1e-8, 2^-30, 3/7 …).")},
    {"pipelineScale", QT_TRANSLATE_NOOP("PipelineView", "Loss &scale S"),
     QT_TRANSLATE_NOOP("PipelineView", "S, held in FP32 as GradScaler holds it (65536, 2^16).")},
    {"pipelineWeight", QT_TRANSLATE_NOOP("PipelineView", "Weight"),
     QT_TRANSLATE_NOOP("PipelineView", "The weight, rounded once into the FP32 master.")},
    {"pipelineLr", QT_TRANSLATE_NOOP("PipelineView", "LR"),
     QT_TRANSLATE_NOOP("PipelineView", "The learning rate, exact as written.")},
    {"pipelineClip", QT_TRANSLATE_NOOP("PipelineView", "&Clip"),
     QT_TRANSLATE_NOOP("PipelineView",
                       "Clip norm c: a gradient with |g| > c becomes sign(g)·c. Empty: none.")},
    {"pipelineDecay", QT_TRANSLATE_NOOP("PipelineView", "Deca&y"),
     QT_TRANSLATE_NOOP("PipelineView", "Weight decay λ: the gradient plus λ·w (SGD's L2).")},
};

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

// One rule for every value of the view: nine significant digits, "≈" where that dropped
// some; the decimal exponent written where the value is far from 1 (toSignificantDigits).
QString valueText(const ExactValue& v) {
    if (v.isNaN())
        return QStringLiteral("NaN");
    if (v.isInfinity())
        return v.isNegative() ? QStringLiteral("−∞") : QStringLiteral("∞");
    return shortDecimal(v, 9);
}

// The form's field of an input the core refused; the half format is the combo's, never wrong.
std::optional<PipelineView::Field> fieldOf(MixedPrecisionInput input) {
    using Field = PipelineView::Field;
    switch (input) {
    case MixedPrecisionInput::Gradient:
        return Field::Gradient;
    case MixedPrecisionInput::Scale:
        return Field::Scale;
    case MixedPrecisionInput::Weight:
        return Field::Weight;
    case MixedPrecisionInput::LearningRate:
        return Field::LearningRate;
    case MixedPrecisionInput::Clip:
        return Field::Clip;
    case MixedPrecisionInput::Decay:
        return Field::Decay;
    case MixedPrecisionInput::Half:
    case MixedPrecisionInput::Master:
        break;
    }
    return std::nullopt;
}

// The outcome in a word or two, and whether it is good news, a warning or trouble.
enum class Tone { Plain, Good, Warn, Bad };
struct OutcomeWords {
    QString words;
    Tone tone;
};
OutcomeWords outcomeWords(StageOutcome outcome) {
    switch (outcome) {
    case StageOutcome::Exact:
        return {QObject::tr("exact"), Tone::Good};
    case StageOutcome::Rounded:
        return {QObject::tr("rounded"), Tone::Plain};
    case StageOutcome::Subnormal:
        return {QObject::tr("subnormal"), Tone::Warn};
    case StageOutcome::Flushed:
        return {QObject::tr("flushed to 0"), Tone::Bad};
    case StageOutcome::Overflow:
        return {QObject::tr("overflow → ∞"), Tone::Bad};
    case StageOutcome::NotFinite:
        return {QObject::tr("not finite"), Tone::Bad};
    case StageOutcome::Passed:
        return {QObject::tr("passed"), Tone::Good};
    case StageOutcome::Skipped:
        return {QObject::tr("skipped"), Tone::Bad};
    case StageOutcome::UpdateKept:
        return {QObject::tr("update kept"), Tone::Good};
    case StageOutcome::UpdateLost:
        return {QObject::tr("update lost"), Tone::Bad};
    case StageOutcome::NoUpdate:
        return {QObject::tr("no update"), Tone::Warn};
    case StageOutcome::CopyMoved:
        return {QObject::tr("copy moved"), Tone::Good};
    case StageOutcome::CopyUnchanged:
        return {QObject::tr("kept by the master only"), Tone::Warn};
    }
    return {};
}

QColor toneColour(Tone tone, const QWidget& widget) {
    switch (tone) {
    case Tone::Bad:
        return errorColour(widget);
    case Tone::Warn:
        return QColor(0xb3, 0x6b, 0x00);
    case Tone::Good:
        return QColor(0x2e, 0x7d, 0x32);
    case Tone::Plain:
        break;
    }
    return widget.palette().color(QPalette::WindowText);
}

} // namespace

PipelineView::PipelineView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    buildForm();
    summary_ = new QLabel(this);
    summary_->setObjectName("pipelineSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errorLine_ = new QLabel(this);
    errorLine_->setObjectName("pipelineError");
    errorLine_->setWordWrap(true);
    styleErrorLabel(*errorLine_);
    errorLine_->hide();
    buildStages();
    layout->addWidget(summary_);
    layout->addWidget(errorLine_);
    layout->addWidget(scroll_, 1);
    widenStoryList();
    setPreset(QString::fromUtf8(mixedPrecisionPresets().front().id));
}

void PipelineView::buildForm() {
    auto* outer = qobject_cast<QVBoxLayout*>(layout());
    auto* top = new QHBoxLayout;
    auto* presetLabel = new QLabel(tr("St&ory"), this);
    preset_ = new QComboBox(this);
    preset_->setObjectName("pipelinePreset");
    for (const MixedPrecisionPreset& preset : mixedPrecisionPresets()) {
        preset_->addItem(QString::fromUtf8(preset.title), QString::fromUtf8(preset.id));
        preset_->setItemData(preset_->count() - 1, QString::fromUtf8(preset.summary),
                             Qt::ToolTipRole);
    }
    preset_->addItem(tr("Your values"), QString());
    // The titles are long; the list shows them whole when it opens.
    preset_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    preset_->setMinimumContentsLength(16);
    presetLabel->setBuddy(preset_);
    connect(preset_, &QComboBox::activated, this, [this](int index) {
        const QString id = preset_->itemData(index).toString();
        if (!id.isEmpty())
            setPreset(id);
    });
    top->addWidget(presetLabel);
    top->addWidget(preset_, 1);
    auto* halfLabel = new QLabel(tr("Passes i&n"), this);
    half_ = new QComboBox(this);
    half_->setObjectName("pipelineHalf");
    for (const char* id : kHalfFormats)
        half_->addItem(QString::fromLatin1(id).toUpper(), QString::fromLatin1(id));
    half_->setToolTip(tr("The format of the weight's copy and of the forward and backward "
                         "passes; the master, S and the update are FP32."));
    halfLabel->setBuddy(half_);
    connect(half_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    top->addWidget(halfLabel);
    top->addWidget(half_);

    // Three fields a line, so that the form never asks for more width than a lesson beside
    // it leaves at 1024 × 768 and 150 %.
    auto* fields = new QGridLayout;
    constexpr int kPerLine = 3;
    for (int i = 0; i < kFieldCount; ++i) {
        auto* edit = new QLineEdit(this);
        edit->setObjectName(kFields[i].objectName);
        edit->setToolTip(tr(kFields[i].tip));
        edit->setMinimumWidth(edit->fontMetrics().horizontalAdvance(QStringLiteral("0.00000")));
        auto* label = new QLabel(tr(kFields[i].label), this);
        label->setBuddy(edit);
        fields_[std::size_t(i)] = edit;
        connect(edit, &QLineEdit::textChanged, this, [this] {
            if (!filling_)
                recompute();
        });
        const int line = i / kPerLine;
        const int column = 2 * (i % kPerLine);
        fields->addWidget(label, line, column);
        fields->setColumnStretch(column + 1, 1);
        if (Field(i) != Field::Scale) {
            fields->addWidget(edit, line, column + 1);
            continue;
        }
        // Halving and doubling S, as the dynamic scaler does, one click each.
        auto* scaleBox = new QHBoxLayout;
        scaleBox->setSpacing(2);
        scaleBox->addWidget(edit, 1);
        scaleDown_ = new QToolButton(this);
        scaleDown_->setObjectName("pipelineScaleDown");
        scaleDown_->setText(tr("÷2"));
        scaleDown_->setToolTip(tr("Halve S"));
        scaleUp_ = new QToolButton(this);
        scaleUp_->setObjectName("pipelineScaleUp");
        scaleUp_->setText(tr("×2"));
        scaleUp_->setToolTip(tr("Double S"));
        connect(scaleDown_, &QToolButton::clicked, this, [this] { scaleBy(-1); });
        connect(scaleUp_, &QToolButton::clicked, this, [this] { scaleBy(1); });
        scaleBox->addWidget(scaleDown_);
        scaleBox->addWidget(scaleUp_);
        fields->addLayout(scaleBox, line, column + 1);
    }
    fields_[std::size_t(Field::Clip)]->setPlaceholderText(tr("none"));
    outer->addLayout(top);
    outer->addLayout(fields);
}

void PipelineView::buildStages() {
    scroll_ = new QScrollArea(this);
    scroll_->setObjectName("pipelineStages");
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    stages_ = new QWidget(scroll_);
    grid_ = new QGridLayout(stages_);
    grid_->setHorizontalSpacing(10);
    grid_->setVerticalSpacing(2);
    const QStringList headers{tr("Step"), tr("Stage"), tr("Format"), tr("Value"), tr("Bits")};
    for (int c = 0; c < ColumnCount; ++c) {
        auto* header = new QLabel("<b>" + headers[c] + "</b>", stages_);
        grid_->addWidget(header, 0, c);
    }
    grid_->itemAtPosition(0, Number)->widget()->setToolTip(
        tr("The step of NVIDIA's mixed-precision recipe; – is dynamic loss scaling's check."));
    for (int i = 0; i < kPipelineStageCount; ++i) {
        const QString id = text(std::string(pipelineStageId(PipelineStage(i))));
        StageRow& row = rows_[std::size_t(i)];
        const int line = 1 + 2 * i;
        row.number = new QLabel(stages_);
        row.name = new QLabel(stages_);
        row.name->setObjectName("pipelineName_" + id);
        row.format = new QLabel(stages_);
        row.format->setObjectName("pipelineFormat_" + id);
        row.value = new QLabel(stages_);
        row.value->setObjectName("pipelineValue_" + id);
        row.value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        row.value->setFont(fixedPitchFont());
        row.bits = new PipelineViewBits(stages_);
        row.bits->setObjectName("pipelineBits_" + id);
        row.note = new QLabel(stages_);
        row.note->setObjectName("pipelineNote_" + id);
        row.note->setWordWrap(true);
        row.note->setTextInteractionFlags(Qt::TextSelectableByMouse);
        grid_->addWidget(row.number, line, Number);
        grid_->addWidget(row.name, line, Name);
        grid_->addWidget(row.format, line, Format);
        grid_->addWidget(row.value, line, Value);
        grid_->addWidget(row.bits, line, Bits, Qt::AlignLeft);
        grid_->addWidget(row.note, line + 1, Name, 1, ColumnCount - Name);
        // A little air between one stage's note and the next stage.
        row.note->setContentsMargins(0, 0, 0, 4);
    }
    grid_->setColumnStretch(Bits, 1);
    grid_->setRowStretch(1 + 2 * kPipelineStageCount, 1);
    scroll_->setWidget(stages_);
}

QString PipelineView::setPreset(const QString& id) {
    const MixedPrecisionPreset* preset = findMixedPrecisionPreset(id.toStdString());
    if (!preset) {
        QStringList ids;
        for (const MixedPrecisionPreset& p : mixedPrecisionPresets())
            ids << QString::fromUtf8(p.id);
        return tr("'%1': use %2").arg(id, ids.join(", "));
    }
    const MixedPrecisionInputs& in = preset->inputs;
    filling_ = true;
    fields_[std::size_t(Field::Gradient)]->setText(text(toDecimal(in.gradient).text));
    fields_[std::size_t(Field::Scale)]->setText(text(toDecimal(in.lossScale).text));
    fields_[std::size_t(Field::Weight)]->setText(text(toDecimal(in.weight).text));
    fields_[std::size_t(Field::LearningRate)]->setText(text(toDecimal(in.learningRate).text));
    fields_[std::size_t(Field::Clip)]->setText(in.clipNorm ? text(toDecimal(*in.clipNorm).text)
                                                           : QString());
    fields_[std::size_t(Field::Decay)]->setText(text(toDecimal(in.weightDecay).text));
    half_->blockSignals(true);
    half_->setCurrentIndex(std::max(0, half_->findData(QString::fromStdString(in.half.id))));
    half_->blockSignals(false);
    filling_ = false;
    recompute();
    return {};
}

QString PipelineView::presetId() const {
    return preset_->currentData().toString();
}

void PipelineView::setField(Field field, const QString& value) {
    QLineEdit* edit = fields_[std::size_t(field)];
    edit->setText(field == Field::Clip && value.trimmed() == QLatin1String("none") ? QString()
                                                                                   : value);
}

QString PipelineView::fieldText(Field field) const {
    const QString value = fields_[std::size_t(field)]->text().trimmed();
    return field == Field::Clip && value.isEmpty() ? QStringLiteral("none") : value;
}

QString PipelineView::setHalfFormat(const QString& id) {
    const FormatLookup found = findFormat(id.trimmed().toStdString());
    const int index = found ? half_->findData(QString::fromStdString(found.spec->id)) : -1;
    if (index < 0)
        return tr("'%1': use fp16 or bf16").arg(id);
    half_->setCurrentIndex(index);
    return {};
}

QString PipelineView::halfFormat() const {
    return half_->currentData().toString();
}

QString PipelineView::summaryText() const {
    return summary_->text();
}

void PipelineView::scaleBy(int exponentStep) {
    QLineEdit* scale = fields_[std::size_t(Field::Scale)];
    const ParsedValue parsed = parseValue(scale->text().toStdString());
    if (!parsed || !parsed.value->isFinite())
        return;
    scale->setText(text(toDecimal(parsed.value->timesPowerOfTwo(exponentStep)).text));
}

std::optional<MixedPrecisionInputs> PipelineView::readForm(QString& error,
                                                           std::optional<Field>& culprit) const {
    MixedPrecisionInputs in = defaultMixedPrecisionInputs();
    in.half = *findFormat(halfFormat().toStdString()).spec;
    in.clipNorm.reset();
    in.weightDecay = ExactValue();
    for (int i = 0; i < kFieldCount; ++i) {
        QLineEdit* edit = fields_[std::size_t(i)];
        const std::string written = edit->text().trimmed().toStdString();
        if (Field(i) == Field::Clip && (written.empty() || written == "none"))
            continue;
        const ParsedValue parsed = parseValue(written);
        const QString name = tr(kFields[i].label).remove('&');
        if (!parsed) {
            error = name + ": " + parseErrorText(written, parsed.error);
            culprit = Field(i);
            return std::nullopt;
        }
        if (!parsed.exact || !parsed.value->isFinite()) {
            error = tr("%1: give a finite number").arg(name);
            culprit = Field(i);
            return std::nullopt;
        }
        switch (Field(i)) {
        case Field::Gradient:
            in.gradient = *parsed.value;
            break;
        case Field::Scale:
            in.lossScale = *parsed.value;
            break;
        case Field::Weight:
            in.weight = *parsed.value;
            break;
        case Field::LearningRate:
            in.learningRate = *parsed.value;
            break;
        case Field::Clip:
            in.clipNorm = *parsed.value;
            break;
        case Field::Decay:
            in.weightDecay = *parsed.value;
            break;
        }
    }
    return in;
}

void PipelineView::recompute() {
    for (QLineEdit* edit : fields_)
        markInvalid(*edit, false);
    QString error;
    std::optional<Field> culprit;
    std::optional<MixedPrecisionInputs> inputs = readForm(error, culprit);
    std::optional<MixedPrecisionStep> step;
    if (inputs) {
        try {
            step = runMixedPrecisionStep(*inputs);
        } catch (const MixedPrecisionInputError& refused) {
            error = text(refused.what());
            culprit = fieldOf(refused.input);
        }
    }
    error_ = error;
    errorField_ = culprit;
    errorLine_->setText(error.isEmpty() ? QString() : "⚠ " + error);
    errorLine_->setVisible(!error.isEmpty());
    if (culprit)
        markInvalid(*fields_[std::size_t(*culprit)], true);
    // A refused form keeps the last result on screen, greyed, as the explorer's rows do.
    stages_->setEnabled(step.has_value());
    summary_->setEnabled(step.has_value());
    if (step) {
        step_ = std::move(step);
        showStep(*step_);
    }
    showPresetOfForm();
}

void PipelineView::showPresetOfForm() {
    // The story whose values the form holds, or "Your values".
    int shown = preset_->count() - 1;
    if (step_ && error_.isEmpty()) {
        const MixedPrecisionInputs& in = step_->inputs;
        const auto& presets = mixedPrecisionPresets();
        for (std::size_t i = 0; i < presets.size(); ++i) {
            const MixedPrecisionInputs& p = presets[i].inputs;
            const bool sameClip = p.clipNorm.has_value() == in.clipNorm.has_value() &&
                                  (!p.clipNorm || *p.clipNorm == *in.clipNorm);
            if (p.gradient == in.gradient && p.lossScale == in.lossScale && p.weight == in.weight &&
                p.learningRate == in.learningRate && sameClip && p.weightDecay == in.weightDecay &&
                p.half.id == in.half.id) {
                shown = int(i);
                break;
            }
        }
    }
    preset_->setCurrentIndex(shown);
    preset_->setToolTip(preset_->itemData(shown, Qt::ToolTipRole).toString());
}

void PipelineView::showStep(const MixedPrecisionStep& step) {
    summary_->setText("<b>" + text(step.summary).toHtmlEscaped() + "</b>");
    for (const MixedPrecisionStage& s : step.stages) {
        StageRow& row = rows_[std::size_t(s.stage)];
        const int recipe = recipeStep(s.stage);
        row.number->setText(recipe ? QString::number(recipe) : QStringLiteral("–"));
        row.name->setText(text(s.name));
        row.format->setText(text(s.format.id));
        row.value->setText(valueText(s.value));
        QString tip =
            tr("Held: %1").arg(s.value.isNaN() ? QStringLiteral("NaN") : fullDecimal(s.value));
        if (!s.exact.isIdenticalTo(s.value) && !s.exact.isNaN())
            tip += tr("\nComputed exactly: %1\nrounded once into %2")
                       .arg(fullDecimal(s.exact), text(s.format.id));
        row.value->setToolTip(tip);
        row.bits->setCode(s.format, s.rounded.code);
    }
    writeNotes();
    fitCells();
}

void PipelineView::fitCells() {
    // Cells as the explorer draws FP32's (a digit and a margin, so they grow with the zoom).
    // Where the width is short the Value column moves, whole, into the notes below the
    // cells; only then do the cells narrow, never below a digit and a margin.
    if (fitting_ || !step_)
        return;
    fitting_ = true;
    const std::vector<FormatSpec> specs{step_->inputs.half, step_->inputs.master};
    const int digit = stages_->fontMetrics().horizontalAdvance('0');
    const int natural = digit + 7;
    const int smallest = digit + 2;
    // The other columns as wide as their widest text (shown or not), the spacing, the margins.
    const QMargins margins = grid_->contentsMargins();
    std::array<int, ColumnCount> widest{};
    for (int i = 0; i < grid_->count(); ++i) {
        int row = 0, column = 0, rowSpan = 0, columnSpan = 0;
        grid_->getItemPosition(i, &row, &column, &rowSpan, &columnSpan);
        // The notes span the columns and wrap: they take the width the others leave.
        if (QWidget* widget = grid_->itemAt(i)->widget(); columnSpan == 1 && widget)
            widest[std::size_t(column)] =
                std::max(widest[std::size_t(column)], widget->sizeHint().width());
    }
    int withValue =
        margins.left() + margins.right() + (ColumnCount - 1) * grid_->horizontalSpacing();
    for (int c = 0; c < ColumnCount; ++c)
        if (c != Bits)
            withValue += widest[std::size_t(c)];
    const int withoutValue = withValue - widest[Value] - grid_->horizontalSpacing();
    const int available = scroll_->viewport()->width();
    auto fits = [&](int others, int cell) {
        return others + BitCellLayout::forFormats(specs, cell).totalWidth() <= available;
    };
    const bool valueInNote = !fits(withValue, natural);
    const int others = valueInNote ? withoutValue : withValue;
    int cell = natural;
    while (cell > smallest && !fits(others, cell))
        --cell;
    const BitCellLayout layout = BitCellLayout::forFormats(specs, cell);
    for (StageRow& row : rows_)
        row.bits->setCellLayout(layout);
    if (valueInNote != valueInNote_) {
        valueInNote_ = valueInNote;
        grid_->itemAtPosition(0, Value)->widget()->setVisible(!valueInNote);
        for (StageRow& row : rows_)
            row.value->setVisible(!valueInNote);
        writeNotes();
    }
    fitting_ = false;
}

void PipelineView::writeNotes() {
    if (!step_)
        return;
    for (const MixedPrecisionStage& s : step_->stages) {
        StageRow& row = rows_[std::size_t(s.stage)];
        const OutcomeWords words = outcomeWords(s.outcome);
        // Where the Value column does not fit, each note starts with its value.
        const QString shown = valueText(s.value);
        const QString value =
            valueInNote_ ? "<tt>" + (shown.startsWith("≈") ? shown : "= " + shown).toHtmlEscaped() +
                               "</tt> · "
                         : QString();
        row.note->setText(QStringLiteral("%1<span style=\"color:%2\"><b>%3</b></span> — %4")
                              .arg(value, toneColour(words.tone, *this).name(),
                                   words.words.toHtmlEscaped(), text(s.note).toHtmlEscaped()));
        row.note->setToolTip(row.value->toolTip());
    }
}

void PipelineView::widenStoryList() {
    // The list of stories opens as wide as its longest title, at any zoom.
    QAbstractItemView* list = preset_->view();
    list->setMinimumWidth(list->sizeHintForColumn(0) +
                          list->verticalScrollBar()->sizeHint().width());
}

void PipelineView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        widenStoryList();
        fitCells();
    }
}

void PipelineView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitCells();
}

} // namespace fpx::gui
