// SPDX-License-Identifier: GPL-3.0-or-later
// A lesson in a lecture hall, offscreen on a 1024 × 768 screen (a projector's): slide mode in
// and out with one key, its caption and large bits, its step and reset keys, Esc from any
// focus (and still a dialog's and a completion's where they have it), the window never larger
// than the screen; the Lessons panel's width (a readable line, dragged to half the window) and
// its Markdown tables. Run a second time under QT_SCALE_FACTOR=1.5 (tests/CMakeLists.txt).
#include "common/page.h"
#include "common/zoom.h"
#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/explorer_controller.h"
#include "shell/lesson_panel.h"
#include "shell/lesson_runner.h"
#include "shell/main_window.h"
#include "shell/presentation_mode.h"
#include "shell/slide_bits.h"
#include "shell/slide_caption.h"
#include "shell/slide_mode.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/lesson/lesson.h"

#include <QApplication>
#include <QCompleter>
#include <QDialog>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTextTable>
#include <QTimer>

#include <chrono>
#include <map>
#include <set>
#include <string>

using namespace fpx;
using namespace fpx::gui;

namespace {

// The window with the Lessons panel, as fpx-explorer builds it, at the screen's size.
struct Hall {
    MainWindow window;
    LessonPanel* lessons = installLessons(window);
    SlideMode* slides = window.findChild<SlideMode*>();

    Hall() {
        window.resize(QGuiApplication::primaryScreen()->availableGeometry().size());
        window.show();
    }
    void settle() {
        QVERIFY(window.hostedPage(window.currentPage())->waitUntilIdle(std::chrono::seconds(60)));
        // The dock's resize and the caption's fit are posted: a few turns of the loop.
        for (int i = 0; i < 4; ++i)
            QApplication::processEvents();
    }
};

int rowOf(MainWindow& window, const char* id) {
    const std::vector<FormatSpec> formats = window.controller()->formats();
    for (std::size_t i = 0; i < formats.size(); ++i)
        if (formats[i].id == id)
            return int(i);
    return -1;
}

// The window, and every widget shown in it, inside the screen.
void checkInsideScreen(MainWindow& window, const QByteArray& where) {
    const QRect screen = window.screen()->geometry();
    const QByteArray what = where + ": window " + QByteArray::number(window.width()) + "x" +
                            QByteArray::number(window.height()) + " at " +
                            QByteArray::number(window.x()) + "," + QByteArray::number(window.y()) +
                            " on a screen " + QByteArray::number(screen.width()) + "x" +
                            QByteArray::number(screen.height()) + ", minimum " +
                            QByteArray::number(window.minimumSizeHint().width()) + "x" +
                            QByteArray::number(window.minimumSizeHint().height());
    QVERIFY2(screen.contains(window.frameGeometry()), what.constData());
    QVERIFY2(window.minimumSizeHint().width() <= screen.width() &&
                 window.minimumSizeHint().height() <= screen.height(),
             what.constData());
}

} // namespace

class TestSlideMode : public QObject {
    Q_OBJECT

  private slots:
    void slideModeInAndOut();
    void refusedWithoutALesson();
    void stepKeys();
    void resetKeyRestoresTheStep();
    void escapeFromAnyFocus();
    void escapeStaysWithDialogsAndCompletions();
    void everyStepFitsTheScreen_data();
    void everyStepFitsTheScreen();
    void plotStepsShowTheirPlotWhole();
    void lessonsDockIsReadableAndWidens();
    void markdownTablesHaveRulesAndPadding();
};

