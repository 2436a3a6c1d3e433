// SPDX-License-Identifier: GPL-3.0-or-later
// Every step of every built-in lesson as a lecture hall sees it: a 1024 × 768 projector (the
// offscreen platform's screen comes from tests/data/screens/lecture-hall-1024x768.json), the
// window filling the screen, at 100 % and 150 % zoom and in presentation mode (F5). Each step
// is shown four ways: by Next from step 1, by Previous from the last step, by --step K in a new
// window, and after another lesson in a window that has shown every lesson before it. For each
// the test fails on a window larger than the screen, on a problem of the step's actions, on
// something the step's `show` action names that is not on screen whole, and on two renders of
// one step that differ by a pixel (the lesson's state leaked from whatever came before).
// FPX_LESSON_SHOTS=DIR keeps each render, and both renders of a step that differ, as PNGs.
#include "common/page.h"
#include "common/zoom.h"
#include "shell/lesson_panel.h"
#include "shell/lesson_runner.h"
#include "shell/main_window.h"
#include "shell/presentation_mode.h"

#include "fpx/lesson/lesson.h"

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QRegularExpression>
#include <QScreen>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <chrono>
#include <memory>
#include <vector>

using namespace fpx;
using namespace fpx::gui;

namespace {

constexpr QSize kScreen{1024, 768};
constexpr std::chrono::milliseconds kWait{60'000};

enum class Mode { Zoom100, Zoom150, Presentation };

QString modeName(Mode mode) {
    switch (mode) {
    case Mode::Zoom100:
        return "100 %";
    case Mode::Zoom150:
        return "150 %";
    case Mode::Presentation:
        return "presentation";
    }
    return {};
}

struct Window {
    std::unique_ptr<MainWindow> main;
    LessonPanel* panel = nullptr;
};

// A window as a lecturer has it: filling the projector's screen, at the mode's zoom.
Window openWindow(Mode mode) {
    Window w;
    w.main = std::make_unique<MainWindow>();
    w.panel = installLessons(*w.main);
    const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
    w.main->setGeometry(available);
    w.main->show();
    if (mode == Mode::Zoom150)
        w.main->zoom()->setPercent(150);
    if (mode == Mode::Presentation)
        w.main->presentation()->setActive(true);
    QApplication::processEvents();
    return w;
}

// The step shown, once every page's work for it is done and the window is laid out.
QImage settle(MainWindow& window) {
    for (int round = 0; round < 3; ++round) {
        window.hostedPage(MainWindow::Page::Explorer)->waitUntilIdle(kWait);
        window.hostedPage(window.currentPage())->waitUntilIdle(kWait);
        QApplication::processEvents();
        QTest::qWait(20);
    }
    // Where the keyboard focus is (a caret, a focus frame) is where the user left it, not the
    // step's state.
    if (QWidget* focused = QApplication::focusWidget())
        focused->clearFocus();
    QImage image = window.grab().toImage();
    // What says how long the last update took, and the clear button of the value field (it
    // fades in over a few frames), differ from one render to the next whatever the state.
    QPainter painter(&image);
    auto blank = [&](const QWidget* widget) {
        if (widget && widget->isVisible())
            painter.fillRect(QRect(widget->mapTo(&window, QPoint(0, 0)), widget->size()),
                             Qt::black);
    };
    blank(window.statusBar());
    for (const QToolButton* button : window.valueEdit()->findChildren<QToolButton*>())
        blank(button);
    return image;
}

struct Render {
    QImage image;
    QString how;
};

} // namespace

class TestLessonSteps : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void everyStepFitsShowsWhatItNamesAndLooksTheSame_data();
    void everyStepFitsShowsWhatItNamesAndLooksTheSame();

  private:
    // Fails unless the window shows step `k` of its lesson as it must.
    void check(Window& w, std::size_t k, const QString& where);
    void compare(const Render& a, const Render& b, const QString& where, const QWidget& window);

    QString shots_;
    QTemporaryDir scratch_;
};

void TestLessonSteps::initTestCase() {
    // No caret blinking between two renders of one step.
    QApplication::setCursorFlashTime(0);
    const QScreen* screen = QGuiApplication::primaryScreen();
    QVERIFY2(screen->size() == kScreen,
             qPrintable(QString("the test needs the 1024 × 768 screen of its configuration "
                                "file, not %1 × %2: run it through ctest")
                            .arg(screen->size().width())
                            .arg(screen->size().height())));
    shots_ = qEnvironmentVariable("FPX_LESSON_SHOTS");
    if (!shots_.isEmpty())
        QDir().mkpath(shots_);
}

void TestLessonSteps::everyStepFitsShowsWhatItNamesAndLooksTheSame_data() {
    QTest::addColumn<Mode>("mode");
    QTest::newRow("100 %") << Mode::Zoom100;
    QTest::newRow("150 %") << Mode::Zoom150;
    QTest::newRow("presentation") << Mode::Presentation;
}

