// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/command_line.h"

#include "common/zoom.h"
#include "pages/arithmetic/accumulation_panel.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/arithmetic/expression_panel.h"
#include "pages/arithmetic/master_weights_panel.h"
#include "pages/arithmetic/stochastic_lab.h"
#include "pages/arithmetic/stochastic_panel.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/plots_panel.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/range_view.h"
#include "pages/training/training_page.h"
#include "pages/training/training_plots.h"
#include "shell/main_window.h"
#include "shell/presentation_mode.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/value_parser.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <algorithm>

namespace fpx::gui {

void ExplorerCommandLine::addTo(QCommandLineParser& parser) const {
    parser.addOptions({value,      formats,      round,        overflow, select,       plot,
                       screenshot, size,         noSettings,   page,     expr,         lab,
                       input,      dtype,        dist,         count,    seed,         outliers,
                       block,      scaleRule,    inspectBlock, benchRun, benchFormats, benchBudget,
                       benchSizes, benchCompare, trainingView, lossScale});
    parser.addOptions({zoom, presentation});
    parser.addOptions({params, memoryTraining, gib, plotRange});
    parser.addOptions({tab, terms, values, element, accumulator, method, srValue, srFormat, srTerm,
                       srCount, weight, delta, example, lesson, step});
}

bool ExplorerCommandLine::usableInLessons(const QString& name) const {
    for (const QCommandLineOption* refused :
         {&screenshot, &size, &noSettings, &lesson, &step, &benchRun, &benchCompare, &presentation})
        if (refused->names().contains(name))
            return false;
    return name != "help" && name != "version" && name != "help-all";
}

bool ExplorerCommandLine::persistent(const QCommandLineParser& parser) const {
    return !parser.isSet(noSettings) && !parser.isSet(screenshot);
}

namespace {

void selectRow(MainWindow& window, const QString& id) {
    const FormatLookup wanted = findFormat(id.toStdString());
    if (!wanted)
        return;
    const auto& rows = window.controller()->rows();
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].spec.id == wanted.spec->id)
            window.selectRow(static_cast<int>(i));
}

} // namespace

QString applyExplorerOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                             MainWindow& window) {
    ExplorerController* controller = window.controller();
    // On the Quantization page --formats and --select name quantizers, not explorer rows.
    const bool quantize =
        quantizationPageRequested(parser, options) || trainingPageRequested(parser, options);
    if (parser.isSet(options.formats) && !quantize) {
        const FormatListLookup lookup = findFormats(parser.value(options.formats).toStdString());
        if (!lookup.error.empty())
            return "--formats: " + QString::fromStdString(lookup.error);
        controller->setFormats(lookup.specs);
    }
    if (parser.isSet(options.round)) {
        const auto mode = parseRoundingMode(parser.value(options.round).toStdString());
        if (!mode)
            return "--round: unknown rounding mode '" + parser.value(options.round) + "'";
        controller->setRoundingMode(*mode);
    }
    if (parser.isSet(options.overflow)) {
        const auto policy = parseOverflowPolicy(parser.value(options.overflow).toStdString());
        if (!policy)
            return "--overflow: unknown policy '" + parser.value(options.overflow) + "'";
        controller->setOverflowPolicy(*policy);
    }
    if (parser.isSet(options.value))
        controller->setInputText(parser.value(options.value));
    // What the options set is shown, and a bad value's error known, before anything reads them
    // (a lesson's next step, a screenshot, --select); a slow value is waited for.
    controller->waitForIdle();
    // Interactively the value field shows the message; a screenshot would hide it.
    if (parser.isSet(options.value) && !controller->inputError().isEmpty() &&
        parser.isSet(options.screenshot))
        return "--value: " + controller->inputError();
    if (parser.isSet(options.select) && !quantize)
        selectRow(window, parser.value(options.select));
    if (parser.isSet(options.plot)) {
        const auto kind = plots::parsePlotKind(parser.value(options.plot));
        if (!kind)
            return "--plot: unknown plot '" + parser.value(options.plot) +
                   "' (use error, ulp, range, values or memory)";
        window.showLowerTab(1);
        window.plotsPanel()->setKind(*kind);
    }
    if (parser.isSet(options.tab)) {
        const QString tab = parser.value(options.tab);
        if (tab != "details" && tab != "plots")
            return "--tab: use details or plots";
        // After --plot, so a lesson step that set a plot earlier can go back to the details.
        window.showLowerTab(tab == "plots" ? 1 : 0);
    }
    PlotsPanel* plots = window.plotsPanel();
    if (parser.isSet(options.params)) {
        QString error;
        if (!plots->setParameters(parser.value(options.params), &error))
            return "--params: " + error;
    }
    if (parser.isSet(options.memoryTraining))
        plots->setMemoryTraining(true);
    if (parser.isSet(options.gib))
        plots->setMemoryGib(true);
    if (parser.isSet(options.plotRange)) {
        const QStringList ends = parser.value(options.plotRange).split(':');
        if (ends.size() != 2)
            return "--plot-range: expected A:B, got '" + parser.value(options.plotRange) + "'";
        plots->setXRange(ends[0], ends[1]);
    }
    return {};
}