void TestSlideMode::slideModeInAndOut() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QVERIFY(hall.slides);
    QCOMPARE(hall.lessons->openNameOrFile("what-is-a-float"), QString());
    QVERIFY(hall.lessons->showStep(1));
    hall.settle();
    const int zoomBefore = hall.window.zoom()->percent();

    QTest::keyClick(&hall.window, Qt::Key_F6);
    hall.settle();
    QVERIFY(hall.slides->isActive());
    QVERIFY(hall.window.presentation()->isActive());
    QVERIFY(hall.window.windowState() & Qt::WindowFullScreen);
    QVERIFY(hall.window.menuBar()->isHidden());
    QVERIFY(hall.lessons->isHidden());
    QVERIFY(hall.slides->dock()->isVisible());
    QVERIFY(hall.window.zoom()->percent() >= PresentationMode::kPercent);
    checkInsideScreen(hall.window, "slide mode");
    // The slide takes its share of the screen above the page.
    QVERIFY2(hall.slides->dock()->height() >= hall.window.height() / 3,
             qPrintable(QString::number(hall.slides->dock()->height())));

    // The step's prose, as the lesson file words it, in type larger than the window's.
    SlideCaption* caption = hall.slides->caption();
    QVERIFY2(caption->prose()->toPlainText().contains("The coloured cells are the bits"),
             qPrintable(caption->prose()->toPlainText()));
    QVERIFY(caption->heading()->text().contains("2 / 5"));
    QVERIFY(caption->heading()->text().contains("Sign, exponent, mantissa"));
    QVERIFY2(caption->proseScale() >= 1.0, qPrintable(QString::number(caption->proseScale())));
    QVERIFY(caption->prose()->document()->defaultFont().pointSizeF() >=
            QApplication::font().pointSizeF() * PresentationMode::kPercent / 100 - 0.01);
    QVERIFY(caption->prose()->font().pointSizeF() >= hall.window.font().pointSizeF());

    // The step selects FP32: its bits, large, a third as large again as the table's cells at
    // least (its 33 cells fill the slide's width).
    QVERIFY(caption->bits()->isVisible());
    QCOMPARE(caption->bits()->row(), rowOf(hall.window, "fp32"));
    QVERIFY(caption->bits()->caption().contains("0x3eca57a8"));
    QVERIFY2(3 * caption->bits()->cellWidth() >= 4 * hall.window.bitsDelegate()->layout().cellWidth,
             qPrintable(QStringLiteral("%1 against the table's %2")
                            .arg(caption->bits()->cellWidth())
                            .arg(hall.window.bitsDelegate()->layout().cellWidth)));

    // The same key leaves, and the window is as it was.
    QTest::keyClick(&hall.window, Qt::Key_F6);
    hall.settle();
    QVERIFY(!hall.slides->isActive());
    QVERIFY(!hall.window.presentation()->isActive());
    QVERIFY(!(hall.window.windowState() & Qt::WindowFullScreen));
    QVERIFY(!hall.window.menuBar()->isHidden());
    QVERIFY(!hall.lessons->isHidden());
    QVERIFY(hall.slides->dock()->isHidden());
    QCOMPARE(hall.window.zoom()->percent(), zoomBefore);
    QCOMPARE(hall.lessons->currentStep(), std::size_t(1));

    // The action is in the Lessons and View menus, with a tool tip that names its keys.
    QAction* action = hall.slides->action();
    QCOMPARE(action->shortcut(), QKeySequence(Qt::Key_F6));
    QVERIFY(action->toolTip().contains("F6"));
    QStringList menus;
    for (QObject* object : action->associatedObjects())
        if (auto* menu = qobject_cast<QMenu*>(object))
            menus << menu->title().remove('&');
    QVERIFY2(menus.contains("Lessons") && menus.contains("View"), qPrintable(menus.join(',')));
    // F6 is no other action's key.
    for (QAction* other : hall.window.findChildren<QAction*>())
        QVERIFY(other == action || !other->shortcuts().contains(QKeySequence(Qt::Key_F6)));
}

void TestSlideMode::refusedWithoutALesson() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QTest::keyClick(&hall.window, Qt::Key_F6);
    QVERIFY(!hall.slides->isActive());
    QVERIFY(!hall.window.presentation()->isActive());
    QVERIFY(!hall.slides->action()->isChecked());
    QVERIFY2(hall.window.statusBar()->currentMessage().contains("lesson"),
             qPrintable(hall.window.statusBar()->currentMessage()));
}

