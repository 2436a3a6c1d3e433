// SPDX-License-Identifier: GPL-3.0-or-later
// The plots of the Arithmetic, Quantization, Training, Benchmarks and Machines pages drawn as
// the Plots tab's are, offscreen with real widgets: more than eight series on each page that has
// them, pairwise distinct by (colour, dash) or (colour, fill pattern), every colour from the
// palette (app/plots/plot_palette.h: the series colours or the named meanings); light and dark,
// with axis, tick, legend and title text readable against the plot's background (by the contrast
// ratio of WCAG 2, from the colours the plot draws with and from the rendered pixels); legends
// outside every axis rect. And the zoom: at 150 % every page's tables and texts, the
// fixed-width numbers included, are drawn 1.5 times their 100 % size.
#include "common/folding_form.h"
#include "common/page.h"
#include "common/zoom.h"
#include "pages/arithmetic/accumulation_panel.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/arithmetic/expression_panel.h"
#include "pages/arithmetic/master_weights_panel.h"
#include "pages/arithmetic/stochastic_panel.h"
#include "pages/benchmarks/bench_controller.h"
#include "pages/benchmarks/bench_results_model.h"
#include "pages/benchmarks/benchmarks_chart.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/plots_panel.h"
#include "pages/machines/machines_page.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/fp8_view.h"
#include "pages/training/loss_scale_view.h"
#include "pages/training/range_view.h"
#include "pages/training/training_page.h"
#include "pages/training/weights_view.h"
#include "plot_palette.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "fpx/exact/format_catalogue.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTest>
#include <QTextEdit>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <utility>

using namespace fpx;
using namespace fpx::gui;

namespace {

// WCAG 2 relative luminance and contrast ratio (1 … 21).
double luminance(const QColor& c) {
    auto channel = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
double contrast(const QColor& a, const QColor& b) {
    const double x = luminance(a), y = luminance(b);
    return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

QPalette darkPalette() {
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x22, 0x22, 0x22));
    dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
    dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Button, QColor(0x33, 0x33, 0x33));
    return dark;
}

// Every colour a series may take: the palette's eight and the named meanings in both themes.
std::set<QRgb> paletteColours() {
    std::set<QRgb> colours;
    for (int i = 0; i < plots::kDistinctSeriesStyles; ++i)
        colours.insert(plots::seriesColour(i).rgb());
    for (const QPalette& palette : {QPalette(Qt::white), darkPalette()}) {
        const plots::PlotTheme theme = plots::plotTheme(palette);
        colours.insert(theme.muted.rgb());
        for (plots::Meaning m :
             {plots::Meaning::Reference, plots::Meaning::Good, plots::Meaning::Bad,
              plots::Meaning::Caution, plots::Meaning::Neutral, plots::Meaning::Faint})
            colours.insert(plots::meaningColour(m, theme).rgb());
    }
    return colours;
}

// How a legend entry's series looks: its colour (alpha ignored), its dash (lines) and its fill
// pattern (bars).
using Look = std::tuple<QRgb, int, int>;
Look lookOf(QCPAbstractPlottable* p) {
    if (auto* bars = qobject_cast<QCPBars*>(p))
        return {bars->brush().color().rgb(), -1, int(bars->brush().style())};
    // Markers only (no line): their legend entry is the marker, in the marker's pen.
    if (auto* graph = qobject_cast<QCPGraph*>(p);
        graph && graph->lineStyle() == QCPGraph::lsNone && !graph->scatterStyle().isNone()) {
        const QCPScatterStyle& scatter = graph->scatterStyle();
        const QPen pen = scatter.isPenDefined() ? scatter.pen() : graph->pen();
        return {pen.color().rgb(), 1000 + int(scatter.shape()), -1};
    }
    return {p->pen().color().rgb(), int(p->pen().style()), -1};
}