QString applyPresentationOptions(const QCommandLineParser& parser,
                                 const ExplorerCommandLine& options, MainWindow& window) {
    if (parser.isSet(options.zoom)) {
        bool ok = false;
        const int percent = parser.value(options.zoom).remove('%').trimmed().toInt(&ok);
        if (!ok || percent < ZoomController::kMinPercent || percent > ZoomController::kMaxPercent)
            return QStringLiteral("--zoom: expected a percentage from %1 to %2, got '%3'")
                .arg(ZoomController::kMinPercent)
                .arg(ZoomController::kMaxPercent)
                .arg(parser.value(options.zoom));
        window.zoom()->setPercent(percent);
    }
    if (parser.isSet(options.presentation))
        window.presentation()->setActive(true);
    return {};
}

QString applyArithmeticOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                               MainWindow& window) {
    ArithmeticPage* page = window.arithmeticPage();
    // Asking for an expression or a lab means that page, unless --page says otherwise.
    if ((parser.isSet(options.expr) || parser.isSet(options.lab)) && !parser.isSet(options.page))
        window.showPage(MainWindow::Page::Arithmetic);
    if (parser.isSet(options.expr)) {
        page->expressionPanel()->setExpressionText(parser.value(options.expr));
        // Interactively the field shows the message; a screenshot would hide it.
        const QString error = page->expressionPanel()->inputError();
        if (!error.isEmpty() && parser.isSet(options.screenshot))
            return "--expr: " + error;
    }
    if (parser.isSet(options.lab)) {
        const auto lab = ArithmeticPage::parseLab(parser.value(options.lab));
        if (!lab)
            return "--lab: use expression, accumulation, stochastic or weights";
        page->showLab(*lab);
    }
    return {};
}

bool quantizationPageRequested(const QCommandLineParser& parser,
                               const ExplorerCommandLine& options) {
    const QString page = parser.value(options.page);
    return page == "quantize" || page == "quantization";
}

