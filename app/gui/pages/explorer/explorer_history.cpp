// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/explorer_history.h"

#include <QAction>
#include <QKeySequence>
#include <QLineEdit>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>

#include <bit>
#include <cstdint>
#include <utility>

namespace fpx::gui {

// One step: the whole state before and after. Pushing it does nothing (the controller already
// shows `after`); undo and redo put a whole state back.
class StateCommand : public QUndoCommand {
  public:
    StateCommand(ExplorerHistory& history, ExplorerState before, ExplorerState after,
                 const QString& text, std::optional<int> typingGroup)
        : history_(history), before_(std::move(before)), after_(std::move(after)),
          typingGroup_(typingGroup) {
        setText(text);
    }

    void undo() override { history_.apply(before_); }
    void redo() override {
        if (pushed_)
            history_.apply(after_);
        pushed_ = true;
    }
    int id() const override { return typingGroup_ ? 1 : -1; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const StateCommand*>(other);
        if (next->typingGroup_ != typingGroup_)
            return false;
        after_ = next->after_;
        setText(next->text());
        setObsolete(before_.sameAs(after_)); // typed back to where it started
        return true;
    }

  private:
    ExplorerHistory& history_;
    ExplorerState before_;
    ExplorerState after_;
    std::optional<int> typingGroup_;
    bool pushed_ = false;
};

namespace {

// Each step holds two whole states; a lecture's worth of steps is far below these.
constexpr int kUndoLimit = 1000;
constexpr int kTrailLimit = 500;

int bitCount(Code code) {
    return std::popcount(static_cast<std::uint64_t>(code)) +
           std::popcount(static_cast<std::uint64_t>(code >> 64));
}

int lowestBit(Code code) {
    const auto low = static_cast<std::uint64_t>(code);
    return low != 0 ? std::countr_zero(low)
                    : 64 + std::countr_zero(static_cast<std::uint64_t>(code >> 64));
}

QString shortText(const QString& text) {
    return text.size() <= 28 ? text : text.left(27) + QStringLiteral("…");
}

QString idOf(const FormatSpec& spec) {
    return QString::fromStdString(spec.id);
}

// "&Undo" and "flip bit 3 of fp16" → "&Undo flip bit 3 of fp16", as QUndoStack's own actions.
QString prefixed(const QString& action, const QString& step) {
    return step.isEmpty() ? action : action + QLatin1Char(' ') + step;
}

} // namespace

ExplorerHistory::ExplorerHistory(ExplorerController* controller, QObject* parent)
    : QObject(parent), controller_(controller), stack_(new QUndoStack(this)),
      typingPause_(new QTimer(this)) {
    stack_->setUndoLimit(kUndoLimit);
    // Own actions rather than the stack's: a change still being computed is recorded before
    // the step is undone or redone (settlePendingChange).
    undo_ = new QAction(tr("&Undo"), this);
    undo_->setObjectName("undoAction");
    undo_->setEnabled(false);
    connect(undo_, &QAction::triggered, this, &ExplorerHistory::undo);
    connect(stack_, &QUndoStack::canUndoChanged, undo_, &QAction::setEnabled);
    // The action, not `this`: the stack says its text changed once more while this object's
    // children are destroyed, when this object is no longer an ExplorerHistory to ask.
    connect(stack_, &QUndoStack::undoTextChanged, undo_,
            [undo = undo_](const QString& step) { undo->setText(prefixed(tr("&Undo"), step)); });
    undo_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Z)});
    undo_->setToolTip(tr("Put back the explorer as it was before the last change: value, bit "
                         "flip, step, rounding mode, overflow policy, formats or scale."));
    redo_ = new QAction(tr("&Redo"), this);
    redo_->setObjectName("redoAction");
    redo_->setEnabled(false);
    connect(redo_, &QAction::triggered, this, &ExplorerHistory::redo);
    connect(stack_, &QUndoStack::canRedoChanged, redo_, &QAction::setEnabled);
    connect(stack_, &QUndoStack::redoTextChanged, redo_,
            [redo = redo_](const QString& step) { redo->setText(prefixed(tr("&Redo"), step)); });
    redo_->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    redo_->setToolTip(tr("Make the last undone change again."));
    back_ = new QAction(tr("&Back"), this);
    back_->setObjectName("backAction");
    back_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    back_->setToolTip(tr("The value shown before this one (the formats and options stay)."));
    connect(back_, &QAction::triggered, this, &ExplorerHistory::goBack);
    forward_ = new QAction(tr("&Forward"), this);
    forward_->setObjectName("forwardAction");
    forward_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    forward_->setToolTip(tr("The value shown after this one, after going back."));
    connect(forward_, &QAction::triggered, this, &ExplorerHistory::goForward);

    typingPause_->setObjectName("typingPause"); // its timeout ends a typing step
    typingPause_->setSingleShot(true);
    typingPause_->setInterval(kTypingPauseMs);
    connect(typingPause_, &QTimer::timeout, this, &ExplorerHistory::commitTyping);
    connect(controller_, &ExplorerController::rowsChanged, this, &ExplorerHistory::onRowsChanged);
    // A step and a bit flip can reach the same code; the controller says which it was.
    connect(controller_, &ExplorerController::stepping, this, [this](int row, int direction) {
        const QString id =
            QString::fromStdString(controller_->rows()[static_cast<std::size_t>(row)].spec.id);
        stepLabel_ =
            direction > 0 ? tr("next value of %1").arg(id) : tr("previous value of %1").arg(id);
    });
    // A keystroke that does not parse changes nothing; the next change is not its doing.
    connect(controller_, &ExplorerController::inputErrorChanged, this,
            [this](const QString& message) {
                if (!message.isEmpty())
                    keystrokeGroup_.reset();
            });
    clear();
}

