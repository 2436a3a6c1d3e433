// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/explorer/explorer_controller.h"

#include <QObject>
#include <QString>

#include <optional>
#include <string>
#include <vector>

class QAction;
class QLineEdit;
class QTimer;
class QUndoStack;

namespace fpx::gui {

// Undo/redo of every change of the explorer's state, and Back/Forward through the values it
// showed. It watches the controller rather than its callers, so a change made anywhere (a
// click, a menu, a lesson) is one undo step, named after what changed ("flip bit 3 of fp16").
// Each step holds the whole state before and after (ExplorerState), so undo puts back exactly
// what was shown, a pinned NaN payload included.
//
// Typing in the value field is one step per edit, not per keystroke: keystrokes merge into one
// step until the field loses focus, Enter is pressed, or typing pauses.
//
// Back/Forward is a separate list of values, like a browser's: moving in it changes only the
// value (an undoable step itself), never the formats or options, and adds no entry.
class ExplorerHistory : public QObject {
    Q_OBJECT

  public:
    explicit ExplorerHistory(ExplorerController* controller, QObject* parent = nullptr);
    ~ExplorerHistory() override;

    QUndoStack* undoStack() const { return stack_; }
    // Menu actions whose text names the step: "Undo flip bit 3 of fp16". Ctrl+Z; Ctrl+Shift+Z
    // and Ctrl+Y; Alt+Left and Alt+Right.
    QAction* undoAction() const { return undo_; }
    QAction* redoAction() const { return redo_; }
    QAction* backAction() const { return back_; }
    QAction* forwardAction() const { return forward_; }

    // Keystrokes in `edit` are typing: they merge into one step until it finishes editing.
    void watchTyping(QLineEdit* edit);
    // Ends the step being typed; the next keystroke starts a new one.
    void commitTyping();
    // Forgets every step and value; the controller's state becomes the starting point.
    void clear();
    // The changes made between beginGroup and endGroup (a lesson step sets many things at once)
    // are one undo step named `label`, and the value they leave one Back/Forward entry.
    void beginGroup(const QString& label);
    void endGroup();

    // Back/Forward: the values shown, oldest first, and which one is shown.
    QStringList trailTexts() const;
    int trailIndex() const { return trailIndex_; }
    bool canGoBack() const { return trailIndex_ > 0; }
    bool canGoForward() const { return trailIndex_ + 1 < static_cast<int>(trail_.size()); }
    void goBack();
    void goForward();

    // How long typing may pause before the next keystroke starts a new step.
    static constexpr int kTypingPauseMs = 1500;

  signals:
    void trailChanged();

  private:
    friend class StateCommand;

    struct Change {
        QString text;
        bool typing = false;
    };
    struct TrailEntry {
        ExplorerInput input;
        std::string pinnedFormat; // id of the pinned row's format, to find it again
    };

    void undo();
    void redo();
    // Records the change still being computed, if any, waiting for it.
    void settlePendingChange();
    void onRowsChanged();
    Change describe(const ExplorerState& before, const ExplorerState& after) const;
    void apply(const ExplorerState& state); // undo and redo
    void rememberShownRows();
    // `typingGroup`: the typing step the value belongs to, if typed.
    void recordValue(const ExplorerInput& input, std::optional<int> typingGroup);
    void moveInTrail(int delta);
    void updateTrailActions();

    ExplorerController* controller_;
    QUndoStack* stack_;
    QAction* undo_;
    QAction* redo_;
    QAction* back_;
    QAction* forward_;
    QTimer* typingPause_;
    ExplorerState current_;
    // The codes the rows showed at the last recorded state, to name the next change.
    std::vector<Code> shownCodes_;
    // Typing steps merge while they carry the same group; committing starts a new group.
    int typingGroup_ = 0;
    // The typing group of a keystroke whose change has not come yet: the change of a slow
    // value comes after Enter may have started a new group.
    std::optional<int> keystrokeGroup_;
    bool applying_ = false;
    std::optional<QString> navigationLabel_; // set while Back/Forward changes the value
    std::optional<QString> stepLabel_;       // set while a row steps to a neighbour
    std::optional<QString> groupLabel_;      // set between beginGroup and endGroup
    std::vector<TrailEntry> trail_;
    int trailIndex_ = 0;
    int trailTypingGroup_ = -1; // the group of the typed value at the trail's end, if any
};

} // namespace fpx::gui
