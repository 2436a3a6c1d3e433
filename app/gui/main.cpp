// SPDX-License-Identifier: GPL-3.0-or-later
// fpx-explorer: the desktop front end of the exact number-format core.
#include "bench/bench_controller.h"
#include "bench/benchmarks_chart.h"
#include "bench/benchmarks_panel.h"
#include "main_window.h"
#include "models/explorer_controller.h"
#include "widgets/plots_panel.h"

#include "fpx/format_catalogue.h"
#include "fpx/rounding.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QSettings>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("fpx-explorer");
    QApplication::setOrganizationName("fpx");
    QApplication::setApplicationVersion(FPX_VERSION);
    QApplication::setWindowIcon(QIcon(":/fpx.svg"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Every number format, exactly: a value seen in FP64 … FP4, INT8 and NF4 at once.");
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption value("value", "Start with VALUE in the value field.", "VALUE");
    const QCommandLineOption formats(
        "formats", "Show these formats, comma-separated (ids, aliases or specs like e4m3b11fnuz).",
        "LIST");
    const QCommandLineOption round("round", "Rounding mode: rne, rna, rtz, rup, rdn, sr or rto.",
                                   "MODE");
    const QCommandLineOption overflow("overflow", "Overflow policy: ieee or saturate.", "POLICY");
    const QCommandLineOption select("select", "Select the row of FORMAT (its detail panel shows).",
                                    "FORMAT");
    const QCommandLineOption plot(
        "plot", "Show the Plots tab with KIND: error, ulp, range, values or memory.", "KIND");
    const QCommandLineOption screenshot(
        "screenshot", "Render the window to FILE (PNG) and exit; works offscreen.", "FILE");
    const QCommandLineOption size("size", "Window size for --screenshot, WIDTHxHEIGHT.", "SIZE",
                                  "1600x900");
    const QCommandLineOption noSettings("no-settings",
                                        "Neither read nor write the remembered state.");
    const QCommandLineOption page("page", "Open on PAGE: explorer or benchmarks.", "PAGE");
    const QCommandLineOption benchRun(
        "bench-run", "Start a benchmark with the Benchmarks page's settings (with --screenshot: "
                     "wait for it to finish).");
    const QCommandLineOption benchFormats("bench-formats",
                                          "Formats to benchmark, comma-separated ids.", "LIST");
    const QCommandLineOption benchBudget("bench-budget", "Seconds per benchmark measurement.",
                                         "SECONDS");
    const QCommandLineOption benchSizes(
        "bench-sizes",
        "Array sizes to benchmark, in elements: 4k,1M,… (instead of in cache and "
        "beyond the last-level cache).",
        "LIST");
    const QCommandLineOption benchCompare(
        "bench-compare", "Compare the benchmarks with a run saved as JSON.", "FILE");
    parser.addOptions({value, formats, round, overflow, select, plot, screenshot, size, noSettings,
                       page, benchRun, benchFormats, benchBudget, benchSizes, benchCompare});
    parser.process(app);

    auto fail = [](const QString& message) {
        std::fprintf(stderr, "fpx-explorer: %s\n", qPrintable(message));
        return 2;
    };
    const bool persistent = !parser.isSet(noSettings) && !parser.isSet(screenshot);
    QSettings settings;
    fpx::gui::MainWindow window(persistent ? &settings : nullptr);
    fpx::gui::ExplorerController* controller = window.controller();
    if (parser.isSet(formats)) {
        const fpx::FormatListLookup lookup = fpx::findFormats(parser.value(formats).toStdString());
        if (!lookup.error.empty())
            return fail("--formats: " + QString::fromStdString(lookup.error));
        controller->setFormats(lookup.specs);
    }
    if (parser.isSet(round)) {
        const auto mode = fpx::parseRoundingMode(parser.value(round).toStdString());
        if (!mode)
            return fail("--round: unknown rounding mode '" + parser.value(round) + "'");
        controller->setRoundingMode(*mode);
    }
    if (parser.isSet(overflow)) {
        const auto policy = fpx::parseOverflowPolicy(parser.value(overflow).toStdString());
        if (!policy)
            return fail("--overflow: unknown policy '" + parser.value(overflow) + "'");
        controller->setOverflowPolicy(*policy);
    }
    if (parser.isSet(value)) {
        controller->setInputText(parser.value(value));
        if (!controller->inputError().isEmpty() && parser.isSet(screenshot))
            return fail("--value: " + controller->inputError());
    }
    if (parser.isSet(select)) {
        const auto rows = controller->rows();
        const fpx::FormatLookup wanted = fpx::findFormat(parser.value(select).toStdString());
        for (std::size_t i = 0; wanted && i < rows.size(); ++i)
            if (rows[i].spec.id == wanted.spec->id)
                window.selectRow(static_cast<int>(i));
    }

    if (parser.isSet(plot)) {
        const auto kind = fpx::plots::parsePlotKind(parser.value(plot));
        if (!kind)
            return fail("--plot: unknown plot '" + parser.value(plot) +
                        "' (use error, ulp, range, values or memory)");
        window.showLowerTab(1);
        window.plotsPanel()->setKind(*kind);
    }

    fpx::gui::BenchmarksPanel* bench = window.benchmarksPanel();
    if (parser.isSet(page)) {
        if (parser.value(page) == "benchmarks")
            window.showPage(fpx::gui::MainWindow::Page::Benchmarks);
        else if (parser.value(page) == "explorer")
            window.showPage(fpx::gui::MainWindow::Page::Explorer);
        else
            return fail("--page: use explorer or benchmarks");
    }
    if (parser.isSet(benchFormats)) {
        const fpx::FormatListLookup lookup =
            fpx::findFormats(parser.value(benchFormats).toStdString());
        if (!lookup.error.empty())
            return fail("--bench-formats: " + QString::fromStdString(lookup.error));
        QStringList ids;
        for (const fpx::FormatSpec& spec : lookup.specs)
            ids << QString::fromStdString(spec.id);
        bench->setFormats(ids);
    }
    if (parser.isSet(benchBudget)) {
        const double seconds = parser.value(benchBudget).toDouble();
        if (!(seconds >= 0.01 && seconds <= 60))
            return fail("--bench-budget: expected seconds, 0.01 to 60");
        bench->setBudget(seconds);
    }
    if (parser.isSet(benchSizes)) {
        QString error;
        if (!fpx::gui::BenchmarksPanel::parseSizes(parser.value(benchSizes), &error))
            return fail("--bench-sizes: " + error);
        bench->setSizes(false, false, parser.value(benchSizes));
    }
    if (parser.isSet(benchCompare)) {
        QString error;
        bench->setMessageSink([&error](const QString&, const QString& text) { error = text; });
        const bool loaded = bench->loadComparison(parser.value(benchCompare));
        bench->setMessageSink({});
        if (!loaded)
            return fail("--bench-compare: " + error);
    }
    if (parser.isSet(benchRun)) {
        window.showPage(fpx::gui::MainWindow::Page::Benchmarks);
        bench->run();
    }

    if (parser.isSet(screenshot)) {
        const QStringList wh = parser.value(size).split('x');
        const int width = wh.value(0).toInt();
        const int height = wh.value(1).toInt();
        if (width < 200 || height < 200)
            return fail("--size: expected WIDTHxHEIGHT, e.g. 1600x900");
        window.resize(width, height);
        window.show();
        QApplication::processEvents();
        // Plots are computed off the GUI thread: wait for the last one before grabbing.
        if (window.plotsPanel()->isComputing()) {
            QEventLoop loop;
            QObject::connect(window.plotsPanel(), &fpx::gui::PlotsPanel::plotReady, &loop,
                             &QEventLoop::quit);
            QTimer::singleShot(60000, &loop, &QEventLoop::quit);
            loop.exec();
        }
        // A benchmark asked for runs to its end first.
        if (parser.isSet(benchRun)) {
            QEventLoop loop;
            QTimer poll;
            QObject::connect(&poll, &QTimer::timeout, &loop, [&loop, bench] {
                if (bench->controller()->backendsLoaded() && !bench->controller()->isRunning())
                    loop.quit();
            });
            poll.start(100);
            QTimer::singleShot(600000, &loop, &QEventLoop::quit);
            loop.exec();
        }
        QApplication::processEvents();
        if (window.currentPage() == fpx::gui::MainWindow::Page::Benchmarks)
            bench->chart()->refresh(); // at the window's final size
        const QPixmap shot = window.grab();
        if (!shot.save(parser.value(screenshot), "PNG"))
            return fail("cannot write " + parser.value(screenshot));
        return 0;
    }
    window.show();
    return QApplication::exec();
}
