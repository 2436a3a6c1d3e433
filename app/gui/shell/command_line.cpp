// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/command_line.h"

#include "common/zoom.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "pages/explorer/explorer_page.h"
#include "pages/machines/machines_page.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/training_page.h"
#include "shell/presentation_mode.h"

#include <QMap>

#include <array>
#include <functional>

namespace fpx::gui {
namespace {

using WindowOption = PageOption<WindowState>;

std::optional<MainWindow::Page> parsePage(const QString& text) {
    using Page = MainWindow::Page;
    if (text == "explorer")
        return Page::Explorer;
    if (text == "benchmarks")
        return Page::Benchmarks;
    if (text == "arithmetic")
        return Page::Arithmetic;
    if (text == "quantize" || text == "quantization")
        return Page::Quantization;
    if (text == "training")
        return Page::Training;
    if (text == "machines")
        return Page::Machines;
    return std::nullopt;
}

const std::array kWindowOptions{
    WindowOption{"page", "PAGE",
                 "Open on PAGE: explorer, benchmarks, arithmetic, quantize, training or machines.",
                 [](const QString& text, WindowState& state) {
                     state.page = parsePage(text);
                     return state.page ? QString()
                                       : QStringLiteral("use explorer, benchmarks, arithmetic, "
                                                        "quantize, training or machines");
                 }},
    WindowOption{"zoom", "PERCENT",
                 "Zoom fonts, bit cells and plots to PERCENT (50 … 300; 100 is actual size).",
                 [](const QString& text, WindowState& state) {
                     QString error;
                     state.zoomPercent =
                         wholeNumberIn(QString(text).remove('%'), ZoomController::kMinPercent,
                                       ZoomController::kMaxPercent, error);
                     return state.zoomPercent
                                ? QString()
                                : QStringLiteral("expected a percentage from %1 to %2, got '%3'")
                                      .arg(ZoomController::kMinPercent)
                                      .arg(ZoomController::kMaxPercent)
                                      .arg(text);
                 }},
    WindowOption{"presentation", nullptr,
                 "Start in presentation mode: full screen, large type, no menu bar.",
                 [](const QString&, WindowState& state) {
                     state.presentation = true;
                     return QString();
                 },
                 OpensPage::No, OptionUse::CommandLineOnly},
};

// A key's option in one table, with what the shell needs to route and check it.
struct Found {
    const char* valueName = nullptr;
    OpensPage opensPage = OpensPage::No;
    OptionUse use = OptionUse::Anywhere;
    // Sets the field; null when the table does not hold the key.
    std::function<QString(const QString&)> set;
};

template <typename State>
Found find(std::span<const PageOption<State>> table, const QString& key, State& state) {
    const PageOption<State>* option = findOption(table, key);
    if (!option)
        return {};
    return {option->valueName, option->opensPage, option->use,
            [option, &state](const QString& text) { return option->set(text, state); }};
}

} // namespace

void ProgramOptions::addTo(QCommandLineParser& parser) const {
    parser.addOptions({screenshot, size, noSettings, lesson, step, slides});
    PageStates::addOptionsTo(parser);
}

bool ProgramOptions::owns(const QString& key) const {
    for (const QCommandLineOption* option :
         {&screenshot, &size, &noSettings, &lesson, &step, &slides})
        if (option->names().contains(key))
            return true;
    return key == "help" || key == "help-all" || key == "version";
}

bool ProgramOptions::persistent(const QCommandLineParser& parser) const {
    return !parser.isSet(noSettings) && !parser.isSet(screenshot);
}

// Calls `visit(page, table, state)` for each page in the window's page order.
template <typename Visit> void PageStates::visitPages(Visit&& visit) {
    using Page = MainWindow::Page;
    visit(Page::Explorer, ExplorerPage::options(), explorer_);
    visit(Page::Benchmarks, BenchmarksPanel::options(), benchmarks_);
    visit(Page::Arithmetic, ArithmeticPage::options(), arithmetic_);
    visit(Page::Quantization, QuantizationPage::options(), quantization_);
    visit(Page::Training, TrainingPage::options(), training_);
    visit(Page::Machines, MachinesPage::options(), machines_);
}

void PageStates::addOptionsTo(QCommandLineParser& parser) {
    // In the order of the tables; a key several pages hold gathers their help texts.
    QStringList keys;
    QMap<QString, QStringList> help;
    QMap<QString, QString> valueNames;
    auto add = [&](const auto& table) {
        for (const auto& option : table) {
            const QString key = QLatin1String(option.key);
            if (!help.contains(key))
                keys << key;
            help[key] << QString::fromUtf8(option.help);
            if (option.valueName)
                valueNames[key] = QLatin1String(option.valueName);
        }
    };
    add(std::span<const WindowOption>(kWindowOptions));
    PageStates states(Source::CommandLine);
    states.visitPages([&](MainWindow::Page, auto table, auto&) { add(table); });
    for (const QString& key : keys)
        parser.addOption(QCommandLineOption(key, help[key].join(' '), valueNames.value(key)));
}

std::vector<OptionSetting> PageStates::settingsOf(const QCommandLineParser& parser) {
    const ProgramOptions program;
    std::vector<OptionSetting> settings;
    QStringList seen;
    for (const QString& name : parser.optionNames()) {
        if (program.owns(name) || seen.contains(name))
            continue;
        seen << name;
        const QStringList values = parser.values(name);
        settings.push_back({name, values.isEmpty() ? QString() : values.last(), !values.isEmpty()});
    }
    return settings;
}

std::vector<QString> PageStates::set(const std::vector<OptionSetting>& settings) {
    std::vector<QString> problems(settings.size());
    // --page first: it decides which page a key several pages hold goes to.
    for (std::size_t i = 0; i < settings.size(); ++i)
        if (settings[i].key == "page")
            problems[i] = setOne(settings[i]);
    for (std::size_t i = 0; i < settings.size(); ++i)
        if (settings[i].key != "page")
            problems[i] = setOne(settings[i]);
    return problems;
}

QString PageStates::setOne(const OptionSetting& setting) {
    const QString& key = setting.key;
    if (ProgramOptions().owns(key))
        return "'" + key + "' cannot be used in a lesson";
    Found found = find(std::span<const WindowOption>(kWindowOptions), key, window_);
    std::optional<MainWindow::Page> owner;
    if (!found.set) {
        visitPages([&](MainWindow::Page page, auto table, auto& state) {
            // The page --page names wins; otherwise the first page holding the key.
            if (found.set && !(window_.page == page))
                return;
            if (Found here = find(table, key, state); here.set) {
                found = std::move(here);
                owner = page;
            }
        });
    }
    if (!found.set)
        return "'" + key + "' is not an explorer option (fpx-explorer --help lists them)";
    if (found.use == OptionUse::CommandLineOnly && source_ == Source::Lesson)
        return "'" + key + "' cannot be used in a lesson";
    if (!found.valueName && setting.hasValue && !setting.text.isEmpty())
        return "'" + key + "' takes no value";
    if (found.valueName && !setting.hasValue)
        return "'" + key + "' needs a value (" + QLatin1String(found.valueName) + ")";
    if (QString problem = found.set(setting.text); !problem.isEmpty())
        return "--" + key + ": " + problem;
    if (owner && found.opensPage == OpensPage::Yes)
        opened_.insert(*owner);
    return {};
}

QString PageStates::apply(MainWindow& window) const {
    // Page by page, stopping at the first problem: the explorer's formats first, which the
    // Arithmetic page's labs check their formats against. A page is shown before its state is
    // applied, so that it lays out and fills its views as a user who opens it and then sets it
    // sees them.
    using Page = MainWindow::Page;
    auto show = [&](Page page) {
        if (!window_.page && opened_.contains(page))
            window.showPage(page);
    };
    if (QString error = window.explorerPage()->apply(explorer_); !error.isEmpty())
        return error;
    if (window_.page)
        window.showPage(*window_.page);
    const std::pair<Page, std::function<QString()>> pages[] = {
        {Page::Benchmarks, [&] { return window.benchmarksPanel()->apply(benchmarks_); }},
        {Page::Arithmetic, [&] { return window.arithmeticPage()->apply(arithmetic_); }},
        {Page::Quantization, [&] { return window.quantizationPage()->apply(quantization_); }},
        {Page::Training, [&] { return window.trainingPage()->apply(training_); }},
        {Page::Machines, [&] { return window.machinesPage()->apply(machines_); }},
    };
    for (const auto& [page, apply] : pages) {
        show(page);
        if (QString error = apply(); !error.isEmpty())
            return error;
    }
    if (window_.zoomPercent)
        window.zoom()->setPercent(*window_.zoomPercent);
    if (window_.presentation)
        window.presentation()->setActive(true);
    return {};
}

} // namespace fpx::gui
