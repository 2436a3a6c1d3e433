// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/screenshot.h"

#include "common/page.h"
#include "pages/benchmarks/benchmarks_chart.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "shell/main_window.h"

#include <QApplication>
#include <QPixmap>
#include <QSaveFile>

#include <chrono>

namespace fpx::gui {

namespace {

// Generous limits: a screenshot that waits for ever would hang a documentation script.
constexpr std::chrono::milliseconds kPageWait{60'000};
constexpr std::chrono::milliseconds kBenchmarkWait{600'000};

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
    // The explorer's plot, then the page shown; a benchmark run waits longer.
    window.hostedPage(MainWindow::Page::Explorer)->waitUntilIdle(kPageWait);
    const MainWindow::Page shown = window.currentPage();
    if (shown != MainWindow::Page::Benchmarks)
        window.hostedPage(shown)->waitUntilIdle(kPageWait);
    if (waitForBenchmark)
        window.hostedPage(MainWindow::Page::Benchmarks)->waitUntilIdle(kBenchmarkWait);
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
