// SPDX-License-Identifier: GPL-3.0-or-later
// Plots fit for slides, offscreen with real widgets: 16 formats in 16 distinct (colour, dash)
// pairs, the dark palette, the legend and the ε/2 labels outside the data and apart from each
// other (by their laid-out rectangles), the x range and log switches of every kind, the ULP
// plot's first view, the values plot at the window's default split, and the memory plot's
// parameter counts, training parts, GiB and exact-byte read-out.
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/plots_panel.h"
#include "plot_palette.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "fpx/exact/format_catalogue.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace fpx;
using namespace fpx::gui;

namespace {

std::vector<FormatSpec> specs(const char* list) {
    FormatListLookup lookup = findFormats(list);
    if (!lookup.error.empty())
        qFatal("%s", lookup.error.c_str());
    return lookup.specs;
}

// Sixteen formats: the built-ins and custom eXmY.
constexpr const char* kSixteen = "fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2,fp6_e3m2,fp6_e2m3,"
                                 "fp4_e2m1,e3m4,e4m2,e5m3,e2m4,e3m3,e4m4,e5m5";

// Sets the kind and waits for its plot (a kind already shown is recomputed).
void showKind(PlotsPanel* panel, plots::PlotKind kind) {
    QSignalSpy ready(panel, &PlotsPanel::plotReady);
    panel->setKind(kind);
    QVERIFY(ready.wait(60000));
    QCOMPARE(panel->data().request.kind, kind);
    panel->plot()->replot(); // lays the plot out at its widget size
}

std::vector<QCPTextElement*> epsilonLabels(QCustomPlot* plot) {
    std::vector<QCPTextElement*> labels;
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
        if (auto* text = qobject_cast<QCPTextElement*>(e);
            text && text->objectName() == "epsilonLabel")
            labels.push_back(text);
    return labels;
}

} // namespace

class TestPlotsSlides : public QObject {
    Q_OBJECT

