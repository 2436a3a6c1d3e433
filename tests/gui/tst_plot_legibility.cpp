// SPDX-License-Identifier: GPL-3.0-or-later
// Every plot of the window legible on a 1024 × 768 projector at 150 % zoom, offscreen with real
// widgets: each page and each of its tabs and views in turn (the Explorer's plot kinds, the
// Arithmetic labs, Quantization, the Training views, Machines), and for every QCustomPlot shown
// - no two tick labels of an axis overlap, by rectangles measured here from the labels the
//   plot drew, in the axis's font, at the pixel of each tick;
// - the legend lies inside the widget;
// - the plot is at least twelve lines of its font tall;
// and the plots' fonts follow a zoom at once, with no run in between. The Benchmarks page draws
// only after a run of minutes and is left out.
#include "common/page.h"
#include "common/plot_legibility.h"
#include "common/zoom.h"
#include "pages/explorer/plots_panel.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFontMetricsF>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace fpx;
using namespace fpx::gui;

namespace {

QString describe(const QCustomPlot* plot) {
    QString name = plot->objectName();
    for (const QWidget* w = plot->parentWidget(); w && name.size() < 80; w = w->parentWidget())
        if (!w->objectName().isEmpty())
            name += " in " + w->objectName();
    return name.isEmpty() ? QStringLiteral("(unnamed plot)") : name;
}

// A label as QCustomPlot typesets it: with beautiful powers (a number format "eb" or "gb"),
// "2.5e-07" is drawn as 2.5·10 with a raised -7 in three-quarter type, and on a log axis
// "1e+04" as 10 with a raised 4.
QSizeF typesetSize(const QCPAxis& axis, const QString& label) {
    const QFontMetricsF metrics(axis.tickLabelFont());
    static const QRegularExpression power(QStringLiteral("^([-0-9.]+)e\\+?(-?)0*(\\d+)$"));
    const QRegularExpressionMatch match = power.match(label);
    if (!axis.numberFormat().contains('b') || !match.hasMatch())
        return metrics.boundingRect(QRectF(), Qt::AlignCenter, label).size();
    const bool bare = axis.scaleType() == QCPAxis::stLogarithmic && match.captured(1) == "1";
    const QString base = bare ? QStringLiteral("10") : match.captured(1) + QChar(0xb7) + "10";
    QFont raised = axis.tickLabelFont();
    raised.setPointSizeF(raised.pointSizeF() * 0.75);
    const double exponent =
        QFontMetricsF(raised).horizontalAdvance(match.captured(2) + match.captured(3));
    return {metrics.horizontalAdvance(base) + exponent + 1, metrics.height()};
}

// The labels `axis` drew, as intervals along the axis, each as wide (or tall) as its text.
QString overlappingTickLabels(const QCPAxis* axis) {
    const QFontMetricsF metrics(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    struct Label {
        double from, to;
        QString text;
    };
    std::vector<Label> drawn;
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const double turned = std::abs(std::fmod(axis->tickLabelRotation(), 180.0)) > 45;
    for (qsizetype i = 0; i < ticks.size() && i < labels.size(); ++i) {
        if (labels[i].isEmpty() || !axis->range().contains(ticks[i]))
            continue;
        const QSizeF box = typesetSize(*axis, labels[i]);
        const double along = (horizontal != bool(turned)) ? box.width() : box.height();
        const double at = axis->coordToPixel(ticks[i]);
        drawn.push_back({at - along / 2, at + along / 2, labels[i]});
    }
    std::sort(drawn.begin(), drawn.end(),
              [](const Label& a, const Label& b) { return a.from < b.from; });
    for (std::size_t i = 1; i < drawn.size(); ++i)
        if (drawn[i].from < drawn[i - 1].to)
            return QString("\"%1\" and \"%2\" overlap (%3 px)")
                .arg(drawn[i - 1].text, drawn[i].text)
                .arg(drawn[i - 1].to - drawn[i].from);
    return {};
}

// The legible height, and so a legend's rows, need a page that can scroll
// (common/plot_legibility.h). The Explorer's Plots tab shares the page's height with the table
// in a splitter instead (it takes all but two rows of the table): what it lacks for that is
// reported, not held against it.
bool onPageThatCannotScroll(const QWidget* plot) {
    for (const QWidget* w = plot; w; w = w->parentWidget())
        if (w->objectName() == "plotsPanel")
            return true;
    return false;
}

void checkPlot(QCustomPlot* plot, const QString& where) {
    plot->replot();
    const QString name = where + ": " + describe(plot);
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            if (!axis->visible() || !axis->tickLabels())
                continue;
            const QString overlap = overlappingTickLabels(axis);
            QVERIFY2(overlap.isEmpty(),
                     qPrintable(name + ", axis " + axis->label() + ": " + overlap));
        }
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true))
        if (auto* legend = qobject_cast<QCPLegend*>(element);
            legend && legend->visible() && legend->itemCount() > 0) {
            // Its entries whole: the legend has at least the room they ask for.
            const QSize wanted = legend->minimumOuterSizeHint();
            if (onPageThatCannotScroll(plot) && (legend->outerRect().height() < wanted.height() ||
                                                 legend->outerRect().width() < wanted.width())) {
                qWarning("%s: legend %d×%d px for entries of %d×%d: its page does not scroll",
                         qPrintable(name), legend->outerRect().width(),
                         legend->outerRect().height(), wanted.width(), wanted.height());
                continue;
            }
            QVERIFY2(legend->outerRect().width() >= wanted.width() &&
                         legend->outerRect().height() >= wanted.height(),
                     qPrintable(QString("%1: legend %2×%3 for entries of %4×%5")
                                    .arg(name)
                                    .arg(legend->outerRect().width())
                                    .arg(legend->outerRect().height())
                                    .arg(wanted.width())
                                    .arg(wanted.height())));
            QVERIFY2(plot->rect().contains(legend->outerRect()),
                     qPrintable(QString("%1: legend at %2,%3 %4×%5 outside %6×%7")
                                    .arg(name)
                                    .arg(legend->outerRect().x())
                                    .arg(legend->outerRect().y())
                                    .arg(legend->outerRect().width())
                                    .arg(legend->outerRect().height())
                                    .arg(plot->width())
                                    .arg(plot->height())));
        }
    const double twelveLines = 12 * QFontMetricsF(plot->font()).lineSpacing();
    if (onPageThatCannotScroll(plot)) {
        if (plot->height() < std::floor(twelveLines))
            qWarning("%s: %d px tall, under twelve lines (%g px): its page does not scroll",
                     qPrintable(name), plot->height(), twelveLines);
        return;
    }
    QVERIFY2(plot->height() >= std::floor(twelveLines),
             qPrintable(QString("%1: %2 px tall, under twelve lines (%3 px)")
                            .arg(name)
                            .arg(plot->height())
                            .arg(twelveLines)));
}