ExplorerHistory::~ExplorerHistory() = default;

void ExplorerHistory::watchTyping(QLineEdit* edit) {
    // Connected before the edit's connection to the controller, so the flag is up when the
    // controller reports the change.
    connect(edit, &QLineEdit::textEdited, this, [this] { keystrokeGroup_ = typingGroup_; });
    connect(edit, &QLineEdit::editingFinished, this, &ExplorerHistory::commitTyping);
}

void ExplorerHistory::commitTyping() {
    typingPause_->stop();
    ++typingGroup_;
}

void ExplorerHistory::clear() {
    stack_->clear();
    current_ = controller_->state();
    rememberShownRows();
    commitTyping();
    trail_.clear();
    trail_.push_back({current_.input, {}});
    trailIndex_ = 0;
    trailTypingGroup_ = -1;
    if (const auto& pin = current_.input.pinnedCode)
        trail_.back().pinnedFormat = current_.formats[static_cast<std::size_t>(pin->first)].id;
    updateTrailActions();
}

void ExplorerHistory::beginGroup(const QString& label) {
    groupLabel_ = label;
}

void ExplorerHistory::endGroup() {
    if (!groupLabel_)
        return;
    const QString label = *std::exchange(groupLabel_, std::nullopt);
    keystrokeGroup_.reset();
    stepLabel_.reset();
    ExplorerState now = controller_->state();
    if (now.sameAs(current_))
        return;
    commitTyping();
    const bool valueChanged = !now.input.sameAs(current_.input);
    ExplorerState before = std::move(current_);
    current_ = now;
    rememberShownRows();
    if (valueChanged)
        recordValue(now.input, std::nullopt);
    stack_->push(new StateCommand(*this, std::move(before), std::move(now), label, std::nullopt));
}

void ExplorerHistory::onRowsChanged() {
    if (applying_ || groupLabel_)
        return;
    const std::optional<int> keystroke = std::exchange(keystrokeGroup_, std::nullopt);
    ExplorerState now = controller_->state();
    if (now.sameAs(current_)) {
        stepLabel_.reset(); // a step that changed nothing names nothing after it
        // The rows of a state recorded before they were computed (a slow value) came now.
        rememberShownRows();
        return;
    }
    Change change = describe(current_, now);
    change.typing = change.typing && keystroke && !navigationLabel_;
    if (navigationLabel_)
        change.text = *navigationLabel_;
    if (stepLabel_)
        change.text = *std::exchange(stepLabel_, std::nullopt);
    std::optional<int> group;
    if (change.typing) {
        group = keystroke;
        if (*keystroke == typingGroup_) // else Enter ended that edit while it was computed
            typingPause_->start();
    } else {
        commitTyping();
    }
    const bool valueChanged = !now.input.sameAs(current_.input);
    ExplorerState before = std::move(current_);
    current_ = now;
    rememberShownRows();
    if (valueChanged && !navigationLabel_)
        recordValue(now.input, group);
    stack_->push(new StateCommand(*this, std::move(before), std::move(now), change.text, group));
}

ExplorerHistory::Change ExplorerHistory::describe(const ExplorerState& before,
                                                  const ExplorerState& after) const {
    const bool sameCount = before.formats.size() == after.formats.size();
    int changedFormats = 0;
    int changedScales = 0;
    int scaledRow = -1;
    for (std::size_t i = 0; sameCount && i < after.formats.size(); ++i) {
        if (sameFormat(before.formats[i], after.formats[i]))
            continue;
        ++changedFormats;
        FormatSpec unscaled = after.formats[i];
        unscaled.scale = before.formats[i].scale;
        if (sameFormat(before.formats[i], unscaled)) {
            ++changedScales;
            scaledRow = static_cast<int>(i);
        }
    }
    if (sameCount && changedFormats == 1 && changedScales == 1) {
        const FormatSpec& spec = after.formats[static_cast<std::size_t>(scaledRow)];
        return {tr("scale of %1").arg(idOf(spec)), false};
    }
    if (!sameCount || changedFormats > 0)
        return {tr("format list"), false};
    if (before.options.mode != after.options.mode)
        return {tr("rounding mode %1")
                    .arg(QString::fromLatin1(roundingModeName(after.options.mode).data(),
                                             roundingModeName(after.options.mode).size())),
                false};
    if (before.options.overflow != after.options.overflow)
        return {tr("overflow policy %1")
                    .arg(QString::fromLatin1(overflowPolicyId(after.options.overflow).data(),
                                             overflowPolicyId(after.options.overflow).size())),
                false};
    if (const auto& pin = after.input.pinnedCode;
        pin && pin->first >= 0 && pin->first < static_cast<int>(shownCodes_.size())) {
        const FormatSpec& spec = after.formats[static_cast<std::size_t>(pin->first)];
        const Code flipped = shownCodes_[static_cast<std::size_t>(pin->first)] ^ pin->second;
        if (bitCount(flipped) == 1)
            return {tr("flip bit %1 of %2").arg(lowestBit(flipped)).arg(idOf(spec)), false};
        return {
            tr("code %1 of %2")
                .arg(QString::fromStdString(codeToHex(pin->second, spec.totalBits())), idOf(spec)),
            false};
    }
    return {tr("value %1").arg(shortText(after.input.text)), true};
}

