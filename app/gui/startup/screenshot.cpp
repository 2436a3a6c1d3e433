// SPDX-License-Identifier: GPL-3.0-or-later
#include "startup/screenshot.h"

#include "arithmetic/arithmetic_page.h"
#include "bench/bench_controller.h"
#include "bench/benchmarks_chart.h"
#include "bench/benchmarks_panel.h"
#include "main_window.h"
#include "quantization/quantization_page.h"
#include "training/training_page.h"
#include "widgets/plots_panel.h"

#include <QApplication>
#include <QEventLoop>
#include <QPixmap>
#include <QSaveFile>
#include <QTimer>

namespace fpx::gui {

namespace {

// Generous limits: a screenshot that waits for ever would hang a documentation script.
constexpr int kPlotWaitMs = 60'000;
constexpr int kBenchmarkWaitMs = 600'000;

void waitForPlot(PlotsPanel* plots) {
    if (!plots->isComputing())
        return;
    QEventLoop loop;
    QObject::connect(plots, &PlotsPanel::plotReady, &loop, &QEventLoop::quit);
    QTimer::singleShot(kPlotWaitMs, &loop, &QEventLoop::quit);
    loop.exec();
}

void waitForArithmetic(ArithmeticPage* page) {
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&loop, page] {
        if (!page->isComputing())
            loop.quit();
    });
    poll.start(50);
    QTimer::singleShot(kPlotWaitMs, &loop, &QEventLoop::quit);
    loop.exec();
}

void waitForQuantization(QuantizationPage* page) {
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&loop, page] {
        if (!page->isRunning())
            loop.quit();
    });
    poll.start(50);
    QTimer::singleShot(kBenchmarkWaitMs, &loop, &QEventLoop::quit);
    loop.exec();
}

void waitForTraining(TrainingPage* page) {
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&loop, page] {
        if (!page->isBusy())
            loop.quit();
    });
    poll.start(50);
    QTimer::singleShot(kBenchmarkWaitMs, &loop, &QEventLoop::quit);
    loop.exec();
}

void waitForBenchmarkRun(BenchmarksPanel* bench) {
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&loop, bench] {
        if (bench->controller()->backendsLoaded() && !bench->controller()->isRunning())
            loop.quit();
    });
    poll.start(100);
    QTimer::singleShot(kBenchmarkWaitMs, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace

QString renderScreenshot(MainWindow& window, const QString& size, bool waitForBenchmark,
                         const QString& file) {
    const QStringList wh = size.split('x');
    const int width = wh.value(0).toInt();
    const int height = wh.value(1).toInt();
    if (wh.size() != 2 || width < 200 || height < 200)
        return "--size: expected WIDTHxHEIGHT, each at least 200, e.g. 1600x900";
    window.controller()->waitForIdle(); // the rows of the value asked for, not of the last one
    window.resize(width, height);
    window.show();
    QApplication::processEvents();
    waitForPlot(window.plotsPanel());
    if (window.currentPage() == MainWindow::Page::Arithmetic)
        waitForArithmetic(window.arithmeticPage());
    if (window.currentPage() == MainWindow::Page::Quantization)
        waitForQuantization(window.quantizationPage());
    if (window.currentPage() == MainWindow::Page::Training)
        waitForTraining(window.trainingPage());
    if (waitForBenchmark)
        waitForBenchmarkRun(window.benchmarksPanel());
    QApplication::processEvents();
    if (window.currentPage() == MainWindow::Page::Benchmarks)
        window.benchmarksPanel()->chart()->refresh(); // at the window's final size
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || !window.grab().save(&out, "PNG") || !out.commit())
        return "cannot write " + file +
               (out.errorString().isEmpty() ? "" : ": " + out.errorString());
    return {};
}

} // namespace fpx::gui
