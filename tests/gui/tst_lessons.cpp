// SPDX-License-Identifier: GPL-3.0-or-later
// The Lessons panel on a real window, offscreen: opening a lesson, Next and Previous, --step,
// the state of step K against Next pressed K−1 times, free exploration between steps, bad
// actions and bad files with their line and column, the lab and example actions, and every
// step of every built-in lesson rendered (FPX_LESSON_SHOTS=DIR keeps each as a PNG).
#include "common/zoom.h"
#include "pages/arithmetic/accumulation_panel.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/arithmetic/master_weights_panel.h"
#include "pages/arithmetic/stochastic_panel.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/explorer_history.h"
#include "pages/explorer/plots_panel.h"
#include "pages/quantization/quantization_model.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/training_page.h"
#include "shell/lesson_panel.h"
#include "shell/main_window.h"
#include "shell/screenshot.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_catalogue.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QUndoStack>

#include <chrono>

using namespace fpx;
using namespace fpx::gui;

namespace {

const QString kData = QStringLiteral(FPX_LESSON_TEST_DATA);

QString lessonPath(const QString& file) {
    return kData + "/" + file;
}

// `text` written as the lesson file `name` in `dir`; its path, or nothing if it cannot be written.
QString writeLesson(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        return {};
    return path;
}

// What a step's state shows, to compare two windows.
QString fingerprint(MainWindow& window) {
    QStringList ids;
    for (const FormatSpec& spec : window.controller()->formats())
        ids << QString::fromStdString(spec.id);
    return QStringList{window.controller()->inputText(),
                       ids.join(','),
                       QString::number(int(window.controller()->roundingMode())),
                       QString::number(int(window.controller()->overflowPolicy())),
                       QString::number(int(window.currentPage())),
                       QString::number(window.selectedRow()),
                       QString::number(window.plotsPanel()->isVisibleTo(&window)),
                       QString::number(int(window.plotsPanel()->kind()))}
        .join(" | ");
}

QString selectedId(MainWindow& window) {
    const int row = window.selectedRow();
    return row < 0 ? QString()
                   : QString::fromStdString(window.controller()->rows()[std::size_t(row)].spec.id);
}

QStringList formatIds(MainWindow& window) {
    QStringList ids;
    for (const FormatSpec& spec : window.controller()->formats())
        ids << QString::fromStdString(spec.id);
    return ids;
}

QProcessEnvironment offscreen() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    return env;
}

} // namespace

class TestLessons : public QObject {
    Q_OBJECT

  private slots:
    void opensAtTheFirstStep();
    void nextAndPreviousSetEachStepsState();
    void stepKEqualsNextPressedKMinusOneTimes();
    void freeExplorationThenNext();
    void trainingFormsComeBackAtAStep();
    void aStepOpensAtItsHeadingAfterAResize();
    void previousTakesBackWhatALaterStepSwitchedOn();
    void aStepIsOneUndoStep();
    void badActionIsReportedWithItsLine();
    void whatIsNotOnScreenIsNoticedInThePanel();
    void keysThatAreNotOptionsAreRefused();
    void badFileIsRefusedWithLineAndColumn();
    void labAndExampleActions();
    void menusAndShortcuts();
    void commandLineLessonAndStep();
    void everyBuiltInLessonStepRenders();
};

void TestLessons::opensAtTheFirstStep() {
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    QVERIFY(!panel->isVisibleTo(&window));
    QCOMPARE(panel->openFile(lessonPath("rounding-basics.md")), QString());
    QVERIFY(panel->isVisibleTo(&window));
    QCOMPARE(panel->currentStep(), std::size_t(0));
    QCOMPARE(panel->stepCount(), std::size_t(3));
    QCOMPARE(panel->stepLabel()->text(), QString("Step 1 of 3"));
    const QString prose = panel->proseView()->toPlainText();
    QVERIFY2(prose.contains("three steps"), qPrintable(prose)); // the introduction
    QVERIFY(prose.contains("0.1 is not a float"));
    QVERIFY(prose.contains("No binary format holds 0.1 exactly")); // **bold** rendered
    QVERIFY(!prose.contains("formats fp32"));                      // the actions are not prose
    QVERIFY(!panel->previousButton()->isEnabled());
    QVERIFY(panel->nextButton()->isEnabled());
    QCOMPARE(panel->problems(), QStringList());
    QCOMPARE(window.controller()->inputText(), QString("0.1"));
    QCOMPARE(formatIds(window), (QStringList{"fp32", "bf16", "fp16"}));
    QCOMPARE(selectedId(window), QString("bf16"));
    QCOMPARE(window.currentPage(), MainWindow::Page::Explorer);
}