void TestSlideMode::stepKeys() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QCOMPARE(hall.lessons->openNameOrFile("what-is-a-float"), QString());
    hall.settle();
    hall.slides->setActive(true);
    hall.settle();
    SlideCaption* caption = hall.slides->caption();
    // A clicker's PgDown and PgUp, even with the table focused.
    hall.window.table()->setFocus();
    QTest::keyClick(hall.window.table(), Qt::Key_PageDown);
    hall.settle();
    QCOMPARE(hall.lessons->currentStep(), std::size_t(1));
    QVERIFY(caption->prose()->toPlainText().contains("The coloured cells are the bits"));
    QTest::keyClick(hall.window.table(), Qt::Key_PageDown);
    hall.settle();
    QCOMPARE(hall.lessons->currentStep(), std::size_t(2));
    // Step 3 selects BF16: the large bits follow.
    QVERIFY(caption->prose()->toPlainText().contains("BF16 keeps FP32's 8 exponent bits"));
    QCOMPARE(caption->bits()->row(), rowOf(hall.window, "bf16"));
    QTest::keyClick(hall.window.table(), Qt::Key_PageUp);
    hall.settle();
    QCOMPARE(hall.lessons->currentStep(), std::size_t(1));
    // The arrows step where the focus has no use for them (the slide), not in the table.
    caption->setFocus();
    QTest::keyClick(caption, Qt::Key_Right);
    hall.settle();
    QCOMPARE(hall.lessons->currentStep(), std::size_t(2));
    QTest::keyClick(caption, Qt::Key_Left);
    hall.settle();
    QCOMPARE(hall.lessons->currentStep(), std::size_t(1));
    hall.window.table()->setFocus();
    QTest::keyClick(hall.window.table(), Qt::Key_Right);
    QCOMPARE(hall.lessons->currentStep(), std::size_t(1));
    // Alt+PgDown, as outside slide mode.
    QTest::keyClick(hall.window.table(), Qt::Key_PageDown, Qt::AltModifier);
    hall.settle();
    QCOMPARE(hall.lessons->currentStep(), std::size_t(2));
    // The last step's PgDown stays there; step 5 is about every row, not one format.
    for (int i = 0; i < 4; ++i)
        QTest::keyClick(hall.window.table(), Qt::Key_PageDown);
    hall.settle();
    QCOMPARE(hall.lessons->currentStep(), std::size_t(4));
    QVERIFY(caption->heading()->text().contains("5 / 5"));
    // Outside slide mode the plain keys are the widgets' again.
    hall.slides->setActive(false);
    hall.settle();
    hall.window.table()->setFocus();
    QTest::keyClick(hall.window.table(), Qt::Key_PageUp);
    QCOMPARE(hall.lessons->currentStep(), std::size_t(4));
}

void TestSlideMode::resetKeyRestoresTheStep() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QCOMPARE(hall.lessons->openNameOrFile("range-and-precision"), QString());
    QVERIFY(hall.lessons->showStep(1)); // 70000 in FP16
    hall.slides->setActive(true);
    hall.settle();
    ExplorerController* controller = hall.window.controller();
    QCOMPARE(controller->inputText(), QString("70000"));
    const int fp16 = rowOf(hall.window, "fp16");
    QCOMPARE(hall.window.selectedRow(), fp16);
    // The lecturer explores: another value, another row, another format list.
    controller->setInputText("0.1");
    controller->setFormats(findFormats("fp32,fp8_e4m3").specs);
    hall.settle();
    hall.window.selectRow(1);
    QVERIFY(controller->inputText() != "70000");
    // Home, from the slide, sets the step's state again.
    hall.slides->caption()->setFocus();
    QTest::keyClick(hall.slides->caption(), Qt::Key_Home);
    hall.settle();
    QCOMPARE(controller->inputText(), QString("70000"));
    QCOMPARE(int(controller->formats().size()), 4);
    QCOMPARE(hall.window.selectedRow(), rowOf(hall.window, "fp16"));
    QCOMPARE(hall.slides->caption()->bits()->row(), rowOf(hall.window, "fp16"));
    QCOMPARE(hall.lessons->currentStep(), std::size_t(1));
    QVERIFY(hall.slides->isActive());
    // Alt+Home does the same from any focus, in slide mode or not.
    hall.slides->setActive(false);
    controller->setInputText("3");
    hall.settle();
    hall.window.valueEdit()->setFocus();
    QTest::keyClick(hall.window.valueEdit(), Qt::Key_Home, Qt::AltModifier);
    hall.settle();
    QCOMPARE(controller->inputText(), QString("70000"));
}