QString applyQuantizationOptions(const QCommandLineParser& parser,
                                 const ExplorerCommandLine& options, MainWindow& window) {
    if (trainingPageRequested(parser, options))
        return {}; // the source options are the Training page's
    QuantizationPage* page = window.quantizationPage();
    const bool quantize = quantizationPageRequested(parser, options);
    // A tensor or a distribution means that page, unless --page says otherwise.
    if ((parser.isSet(options.input) || parser.isSet(options.dist)) && !parser.isSet(options.page))
        window.showPage(MainWindow::Page::Quantization);
    if (parser.isSet(options.input) && parser.isSet(options.dist))
        return "--input and --dist: give one source";
    if (parser.isSet(options.input)) {
        if (QString error =
                page->setInputFile(parser.value(options.input), parser.value(options.dtype));
            !error.isEmpty())
            return "--input: " + error;
    } else if (parser.isSet(options.dtype)) {
        return "--dtype: only with --input";
    }
    if (parser.isSet(options.dist)) {
        bool countOk = true, seedOk = true;
        const qulonglong count =
            parser.isSet(options.count) ? parser.value(options.count).toULongLong(&countOk) : 65536;
        const qulonglong seed =
            parser.isSet(options.seed) ? parser.value(options.seed).toULongLong(&seedOk) : 1;
        if (!countOk)
            return "--count: expected a whole number";
        if (!seedOk)
            return "--seed: expected a whole number";
        if (QString error = page->setDistribution(parser.value(options.dist), count, seed,
                                                  parser.value(options.outliers));
            !error.isEmpty())
            return "--dist: " + error;
    } else {
        for (const QCommandLineOption* option : {&options.count, &options.seed, &options.outliers})
            if (parser.isSet(*option))
                return "--" + option->names().front() + ": only with --dist";
    }
    if (quantize && parser.isSet(options.formats))
        if (QString error = page->setFormats({parser.value(options.formats)}); !error.isEmpty())
            return "--formats: " + error;
    if (parser.isSet(options.block))
        if (QString error = page->setBlock(parser.value(options.block)); !error.isEmpty())
            return "--block: " + error;
    if (parser.isSet(options.scaleRule))
        if (QString error = page->setScaleRule(parser.value(options.scaleRule)); !error.isEmpty())
            return "--scale-rule: " + error;
    std::optional<std::size_t> block;
    if (parser.isSet(options.inspectBlock)) {
        bool ok = false;
        block = parser.value(options.inspectBlock).toULongLong(&ok);
        if (!ok)
            return "--inspect-block: expected a block number, from 0";
    }
    if ((quantize && parser.isSet(options.select)) || block)
        page->selectAfterRun(quantize ? parser.value(options.select) : QString(), block);
    return {};
}

bool trainingPageRequested(const QCommandLineParser& parser, const ExplorerCommandLine& options) {
    return parser.value(options.page) == "training";
}

QString applyTrainingOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                             MainWindow& window) {
    TrainingPage* page = window.trainingPage();
    const bool training = trainingPageRequested(parser, options);
    // A view or a loss scale means that page, unless --page says otherwise.
    if ((parser.isSet(options.trainingView) || parser.isSet(options.lossScale)) &&
        !parser.isSet(options.page))
        window.showPage(MainWindow::Page::Training);
    if (parser.isSet(options.trainingView)) {
        const auto view = TrainingPage::parseView(parser.value(options.trainingView));
        if (!view)
            return "--training-view: use range, loss-scale, fp8 or master";
        page->showView(*view);
    }
    RangeView* range = page->rangeView();
    if (parser.isSet(options.lossScale)) {
        const QString text = parser.value(options.lossScale);
        const ParsedValue parsed = parseValue(text.toStdString());
        const ExactValue* scale = parsed ? &*parsed.value : nullptr;
        // A power of two: odd numerator 1, denominator 1, any exponent.
        if (!scale || !scale->isFinite() || scale->isNegative() || scale->isZero() ||
            scale->numerator() != 1 || scale->denominator() != 1)
            return "--loss-scale: '" + text + "' is not a power of two (2^k)";
        if (QString error = range->setScaleExponent(int(
                std::clamp<std::int64_t>(scale->exponent2(), -kScaleReach - 1, kScaleReach + 1)));
            !error.isEmpty())
            return "--loss-scale: " + error;
    }
    if (!training)
        return {};
    if (parser.isSet(options.input) && parser.isSet(options.dist))
        return "--input and --dist: give one source";
    if (parser.isSet(options.input))
        range->setInputFile(parser.value(options.input));
    if (parser.isSet(options.dist)) {
        bool countOk = true, seedOk = true;
        const qulonglong count = parser.isSet(options.count)
                                     ? parser.value(options.count).toULongLong(&countOk)
                                     : 1'000'000;
        const qulonglong seed =
            parser.isSet(options.seed) ? parser.value(options.seed).toULongLong(&seedOk) : 1;
        if (!countOk)
            return "--count: expected a whole number";
        if (!seedOk)
            return "--seed: expected a whole number";
        if (QString error = range->setDistribution(parser.value(options.dist), count, seed);
            !error.isEmpty())
            return "--dist: " + error;
    } else {
        for (const QCommandLineOption* option : {&options.count, &options.seed})
            if (parser.isSet(*option))
                return "--" + option->names().front() + ": only with --dist";
    }
    if (parser.isSet(options.formats))
        if (QString error = range->setFormats(parser.value(options.formats)); !error.isEmpty())
            return "--formats: " + error;
    return {};
}