// Lets the pages finish what the switch started, then checks every plot on screen.
void checkShownPlots(MainWindow& window, const QString& where) {
    for (MainWindow::Page page :
         {MainWindow::Page::Explorer, MainWindow::Page::Arithmetic, MainWindow::Page::Quantization,
          MainWindow::Page::Training, MainWindow::Page::Machines})
        window.hostedPage(page)->waitUntilIdle(std::chrono::minutes(2));
    QTest::qWait(50); // the layouts and replots the results posted
    for (QCustomPlot* plot : window.findChildren<QCustomPlot*>())
        if (plot->isVisible()) {
            checkPlot(plot, where);
            if (QTest::currentTestFailed())
                return;
        }
}

// The nearest tab widget above `widget`, below `stop`.
const QWidget* enclosingTabs(const QWidget* widget, const QWidget* stop) {
    for (const QWidget* w = widget->parentWidget(); w && w != stop; w = w->parentWidget())
        if (w->inherits("QTabWidget"))
            return w;
    return nullptr;
}

// Every tab of `tabs` in turn, and the tab widgets inside each.
void walkTabs(MainWindow& window, QTabWidget* tabs, const QString& where) {
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        const QString here = where + " › " + tabs->tabText(i).remove('&');
        checkShownPlots(window, here);
        if (QTest::currentTestFailed())
            return;
        for (QTabWidget* inner : tabs->widget(i)->findChildren<QTabWidget*>())
            if (inner->isVisible() && enclosingTabs(inner, &window) == tabs) {
                walkTabs(window, inner, here);
                if (QTest::currentTestFailed())
                    return;
            }
    }
}

} // namespace

