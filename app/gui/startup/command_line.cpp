// SPDX-License-Identifier: GPL-3.0-or-later
#include "startup/command_line.h"

#include "arithmetic/arithmetic_page.h"
#include "arithmetic/expression_panel.h"
#include "bench/benchmarks_panel.h"
#include "main_window.h"
#include "models/explorer_controller.h"
#include "presentation/presentation_mode.h"
#include "presentation/zoom.h"
#include "quantization/quantization_page.h"
#include "training/range_view.h"
#include "training/training_page.h"
#include "training/training_plots.h"
#include "widgets/plots_panel.h"

#include "fpx/format_catalogue.h"
#include "fpx/rounding.h"
#include "fpx/value_parser.h"

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
    if (parser.isSet(options.value)) {
        controller->setInputText(parser.value(options.value));
        // Interactively the value field shows the message; a screenshot would hide it.
        if (!controller->inputError().isEmpty() && parser.isSet(options.screenshot))
            return "--value: " + controller->inputError();
    }
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

} // namespace fpx::gui