QString applyBenchmarkOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                              MainWindow& window) {
    BenchmarksPanel* bench = window.benchmarksPanel();
    if (parser.isSet(options.page)) {
        if (parser.value(options.page) == "benchmarks")
            window.showPage(MainWindow::Page::Benchmarks);
        else if (parser.value(options.page) == "explorer")
            window.showPage(MainWindow::Page::Explorer);
        else if (parser.value(options.page) == "arithmetic")
            window.showPage(MainWindow::Page::Arithmetic);
        else if (quantizationPageRequested(parser, options))
            window.showPage(MainWindow::Page::Quantization);
        else if (trainingPageRequested(parser, options))
            window.showPage(MainWindow::Page::Training);
        else
            return "--page: use explorer, benchmarks, arithmetic, quantize or training";
    }
    if (parser.isSet(options.benchFormats)) {
        const FormatListLookup lookup =
            findFormats(parser.value(options.benchFormats).toStdString());
        if (!lookup.error.empty())
            return "--bench-formats: " + QString::fromStdString(lookup.error);
        QStringList ids;
        for (const FormatSpec& spec : lookup.specs)
            ids << QString::fromStdString(spec.id);
        bench->setFormats(ids);
    }
    if (parser.isSet(options.benchBudget)) {
        const double seconds = parser.value(options.benchBudget).toDouble();
        if (!(seconds >= 0.01 && seconds <= 60))
            return "--bench-budget: expected seconds, 0.01 to 60";
        bench->setBudget(seconds);
    }
    if (parser.isSet(options.benchSizes)) {
        QString error;
        if (!BenchmarksPanel::parseSizes(parser.value(options.benchSizes), &error))
            return "--bench-sizes: " + error;
        bench->setSizes(false, false, parser.value(options.benchSizes));
    }
    if (parser.isSet(options.benchCompare)) {
        QString error;
        bench->setMessageSink([&error](const QString&, const QString& text) { error = text; });
        const bool loaded = bench->loadComparison(parser.value(options.benchCompare));
        bench->setMessageSink({});
        if (!loaded)
            return "--bench-compare: " + error;
    }
    if (parser.isSet(options.benchRun)) {
        window.showPage(MainWindow::Page::Benchmarks);
        bench->run();
    }
    return {};
}