void TestSlideMode::escapeFromAnyFocus() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    // Presentation mode, the table focused: the table must not keep Esc.
    hall.window.table()->setFocus();
    QTest::keyClick(hall.window.table(), Qt::Key_F5);
    QVERIFY(hall.window.presentation()->isActive());
    hall.window.table()->setFocus();
    QTest::keyClick(hall.window.table(), Qt::Key_Escape);
    QVERIFY(!hall.window.presentation()->isActive());
    QVERIFY(!hall.window.menuBar()->isHidden());
    // And from the value field.
    QTest::keyClick(hall.window.valueEdit(), Qt::Key_F5);
    QVERIFY(hall.window.presentation()->isActive());
    QTest::keyClick(hall.window.valueEdit(), Qt::Key_Escape);
    QVERIFY(!hall.window.presentation()->isActive());

    // Slide mode, from the table: Esc leaves it and the presentation it started.
    QCOMPARE(hall.lessons->openNameOrFile("what-is-a-float"), QString());
    hall.settle();
    hall.slides->setActive(true);
    hall.window.table()->setFocus();
    QTest::keyClick(hall.window.table(), Qt::Key_Escape);
    QVERIFY(!hall.slides->isActive());
    QVERIFY(!hall.window.presentation()->isActive());
    // Started from presentation mode, one Esc leaves the slides, the next the presentation.
    QTest::keyClick(hall.window.table(), Qt::Key_F5);
    QTest::keyClick(hall.window.table(), Qt::Key_F6);
    QVERIFY(hall.slides->isActive());
    hall.window.table()->setFocus();
    QTest::keyClick(hall.window.table(), Qt::Key_Escape);
    QVERIFY(!hall.slides->isActive());
    QVERIFY(hall.window.presentation()->isActive());
    QTest::keyClick(hall.window.table(), Qt::Key_Escape);
    QVERIFY(!hall.window.presentation()->isActive());
    // F5 in slide mode leaves both.
    QTest::keyClick(hall.window.table(), Qt::Key_F6);
    QVERIFY(hall.slides->isActive());
    QTest::keyClick(hall.window.table(), Qt::Key_F5);
    QVERIFY(!hall.slides->isActive());
    QVERIFY(!hall.window.presentation()->isActive());
}

void TestSlideMode::escapeStaysWithDialogsAndCompletions() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QTest::keyClick(&hall.window, Qt::Key_F5);
    QVERIFY(hall.window.presentation()->isActive());
    // A dialog opened in presentation mode: Esc cancels it, the presentation stays.
    QDialog dialog(&hall.window);
    int result = -1;
    QTimer::singleShot(0, &dialog, [&] {
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::keyClick(&dialog, Qt::Key_Escape);
    });
    result = dialog.exec();
    QCOMPARE(result, int(QDialog::Rejected));
    QVERIFY(hall.window.presentation()->isActive());
    // A completion list open under the value field: Esc closes the list only.
    QLineEdit* edit = hall.window.valueEdit();
    auto* completer = new QCompleter(QStringList{"0.125", "0.1875"}, edit);
    edit->setCompleter(completer);
    edit->setFocus();
    edit->clear();
    QTest::keyClicks(edit, "0.1");
    QTRY_VERIFY(completer->popup()->isVisible());
    QTest::keyClick(completer->popup(), Qt::Key_Escape);
    QVERIFY(!completer->popup()->isVisible());
    QVERIFY(hall.window.presentation()->isActive());
    // With the list closed, Esc in the field leaves; outside the modes it changes nothing.
    QTest::keyClick(edit, Qt::Key_Escape);
    QVERIFY(!hall.window.presentation()->isActive());
    QTest::keyClick(edit, Qt::Key_Escape);
    QVERIFY(!hall.window.presentation()->isActive());
    QVERIFY(!hall.window.menuBar()->isHidden());
}

