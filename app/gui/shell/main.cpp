// SPDX-License-Identifier: GPL-3.0-or-later
// fpx-explorer: the desktop front end of the exact number-format core.
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/arithmetic/expression_panel.h"
#include "pages/explorer/explorer_history.h"
#include "pages/machines/machines_page.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/training_page.h"
#include "shell/command_line.h"
#include "shell/lesson_panel.h"
#include "shell/main_window.h"
#include "shell/screenshot.h"
#include "shell/slide_mode.h"

#include <QApplication>
#include <QMessageBox>
#include <QSettings>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("fpx-explorer");
    QApplication::setOrganizationName("fpx");
    QApplication::setApplicationVersion(FPX_VERSION);
    QApplication::setWindowIcon(QIcon(":/fpx.svg"));
    QGuiApplication::setDesktopFileName("fpx-explorer"); // matches the installed .desktop file

    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Every number format, exactly: a value seen in FP64 … FP4, INT8 and NF4 at once.");
    parser.addHelpOption();
    parser.addVersionOption();
    const fpx::gui::ProgramOptions options;
    options.addTo(parser);
    parser.process(app);

    auto fail = [](const QString& message) {
        std::fprintf(stderr, "fpx-explorer: %s\n", qPrintable(message));
        return 2;
    };
    QSettings settings;
    fpx::gui::MainWindow window(options.persistent(parser) ? &settings : nullptr);
    const bool screenshot = parser.isSet(options.screenshot);
    {
        using fpx::gui::PageStates;
        PageStates states(PageStates::Source::CommandLine);
        for (const QString& problem : states.set(PageStates::settingsOf(parser)))
            if (!problem.isEmpty())
                return fail(problem);
        if (QString error = states.apply(window); !error.isEmpty())
            return fail(error);
        // Interactively the value and expression fields show their message; a screenshot
        // would hide it.
        const QString valueError = window.controller()->inputError();
        const QString exprError = window.arithmeticPage()->expressionPanel()->inputError();
        if (screenshot && parser.isSet("value") && !valueError.isEmpty())
            return fail("--value: " + valueError);
        if (screenshot && parser.isSet("expr") && !exprError.isEmpty())
            return fail("--expr: " + exprError);
    }

    fpx::gui::LessonPanel* lessons = fpx::gui::installLessons(window);
    QString lessonError; // interactively a message box, once the window shows
    if (parser.isSet(options.step) && !parser.isSet(options.lesson))
        return fail("--step: only with --lesson");
    if (parser.isSet(options.lesson)) {
        lessonError = lessons->openNameOrFile(parser.value(options.lesson));
        if (!lessonError.isEmpty() && screenshot)
            return fail(lessonError);
        if (lessonError.isEmpty() && parser.isSet(options.step)) {
            bool ok = false;
            const int step = parser.value(options.step).toInt(&ok);
            if (!ok || step < 1 || std::size_t(step) > lessons->stepCount())
                return fail(QString("--step: '%1' is not a step of this lesson (1 to %2)")
                                .arg(parser.value(options.step))
                                .arg(lessons->stepCount()));
            lessons->showStep(std::size_t(step - 1));
        }
    }
    if (parser.isSet(options.slides)) {
        if (!parser.isSet(options.lesson))
            return fail("--slides: only with --lesson");
        if (lessonError.isEmpty())
            window.findChild<fpx::gui::SlideMode*>()->setActive(true);
    }

    // Undo starts from what the command line and the lesson set up.
    window.history()->clear();

    if (parser.isSet(options.screenshot)) {
        const QString error =
            fpx::gui::renderScreenshot(window, parser.value(options.size),
                                       parser.isSet("bench-run"), parser.value(options.screenshot));
        if (!error.isEmpty())
            return fail(error);
        // The page shows a bad tensor file's message; a script must hear of it too.
        using Page = fpx::gui::MainWindow::Page;
        const QString pageError =
            window.currentPage() == Page::Quantization ? window.quantizationPage()->errorText()
            : window.currentPage() == Page::Training   ? window.trainingPage()->errorText()
            : window.currentPage() == Page::Machines   ? window.machinesPage()->errorText()
                                                       : QString();
        if (!pageError.isEmpty()) {
            std::fprintf(stderr, "fpx-explorer: %s\n", qPrintable(pageError));
            return 1;
        }
        // A lesson step's problems, one a line as FILE:LINE:COLUMN: …, for lesson authors.
        for (const QString& problem : lessons->problems())
            std::fprintf(stderr, "%s\n", qPrintable(problem));
        return lessons->problems().isEmpty() ? 0 : 1;
    }
    window.show();
    if (!lessonError.isEmpty())
        QMessageBox::warning(&window, QObject::tr("Lesson"), lessonError);
    return QApplication::exec();
}