namespace {

// The canonical id of a format the explorer shows, or an error naming the option.
QString shownFormatId(const QString& text, const ExplorerController& controller,
                      const QString& option, QString& error) {
    const FormatLookup lookup = findFormat(text.trimmed().toStdString());
    if (!lookup) {
        error = option + ": unknown format '" + text.trimmed() + "'";
        return {};
    }
    for (const FormatSpec& spec : controller.formats())
        if (spec.id == lookup.spec->id)
            return QString::fromStdString(spec.id);
    error = option + ": " + text.trimmed() +
            " is not among the explorer's formats (add it with "
            "--formats)";
    return {};
}

QString checkedValue(const QString& text, const QString& option) {
    const ParsedValue parsed = parseValue(text.toStdString());
    if (!parsed)
        return option + ": " + QString::fromStdString(parsed.error.message) + " in '" + text + "'";
    return {};
}

QString applyAccumulationOptions(const QCommandLineParser& parser,
                                 const ExplorerCommandLine& options, MainWindow& window) {
    AccumulationPanel* lab = window.arithmeticPage()->accumulationPanel();
    if (parser.isSet(options.terms)) {
        bool ok = false;
        const qulonglong terms = parser.value(options.terms).toULongLong(&ok);
        if (!ok || terms < 1 || terms > kMaxLabTerms)
            return "--terms: expected a whole number, 1 to " + QString::number(kMaxLabTerms);
        lab->setTerms(static_cast<int>(terms));
    }
    if (parser.isSet(options.values)) {
        std::string error;
        const QString text = parser.value(options.values);
        if (!parseTermDistribution(text.toStdString(), error))
            return "--values: " + QString::fromStdString(error);
        lab->setDistribution(text);
    }
    ExplorerController& controller = *window.controller();
    if (parser.isSet(options.element)) {
        QString error;
        const QString id =
            shownFormatId(parser.value(options.element), controller, "--element", error);
        if (!error.isEmpty())
            return error;
        lab->setElement(id);
    }
    if (parser.isSet(options.accumulator)) {
        QStringList ids;
        for (const QString& text : parser.value(options.accumulator).split(',')) {
            QString error;
            ids << shownFormatId(text, controller, "--accumulator", error);
            if (!error.isEmpty())
                return error;
        }
        lab->setAccumulators(ids);
    }
    if (parser.isSet(options.method)) {
        QStringList methods;
        for (const QString& text : parser.value(options.method).split(',')) {
            const std::string method = text.trimmed().toStdString();
            if (!parseSumMethod(method))
                return "--method: use sequential, pairwise, kahan or blocked:K, not '" +
                       text.trimmed() + "'";
            methods << text.trimmed();
        }
        lab->setMethods(methods);
    }
    return {};
}

QString applyStochasticOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                               MainWindow& window) {
    StochasticPanel* lab = window.arithmeticPage()->stochasticPanel();
    if (parser.isSet(options.srValue)) {
        if (QString error = checkedValue(parser.value(options.srValue), "--sr-value");
            !error.isEmpty())
            return error;
        lab->setValue(parser.value(options.srValue));
    }
    if (parser.isSet(options.srFormat)) {
        QString error;
        const QString id = shownFormatId(parser.value(options.srFormat), *window.controller(),
                                         "--sr-format", error);
        if (!error.isEmpty())
            return error;
        lab->setFormat(id);
    }
    if (parser.isSet(options.srTerm) || parser.isSet(options.srCount)) {
        const QString term =
            parser.isSet(options.srTerm) ? parser.value(options.srTerm) : lab->smallTerm();
        if (QString error = checkedValue(term, "--sr-term"); !error.isEmpty())
            return error;
        int count = lab->smallTermCount();
        if (parser.isSet(options.srCount)) {
            bool ok = false;
            const qulonglong n = parser.value(options.srCount).toULongLong(&ok);
            if (!ok || n < 1 || n > kMaxSmallTerms)
                return "--sr-count: expected a whole number, 1 to " +
                       QString::number(kMaxSmallTerms);
            count = static_cast<int>(n);
        }
        lab->setSmallTerms(term, count);
    }
    return {};
}

