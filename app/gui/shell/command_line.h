// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"
#include "pages/arithmetic/arithmetic_page_state.h"
#include "pages/benchmarks/benchmarks_page_state.h"
#include "pages/explorer/explorer_page_state.h"
#include "pages/machines/machines_page_state.h"
#include "pages/quantization/quantization_page_state.h"
#include "pages/training/training_page_state.h"
#include "shell/main_window.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>

#include <optional>
#include <set>
#include <vector>

namespace fpx::gui {

// The window's own state as options set it: the page shown, the zoom, presentation mode.
struct WindowState {
    std::optional<MainWindow::Page> page;
    std::optional<int> zoomPercent;
    bool presentation = false;
};

// The options about the program rather than the window's state (a screenshot and its size, the
// remembered settings, a lesson to open): the command line's only, never a lesson's.
struct ProgramOptions {
    QCommandLineOption screenshot{
        "screenshot", "Render the window to FILE (PNG) and exit; works offscreen.", "FILE"};
    QCommandLineOption size{"size", "Window size for --screenshot, WIDTHxHEIGHT.", "SIZE",
                            "1600x900"};
    QCommandLineOption noSettings{"no-settings", "Neither read nor write the remembered state."};
    QCommandLineOption lesson{"lesson",
                              "Open the Lessons panel with a lesson: a built-in one's NAME or a "
                              "lesson FILE (.md).",
                              "NAME|FILE"};
    QCommandLineOption step{"step", "With --lesson: show step K (from 1).", "K"};
    QCommandLineOption slides{"slides", "With --lesson: start in slide mode (F6), one step per "
                                        "screen, full screen with large type."};

    // These options and every page's (PageStates::addOptionsTo).
    void addTo(QCommandLineParser& parser) const;
    bool owns(const QString& key) const;
    // Whether the window may read and write the remembered state: not for screenshots, which
    // must look the same on every machine.
    bool persistent(const QCommandLineParser& parser) const;
};

// One `key VALUE` the command line or a lesson action gives (no "--"; VALUE empty for a flag).
struct OptionSetting {
    QString key;
    QString text;
    bool hasValue = true; // false: `key` alone, as a flag is given
};

// The window's state as the command line and lessons describe it: each key set in the typed
// state of the page whose option table holds it (docs/architecture.md, "Page options"), then
// applied page by page. A key several pages hold (--formats, --dist, --select …) goes to the
// page --page names when that page holds it, otherwise to the first page that does, in the
// window's page order.
class PageStates {
  public:
    enum class Source { CommandLine, Lesson };
    explicit PageStates(Source source) : source_(source) {}

    // Every page's options and the window's, for --help: a key several pages hold has one
    // option whose help says what it means on each.
    static void addOptionsTo(QCommandLineParser& parser);
    // The settings the parser holds, in the order given (the program's options left out).
    static std::vector<OptionSetting> settingsOf(const QCommandLineParser& parser);

    // Sets each setting (--page first, since it routes the others); one problem per setting,
    // "--key: what is wrong" or empty, in the settings' order.
    std::vector<QString> set(const std::vector<OptionSetting>& settings);

    // Applies every page's state in the window's page order, each page shown first when --page
    // names it or, without --page, when an option opening it was set (so of several, the last
    // in page order stays shown); then the zoom and presentation mode. The first problem as
    // "--key: what is wrong", or an empty string.
    QString apply(MainWindow& window) const;

  private:
    QString setOne(const OptionSetting& setting);
    // Calls visit(page, its option table, its pending state) for each page, in page order.
    template <typename Visit> void visitPages(Visit&& visit);

    Source source_;
    WindowState window_;
    ExplorerPageState explorer_;
    BenchmarksPageState benchmarks_;
    ArithmeticPageState arithmetic_;
    QuantizationPageState quantization_;
    TrainingPageState training_;
    MachinesPageState machines_;
    std::set<MainWindow::Page> opened_; // the pages an option set opens
};

} // namespace fpx::gui