void TestLessons::nextAndPreviousSetEachStepsState() {
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    QCOMPARE(panel->openFile(lessonPath("rounding-basics.md")), QString());
    window.show();
    QTest::mouseClick(panel->nextButton(), Qt::LeftButton);
    QCOMPARE(panel->currentStep(), std::size_t(1));
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::TowardZero);
    QCOMPARE(window.controller()->inputText(), QString("0.1")); // from step 1
    QVERIFY(window.plotsPanel()->isVisible());
    QCOMPARE(window.plotsPanel()->kind(), plots::PlotKind::Ulp);
    QVERIFY(panel->proseView()->toPlainText().contains("spacing of each format"));
    QVERIFY(!panel->proseView()->toPlainText().contains("three steps")); // intro: step 1 only
    panel->next();
    QCOMPARE(panel->currentStep(), std::size_t(2));
    QCOMPARE(window.controller()->inputText(), QString("1/3"));
    QVERIFY(!window.plotsPanel()->isVisible()); // tab details
    QVERIFY(!panel->nextButton()->isEnabled());
    panel->next(); // past the end: nothing
    QCOMPARE(panel->currentStep(), std::size_t(2));
    QTest::mouseClick(panel->previousButton(), Qt::LeftButton);
    QCOMPARE(panel->currentStep(), std::size_t(1));
    QCOMPARE(window.controller()->inputText(), QString("0.1"));
    QVERIFY(window.plotsPanel()->isVisible());
    panel->previous();
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::NearestEven); // the default
    QVERIFY(!window.plotsPanel()->isVisible());
}

void TestLessons::stepKEqualsNextPressedKMinusOneTimes() {
    for (const QString file : {"rounding-basics.md", "arithmetic-tour.md"}) {
        MainWindow stepped, direct;
        stepped.show();
        direct.show();
        LessonPanel* a = installLessons(stepped);
        LessonPanel* b = installLessons(direct);
        QCOMPARE(a->openFile(lessonPath(file)), QString());
        QCOMPARE(b->openFile(lessonPath(file)), QString());
        for (std::size_t k = 1; k < a->stepCount(); ++k) {
            a->next();
            QVERIFY(b->showStep(k));
            QCOMPARE(fingerprint(direct), fingerprint(stepped));
            QCOMPARE(a->problems(), b->problems());
        }
        QVERIFY(!b->showStep(b->stepCount())); // out of range
    }
}

void TestLessons::freeExplorationThenNext() {
    MainWindow window;
    window.show();
    LessonPanel* panel = installLessons(window);
    QCOMPARE(panel->openFile(lessonPath("rounding-basics.md")), QString());
    // The user explores: another value, other formats, another page; the panel is closed.
    window.controller()->setInputText("5");
    window.controller()->waitForIdle();
    window.controller()->setFormats({*findFormat("fp64").spec});
    window.showPage(MainWindow::Page::Arithmetic);
    panel->hide();
    panel->next();
    QCOMPARE(panel->currentStep(), std::size_t(1));
    QCOMPARE(window.controller()->inputText(), QString("0.1"));
    QCOMPARE(formatIds(window), (QStringList{"fp32", "bf16", "fp16"}));
    QCOMPARE(window.currentPage(), MainWindow::Page::Explorer);
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::TowardZero);
}