// The series in the legend are told apart and coloured from the palette; counts them.
void checkSeries(QCustomPlot* plot, const char* where, int& series) {
    const std::set<QRgb> allowed = paletteColours();
    std::map<Look, QString> seen;
    series = 0;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot->plottable(i);
        if (!plot->legend || !plot->legend->hasItemWithPlottable(p))
            continue;
        const Look look = lookOf(p);
        const QString what = QString("%1: %2").arg(where, p->name());
        QVERIFY2(allowed.count(std::get<0>(look)),
                 qPrintable(what + " has a colour outside the palette: " +
                            QColor(std::get<0>(look)).name()));
        const auto [it, fresh] = seen.emplace(look, p->name());
        QVERIFY2(fresh, qPrintable(what + " looks like " + it->second));
        ++series;
    }
}

// Text and axes readable against the plot's background; the background itself the theme's
// (read from the pixels); the legend outside every axis rect.
void checkTheme(QCustomPlot* plot, bool dark, const char* where) {
    const plots::PlotTheme theme = plots::plotTheme(plot->palette());
    QCOMPARE(theme.dark, dark);
    const QColor background = theme.background;
    auto readable = [&](const QColor& c, const QString& what) {
        QVERIFY2(contrast(c, background) >= 4.5,
                 qPrintable(QString("%1: %2 %3 on %4 (contrast %5)")
                                .arg(where, what, c.name(), background.name())
                                .arg(contrast(c, background))));
    };
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            if (!axis->visible())
                continue;
            readable(axis->tickLabelColor(), "tick labels");
            readable(axis->labelColor(), "axis label");
            QVERIFY2(contrast(axis->basePen().color(), background) >= 3,
                     qPrintable(QString("%1: axis line").arg(where)));
        }
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
        if (auto* text = qobject_cast<QCPTextElement*>(e))
            readable(text->textColor(), "title " + text->text());
        if (auto* legend = qobject_cast<QCPLegend*>(e); legend && legend->visible()) {
            for (int i = 0; i < legend->itemCount(); ++i)
                if (QCPAbstractLegendItem* item = legend->item(i))
                    readable(item->textColor(), "legend entry");
            const QRect box = legend->outerRect();
            for (QCPAxisRect* rect : plot->axisRects())
                QVERIFY2(!box.intersects(rect->rect()),
                         qPrintable(QString("%1: the legend covers the data").arg(where)));
        }
    }
    const QImage image = plot->toPixmap(plot->width(), plot->height()).toImage();
    const QColor corner = image.pixelColor(1, 1);
    QVERIFY2(dark ? corner.lightness() < 90 : corner.lightness() > 200,
             qPrintable(QString("%1: background %2").arg(where, corner.name())));
}

// With FPX_TEST_SCREENSHOTS=DIR, the window as checked, for a look at the page in each theme.
void keepPicture(QWidget& window, const QString& name, bool dark) {
    const QString dir = qEnvironmentVariable("FPX_TEST_SCREENSHOTS");
    if (!dir.isEmpty())
        window.grab().save(QString("%1/%2-%3.png").arg(dir, name, dark ? "dark" : "light"));
}

void checkPlot(QCustomPlot* plot, bool dark, const char* where, int atLeast) {
    QVERIFY2(plot, where);
    plot->replot(); // lays the plot out at its widget's size
    int series = 0;
    checkSeries(plot, where, series);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(series >= atLeast,
             qPrintable(QString("%1: %2 series, expected %3").arg(where).arg(series).arg(atLeast)));
    checkTheme(plot, dark, where);
}

// Long enough for any page's work in flight here; a page that never settles fails instead.
constexpr std::chrono::minutes kIdleWait{4};

