// SPDX-License-Identifier: GPL-3.0-or-later
// fpx-explorer: the desktop front end of the exact number-format core.
#include "main_window.h"
#include "quantization/quantization_page.h"
#include "startup/command_line.h"
#include "startup/screenshot.h"
#include "training/training_page.h"

#include <QApplication>
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
    const fpx::gui::ExplorerCommandLine options;
    options.addTo(parser);
    parser.process(app);

    auto fail = [](const QString& message) {
        std::fprintf(stderr, "fpx-explorer: %s\n", qPrintable(message));
        return 2;
    };
    QSettings settings;
    fpx::gui::MainWindow window(options.persistent(parser) ? &settings : nullptr);
    if (QString error = fpx::gui::applyExplorerOptions(parser, options, window); !error.isEmpty())
        return fail(error);
    if (QString error = fpx::gui::applyBenchmarkOptions(parser, options, window); !error.isEmpty())
        return fail(error);
    if (QString error = fpx::gui::applyArithmeticOptions(parser, options, window); !error.isEmpty())
        return fail(error);
    if (QString error = fpx::gui::applyQuantizationOptions(parser, options, window);
        !error.isEmpty())
        return fail(error);
    if (QString error = fpx::gui::applyTrainingOptions(parser, options, window); !error.isEmpty())
        return fail(error);
    if (QString error = fpx::gui::applyPresentationOptions(parser, options, window);
        !error.isEmpty())
        return fail(error);

    if (parser.isSet(options.screenshot)) {
        const QString error = fpx::gui::renderScreenshot(window, parser.value(options.size),
                                                         parser.isSet(options.benchRun),
                                                         parser.value(options.screenshot));
        if (!error.isEmpty())
            return fail(error);
        // The page shows a bad tensor file's message; a script must hear of it too.
        using Page = fpx::gui::MainWindow::Page;
        const QString pageError =
            window.currentPage() == Page::Quantization ? window.quantizationPage()->errorText()
            : window.currentPage() == Page::Training   ? window.trainingPage()->errorText()
                                                       : QString();
        if (!pageError.isEmpty()) {
            std::fprintf(stderr, "fpx-explorer: %s\n", qPrintable(pageError));
            return 1;
        }
        return 0;
    }
    window.show();
    return QApplication::exec();
}