void TestLessons::trainingFormsComeBackAtAStep() {
    // Fields of the Training page's forms that no option names: what the user typed there is
    // undone by a step as the explorer's value is.
    QTemporaryDir dir;
    const QString path =
        writeLesson(dir, "fp8.md",
                    "---\nname: fp8\ntitle: FP8\n---\n\n## Recipes\n\n```fpx\npage training\n"
                    "training-view fp8\n```\n");
    QVERIFY(!path.isEmpty());
    MainWindow window;
    window.show();
    LessonPanel* panel = installLessons(window);
    QCOMPARE(panel->openFile(path), QString());
    auto* recipes = window.findChild<QLineEdit*>("fp8Recipes");
    auto* init = window.findChild<QLineEdit*>("lossScaleInit");
    auto* interval = window.findChild<QSpinBox*>("lossScaleInterval");
    auto* fixed = window.findChild<QCheckBox*>("lossScaleStatic");
    auto* rate = window.findChild<QLineEdit*>("weightsRate");
    QVERIFY(recipes && init && interval && fixed && rate);
    const QString recipesBefore = recipes->text(), initBefore = init->text(),
                  rateBefore = rate->text();
    const int intervalBefore = interval->value();
    QVERIFY(!fixed->isChecked());
    recipes->setText("current");
    init->setText("2^4");
    interval->setValue(intervalBefore + 7);
    fixed->setChecked(true);
    rate->setText("0.5");
    QVERIFY(panel->showStep(0));
    QCOMPARE(recipes->text(), recipesBefore);
    QCOMPARE(init->text(), initBefore);
    QCOMPARE(interval->value(), intervalBefore);
    QVERIFY(!fixed->isChecked());
    QCOMPARE(rate->text(), rateBefore);
    // And the page's state read back applies to the same forms.
    recipes->setText("delayed:4:max");
    const TrainingPageState typed = window.trainingPage()->state();
    recipes->setText("current");
    QCOMPARE(window.trainingPage()->apply(typed), QString());
    QCOMPARE(recipes->text(), QString("delayed:4:max"));
    TrainingPageState wrong;
    wrong.fp8Form = QVariantList{1, 2};
    QVERIFY(window.trainingPage()->apply(wrong).contains("fp8 view's form"));
}

void TestLessons::aStepOpensAtItsHeadingAfterAResize() {
    // A window manager resizes the window once it is placed: the step's text stays at its top.
    MainWindow window;
    window.resize(1016, 728);
    window.show();
    window.zoom()->setPercent(150);
    LessonPanel* panel = installLessons(window);
    QCOMPARE(panel->openBuiltIn("block-formats"), QString());
    QVERIFY(panel->showStep(3));
    QApplication::processEvents();
    // The view's cursor, which a resize keeps in view, at the text's start.
    QVERIFY(panel->proseView()->textCursor().atStart());
    QScrollBar* bar = panel->proseView()->verticalScrollBar();
    window.resize(1016, 360); // short: the step's text longer than its view
    QApplication::processEvents();
    QVERIFY2(bar->maximum() > 0, "the step's text must be longer than its view for this test");
    QCOMPARE(bar->value(), 0);
}

namespace {

// A lesson written by the test: step 2 switches on what step 1 leaves at its default.
QString writeSwitchingLesson(const QTemporaryDir& dir) {
    return writeLesson(dir, "switching.md",
                       "---\nname: switching\ntitle: Switching\n---\n\n"
                       "## Memory\n\n```fpx\nplot memory\nparams 7B\nvalue 0.5\n```\n\n"
                       "## Training, in GiB, in blocks of 128\n\n```fpx\nmemory-training\ngib\n"
                       "params 405B\nvalue 0.25\nround rtz\nblock 128\n```\n");
}

} // namespace

