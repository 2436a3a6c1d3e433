// SPDX-License-Identifier: GPL-3.0-or-later
// Undo/redo and Back/Forward in the explorer window, offscreen: every kind of change is one
// named step that puts back exactly what was shown; typing is one step per edit.
#include "explorer_table.h"
#include "pages/explorer/explorer_history.h"
#include "pages/explorer/format_table_model.h"
#include "shell/main_window.h"

#include "fpx/exact/format_catalogue.h"

#include <QAction>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

using namespace fpx;
using namespace fpx::gui;
using fpx::test::specs;

namespace {

int rowOf(const FormatTableModel* model, const QString& id) {
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->fullText(r, FormatTableModel::Name).startsWith(id))
            return r;
    return -1;
}

QString hexOf(const MainWindow& window, const QString& id) {
    return window.model()->fullText(rowOf(window.model(), id), FormatTableModel::Hex);
}

// Types `text` into the value field as a user would, one key at a time, then presses Enter.
void typeValue(MainWindow& window, const QString& text, bool enter = true) {
    QLineEdit* edit = window.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    window.controller()->waitForIdle(); // a slow machine may not make the controller's short wait
    if (enter)
        QTest::keyClick(edit, Qt::Key_Return);
}

// A window showing `formats` and `value`, with nothing to undo yet, active, the table focused.
void prepare(MainWindow& window, const char* formats, const QString& value) {
    window.controller()->setFormats(specs(formats));
    window.controller()->setInputText(value);
    window.controller()->waitForIdle();
    window.history()->clear();
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.table()->setFocus();
}

void pressOnTable(MainWindow& window, Qt::Key key, Qt::KeyboardModifiers modifiers) {
    QTest::keyClick(window.table(), key, modifiers);
}

} // namespace

class TestExplorerHistory : public QObject {
    Q_OBJECT

  private slots:
    void typingIsOneStepPerEdit();
    void typingPauseStartsANewStep();
    void leavingTheFieldEndsTheEdit();
    void bitFlipsAndStepsAreNamedSteps();
    void nanPayloadComesBackExactly();
    void roundingAndOverflow();
    void formatListAndScales();
    void redoShortcuts();
    void backAndForward();
};