  private slots:
    void sixteenDistinctSeries() {
        std::set<std::pair<QRgb, int>> styles;
        for (int i = 0; i < 16; ++i) {
            const plots::SeriesStyle s = plots::seriesStyle(i);
            styles.insert({s.colour.rgb(), static_cast<int>(s.dash)});
        }
        QCOMPARE(styles.size(), std::size_t{16});
        // The first eight differ by colour alone (no two share one), all solid.
        std::set<QRgb> firstColours;
        for (int i = 0; i < 8; ++i) {
            firstColours.insert(plots::seriesStyle(i).colour.rgb());
            QCOMPARE(plots::seriesStyle(i).dash, Qt::SolidLine);
        }
        QCOMPARE(firstColours.size(), std::size_t{8});

        // And the explorer's plots use them: 16 formats, 16 distinct pens.
        MainWindow window;
        window.resize(1600, 900);
        window.controller()->setFormats(specs(kSixteen));
        window.show();
        window.showLowerTab(1);
        PlotsPanel* panel = window.plotsPanel();
        showKind(panel, plots::PlotKind::Ulp);
        QCustomPlot* plot = panel->plot();
        QCOMPARE(plot->graphCount(), 16);
        std::set<std::pair<QRgb, int>> pens;
        for (int i = 0; i < plot->graphCount(); ++i)
            pens.insert({plot->graph(i)->pen().color().rgb(),
                         static_cast<int>(plot->graph(i)->pen().style())});
        QCOMPARE(pens.size(), std::size_t{16});
        showKind(panel, plots::PlotKind::Error);
        std::set<std::pair<QRgb, int>> errorPens;
        for (int i = 0; i < plot->legend->itemCount(); ++i) {
            auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i));
            if (!item)
                continue; // an empty cell of a legend wrapped into columns
            const QPen pen = item->plottable()->pen();
            errorPens.insert({pen.color().rgb(), static_cast<int>(pen.style())});
        }
        QCOMPARE(errorPens.size(), std::size_t{16});
        // 16 entries wrap into more than one column beside the plot.
        QVERIFY(plot->legend->columnCount() > 1);
    }

    void followsTheDarkPalette() {
        const QPalette original = QApplication::palette();
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x22, 0x22, 0x22));
        dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
        dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        QApplication::setPalette(dark);
        {
            MainWindow window;
            window.resize(1600, 900);
            window.controller()->setFormats(specs("fp16,bf16"));
            window.show();
            window.showLowerTab(1);
            PlotsPanel* panel = window.plotsPanel();
            showKind(panel, plots::PlotKind::Ulp);
            QCustomPlot* plot = panel->plot();
            QVERIFY(plot->xAxis->tickLabelColor().lightness() > 160);
            QVERIFY(plot->xAxis->labelColor().lightness() > 160);
            QVERIFY(plot->xAxis->basePen().color().lightness() > 160);
            // The pixels: the corner of the rendered plot is dark.
            const QImage image = plot->toPixmap(400, 300).toImage();
            QVERIFY(QColor(image.pixel(2, 2)).lightness() < 80);
        }
        QApplication::setPalette(original);
        MainWindow light;
        light.controller()->setFormats(specs("fp16"));
        light.show();
        light.showLowerTab(1);
        showKind(light.plotsPanel(), plots::PlotKind::Ulp);
        const QImage image = light.plotsPanel()->plot()->toPixmap(400, 300).toImage();
        QVERIFY(QColor(image.pixel(2, 2)).lightness() > 200);
    }

    void legendAndEpsilonLabelsApart() {
        MainWindow window;
        window.resize(1024, 768);
        // FP8 E4M3 and FP6 E2M3 share ε/2 = 2^-4: one label names both.
        window.controller()->setFormats(
            specs("fp32,bf16,fp16,fp8_e4m3,fp8_e5m2,fp6_e2m3,fp6_e3m2,fp4_e2m1"));
        window.show();
        window.showLowerTab(1);
        PlotsPanel* panel = window.plotsPanel();
        showKind(panel, plots::PlotKind::Error);
        QCustomPlot* plot = panel->plot();
        QVERIFY(plot->legend->visible());
        const QRect legend = plot->legend->outerRect();
        QVERIFY(!legend.isEmpty());
        for (QCPAxisRect* rect : plot->axisRects())
            QVERIFY2(!legend.intersects(rect->rect()), "the legend covers the data");
        const std::vector<QCPTextElement*> labels = epsilonLabels(plot);
        // ε/2: fp32 2^-24, bf16 2^-8, fp16 2^-11, e4m3 and e2m3 2^-4, e5m2 and e3m2 2^-3,
        // fp4 2^-2: six labels.
        QCOMPARE(labels.size(), std::size_t{6});
        bool shared = false;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const QRect a = labels[i]->outerRect();
            QVERIFY(!a.isEmpty());
            QVERIFY2(!a.intersects(legend), "an ε/2 label covers the legend");
            for (QCPAxisRect* rect : plot->axisRects())
                QVERIFY2(!a.intersects(rect->rect()), "an ε/2 label covers the data");
            for (std::size_t j = i + 1; j < labels.size(); ++j)
                QVERIFY2(!a.intersects(labels[j]->outerRect()), "two ε/2 labels overlap");
            shared = shared || (labels[i]->text().contains("fp8_e4m3") &&
                                labels[i]->text().contains("fp6_e2m3"));
        }
        QVERIFY(shared);
        // Legend clicks still hide a series.
        auto* entry = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(0));
        QVERIFY(entry);
        QTest::mouseClick(plot, Qt::LeftButton, {}, entry->outerRect().center());
        QVERIFY(!entry->plottable()->visible());
    }

    void switchesOnEveryKind() {
        MainWindow window;
        window.resize(1600, 900);
        window.controller()->setFormats(specs("fp16,fp8_e4m3,fp4_e2m1"));
        window.show();
        window.showLowerTab(1);
        PlotsPanel* panel = window.plotsPanel();
        auto* from = panel->findChild<QLineEdit*>("plotFrom");
        auto* to = panel->findChild<QLineEdit*>("plotTo");
        auto* log = panel->findChild<QCheckBox*>("plotLog");
        QVERIFY(from && to && log);

        // ULP: the range sets the magnitudes shown; log has no meaning, says why.
        showKind(panel, plots::PlotKind::Ulp);
        QVERIFY(from->isEnabled());
        QVERIFY(!log->isEnabled());
        QVERIFY(!log->toolTip().isEmpty());
        QSignalSpy ready(panel, &PlotsPanel::plotReady);
        panel->setXRange("1", "16");
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel->plot()->xAxis->range().lower, 0.0); // log2 1
        QCOMPARE(panel->plot()->xAxis->range().upper, 4.0); // log2 16

        // Range: the same magnitudes.
        showKind(panel, plots::PlotKind::Range);
        QVERIFY(from->isEnabled());
        QVERIFY(!log->isEnabled());
        QVERIFY(from->text().isEmpty()); // each kind keeps its own range: auto here
        ready.clear();
        panel->setXRange("2^-10", "2^10");
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel->plot()->xAxis->range().lower, -10.0);
        QCOMPARE(panel->plot()->xAxis->range().upper, 10.0);

        // Values: the range and a symmetric log axis.
        showKind(panel, plots::PlotKind::Values);
        QVERIFY(from->isEnabled());
        QVERIFY(log->isEnabled());
        ready.clear();
        panel->setXRange("-2", "3");
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel->plot()->xAxis->range().lower, -2.0);
        QCOMPARE(panel->plot()->xAxis->range().upper, 3.0);
        ready.clear();
        log->setChecked(true);
        QVERIFY(ready.wait(60000));
        QVERIFY(panel->data().request.symmetricLog);
        QVERIFY(panel->plot()->xAxis->label().contains("symmetric log"));

        // Error: both, and its own range came back.
        showKind(panel, plots::PlotKind::Error);
        QCOMPARE(from->text(), QString("0.0625"));
        QVERIFY(from->isEnabled() && log->isEnabled());
        QVERIFY(panel->data().request.logarithmic); // the log box stayed checked
        QCOMPARE(panel->plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);

        // Memory: neither, each with its reason.
        showKind(panel, plots::PlotKind::Memory);
        QVERIFY(!from->isEnabled() && !log->isEnabled());
        QVERIFY(from->toolTip().contains("memory"));
        QVERIFY(log->toolTip().contains("memory"));
    }

    void ulpFirstViewShowsTheNarrowStaircases() {
        MainWindow window;
        window.resize(1024, 768);
        window.controller()->setFormats(specs("fp64,fp32,fp16,bf16,fp8_e4m3,fp8_e5m2"));
        window.show();
        window.showLowerTab(1);
        PlotsPanel* panel = window.plotsPanel();
        showKind(panel, plots::PlotKind::Ulp);
        QCustomPlot* plot = panel->plot();
        // The view spans the formats of at most 64 binades, FP16 (2^-24 … 2^16) and the FP8
        // pair, with a binade to spare; BF16, FP32 and FP64 run on beyond it.
        const QCPRange x = plot->xAxis->range();
        QCOMPARE(x.lower, -25.0);
        QVERIFY2(x.upper > 16 && x.upper <= 17, qPrintable(QString::number(x.upper)));
        // One binade of gap, one step of every staircase, is several pixels high and wide.
        const double step = std::abs(plot->yAxis->coordToPixel(0) - plot->yAxis->coordToPixel(1));
        QVERIFY2(step >= 4.0, qPrintable(QString::number(step)));
        const double width = std::abs(plot->xAxis->coordToPixel(1) - plot->xAxis->coordToPixel(0));
        QVERIFY2(width >= 10.0, qPrintable(QString::number(width)));
        // FP64's gaps there (2^-77 … 2^-36) lie below the view, and the axis says so.
        QVERIFY2(plot->xAxis->label().contains("fp64"), qPrintable(plot->xAxis->label()));
        // FP64 alone: its own range is the view.
        window.controller()->setFormats(specs("fp64"));
        showKind(panel, plots::PlotKind::Ulp);
        QVERIFY(plot->xAxis->range().lower < -1074);
    }

    void valuesReadableAtTheDefaultSplit() {
        MainWindow window;
        window.resize(1024, 768);
        window.controller()->setFormats(specs("fp8_e4m3,fp8_e5m2,fp6_e2m3,fp4_e2m1,nf4,int4"));
        window.show();
        window.showLowerTab(1);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PlotsPanel* panel = window.plotsPanel();
        showKind(panel, plots::PlotKind::Values);
        QCustomPlot* plot = panel->plot();
        QCPAxisRect* lines = plot->axisRect(0);
        // The number lines alone: the code map is a plot of its own.
        QCOMPARE(plot->axisRectCount(), 1);
        // Six rows, each at least a line of text high: the row names do not overlap.
        const int rowHeight = lines->rect().height() / 6;
        const int textHeight = QFontMetrics(plot->yAxis->tickLabelFont()).height();
        QVERIFY2(rowHeight >= textHeight,
                 qPrintable(QString("row %1 px, text %2 px").arg(rowHeight).arg(textHeight)));
    }

    void codeMapsTwoARowEachCellVisible() {
        MainWindow window;
        window.resize(1024, 768);
        window.controller()->setFormats(specs("fp16,fp8_e4m3,fp8_e5m2,fp6_e2m3,fp4_e2m1"));
        window.show();
        window.showLowerTab(1);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PlotsPanel* panel = window.plotsPanel();
        showKind(panel, plots::PlotKind::Codes);
        QCustomPlot* plot = panel->plot();
        // FP16 has no map (65 536 codes); the four small formats two a row.
        QCOMPARE(plot->axisRectCount(), 4);
        const QRect e4m3 = plot->axisRect(0)->rect();
        const QRect e5m2 = plot->axisRect(1)->rect();
        const QRect fp6 = plot->axisRect(2)->rect();
        QCOMPARE(e4m3.top(), e5m2.top());
        QVERIFY(e5m2.left() > e4m3.right());
        QVERIFY(fp6.top() > e4m3.bottom());
        // Every cell of an 8-bit map at least two pixels each way: no code is lost to the
        // rendering.
        QVERIFY2(e4m3.width() >= 32 && e4m3.height() >= 32,
                 qPrintable(QString("%1 × %2").arg(e4m3.width()).arg(e4m3.height())));
        QCOMPARE(plot->axisRect(0)->axis(QCPAxis::atBottom)->label(), QString("fp8_e4m3"));
    }

    void memoryParametersTrainingGib() {
        MainWindow window;
        window.resize(1600, 900);
        window.controller()->setFormats(specs("fp16,bf16,fp4_e2m1,int4"));
        window.show();
        window.showLowerTab(1);
        PlotsPanel* panel = window.plotsPanel();
        showKind(panel, plots::PlotKind::Memory);
        auto* params = panel->findChild<QComboBox*>("plotParameters");
        QVERIFY(params && params->isVisible());
        QStringList presets;
        for (int i = 0; i < params->count(); ++i)
            presets << params->itemText(i);
        QCOMPARE(presets, QStringList({"1B", "7B", "70B", "405B"}));
        QCOMPARE(panel->parameters(), std::uint64_t{70'000'000'000});
        // fp16, bf16, fp4_e2m1, int4, then MXFP4 and NVFP4 from the FP4 elements.
        QCOMPARE(panel->data().memory.size(), std::size_t{6});
        QCOMPARE(QString::fromStdString(panel->data().memory[4].id), QString("mxfp4"));
        // The hover read-out at MXFP4's bar: 70e9 × 4.25 / 8 bytes, exactly.
        QVERIFY2(panel->readoutAt(5).contains("37,187,500,000 bytes"),
                 qPrintable(panel->readoutAt(5)));
        QVERIFY(panel->readoutAt(1).contains("140,000,000,000 bytes")); // FP16
        QVERIFY(panel->readoutAt(40).isEmpty());
        // The bar's height in GB.
        auto* bars = qobject_cast<QCPBars*>(panel->plot()->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->at(4)->value, 37.1875);

        // Free entry, typed: 13B; a bad count says why and changes nothing.
        QSignalSpy ready(panel, &PlotsPanel::plotReady);
        params->lineEdit()->setText("13B");
        QTest::keyClick(params->lineEdit(), Qt::Key_Return);
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel->parameters(), std::uint64_t{13'000'000'000});
        QString error;
        QVERIFY(!panel->setParameters("13 apples", &error));
        QVERIFY(error.contains("parameter count"));
        QCOMPARE(panel->parameters(), std::uint64_t{13'000'000'000});
        ready.clear();
        QVERIFY(panel->setParameters("350M"));
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel->data().memory[0].totalBytes(), std::uint64_t{700'000'000});

        // Training by recipe: BF16 mixed, five stacked arrays, 16 bytes per parameter.
        ready.clear();
        panel->setParameters("7B");
        QVERIFY(ready.wait(60000));
        auto* recipe = panel->findChild<QComboBox*>("plotRecipe");
        auto* adapters = panel->findChild<QComboBox*>("plotAdapters");
        QVERIFY(recipe && recipe->isVisible() && adapters && !adapters->isVisible());
        ready.clear();
        recipe->setCurrentIndex(recipe->findData("bf16-mixed"));
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel->plot()->plottableCount(), 5);
        QCOMPARE(panel->data().memory.size(), std::size_t{1}); // the formats play no part
        QCOMPARE(panel->data().memory[0].totalBytes(), std::uint64_t{112'000'000'000});
        QVERIFY2(panel->readoutAt(1).contains("master weights: 28,000,000,000 bytes (FP32)"),
                 qPrintable(panel->readoutAt(1)));
        QStringList legend;
        for (int i = 0; i < panel->plot()->plottableCount(); ++i)
            legend << panel->plot()->plottable(i)->name();
        QCOMPARE(legend, QStringList({"weights (BF16)", "gradients (BF16)", "master weights (FP32)",
                                      "Adam m (FP32)", "Adam v (FP32)"}));
        // All three side by side: FP8 adds an E4M3 copy (7e9 × 17 + 4 bytes), QLoRA stores
        // NF4 frozen weights and 0.5 % BF16 adapters; no gradient in FP8 or NF4.
        ready.clear();
        recipe->setCurrentIndex(recipe->findData("training"));
        QVERIFY(ready.wait(60000));
        QVERIFY(adapters->isVisible());
        QCOMPARE(panel->data().memory.size(), std::size_t{3});
        QCOMPARE(panel->data().memory[1].totalBytes(), std::uint64_t{119'000'000'004});
        legend.clear();
        for (int i = 0; i < panel->plot()->plottableCount(); ++i)
            legend << panel->plot()->plottable(i)->name();
        QVERIFY2(legend.contains("FP8 weight copy (FP8 E4M3)"), qPrintable(legend.join('|')));
        QVERIFY2(legend.contains("frozen weights (NF4)"), qPrintable(legend.join('|')));
        for (const QString& name : legend)
            if (name.contains("gradients"))
                QVERIFY2(name.endsWith("(BF16)"), qPrintable(name));
        // The FP8 copy's bar segment: 7e9 + 4 bytes, in GB.
        for (int i = 0; i < panel->plot()->plottableCount(); ++i)
            if (panel->plot()->plottable(i)->name().startsWith("FP8"))
                QCOMPARE(qobject_cast<QCPBars*>(panel->plot()->plottable(i))->data()->at(0)->value,
                         7.000000004);
        QVERIFY2(panel->readoutAt(3).contains("adapters: 70,000,000 bytes (BF16)"),
                 qPrintable(panel->readoutAt(3)));
        // Adapters typed as a count: 40M × 12 bytes beside the frozen weights.
        ready.clear();
        adapters->lineEdit()->setText("40M");
        QTest::keyClick(adapters->lineEdit(), Qt::Key_Return);
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel->data().memory[2].totalBytes(),
                 std::uint64_t{3'500'000'000 + 109'375'000 + 427'247 * 4 + 4 + 480'000'000});
        QVERIFY(panel->plot()->xAxis->label().contains("40M"));
        QVERIFY(!panel->setAdapterParams("200%", &error));
        // GiB.
        ready.clear();
        panel->setMemoryGib(true);
        QVERIFY(ready.wait(60000));
        QVERIFY(panel->plot()->yAxis->label().contains("GiB"));
        QVERIFY(panel->readoutAt(1).contains("GiB"));
    }

    void commandLineOptions() {
        QTemporaryDir dir;
        const QString png = dir.filePath("memory.png");
        QProcess explorer;
        explorer.start(FPX_EXPLORER_PATH,
                       {"--no-settings", "--size", "1024x768", "--formats", "fp16,fp4_e2m1,int4",
                        "--plot", "memory", "--params", "70B", "--memory-recipe", "qlora",
                        "--adapter-params", "1%", "--gib", "--screenshot", png});
        QVERIFY(explorer.waitForFinished(120000));
        QVERIFY2(explorer.exitCode() == 0, explorer.readAllStandardError().constData());
        QVERIFY(QImage(png).width() > 0);
        QProcess bad;
        bad.start(FPX_EXPLORER_PATH, {"--no-settings", "--plot", "memory", "--params", "70X",
                                      "--screenshot", dir.filePath("bad.png")});
        QVERIFY(bad.waitForFinished(120000));
        QVERIFY(bad.exitCode() != 0);
        QVERIFY(bad.readAllStandardError().contains("--params"));
    }
};

QTEST_MAIN(TestPlotsSlides)
#include "tst_plots_slides.moc"