QString applyMasterWeightOptions(const QCommandLineParser& parser,
                                 const ExplorerCommandLine& options, MainWindow& window) {
    MasterWeightsPanel* lab = window.arithmeticPage()->masterWeightsPanel();
    if (!parser.isSet(options.weight) && !parser.isSet(options.delta))
        return {};
    const QString weight =
        parser.isSet(options.weight) ? parser.value(options.weight) : lab->weightText();
    const QString delta =
        parser.isSet(options.delta) ? parser.value(options.delta) : lab->deltaText();
    if (QString error = checkedValue(weight, "--weight"); !error.isEmpty())
        return error;
    if (QString error = checkedValue(delta, "--delta"); !error.isEmpty())
        return error;
    lab->setInputs(weight, delta);
    return {};
}

} // namespace

QString applyLabOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                        MainWindow& window) {
    ArithmeticPage* page = window.arithmeticPage();
    auto anySet = [&](std::initializer_list<const QCommandLineOption*> list) {
        return std::any_of(list.begin(), list.end(),
                           [&](const QCommandLineOption* o) { return parser.isSet(*o); });
    };
    const bool accumulation = anySet(
        {&options.terms, &options.values, &options.element, &options.accumulator, &options.method});
    const bool stochastic =
        anySet({&options.srValue, &options.srFormat, &options.srTerm, &options.srCount});
    const bool weights = anySet({&options.weight, &options.delta});
    // A lab's settings mean that lab, unless --page or --lab say otherwise; the last named
    // (accumulation, stochastic, weights) wins when a step sets several.
    if ((accumulation || stochastic || weights) && !parser.isSet(options.page)) {
        window.showPage(MainWindow::Page::Arithmetic);
        if (!parser.isSet(options.lab))
            page->showLab(weights      ? ArithmeticPage::Lab::MasterWeights
                          : stochastic ? ArithmeticPage::Lab::Stochastic
                                       : ArithmeticPage::Lab::Accumulation);
    }
    if (QString error = applyAccumulationOptions(parser, options, window); !error.isEmpty())
        return error;
    if (QString error = applyStochasticOptions(parser, options, window); !error.isEmpty())
        return error;
    if (QString error = applyMasterWeightOptions(parser, options, window); !error.isEmpty())
        return error;
    if (accumulation)
        page->accumulationPanel()->run(); // as `fpx accumulate` does: the settings are a run
    return {};
}

QString applyExampleOption(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                           MainWindow& window) {
    if (!parser.isSet(options.example))
        return {};
    const QString name = parser.value(options.example);
    if (name != "weights")
        return "--example: the bundled example is weights";
    // The page reads tensors from files (memory-mapped), so the resource is copied out once;
    // the file name is what the page shows as the source.
    const QString directory =
        QStandardPaths::writableLocation(QStandardPaths::TempLocation) + "/fpx-examples";
    const QString path = directory + "/" + name + ".npy";
    QFile resource(":/examples/" + name + ".npy");
    if (!resource.open(QIODevice::ReadOnly))
        return "--example: the example " + name + " is not built into this program";
    const QByteArray bytes = resource.readAll();
    QFile copy(path);
    const bool current = copy.open(QIODevice::ReadOnly) && copy.readAll() == bytes;
    copy.close();
    if (!current) {
        QDir().mkpath(directory);
        if (!copy.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            copy.write(bytes) != bytes.size() || !copy.flush())
            return "--example: cannot write " + path + ": " + copy.errorString();
        copy.close();
    }
    if (!parser.isSet(options.page))
        window.showPage(MainWindow::Page::Quantization);
    if (QString error = window.quantizationPage()->setInputFile(path); !error.isEmpty())
        return "--example: " + error;
    return {};
}

QString applyCommandLine(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                         MainWindow& window) {
    for (auto apply : {applyExplorerOptions, applyBenchmarkOptions, applyArithmeticOptions,
                       applyLabOptions, applyQuantizationOptions, applyExampleOption,
                       applyTrainingOptions, applyPresentationOptions})
        if (QString error = apply(parser, options, window); !error.isEmpty())
            return error;
    return {};
}

} // namespace fpx::gui