void TestSlideMode::everyStepFitsTheScreen_data() {
    QTest::addColumn<QString>("lesson");
    for (const char* lesson : {"what-is-a-float", "range-and-precision"})
        QTest::newRow(lesson) << QString::fromLatin1(lesson);
}

void TestSlideMode::everyStepFitsTheScreen() {
    QFETCH(QString, lesson);
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QCOMPARE(hall.lessons->openNameOrFile(lesson), QString());
    hall.slides->setActive(true);
    hall.settle();
    for (std::size_t step = 0; step < hall.lessons->stepCount(); ++step) {
        QVERIFY(hall.lessons->showStep(step));
        hall.settle();
        const QByteArray where = lesson.toUtf8() + " step " + QByteArray::number(int(step + 1));
        checkInsideScreen(hall.window, where);
        QCOMPARE(hall.window.geometry(), hall.window.screen()->geometry());
        QVERIFY2(hall.slides->caption()->prose()->height() > 0, where.constData());
    }
}

void TestSlideMode::plotStepsShowTheirPlotWhole() {
    // A step that names a plot among what it shows leaves the page the room: the slide takes
    // what its prose needs in the window's type, a fifth to a third of the screen, and draws no
    // format's bits large. On a 1024 × 768 projector the range plot and the tensor core's error
    // plot then stand whole at their legible height below it. Run on that screen (ctest's
    // tst_slide_mode_lecture_hall).
    const QSize screen = QGuiApplication::primaryScreen()->size();
    if (screen != QSize(1024, 768))
        QSKIP("needs the 1024 × 768 screen of tests/data/screens/lecture-hall-1024x768.json");
    const std::map<std::string, std::set<std::size_t>> whole = {{"range-and-precision", {4}},
                                                                {"inside-a-tensor-core", {4, 5}}};
    int plotSteps = 0;
    for (const BuiltInLesson& builtIn : builtInLessons()) {
        const LessonParse parse = parseLesson(builtIn.text, "built-in");
        QVERIFY(parse);
        const Lesson& lesson = *parse.lesson;
        Hall hall;
        QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
        QCOMPARE(hall.lessons->openNameOrFile(QString::fromStdString(lesson.name)), QString());
        hall.slides->setActive(true);
        for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
            const LessonAction* show = showAction(lesson, step);
            if (!show || !QString::fromStdString(show->value).contains("plot"))
                continue;
            ++plotSteps;
            QVERIFY(hall.lessons->showStep(step));
            hall.settle();
            const QByteArray where = QByteArray::fromStdString(lesson.name) + " step " +
                                     QByteArray::number(int(step + 1)) + ": ";
            const int slide = hall.slides->dock()->height();
            QVERIFY2(slide <= hall.window.height() * SlideMode::kPlotCaptionShare + 1 &&
                         slide >= hall.window.height() * SlideMode::kPlotCaptionLeast - 1,
                     (where + "slide " + QByteArray::number(slide)).constData());
            QVERIFY2(!hall.slides->caption()->bits()->isVisible(), where.constData());
            const auto named = whole.find(lesson.name);
            if (named == whole.end() || !named->second.contains(step))
                continue;
            const QStringList hidden = LessonRunner(hall.window).hiddenTargets(lesson, step);
            QVERIFY2(hidden.isEmpty(), (where + hidden.join("; ").toUtf8()).constData());
        }
    }
    QVERIFY(plotSteps >= 3);
}