void TestLessonSteps::check(Window& w, std::size_t k, const QString& where) {
    const QStringList problems = w.panel->problems();
    QVERIFY2(problems.isEmpty(), qPrintable(where + ": " + problems.join("; ")));
    const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
    const QRect frame = w.main->frameGeometry();
    QVERIFY2(available.contains(frame),
             qPrintable(QString("%1: the window is %2 × %3 at (%4, %5), larger than the "
                                "%6 × %7 screen")
                            .arg(where)
                            .arg(frame.width())
                            .arg(frame.height())
                            .arg(frame.x())
                            .arg(frame.y())
                            .arg(available.width())
                            .arg(available.height())));
    const QStringList hidden = LessonRunner(*w.main).hiddenTargets(*w.panel->lesson(), k);
    QVERIFY2(hidden.isEmpty(), qPrintable(where + ": " + hidden.join("; ")));
}

// Where two renders of one step differ, and the widget there, to say what leaked.
QString difference(const QImage& a, const QImage& b, const QWidget& window) {
    if (a.size() != b.size())
        return QString("sizes %1 × %2 and %3 × %4")
            .arg(a.width())
            .arg(a.height())
            .arg(b.width())
            .arg(b.height());
    QRect box;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (a.pixel(x, y) != b.pixel(x, y))
                box |= QRect(x, y, 1, 1);
    QStringList path;
    for (const QWidget* w = window.childAt(box.center()); w && w != &window; w = w->parentWidget())
        if (!w->objectName().isEmpty())
            path.prepend(w->objectName());
        else if (path.isEmpty())
            path.prepend(w->metaObject()->className());
    return QString("pixels in %1 × %2 at (%3, %4), in %5")
        .arg(box.width())
        .arg(box.height())
        .arg(box.x())
        .arg(box.y())
        .arg(path.join(" / "));
}

void TestLessonSteps::compare(const Render& a, const Render& b, const QString& where,
                              const QWidget& window) {
    if (a.image == b.image)
        return;
    const QString folder = shots_.isEmpty() ? scratch_.path() : shots_;
    const QString stem =
        folder + "/" + QString(where).replace(QRegularExpression("[^a-z0-9]+"), "-");
    a.image.save(stem + "-" + a.how + ".png");
    b.image.save(stem + "-" + b.how + ".png");
    QFAIL(qPrintable(QString("%1 looks different %2 and %3: %4 (both kept as %5-*.png)")
                         .arg(where, a.how, b.how, difference(a.image, b.image, window), stem)));
}

void TestLessonSteps::everyStepFitsShowsWhatItNamesAndLooksTheSame() {
    QFETCH(Mode, mode);
    std::vector<Lesson> lessons;
    // FPX_LESSONS=NAME,NAME narrows the run to some lessons while one is being worked on.
    const QStringList only = qEnvironmentVariable("FPX_LESSONS").split(',', Qt::SkipEmptyParts);
    for (const BuiltInLesson& builtIn : builtInLessons()) {
        const LessonParse parse = parseLesson(builtIn.text, "built-in");
        QVERIFY(parse);
        if (only.isEmpty() || only.contains(QString::fromStdString(parse.lesson->name)))
            lessons.push_back(*parse.lesson);
    }
    Window traveller = openWindow(mode); // has shown every lesson before the one it shows
    for (const Lesson& lesson : lessons) {
        const QString name = QString::fromStdString(lesson.name);
        const std::size_t count = lesson.steps.size();
        std::vector<Render> byNext(count), byPrevious(count);
        {
            Window w = openWindow(mode);
            QCOMPARE(w.panel->openBuiltIn(name), QString());
            for (std::size_t k = 0; k < count; ++k) {
                if (k > 0)
                    w.panel->next();
                QCOMPARE(w.panel->currentStep(), k);
                byNext[k] = {settle(*w.main), "by-next"};
                const QString where =
                    QString("%1 step %2 at %3 by Next").arg(name).arg(k + 1).arg(modeName(mode));
                check(w, k, where);
                if (!shots_.isEmpty())
                    byNext[k].image.save(
                        QString("%1/%2-%3-step%4.png")
                            .arg(shots_, QString(modeName(mode)).remove(" %"), name)
                            .arg(k + 1));
            }
            for (std::size_t k = count - 1; k-- > 0;) {
                w.panel->previous();
                byPrevious[k] = {settle(*w.main), "by-previous"};
                check(w, k,
                      QString("%1 step %2 at %3 by Previous")
                          .arg(name)
                          .arg(k + 1)
                          .arg(modeName(mode)));
                compare(byNext[k], byPrevious[k],
                        QString("%1 step %2 at %3").arg(name).arg(k + 1).arg(modeName(mode)),
                        *w.main);
            }
        }
        for (std::size_t k = 0; k < count; ++k) {
            const QString where =
                QString("%1 step %2 at %3").arg(name).arg(k + 1).arg(modeName(mode));
            Window w = openWindow(mode);
            QCOMPARE(w.panel->openBuiltIn(name), QString());
            QVERIFY(w.panel->showStep(k));
            const Render direct{settle(*w.main), "by-step"};
            check(w, k, where + " by --step");
            compare(byNext[k], direct, where, *w.main);

            QCOMPARE(traveller.panel->openBuiltIn(name), QString());
            QVERIFY(traveller.panel->showStep(k));
            const Render after{settle(*traveller.main), "after-other-lessons"};
            check(traveller, k, where + " after other lessons");
            compare(byNext[k], after, where, *traveller.main);
        }
    }
}

QTEST_MAIN(TestLessonSteps)
#include "tst_lesson_steps.moc"