void ExplorerHistory::apply(const ExplorerState& state) {
    commitTyping();
    keystrokeGroup_.reset(); // a text still being parsed is superseded by this state
    applying_ = true;
    const bool valueChanged = !state.input.sameAs(current_.input);
    controller_->restore(state);
    applying_ = false;
    current_ = controller_->state();
    rememberShownRows();
    if (valueChanged)
        recordValue(current_.input, std::nullopt);
}

void ExplorerHistory::rememberShownRows() {
    shownCodes_.clear();
    for (const ExplorerRow& row : controller_->rows())
        shownCodes_.push_back(row.report.conversion.code);
}

void ExplorerHistory::recordValue(const ExplorerInput& input, std::optional<int> typingGroup) {
    TrailEntry entry{input, {}};
    if (input.pinnedCode)
        entry.pinnedFormat = current_.formats[static_cast<std::size_t>(input.pinnedCode->first)].id;
    const bool atEnd = trailIndex_ + 1 == static_cast<int>(trail_.size());
    if (typingGroup && atEnd && trailTypingGroup_ == *typingGroup) {
        trail_.back() = std::move(entry); // the same typed value, one keystroke further
    } else {
        trail_.resize(static_cast<std::size_t>(trailIndex_) + 1); // forward entries go
        trail_.push_back(std::move(entry));
        if (static_cast<int>(trail_.size()) > kTrailLimit)
            trail_.erase(trail_.begin());
    }
    trailIndex_ = static_cast<int>(trail_.size()) - 1;
    trailTypingGroup_ = typingGroup.value_or(-1);
    updateTrailActions();
}

void ExplorerHistory::undo() {
    settlePendingChange();
    stack_->undo();
}

void ExplorerHistory::redo() {
    settlePendingChange();
    stack_->redo();
}

void ExplorerHistory::settlePendingChange() {
    // A change still being computed is recorded only when its rows arrive (onRowsChanged);
    // undone or left behind before then, it would be lost, and the step acted on would be the
    // one before it. A text that turns out not to parse changes nothing and records nothing.
    if (controller_->computing() && !controller_->state().sameAs(current_))
        controller_->waitForIdle();
}

void ExplorerHistory::goBack() {
    moveInTrail(-1);
}

void ExplorerHistory::goForward() {
    moveInTrail(+1);
}

void ExplorerHistory::moveInTrail(int delta) {
    // A change still computing adds its entry first: the move starts from there.
    settlePendingChange();
    const int target = trailIndex_ + delta;
    if (target < 0 || target >= static_cast<int>(trail_.size()))
        return;
    commitTyping();
    trailIndex_ = target;
    trailTypingGroup_ = -1;
    TrailEntry entry = trail_[static_cast<std::size_t>(target)];
    // The pinned row is found by its format: the format list may have changed since.
    if (entry.input.pinnedCode) {
        const std::vector<FormatSpec> formats = controller_->formats();
        auto& pin = *entry.input.pinnedCode;
        if (pin.first >= static_cast<int>(formats.size()) ||
            formats[static_cast<std::size_t>(pin.first)].id != entry.pinnedFormat) {
            std::optional<int> found;
            for (std::size_t i = 0; i < formats.size() && !found; ++i)
                if (formats[i].id == entry.pinnedFormat)
                    found = static_cast<int>(i);
            if (found)
                pin.first = *found;
            else
                entry.input.pinnedCode.reset();
        }
    }
    navigationLabel_ =
        (delta < 0 ? tr("back to %1") : tr("forward to %1")).arg(shortText(entry.input.text));
    controller_->restoreInput(entry.input);
    // Recorded now, under its label: the rows of a slow value come later, when the label is
    // gone (a no-op when they came already).
    onRowsChanged();
    navigationLabel_.reset();
    updateTrailActions();
}

QStringList ExplorerHistory::trailTexts() const {
    QStringList texts;
    for (const TrailEntry& entry : trail_)
        texts << entry.input.text;
    return texts;
}

void ExplorerHistory::updateTrailActions() {
    back_->setEnabled(canGoBack());
    forward_->setEnabled(canGoForward());
    emit trailChanged();
}

} // namespace fpx::gui