class TestPlotLegibility : public QObject {
    Q_OBJECT

  private slots:
    void everyPlotAt1024By768And150Percent() {
        MainWindow window;
        window.resize(1024, 768);
        window.zoom()->setPercent(150);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (MainWindow::Page page : {MainWindow::Page::Explorer, MainWindow::Page::Arithmetic,
                                      MainWindow::Page::Quantization, MainWindow::Page::Training,
                                      MainWindow::Page::Machines}) {
            window.showPage(page);
            const QString where = QString("page %1").arg(int(page));
            checkShownPlots(window, where);
            if (page == MainWindow::Page::Explorer) {
                window.showLowerTab(1);
                for (plots::PlotKind kind :
                     {plots::PlotKind::Error, plots::PlotKind::Ulp, plots::PlotKind::Range,
                      plots::PlotKind::Values, plots::PlotKind::Memory}) {
                    QSignalSpy ready(window.plotsPanel(), &PlotsPanel::plotReady);
                    window.plotsPanel()->setKind(kind);
                    QVERIFY(ready.wait(60000));
                    checkShownPlots(window, where + " plot " + plots::plotKindId(kind));
                    if (QTest::currentTestFailed())
                        return;
                }
                continue;
            }
            gui::Page* hosted = window.hostedPage(page);
            for (QTabWidget* tabs : hosted->findChildren<QTabWidget*>())
                if (tabs->isVisible() && !enclosingTabs(tabs, hosted)) {
                    walkTabs(window, tabs, where);
                    if (QTest::currentTestFailed())
                        return;
                }
        }
    }

    // A title or footnote longer than the plot is wide breaks into lines at spaces and leaves
    // the plot's width to its page; set anew, it is wrapped anew.
    void longTitlesWrapInsteadOfWideningThePlot() {
        QWidget page;
        page.resize(300, 400);
        auto* plot = new QCustomPlot(&page);
        plot->resize(300, 400);
        plot->plotLayout()->insertRow(0);
        const QString words = "Memory per parameter count for training with Adam, each array "
                              "in its recipe's format";
        auto* title = new QCPTextElement(plot, words, QFont("sans", 14, QFont::Bold));
        plot->plotLayout()->addElement(0, 0, title);
        keepLegible(*plot);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        plot->replot();
        const QFontMetrics metrics(title->font());
        QVERIFY2(title->text().contains('\n'), qPrintable(title->text()));
        QCOMPARE(title->text().simplified(), words);
        for (const QString& line : title->text().split('\n'))
            QVERIFY2(metrics.horizontalAdvance(line) <= plot->width(), qPrintable(line));
        QVERIFY(plot->plotLayout()->minimumOuterSizeHint().width() <
                metrics.horizontalAdvance(words));
        title->setText("Short");
        plot->replot();
        QCOMPARE(title->text(), QString("Short"));
    }

    // A zoom reaches every plot's text with the next replot the zoom itself asks for: no run.
    void plotFontsFollowTheZoomAtOnce() {
        MainWindow window;
        window.resize(1024, 768);
        window.showPage(MainWindow::Page::Training);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.hostedPage(MainWindow::Page::Training)->waitUntilIdle(std::chrono::minutes(2));
        QTest::qWait(50);
        std::vector<std::pair<QCPAxis*, double>> before;
        for (QCustomPlot* plot : window.findChildren<QCustomPlot*>())
            if (plot->isVisible())
                for (QCPAxisRect* rect : plot->axisRects())
                    for (QCPAxis* axis : rect->axes())
                        if (axis->visible())
                            before.push_back({axis, axis->tickLabelFont().pointSizeF()});
        QVERIFY(!before.empty());
        const double minimumBefore = window.findChildren<QCustomPlot*>().front()->minimumHeight();
        window.zoom()->setPercent(200);
        QTest::qWait(50); // the queued replots, no more
        for (const auto& [axis, points] : before)
            QCOMPARE(axis->tickLabelFont().pointSizeF(), points * 2);
        QCustomPlot* first = window.findChildren<QCustomPlot*>().front();
        if (first->isVisible())
            QVERIFY(first->minimumHeight() > minimumBefore);
    }
};

QTEST_MAIN(TestPlotLegibility)
#include "tst_plot_legibility.moc"