void TestLessons::previousTakesBackWhatALaterStepSwitchedOn() {
    QTemporaryDir dir;
    const QString path = writeSwitchingLesson(dir);
    QVERIFY(!path.isEmpty());
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    QCOMPARE(panel->openFile(path), QString());
    auto* recipe = window.plotsPanel()->findChild<QComboBox*>("plotRecipe");
    auto* gib = window.plotsPanel()->findChild<QCheckBox*>("plotGib");
    QVERIFY(recipe && gib);
    QCOMPARE(recipe->currentData().toString(), QString("inference"));
    QCOMPARE(window.plotsPanel()->parameters(), std::uint64_t(7'000'000'000));
    panel->next();
    // memory-training is memory-recipe bf16-mixed.
    QCOMPARE(recipe->currentData().toString(), QString("bf16-mixed"));
    QVERIFY(gib->isChecked());
    QCOMPARE(window.plotsPanel()->parameters(), std::uint64_t(405'000'000'000));
    panel->previous();
    QCOMPARE(recipe->currentData().toString(), QString("inference"));
    QVERIFY(!gib->isChecked());
    QCOMPARE(window.plotsPanel()->parameters(), std::uint64_t(7'000'000'000));
    QCOMPARE(window.plotsPanel()->kind(), plots::PlotKind::Memory);
}

void TestLessons::aStepIsOneUndoStep() {
    QTemporaryDir dir;
    const QString path = writeSwitchingLesson(dir);
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    QCOMPARE(panel->openFile(path), QString());
    ExplorerHistory* history = window.history();
    history->clear();
    panel->next(); // value, rounding mode: one step
    QCOMPARE(history->undoStack()->count(), 1);
    QCOMPARE(history->undoStack()->undoText(), QString("lesson step 2"));
    QCOMPARE(window.controller()->inputText(), QString("0.25"));
    // Back/Forward gained one value, not the defaults the step passed through.
    QCOMPARE(history->trailTexts(), QStringList({"0.5", "0.25"}));
    history->undoStack()->undo();
    QCOMPARE(window.controller()->inputText(), QString("0.5"));
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::NearestEven);
}

void TestLessons::badActionIsReportedWithItsLine() {
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    const QString path = lessonPath("bad-action.md");
    QCOMPARE(panel->openFile(path), QString());
    QCOMPARE(panel->problems(), QStringList());
    QVERIFY(panel->showStep(1));
    QCOMPARE(panel->problems().size(), 1);
    const QString problem = panel->problems().front();
    QVERIFY2(problem.startsWith(path + ":16:3: --formats: "), qPrintable(problem));
    QVERIFY2(problem.contains("nosuchformat"), qPrintable(problem));
    QVERIFY(panel->problemsLabel()->isVisibleTo(panel));
    QVERIFY(panel->problemsLabel()->text().contains(":16:3:"));
    // The step's other action still applies; the formats keep their default.
    QCOMPARE(window.controller()->inputText(), QString("3"));
    QCOMPARE(window.controller()->formats().size(), defaultExplorerFormats().size());
    panel->previous();
    QCOMPARE(panel->problems(), QStringList());
    QVERIFY(!panel->problemsLabel()->isVisibleTo(panel));
}

// A window too small for what a step names says so under the step, with the action's line; a
// step whose named items are on screen says nothing.
void TestLessons::whatIsNotOnScreenIsNoticedInThePanel() {
    QTemporaryDir dir;
    const QString path = writeLesson(
        dir, "narrow.md",
        "---\nname: narrow\ntitle: Narrow\n---\n## Wide\n```fpx\nformats fp64,fp32\n"
        "show column:ulp error\n```\nText.\n## Details\n```fpx\nshow tab:details\n```\nText.\n");
    QVERIFY(!path.isEmpty());
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    window.resize(800, 600);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(panel->openFile(path), QString());
    QTRY_VERIFY(!panel->hiddenNotices().isEmpty());
    QCOMPARE(panel->problems(), QStringList());
    const QString notice = panel->hiddenNotices().front();
    QVERIFY2(notice.startsWith(path + ":8:1: show: ") && notice.contains("ULP error"),
             qPrintable(notice));
    QVERIFY(panel->hiddenLabel()->isVisibleTo(panel));
    panel->next();
    QTest::qWait(50);
    QCOMPARE(panel->hiddenNotices(), QStringList());
    QVERIFY(!panel->hiddenLabel()->isVisibleTo(panel));
}

void TestLessons::keysThatAreNotOptionsAreRefused() {
    const LessonParse parse = parseLesson("---\nname: keys\ntitle: Keys\n---\n## S\n```fpx\n"
                                          "value 0.5\ncolour red\nscreenshot x.png\nstep 2\n"
                                          "no-settings\nround\nvalue 0.5.5\nplot pie\n```\n",
                                          "keys.md");
    QVERIFY(parse);
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    panel->setLesson(*parse.lesson);
    const QStringList problems = panel->problems();
    const QString all = problems.join('\n');
    QVERIFY2(problems.size() == 7, qPrintable(all));
    QVERIFY2(problems[0].startsWith("keys.md:8:1: 'colour' is not an explorer option"),
             qPrintable(all));
    QVERIFY(problems[1].startsWith("keys.md:9:1: 'screenshot' cannot be used in a lesson"));
    QVERIFY(problems[2].startsWith("keys.md:10:1: 'step' cannot be used in a lesson"));
    QVERIFY(problems[3].startsWith("keys.md:11:1: 'no-settings' cannot be used in a lesson"));
    QVERIFY2(problems[4].startsWith("keys.md:12:1: ") && problems[4].contains("round"),
             qPrintable(all)); // round needs a value
    QVERIFY2(problems[5].startsWith("keys.md:14:1: --plot: unknown plot 'pie'"), qPrintable(all));
    // The later `value` replaced the earlier one; its parse error is the field's.
    QVERIFY2(problems[6].startsWith("keys.md:13:1: --value: "), qPrintable(all));
    QCOMPARE(window.controller()->inputText(), QString("0.5.5"));
}

void TestLessons::badFileIsRefusedWithLineAndColumn() {
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    const QString path = lessonPath("bad-syntax.md");
    const QString error = panel->openFile(path);
    QVERIFY2(error.startsWith(path + ":12:1: a second action block"), qPrintable(error));
    QVERIFY(!panel->lesson());
    QVERIFY(!panel->isVisibleTo(&window));
    QVERIFY(panel->openFile(kData + "/no-such-file.md").contains("no-such-file.md"));
    QVERIFY(panel->openNameOrFile("no-such-lesson").contains("no built-in lesson"));
}

void TestLessons::labAndExampleActions() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    LessonPanel* panel = installLessons(window);
    QCOMPARE(panel->openFile(lessonPath("arithmetic-tour.md")), QString());
    QCOMPARE(panel->problems(), QStringList());
    // Step 1: the accumulation lab ran with the lesson's settings.
    ArithmeticPage* page = window.arithmeticPage();
    QCOMPARE(window.currentPage(), MainWindow::Page::Arithmetic);
    QCOMPARE(page->currentLab(), ArithmeticPage::Lab::Accumulation);
    AccumulationPanel* lab = page->accumulationPanel();
    QVERIFY(page->waitUntilIdle(std::chrono::minutes(1)));
    QVERIFY(!lab->result().runs.empty());
    const AccumulationLabRequest request = lab->request();
    QCOMPARE(request.terms, std::size_t(10000));
    QCOMPARE(request.accumulators.size(), std::size_t(2));
    QCOMPARE(request.methods.size(), std::size_t(2));
    QCOMPARE(lab->result().runs.size(), std::size_t(4));
    for (const AccumulationLabRun& run : lab->result().runs) {
        // 2048 + 1 is a tie in FP16 (11 significant bits) and rounds back to 2048: a sequential
        // FP16 sum of ones stops there. FP32 holds every integer up to 2^24.
        if (run.accumulator.id == "fp16" && run.method.method == SumMethod::Sequential)
            QVERIFY(compare(run.result.sum, ExactValue::integer(2048)) == 0);
        if (run.accumulator.id == "fp32")
            QVERIFY(compare(run.result.sum, ExactValue::integer(10000)) == 0);
    }
    // Step 2: the master-weights lab.
    panel->next();
    QCOMPARE(page->currentLab(), ArithmeticPage::Lab::MasterWeights);
    MasterWeightsPanel* weights = page->masterWeightsPanel();
    QCOMPARE(weights->weightText(), QString("1"));
    QCOMPARE(weights->deltaText(), QString("0.0001"));
    QCOMPARE(weights->rows().size(), std::size_t(3));
    for (const MasterWeightRow& row : weights->rows()) // 1e-4 moves 1 only in FP32 (ulp 2^-23)
        QCOMPARE(row.changed, row.spec.id == "fp32");
    // Step 3: the stochastic lab.
    panel->next();
    QCOMPARE(page->currentLab(), ArithmeticPage::Lab::Stochastic);
    StochasticPanel* stochastic = page->stochasticPanel();
    QCOMPARE(stochastic->smallTerm(), QString("0.0001"));
    QCOMPARE(stochastic->smallTermCount(), 1000);
    QVERIFY(stochastic->summary().has_value());
    // Step 4: the bundled example tensor on the Quantization page.
    panel->next();
    QCOMPARE(panel->problems(), QStringList());
    QCOMPARE(window.currentPage(), MainWindow::Page::Quantization);
    QuantizationPage* quantization = window.quantizationPage();
    QVERIFY(quantization->waitUntilIdle(std::chrono::minutes(1)));
    QVERIFY(quantization->result().input);
    const QuantizationResult& result = quantization->result();
    QCOMPARE(QString::fromStdString(result.error), QString());
    QVERIFY2(QString::fromStdString(result.input->description).contains("weights.npy"),
             result.input->description.c_str());
    QCOMPARE(result.input->view.size(), std::size_t(256 * 512));
    QCOMPARE(result.outcomes.size(), std::size_t(2));
}

void TestLessons::menusAndShortcuts() {
    MainWindow window;
    LessonPanel* panel = installLessons(window);
    QStringList titles;
    QAction* openLesson = nullptr;
    for (QAction* action : window.menuBar()->actions()) {
        titles << action->text().remove('&');
        if (action->menu())
            for (QAction* item : action->menu()->actions())
                if (item->text().remove('&') == "Open lesson…" && titles.back() == "File")
                    openLesson = item;
    }
    QVERIFY2(titles.contains("Lessons"), qPrintable(titles.join(',')));
    QVERIFY(titles.indexOf("Lessons") < titles.indexOf("Help"));
    QVERIFY(openLesson);
    QCOMPARE(panel->nextAction()->shortcut(), QKeySequence(Qt::ALT | Qt::Key_PageDown));
    QCOMPARE(panel->previousAction()->shortcut(), QKeySequence(Qt::ALT | Qt::Key_PageUp));
    // Every built-in lesson is in the Lessons menu.
    int listed = 0;
    for (QAction* item : panel->lessonsMenu()->actions())
        for (const BuiltInLesson& builtIn : builtInLessons())
            if (const LessonParse parse = parseLesson(builtIn.text, "built-in");
                parse && item->text() == QString::fromStdString(parse.lesson->title))
                ++listed;
    QCOMPARE(listed, int(builtInLessons().size()));
    // The keys step through the lesson.
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(panel->openFile(lessonPath("rounding-basics.md")), QString());
    QTest::keyClick(&window, Qt::Key_PageDown, Qt::AltModifier);
    QCOMPARE(panel->currentStep(), std::size_t(1));
    QTest::keyClick(&window, Qt::Key_PageUp, Qt::AltModifier);
    QCOMPARE(panel->currentStep(), std::size_t(0));
}

void TestLessons::commandLineLessonAndStep() {
    QTemporaryDir dir;
    const QString shot = dir.filePath("step.png");
    auto run = [&](const QStringList& args) {
        QProcess process;
        process.setProcessEnvironment(offscreen());
        process.start(QStringLiteral(FPX_EXPLORER_PATH), args);
        process.waitForFinished(120000);
        return std::pair{process.exitCode(), QString::fromUtf8(process.readAllStandardError())};
    };
    const QString good = lessonPath("rounding-basics.md");
    auto [code, err] =
        run({"--lesson", good, "--step", "2", "--size", "1600x900", "--screenshot", shot});
    QVERIFY2(code == 0, qPrintable(err));
    QCOMPARE(QImage(shot).size(), QSize(1600, 900));
    std::tie(code, err) = run({"--lesson", good, "--step", "4", "--screenshot", shot});
    QCOMPARE(code, 2);
    QVERIFY2(err.contains("--step: '4' is not a step of this lesson (1 to 3)"), qPrintable(err));
    std::tie(code, err) = run({"--step", "2", "--screenshot", shot});
    QCOMPARE(code, 2);
    QVERIFY(err.contains("--step: only with --lesson"));
    const QString syntax = lessonPath("bad-syntax.md");
    std::tie(code, err) = run({"--lesson", syntax, "--screenshot", shot});
    QCOMPARE(code, 2);
    QVERIFY2(err.contains(syntax + ":12:1: a second action block"), qPrintable(err));
    const QString action = lessonPath("bad-action.md");
    std::tie(code, err) = run({"--lesson", action, "--step", "2", "--screenshot", shot});
    QCOMPARE(code, 1);
    QVERIFY2(err.contains(action + ":16:3: --formats:"), qPrintable(err));
    // The new options work from the command line too.
    std::tie(code, err) =
        run({"--value", "0.1", "--plot", "ulp", "--tab", "details", "--screenshot", shot});
    QVERIFY2(code == 0, qPrintable(err));
    std::tie(code, err) = run({"--tab", "sideways", "--screenshot", shot});
    QCOMPARE(code, 2);
    QVERIFY(err.contains("--tab: use details or plots"));
    std::tie(code, err) = run({"--terms", "0", "--screenshot", shot});
    QCOMPARE(code, 2);
    QVERIFY(err.contains("--terms:"));
    std::tie(code, err) =
        run({"--accumulator", "fp8_e4m3,nf4", "--formats", "fp32,fp16", "--screenshot", shot});
    QCOMPARE(code, 2);
    QVERIFY2(err.contains("--accumulator: fp8_e4m3 is not among the explorer's formats"),
             qPrintable(err));
    std::tie(code, err) = run({"--example", "cats", "--screenshot", shot});
    QCOMPARE(code, 2);
    QVERIFY(err.contains("--example:"));
}

void TestLessons::everyBuiltInLessonStepRenders() {
    // Every file of lessons/ is built in (none left out by the embedding).
    const QStringList files =
        QDir(QStringLiteral(FPX_LESSONS_DIR)).entryList({"*.md"}, QDir::Files, QDir::Name);
    QCOMPARE(int(builtInLessons().size()), int(files.size()));
    const QString shots = qEnvironmentVariable("FPX_LESSON_SHOTS");
    if (!shots.isEmpty())
        QDir().mkpath(shots);
    QTemporaryDir scratch;
    for (int i = 0; i < files.size(); ++i) {
        QCOMPARE(QString::fromUtf8(builtInLessons()[std::size_t(i)].fileName.data(),
                                   qsizetype(builtInLessons()[std::size_t(i)].fileName.size())),
                 files[i]);
        const LessonParse parse = parseLesson(builtInLessons()[std::size_t(i)].text, "built-in");
        QVERIFY2(parse,
                 qPrintable(files[i] + ": " +
                            QString::fromStdString(lessonErrorText("built-in", parse.error))));
        MainWindow window;
        LessonPanel* panel = installLessons(window);
        QCOMPARE(panel->openBuiltIn(QString::fromStdString(parse.lesson->name)), QString());
        for (std::size_t k = 0; k < panel->stepCount(); ++k) {
            QVERIFY(panel->showStep(k));
            const QString where = QString("%1 step %2").arg(files[i]).arg(k + 1);
            const QStringList problems = panel->problems();
            QVERIFY2(problems.isEmpty(), qPrintable(where + ": " + problems.join("; ")));
            const QString file =
                (shots.isEmpty() ? scratch.path() : shots) +
                QString("/%1-step%2.png").arg(QFileInfo(files[i]).baseName()).arg(k + 1);
            QCOMPARE(renderScreenshot(window, "1600x900", false, file), QString());
            QCOMPARE(QImage(file).size(), QSize(1600, 900));
            QVERIFY2(panel->isVisible(), qPrintable(where));
            QVERIFY2(!panel->proseView()->toPlainText().trimmed().isEmpty(), qPrintable(where));
        }
    }
}

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