void TestExplorerHistory::typingIsOneStepPerEdit() {
    MainWindow window;
    prepare(window, "fp16,fp8_e4m3", "1");
    QUndoStack* stack = window.history()->undoStack();
    QVERIFY(!window.history()->undoAction()->isEnabled());
    typeValue(window, "0.3952");
    QCOMPARE(stack->count(), 1); // six keystrokes, one step
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo value 0.3952"));
    QCOMPARE(hexOf(window, "fp16"), QString("0x3653"));
    typeValue(window, "1.5");
    QCOMPARE(stack->count(), 2);
    QCOMPARE(hexOf(window, "fp16"), QString("0x3e00"));
    pressOnTable(window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(window.valueEdit()->text(), QString("0.3952"));
    QCOMPARE(hexOf(window, "fp16"), QString("0x3653"));
    QCOMPARE(hexOf(window, "fp8_e4m3"), QString("0x2d"));
    pressOnTable(window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(window.valueEdit()->text(), QString("1"));
    QCOMPARE(hexOf(window, "fp16"), QString("0x3c00"));
    QVERIFY(!window.history()->undoAction()->isEnabled());
    QCOMPARE(window.history()->redoAction()->text(), QString("&Redo value 0.3952"));
    // Typing back to the value an edit started from leaves nothing to undo.
    typeValue(window, "2", false);
    QTest::keyClick(window.valueEdit(), Qt::Key_Backspace);
    QTest::keyClicks(window.valueEdit(), "1");
    window.controller()->waitForIdle();
    QTest::keyClick(window.valueEdit(), Qt::Key_Return);
    QCOMPARE(stack->count(), 0);
}

void TestExplorerHistory::typingPauseStartsANewStep() {
    MainWindow window;
    prepare(window, "fp16", "1");
    typeValue(window, "3", false);
    // The pause as the history sees it: its typing-pause timer running out.
    auto* pause = window.history()->findChild<QTimer*>("typingPause");
    QVERIFY(pause && pause->isActive());
    QSignalSpy paused(pause, &QTimer::timeout);
    QVERIFY(paused.wait(ExplorerHistory::kTypingPauseMs + 5000));
    QTest::keyClicks(window.valueEdit(), "2"); // "32", after a pause
    window.controller()->waitForIdle();
    QCOMPARE(window.history()->undoStack()->count(), 2);
    window.history()->undoAction()->trigger();
    QCOMPARE(window.valueEdit()->text(), QString("3"));
    QCOMPARE(hexOf(window, "fp16"), QString("0x4200"));
}

void TestExplorerHistory::leavingTheFieldEndsTheEdit() {
    MainWindow window;
    prepare(window, "fp16", "1");
    window.valueEdit()->setFocus();
    QTRY_VERIFY(window.valueEdit()->hasFocus());
    typeValue(window, "3", false);
    window.table()->setFocus(); // focus out: the edit is done
    QTRY_VERIFY(window.table()->hasFocus());
    window.valueEdit()->setFocus();
    QTRY_VERIFY(window.valueEdit()->hasFocus());
    QTest::keyClicks(window.valueEdit(), "2");
    window.controller()->waitForIdle();
    QCOMPARE(window.history()->undoStack()->count(), 2);
    QCOMPARE(window.history()->trailTexts(), QStringList({"1", "3", "32"}));
}

void TestExplorerHistory::bitFlipsAndStepsAreNamedSteps() {
    MainWindow window;
    prepare(window, "fp16,fp8_e4m3", "0.3952");
    FormatTableModel* model = window.model();
    model->toggleBit(0, 3);
    QCOMPARE(hexOf(window, "fp16"), QString("0x365b")); // 0x3653 ^ 0x0008
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo flip bit 3 of fp16"));
    // Ctrl+Up on FP8 E4M3: 0x2d (0.40625) → 0x2e (0.4375).
    window.selectRow(1);
    window.table()->setFocus();
    pressOnTable(window, Qt::Key_Up, Qt::ControlModifier);
    QCOMPARE(hexOf(window, "fp8_e4m3"), QString("0x2e"));
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo next value of fp8_e4m3"));
    pressOnTable(window, Qt::Key_Down, Qt::ControlModifier);
    pressOnTable(window, Qt::Key_Down, Qt::ControlModifier);
    QCOMPARE(hexOf(window, "fp8_e4m3"), QString("0x2c"));
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo previous value of fp8_e4m3"));
    QCOMPARE(window.history()->undoStack()->count(), 4);
    for (int i = 0; i < 3; ++i)
        pressOnTable(window, Qt::Key_Z, Qt::ControlModifier);
    // Back at the flipped FP16 code, which is pinned in its row.
    QCOMPARE(hexOf(window, "fp16"), QString("0x365b"));
    QCOMPARE(window.valueEdit()->text(), QString("0.397216796875"));
    pressOnTable(window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(window.valueEdit()->text(), QString("0.3952"));
    QCOMPARE(hexOf(window, "fp16"), QString("0x3653"));
}

void TestExplorerHistory::nanPayloadComesBackExactly() {
    MainWindow window;
    prepare(window, "fp32,fp16", "1");
    FormatTableModel* model = window.model();
    QVERIFY(model->setData(model->index(0, FormatTableModel::Hex), "0x7fc00123"));
    QCOMPARE(hexOf(window, "fp32"), QString("0x7fc00123"));
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo code 0x7fc00123 of fp32"));
    auto* round = window.findChild<QComboBox*>("roundingMode");
    QVERIFY(round);
    round->setCurrentIndex(round->findData(QString("rtz")));
    QCOMPARE(window.history()->undoAction()->text(),
             QString("&Undo rounding mode toward zero (truncate)"));
    model->toggleBit(1, 0); // a different row pinned: the FP32 payload is gone
    QVERIFY(hexOf(window, "fp32") != QString("0x7fc00123"));
    const QString flippedFp16 = hexOf(window, "fp16");
    window.history()->undoAction()->trigger();
    // The text "nan" alone would round to the canonical NaN; the payload must come back.
    QCOMPARE(hexOf(window, "fp32"), QString("0x7fc00123"));
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::TowardZero);
    window.history()->undoAction()->trigger();
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::NearestEven);
    QCOMPARE(round->currentData().toString(), QString("rne"));
    QCOMPARE(hexOf(window, "fp32"), QString("0x7fc00123"));
    window.history()->redoAction()->trigger();
    window.history()->redoAction()->trigger();
    QCOMPARE(hexOf(window, "fp16"), flippedFp16);
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo flip bit 0 of fp16"));
}

void TestExplorerHistory::roundingAndOverflow() {
    MainWindow window;
    prepare(window, "fp8_e4m3", "1000");
    QCOMPARE(hexOf(window, "fp8_e4m3"), QString("0x7f")); // IEEE-style policy: NaN
    auto* overflow = window.findChild<QComboBox*>("overflowPolicy");
    QVERIFY(overflow);
    overflow->setCurrentIndex(overflow->findData(static_cast<int>(OverflowPolicy::Saturate)));
    QCOMPARE(hexOf(window, "fp8_e4m3"), QString("0x7e")); // 448
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo overflow policy saturate"));
    pressOnTable(window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(hexOf(window, "fp8_e4m3"), QString("0x7f"));
    QCOMPARE(overflow->currentData().toInt(), static_cast<int>(OverflowPolicy::Ieee));
    pressOnTable(window, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(overflow->currentData().toInt(), static_cast<int>(OverflowPolicy::Saturate));
    QCOMPARE(hexOf(window, "fp8_e4m3"), QString("0x7e"));
}

void TestExplorerHistory::formatListAndScales() {
    MainWindow window;
    prepare(window, "fp16,int8", "0.5");
    // INT8's default scale is 1/127: 0.5 is 63.5 steps, a tie, to even: 64.
    QCOMPARE(hexOf(window, "int8"), QString("0x40"));
    window.controller()->setRowScale(1, ExactValue::dyadic(false, 1, -4)); // 1/16
    QCOMPARE(hexOf(window, "int8"), QString("0x08"));
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo scale of int8"));
    window.controller()->setFormats(specs("bf16,fp4_e2m1"));
    QCOMPARE(window.model()->rowCount(), 2);
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo format list"));
    window.history()->undoAction()->trigger();
    QCOMPARE(window.model()->rowCount(), 2);
    QCOMPARE(window.model()->fullText(0, FormatTableModel::Name).left(4), QString("fp16"));
    QCOMPARE(hexOf(window, "int8"), QString("0x08")); // the scale came back with the format
    window.history()->undoAction()->trigger();
    QCOMPARE(hexOf(window, "int8"), QString("0x40"));
    window.history()->redoAction()->trigger();
    window.history()->redoAction()->trigger();
    QCOMPARE(hexOf(window, "bf16"), QString("0x3f00"));
}

void TestExplorerHistory::redoShortcuts() {
    MainWindow window;
    prepare(window, "fp16", "1");
    const QList<QKeySequence> undo = window.history()->undoAction()->shortcuts();
    const QList<QKeySequence> redo = window.history()->redoAction()->shortcuts();
    QVERIFY(undo.contains(QKeySequence("Ctrl+Z")));
    QVERIFY(redo.contains(QKeySequence("Ctrl+Shift+Z")));
    QVERIFY(redo.contains(QKeySequence("Ctrl+Y")));
    typeValue(window, "2");
    window.table()->setFocus();
    pressOnTable(window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(hexOf(window, "fp16"), QString("0x3c00"));
    pressOnTable(window, Qt::Key_Y, Qt::ControlModifier);
    QCOMPARE(hexOf(window, "fp16"), QString("0x4000"));
    // The Edit menu holds both, named after the step.
    QList<QAction*> editActions;
    for (QAction* action : window.findChildren<QAction*>())
        if (action == window.history()->undoAction() || action == window.history()->redoAction())
            editActions << action;
    QCOMPARE(editActions.size(), 2);
    QVERIFY(!window.history()->undoAction()->associatedObjects().isEmpty());
}

void TestExplorerHistory::backAndForward() {
    MainWindow window;
    prepare(window, "fp16,bf16", "1");
    ExplorerHistory* history = window.history();
    QVERIFY(!history->backAction()->isEnabled());
    typeValue(window, "2");
    typeValue(window, "3");
    window.model()->toggleBit(0, 15); // −3
    QCOMPARE(history->trailTexts(), QStringList({"1", "2", "3", "-3"}));
    auto* round = window.findChild<QComboBox*>("roundingMode");
    round->setCurrentIndex(round->findData(QString("rtz")));
    window.table()->setFocus();
    pressOnTable(window, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(window.valueEdit()->text(), QString("3"));
    QCOMPARE(hexOf(window, "fp16"), QString("0x4200"));
    // Back changes the value only: the rounding mode chosen later stays.
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::TowardZero);
    QCOMPARE(history->undoAction()->text(), QString("&Undo back to 3"));
    pressOnTable(window, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(window.valueEdit()->text(), QString("2"));
    QVERIFY(history->forwardAction()->isEnabled());
    pressOnTable(window, Qt::Key_Right, Qt::AltModifier);
    pressOnTable(window, Qt::Key_Right, Qt::AltModifier);
    // The pinned code comes back in its row.
    QCOMPARE(hexOf(window, "fp16"), QString("0xc200"));
    QVERIFY(!history->forwardAction()->isEnabled());
    QCOMPARE(history->trailTexts().size(), 4); // moving adds no entries
    // A new value after going back drops the values ahead, as in a browser.
    pressOnTable(window, Qt::Key_Left, Qt::AltModifier);
    pressOnTable(window, Qt::Key_Left, Qt::AltModifier);
    typeValue(window, "7");
    QCOMPARE(history->trailTexts(), QStringList({"1", "2", "7"}));
    QVERIFY(!history->forwardAction()->isEnabled());
    // Moving back is a step of its own: undo puts the value back.
    window.table()->setFocus();
    pressOnTable(window, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(window.valueEdit()->text(), QString("2"));
    pressOnTable(window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(window.valueEdit()->text(), QString("7"));
}

QTEST_MAIN(TestExplorerHistory)
#include "tst_explorer_history.moc"