void TestSlideMode::lessonsDockIsReadableAndWidens() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QCOMPARE(hall.lessons->openNameOrFile("range-and-precision"), QString());
    hall.settle();
    QTextBrowser* prose = hall.lessons->proseView();
    const int character = QFontMetrics(prose->font()).averageCharWidth();
    const int line = prose->viewport()->width() / character;
    const QByteArray what = "dock " + QByteArray::number(hall.lessons->width()) + " of " +
                            QByteArray::number(hall.window.width()) + ", " +
                            QByteArray::number(line) + " characters a line";
    // A readable line where the screen has room for it; where the pages need the room (1024
    // pixels: about 35 characters), they keep it.
    if (hall.window.width() >= 1000)
        QVERIFY2(line >= 30 && line <= 60, what.constData());
    if (hall.window.width() >= 1400)
        QVERIFY2(line >= 40, what.constData());
    // The pages beside it keep their width: nothing scrolls sideways.
    QVERIFY(!qobject_cast<QScrollArea*>(hall.window.centralWidget())
                 ->horizontalScrollBar()
                 ->isVisible());
    QVERIFY2(hall.lessons->width() <= hall.window.width() / 2, what.constData());
    QCOMPARE(hall.window.width(), hall.window.screen()->availableGeometry().width());
    // Dragged (resizeDocks is what the separator does) to half the window.
    hall.window.resizeDocks({hall.lessons}, {hall.window.width() / 2}, Qt::Horizontal);
    hall.settle();
    const QByteArray dragged =
        "dragged to " + QByteArray::number(hall.lessons->width()) + " of " +
        QByteArray::number(hall.window.width()) + ", explorer minimum " +
        QByteArray::number(hall.window.centralWidget()->minimumSizeHint().width());
    QVERIFY2(hall.lessons->width() >= hall.window.width() / 2 - 10, dragged.constData());
    QCOMPARE(hall.window.width(), hall.window.screen()->availableGeometry().width());
}

void TestSlideMode::markdownTablesHaveRulesAndPadding() {
    Hall hall;
    QVERIFY(QTest::qWaitForWindowExposed(&hall.window));
    QCOMPARE(hall.lessons->openNameOrFile("range-and-precision"), QString());
    hall.settle();
    const QTextDocument* document = hall.lessons->proseView()->document();
    QTextTable* table = nullptr;
    for (QTextFrame* frame : document->rootFrame()->childFrames())
        if (auto* found = qobject_cast<QTextTable*>(frame))
            table = found;
    QVERIFY(table);
    QCOMPARE(table->rows(), 5);
    QCOMPARE(table->columns(), 5);
    const QTextTableFormat format = table->format();
    // Padding of a third of a line at least 4 pixels, rules between the cells.
    QVERIFY2(format.cellPadding() >= 4, qPrintable(QString::number(format.cellPadding())));
    QVERIFY(format.border() >= 1);
    QVERIFY(format.borderStyle() != QTextFrameFormat::BorderStyle_None);
    QCOMPARE(format.headerRowCount(), 1);
    // The header row is bold on a shade; the body is not bold.
    QTextCursor header = table->cellAt(0, 1).firstCursorPosition();
    header.movePosition(QTextCursor::NextCharacter);
    QCOMPARE(header.charFormat().fontWeight(), int(QFont::Bold));
    QVERIFY(table->cellAt(0, 1).format().background().style() != Qt::NoBrush);
    QTextCursor body = table->cellAt(1, 0).firstCursorPosition();
    body.movePosition(QTextCursor::NextCharacter);
    QVERIFY(body.charFormat().fontWeight() != int(QFont::Bold));
    QCOMPARE(table->cellAt(0, 1).firstCursorPosition().block().text(), QString("exponent bits"));
    // The same in slide mode's caption.
    hall.slides->setActive(true);
    hall.settle();
    bool captionTable = false;
    for (QTextFrame* frame :
         hall.slides->caption()->prose()->document()->rootFrame()->childFrames())
        if (auto* found = qobject_cast<QTextTable*>(frame))
            captionTable = found->format().cellPadding() >= 4 && found->format().border() >= 1;
    QVERIFY(captionTable);
}

// A projector's screen, 1024 × 768, where the offscreen platform's own is 800 × 600; run under
// another platform (a real X server) the test takes that screen as it is.
int main(int argc, char** argv) {
    QTemporaryDir dir;
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    if (platform.isEmpty() || platform == "offscreen") {
        const QString config = dir.filePath("projector.json");
        QFile file(config);
        if (!file.open(QIODevice::WriteOnly) ||
            file.write(R"({"screens":[{"name":"projector","x":0,"y":0,"width":1024,)"
                       R"("height":768}]})") < 0)
            return 2;
        file.close();
        qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    }
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestSlideMode test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_slide_mode.moc"