// Ten formats with arithmetic, for pages that take any.
const QStringList kTen = {"fp64",     "fp32",     "tf32",     "bf16",     "fp16",
                          "fp8_e4m3", "fp8_e5m2", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1"};

// Sets the application's palette for the lifetime of the object.
// The colour after `key` in a style sheet ("color: #d0402f;", "border: 2px solid #d0402f;").
QColor styleSheetColour(const QString& sheet, const QString& key) {
    const QRegularExpressionMatch match =
        QRegularExpression(QRegularExpression::escape(key) + R"(:?\s*(#[0-9a-fA-F]{6}))")
            .match(sheet);
    return match.hasMatch() ? QColor(match.captured(1)) : QColor();
}

// WCAG 2 contrast ratio of two colours: (L1 + 0.05) / (L2 + 0.05) of their relative luminances.
double contrastRatio(const QColor& a, const QColor& b) {
    const auto luminance = [](const QColor& c) {
        const auto linear = [](double v) {
            return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
    };
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

struct PaletteScope {
    QPalette original = QApplication::palette();
    explicit PaletteScope(bool dark) {
        if (dark)
            QApplication::setPalette(darkPalette());
    }
    ~PaletteScope() { QApplication::setPalette(original); }
};

bench::BenchResult result(const std::string& format, double gbPerSecond) {
    bench::BenchResult r;
    r.backend = "cpu";
    r.device = "test";
    r.format = format;
    r.operation = format == "fp32" ? bench::Operation::Copy : bench::Operation::Convert;
    r.path = "test";
    r.elements = 4096;
    r.time = {1e-6, 0.9e-6, 1.1e-6, 1, 5};
    r.bytesPerSecond = gbPerSecond * 1e9;
    r.elementsPerSecond = r.bytesPerSecond / 6;
    r.verified = true;
    return r;
}

// The fonts of a page's text: every item view's own and, for its first row, each cell's as
// the delegate resolves it (a model's Qt::FontRole against the view's font), and every text
// field's and label's, in points.
std::vector<std::pair<QString, double>> textSizes(QWidget* page) {
    std::vector<std::pair<QString, double>> sizes;
    auto add = [&](const QString& what, const QFont& font) {
        sizes.emplace_back(what, QFontInfo(font).pointSizeF());
    };
    for (QAbstractItemView* view : page->findChildren<QAbstractItemView*>()) {
        if (!view->isVisibleTo(page) || !view->model())
            continue;
        const QString name = view->objectName().isEmpty() ? QString(view->metaObject()->className())
                                                          : view->objectName();
        add(name, view->font());
        QAbstractItemModel* model = view->model();
        if (model->rowCount() == 0)
            continue;
        for (int c = 0; c < model->columnCount(); ++c) {
            const QVariant own = model->index(0, c).data(Qt::FontRole);
            if (own.isValid())
                add(QString("%1 column %2").arg(name).arg(c),
                    own.value<QFont>().resolve(view->font()));
        }
    }
    for (QPlainTextEdit* edit : page->findChildren<QPlainTextEdit*>())
        if (edit->isVisibleTo(page))
            add(edit->objectName(), edit->font());
    for (QTextEdit* edit : page->findChildren<QTextEdit*>())
        if (edit->isVisibleTo(page))
            add(edit->objectName(), edit->font());
    for (QLabel* label : page->findChildren<QLabel*>())
        if (label->isVisibleTo(page) && !label->text().isEmpty())
            add(label->objectName().isEmpty() ? label->text().left(30) : label->objectName(),
                label->font());
    return sizes;
}

QString describe(const std::vector<std::pair<QString, double>>& sizes) {
    QStringList texts;
    for (const auto& [what, points] : sizes)
        texts << QString("%1 (%2 pt)").arg(what).arg(points);
    return texts.join(", ");
}

// The sizes once the page is idle: a page still loading its drivers or filling its tables
// would add texts. Empty when it did not settle.
std::vector<std::pair<QString, double>> idleTextSizes(Page* page) {
    if (!page->waitUntilIdle(kIdleWait))
        return {};
    // A form folded for want of room hides its labels: the same texts at both zooms.
    for (FoldingForm* form : page->findChildren<FoldingForm*>())
        form->setFolded(false);
    QCoreApplication::processEvents(); // what the last change posted (a font change, a layout)
    return textSizes(page);
}

} // namespace

class TestPageStyles : public QObject {
    Q_OBJECT

  private slots:
    void arithmetic_data() { themes(); }
    void arithmetic() {
        QFETCH(bool, dark);
        PaletteScope scope(dark);
        MainWindow window;
        window.resize(1280, 900);
        window.showPage(MainWindow::Page::Arithmetic);
        window.arithmeticPage()->showLab(ArithmeticPage::Lab::Accumulation);
        window.show();
        AccumulationPanel* lab = window.arithmeticPage()->accumulationPanel();
        QVERIFY(window.arithmeticPage()->waitUntilIdle(kIdleWait));
        lab->setTerms(256);
        lab->setDistribution("ones");
        lab->setElement(QString());
        lab->setAccumulators(kTen);
        lab->setMethods({"sequential", "pairwise"});
        QTest::mouseClick(lab->runButton(), Qt::LeftButton);
        QVERIFY(window.arithmeticPage()->waitUntilIdle(kIdleWait));
        // Ten accumulators, two methods: the exact sum, the stagnation key and 20 curves.
        checkPlot(lab->plot(), dark, "accumulation", 20);
        // The dash says the method for eight accumulators of each (one per colour); only the
        // ninth and tenth of a method take another dash.
        int curves = 0, solid = 0, dashed = 0;
        for (int i = 0; i < lab->plot()->graphCount(); ++i) {
            const QCPGraph* graph = lab->plot()->graph(i);
            const Qt::PenStyle dash = graph->pen().style();
            if (graph->name().endsWith(" sequential")) {
                solid += dash == Qt::SolidLine;
                ++curves;
            } else if (graph->name().endsWith(" pairwise")) {
                dashed += dash == Qt::DashLine;
                ++curves;
            }
        }
        QCOMPARE(curves, 20);
        QCOMPARE(solid, 8);
        QCOMPARE(dashed, 8);
        keepPicture(window, "accumulation", dark);

        window.arithmeticPage()->showLab(ArithmeticPage::Lab::Stochastic);
        StochasticPanel* stochastic = window.arithmeticPage()->stochasticPanel();
        stochastic->setFormat("fp16");
        stochastic->findChild<QLineEdit*>("srValueEdit")->setText("0.1");
        stochastic->setSmallTerms("1", 4096); // computed at once, on the GUI thread
        checkPlot(stochastic->histogram(), dark, "stochastic histogram", 2);
        checkPlot(stochastic->findChild<QCustomPlot*>("srSumsPlot"), dark, "stochastic sums", 3);
        keepPicture(window, "stochastic", dark);

        window.controller()->setFormats(findFormats("fp32,bf16,fp16,fp8_e4m3").specs);
        window.arithmeticPage()->showLab(ArithmeticPage::Lab::MasterWeights);
        MasterWeightsPanel* weights = window.arithmeticPage()->masterWeightsPanel();
        weights->findChild<QLineEdit*>("weightEdit")->setText("1");
        weights->findChild<QLineEdit*>("deltaEdit")->setText("1e-3"); // computed at once
        checkPlot(weights->plot(), dark, "master weights", 2);
        keepPicture(window, "master-weights", dark);
    }

    void quantization_data() { themes(); }
    void quantization() {
        QFETCH(bool, dark);
        PaletteScope scope(dark);
        MainWindow window;
        window.resize(1280, 900);
        QuantizationPage* page = window.quantizationPage();
        QCOMPARE(page->setDistribution("normal:0:1", 4096), QString());
        QCOMPARE(page->setFormats({"mxfp4,nvfp4,nf4,int8,int4,fp8_e4m3,fp8_e5m2,mxfp8_e4m3,"
                                   "mxfp8_e5m2,mxfp6_e3m2"}),
                 QString());
        window.showPage(MainWindow::Page::Quantization);
        window.show();
        QVERIFY(page->waitUntilIdle(kIdleWait));
        QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
        checkPlot(page->errorsPlot(), dark, "quantization errors", 9);
        checkPlot(page->valuesPlot(), dark, "quantization values", 1);
        checkPlot(page->sweepPlot(), dark, "quantization sweep", 1);
        keepPicture(window, "quantization", dark);
    }

    void training_data() { themes(); }
    void training() {
        QFETCH(bool, dark);
        PaletteScope scope(dark);
        MainWindow window;
        window.resize(1280, 900);
        TrainingPage* training = window.trainingPage();
        window.showPage(MainWindow::Page::Training);

        WeightsView* weights = training->weightsView();
        QCOMPARE(weights->setVariants("fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2,fp6_e3m2,bf16+fp32,"
                                      "fp16+fp32,fp8_e4m3+fp32"),
                 QString());
        weights->findChild<QSpinBox*>("weightsSteps")->setValue(20);
        training->showView(TrainingPage::View::MasterWeights);
        window.show();
        QVERIFY(training->waitUntilIdle(kIdleWait));
        QVERIFY2(weights->errorText().isEmpty(), qPrintable(weights->errorText()));
        checkPlot(weights->plot(), dark, "master weights over the steps", 11);
        keepPicture(window, "training-weights", dark);

        RangeView* range = training->rangeView();
        QCOMPARE(range->setDistribution("normal:0:1e-4", 4000), QString());
        QCOMPARE(range->setFormats("fp16,bf16,fp8_e5m2"), QString());
        training->showView(TrainingPage::View::Range);
        QVERIFY(training->waitUntilIdle(kIdleWait));
        checkPlot(range->plot(), dark, "range", 5);
        keepPicture(window, "training-range", dark);

        Fp8View* fp8 = training->fp8View();
        QCOMPARE(fp8->setRecipes("current,delayed:8:max,delayed:16:most_recent"), QString());
        training->showView(TrainingPage::View::Fp8);
        QVERIFY(training->waitUntilIdle(kIdleWait));
        checkPlot(fp8->plot(), dark, "fp8 recipes", 4);
        checkPlot(fp8->lossesPlot(), dark, "fp8 losses", 5);
        keepPicture(window, "training-fp8", dark);

        LossScaleView* loss = training->lossScaleView();
        training->showView(TrainingPage::View::LossScale);
        QVERIFY(training->waitUntilIdle(kIdleWait));
        checkPlot(loss->plot(), dark, "loss scale", 2);
        keepPicture(window, "training-loss-scale", dark);
    }

    void machines_data() { themes(); }
    void machines() {
        QFETCH(bool, dark);
        PaletteScope scope(dark);
        MainWindow window;
        window.resize(1280, 900);
        MachinesPage* page = window.machinesPage();
        window.showPage(MainWindow::Page::Machines);
        page->showView(MachinesPage::View::Error);
        // Every machine that takes fp16, each plain and promoted: more than eight series.
        QStringList all;
        for (const MachineModel& machine : builtInMachines())
            all << QString::fromStdString(machine.name);
        MachinesPageState state;
        state.element = "fp16";
        state.machines = all;
        state.promote = 64;
        state.resultRows = state.resultColumns = 2;
        state.kMax = 256;
        QCOMPARE(page->apply(state), QString());
        window.show();
        QVERIFY(page->waitUntilIdle(kIdleWait));
        QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
        int takers = 0;
        for (const MachineModel& machine : builtInMachines())
            takers += machine.instructionFor("fp16") ? 1 : 0;
        checkPlot(page->errorPlot(), dark, "machines error against K", 2 * takers);
        keepPicture(window, "machines", dark);
    }

    void benchmarks_data() { themes(); }
    void benchmarks() {
        QFETCH(bool, dark);
        PaletteScope scope(dark);
        BenchResultsModel model;
        BenchmarksChart chart(&model);
        chart.resize(1000, 700);
        chart.show();
        model.append(result("fp32", 20));
        double speed = 2;
        for (const QString& id : kTen)
            if (id != "fp32")
                model.append(result(id.toStdString(), speed += 1));
        model.append(result("int8", 9));
        model.append(result("int4", 7));
        chart.refresh();
        // Eleven formats and the copy: more than eight, the rest hatched.
        checkPlot(chart.plot(), dark, "benchmarks", 12);
        keepPicture(chart, "benchmarks", dark);
    }

    // At 150 % every page's tables and texts are 1.5 times their size at 100 %.
    void everyPageFollowsTheZoom() {
        MainWindow window;
        window.resize(1280, 900);
        window.controller()->setFormats(findFormats("fp32,fp16,bf16,fp8_e4m3").specs);
        window.show();
        const std::pair<MainWindow::Page, const char*> pages[] = {
            {MainWindow::Page::Explorer, "explorer"},
            {MainWindow::Page::Benchmarks, "benchmarks"},
            {MainWindow::Page::Arithmetic, "arithmetic"},
            {MainWindow::Page::Quantization, "quantization"},
            {MainWindow::Page::Training, "training"},
            {MainWindow::Page::Machines, "machines"}};
        for (const auto& [page, name] : pages) {
            window.zoom()->reset();
            window.showPage(page);
            Page* shown = window.hostedPage(page);
            QCOMPARE(window.findChild<QTabWidget*>("pages")->currentWidget(), shown);
            const auto before = idleTextSizes(shown);
            QVERIFY2(!before.empty(), name);
            window.zoom()->setPercent(150);
            const auto after = idleTextSizes(shown);
            QVERIFY2(after.size() == before.size(),
                     qPrintable(QString("%1: at 100 %: %2; at 150 %: %3")
                                    .arg(name, describe(before), describe(after))));
            for (std::size_t i = 0; i < before.size(); ++i) {
                QCOMPARE(after[i].first, before[i].first);
                const double ratio = after[i].second / before[i].second;
                QVERIFY2(std::abs(ratio - 1.5) <= 0.08,
                         qPrintable(QString("%1: %2 is %3 pt at 100 %, %4 pt at 150 %")
                                        .arg(name, before[i].first)
                                        .arg(before[i].second)
                                        .arg(after[i].second)));
            }
        }
        window.zoom()->reset();
    }

    // Every page's error messages and refused fields in one red that stays readable on the
    // palette's window colour, light or dark: a WCAG contrast of at least 3 (large or bold
    // text), the same colour for the explorer's message and field frame and the Arithmetic
    // page's.
    void errorStyleFollowsThePalette_data() { themes(); }
    void errorStyleFollowsThePalette() {
        QFETCH(bool, dark);
        PaletteScope scope(dark);
        MainWindow window;
        window.resize(1280, 900);
        window.show();
        window.controller()->setInputText("1/");
        window.controller()->waitForIdle();
        auto* message = window.findChild<QLabel*>("inputError");
        QVERIFY(message && message->isVisible());
        const QColor colour = styleSheetColour(message->styleSheet(), "color");
        QVERIFY2(colour.isValid(), qPrintable(message->styleSheet()));
        QCOMPARE(styleSheetColour(window.valueEdit()->styleSheet(), "solid"), colour);
        const double contrast = contrastRatio(colour, window.palette().color(QPalette::Window));
        QVERIFY2(contrast >= 3.0,
                 qPrintable(QString("%1 on %2: contrast %3")
                                .arg(colour.name(), window.palette().color(QPalette::Window).name())
                                .arg(contrast)));
        ExpressionPanel* expression = window.arithmeticPage()->expressionPanel();
        window.showPage(MainWindow::Page::Arithmetic);
        expression->findChild<QLineEdit*>()->setText("1+");
        auto* expressionError = expression->findChild<QLabel*>("expressionError");
        QVERIFY(expressionError);
        QCOMPARE(styleSheetColour(expressionError->styleSheet(), "color"), colour);
    }

  private:
    static void themes() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
};

QTEST_MAIN(TestPageStyles)
#include "tst_page_styles.moc"
