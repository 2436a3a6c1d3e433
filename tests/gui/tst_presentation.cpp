// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer on a projector, offscreen: zoom (keys, wheel, settings, --zoom) of fonts, bit
// cells and every page's plots; presentation mode; the first window size; and a table whose
// shown columns stay whole and inside the view at 1024 × 768, zoomed or not. Run a second time
// under QT_SCALE_FACTOR=1.5 (tests/CMakeLists.txt).
#include "common/code_cells_delegate.h"
#include "common/page.h"
#include "common/zoom.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/explorer_page.h"
#include "pages/explorer/format_manager_dialog.h"
#include "pages/explorer/format_table_model.h"
#include "pages/explorer/plots_panel.h"
#include "pages/explorer/same_bits_dialog.h"
#include "pages/explorer/table_fit.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/training_page.h"
#include "shell/explorer_settings.h"
#include "shell/lesson_panel.h"
#include "shell/main_window.h"
#include "shell/presentation_mode.h"
#include "shell/window_size.h"

#include <qcustomplot.h>

#include "fpx/exact/format_catalogue.h"

#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QProcess>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include <algorithm>

using namespace fpx;
using namespace fpx::gui;

namespace {

void sendWheel(QWidget* target, int delta, Qt::KeyboardModifiers modifiers) {
    const QPointF at = QPointF(target->rect().center());
    QWheelEvent event(at, target->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton,
                      modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(target, &event);
}

// The font a cell of the table is drawn in: the model's own (the fixed-width family) resolved
// against the table's, as the delegate does, or else the table's, which the zoom sets.
QFont cellFont(const QTableView& table, const QModelIndex& index) {
    const QVariant own = index.data(Qt::FontRole);
    return own.isValid() ? own.value<QFont>().resolve(table.font()) : table.font();
}

// Each cell's text fits its column with the item view's margins (no "…" from the view), the bit
// cells fit theirs, and (unless the table may scroll) every shown column lies inside the view.
void checkColumnsWhole(MainWindow& window, const char* where, bool insideView = true) {
    QTableView* table = window.table();
    const int viewport = table->viewport()->width();
    // The format and its bits are never taken away; the value and its error step out last,
    // to the Details tab's Stored line.
    for (int c : {FormatTableModel::Name, FormatTableModel::Bits})
        QVERIFY2(!table->isColumnHidden(c), where);
    const std::vector<int> hidden = window.tableFitter()->hiddenColumns();
    const bool steppedOut = std::ranges::any_of(
        hidden, [](int c) { return c == FormatTableModel::Value || c == FormatTableModel::Error; });
    if (steppedOut)
        QVERIFY2(hidden.size() >= 6, where); // after every other column that may
    QCOMPARE(window.detailPanel()->storedLine()->isVisibleTo(window.detailPanel()), steppedOut);
    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 1);
    for (int c = 0; c < table->model()->columnCount(); ++c) {
        if (table->isColumnHidden(c))
            continue;
        const int left = table->columnViewportPosition(c);
        const int width = table->columnWidth(c);
        const QByteArray what = QByteArray(where) + ": column " + QByteArray::number(c) + " at " +
                                QByteArray::number(left) + "+" + QByteArray::number(width) +
                                " in a viewport of " + QByteArray::number(viewport);
        if (insideView)
            QVERIFY2(left >= 0 && left + width <= viewport, what.constData());
        if (c == FormatTableModel::Bits) {
            QVERIFY2(window.bitsDelegate()->layout().totalWidth() <= width, what.constData());
            continue;
        }
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const QModelIndex index = table->model()->index(r, c);
            const QString text = index.data(Qt::DisplayRole).toString();
            const int needed =
                QFontMetrics(cellFont(*table, index)).horizontalAdvance(text) + margin;
            QVERIFY2(needed <= width, (what + ", row " + QByteArray::number(r) + ": '" +
                                       text.toUtf8() + "' needs " + QByteArray::number(needed))
                                          .constData());
        }
    }
}

} // namespace

class TestPresentation : public QObject {
    Q_OBJECT

  private slots:
    void zoomLadder();
    void zoomKeysScaleFontsAndCells();
    void zoomEnlargesTheBits();
    void ctrlWheelZooms();
    void zoomScalesEveryPagesPlots();
    void zoomIsRemembered();
    void zoomOnTheCommandLine();
    void presentationMode();
    void formatsDialogFollowsTheZoom();
    void sameBitsDialogFollowsTheZoom();
    void firstSizeFitsTheScreen();
    void windowFitsA1024Screen();
    void columnsStayWholeAt1024x768_data();
    void columnsStayWholeAt1024x768();
    void columnsFollowTheValues();
    void screenshotsShowEveryColumn();
    void lessonDockKeeps1024x768();

  private:
    QTemporaryDir dir_;
};

void TestPresentation::zoomLadder() {
    QCOMPARE(nextZoomStep(100), 110);
    QCOMPARE(nextZoomStep(105), 110);
    QCOMPARE(previousZoomStep(100), 90);
    QCOMPARE(previousZoomStep(50), ZoomController::kMinPercent);
    QCOMPARE(nextZoomStep(300), ZoomController::kMaxPercent);
    QWidget window;
    ZoomController zoom(&window);
    zoom.setPercent(1000);
    QCOMPARE(zoom.percent(), 300);
    zoom.setPercent(10);
    QCOMPARE(zoom.percent(), 50);
}

void TestPresentation::zoomKeysScaleFontsAndCells() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const double windowPoints = window.font().pointSizeF();
    const double valuePoints = window.valueEdit()->font().pointSizeF();
    const double tablePoints = window.table()->font().pointSizeF();
    const int cell = window.bitsDelegate()->layout().cellWidth;
    const int rowHeight = window.table()->rowHeight(0);
    auto* label = window.findChild<QLabel*>("zoomLabel");
    QVERIFY(label);
    QCOMPARE(label->text(), QStringLiteral("Zoom 100 %"));

    QTest::keyClick(&window, Qt::Key_Equal, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 110);
    QTest::keyClick(&window, Qt::Key_Plus, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 125);
    window.zoom()->setPercent(200);
    QCOMPARE(label->text(), QStringLiteral("Zoom 200 %"));
    QCOMPARE(window.font().pointSizeF(), 2 * windowPoints);
    QCOMPARE(window.table()->font().pointSizeF(), 2 * tablePoints);
    // The value field's larger type stays larger by the same ratio.
    QVERIFY(qAbs(window.valueEdit()->font().pointSizeF() - 2 * valuePoints) < 0.01);
    QVERIFY2(window.bitsDelegate()->layout().cellWidth > cell,
             qPrintable(QString::number(window.bitsDelegate()->layout().cellWidth)));
    QVERIFY(window.table()->rowHeight(0) > rowHeight);

    QTest::keyClick(&window, Qt::Key_Minus, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 175);
    QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 100);
    QCOMPARE(window.font().pointSizeF(), windowPoints);
    QVERIFY(qAbs(window.valueEdit()->font().pointSizeF() - valuePoints) < 0.01);
    QCOMPARE(window.table()->rowHeight(0), rowHeight);
}

void TestPresentation::zoomEnlargesTheBits() {
    // A projector's use: few formats, zoomed in. The bit cells of the table and of the detail
    // panel grow with the type rather than give their room to the other columns.
    MainWindow window;
    window.controller()->setFormats(findFormats("fp32,fp16,bf16,fp8_e4m3,fp4_e2m1").specs);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.selectRow(0);
    auto* strip = window.detailPanel()->findChild<BitStrip*>();
    QVERIFY(strip);
    const int cell = window.bitsDelegate()->layout().cellWidth;
    const QSize stripSize = strip->sizeHint();
    window.zoom()->setPercent(150);
    QVERIFY2(
        window.bitsDelegate()->layout().cellWidth > cell,
        qPrintable(QString("%1 -> %2").arg(cell).arg(window.bitsDelegate()->layout().cellWidth)));
    QVERIFY(strip->sizeHint().height() > stripSize.height());
    QVERIFY(strip->sizeHint().width() > stripSize.width());
    checkColumnsWhole(window, "zoom 150, five formats");
}

void TestPresentation::ctrlWheelZooms() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    sendWheel(window.table()->viewport(), 120, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 110);
    // Over a plot too, where the wheel alone zooms the axes.
    window.showLowerTab(1);
    auto* plot = window.plotsPanel()->findChild<QCustomPlot*>();
    QVERIFY(plot);
    sendWheel(plot, 120, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 125);
    sendWheel(window.table()->viewport(), -240, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 100);
    // Half-notches of a touchpad add up to one step.
    sendWheel(window.table()->viewport(), 60, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 100);
    sendWheel(window.table()->viewport(), 60, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), 110);
    // Without Ctrl the wheel scrolls, as always.
    sendWheel(window.table()->viewport(), 120, Qt::NoModifier);
    QCOMPARE(window.zoom()->percent(), 110);
}

void TestPresentation::zoomScalesEveryPagesPlots() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QList<QCustomPlot*> plots = window.findChildren<QCustomPlot*>();
    // The explorer's plots, arithmetic's, quantization's, training's and the benchmarks chart.
    QVERIFY2(plots.size() >= 5, qPrintable(QString::number(plots.size())));
    QVERIFY(std::any_of(plots.begin(), plots.end(),
                        [&](QCustomPlot* p) { return window.plotsPanel()->isAncestorOf(p); }));
    struct Before {
        QCustomPlot* plot;
        double tick;
        double legend;
    };
    std::vector<Before> before;
    for (QCustomPlot* plot : plots) {
        plot->replot();
        before.push_back({plot, plot->xAxis->tickLabelFont().pointSizeF(),
                          plot->legend ? plot->legend->font().pointSizeF() : 0});
    }
    window.zoom()->setPercent(200);
    for (const Before& b : before) {
        b.plot->replot();
        QCOMPARE(b.plot->xAxis->tickLabelFont().pointSizeF(), 2 * b.tick);
        if (b.plot->legend && b.legend > 0)
            QCOMPARE(b.plot->legend->font().pointSizeF(), 2 * b.legend);
    }
    // Pages' own fonts scale with the window's (nothing on a page is left at 100 %).
    for (QWidget* page : {static_cast<QWidget*>(window.arithmeticPage()),
                          static_cast<QWidget*>(window.quantizationPage()),
                          static_cast<QWidget*>(window.trainingPage()),
                          static_cast<QWidget*>(window.benchmarksPanel()),
                          static_cast<QWidget*>(window.detailPanel())})
        QCOMPARE(page->font().pointSizeF(), window.font().pointSizeF());
    // Back to 100 %: the plots' own sizes again, not a 200 % font scaled down twice.
    window.zoom()->setPercent(100);
    for (const Before& b : before) {
        b.plot->replot();
        QCOMPARE(b.plot->xAxis->tickLabelFont().pointSizeF(), b.tick);
    }
}

void TestPresentation::zoomIsRemembered() {
    const QString path = dir_.filePath("zoom.ini");
    {
        QSettings settings(path, QSettings::IniFormat);
        MainWindow window(&settings);
        QCOMPARE(window.zoom()->percent(), 100);
        window.zoom()->setPercent(125);
        window.saveSettings();
    }
    {
        QSettings settings(path, QSettings::IniFormat);
        QCOMPARE(ExplorerSettings::load(settings).zoomPercent, 125);
        MainWindow window(&settings);
        QCOMPARE(window.zoom()->percent(), 125);
        // Presentation mode's larger zoom is not what the window remembers.
        window.presentation()->setActive(true);
        QCOMPARE(window.zoom()->percent(), PresentationMode::kPercent);
        // Closing leaves presentation mode first: the next run opens as a window.
        window.show();
        window.close();
        QVERIFY(!window.presentation()->isActive());
        QVERIFY(!(window.windowState() & Qt::WindowFullScreen));
    }
    QSettings settings(path, QSettings::IniFormat);
    QCOMPARE(ExplorerSettings::load(settings).zoomPercent, 125);
    settings.setValue("view/zoom", 5000);
    QCOMPARE(ExplorerSettings::load(settings).zoomPercent, ZoomController::kMaxPercent);
}

void TestPresentation::zoomOnTheCommandLine() {
    const QString out = dir_.filePath("zoomed.png");
    QProcess process;
    process.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--no-settings", "--size", "1024x768", "--zoom", "150", "--presentation",
                   "--screenshot", out});
    QVERIFY(process.waitForFinished(120'000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(!QImage(out).isNull());
    for (const char* bad : {"20", "400", "big"}) {
        QProcess refused;
        refused.start(QStringLiteral(FPX_EXPLORER_PATH),
                      {"--no-settings", "--zoom", bad, "--screenshot", dir_.filePath("x.png")});
        QVERIFY(refused.waitForFinished(120'000));
        QVERIFY(refused.exitCode() != 0);
        QVERIFY2(refused.readAllStandardError().contains("--zoom"), bad);
    }
}

void TestPresentation::presentationMode() {
    MainWindow window;
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.zoom()->setPercent(110);
    QTest::keyClick(&window, Qt::Key_F5);
    QVERIFY(window.presentation()->isActive());
    QVERIFY(window.windowState() & Qt::WindowFullScreen);
    QVERIFY(window.menuBar()->isHidden());
    QVERIFY(window.statusBar()->isHidden());
    QCOMPARE(window.zoom()->percent(), PresentationMode::kPercent);
    auto* action = window.findChild<QAction*>("presentationAction");
    QVERIFY(action && action->isChecked());
    // The menus' shortcuts work with the menu bar hidden.
    QTest::keyClick(&window, Qt::Key_Equal, Qt::ControlModifier);
    QCOMPARE(window.zoom()->percent(), nextZoomStep(PresentationMode::kPercent));
    QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), MainWindow::Page::Arithmetic);
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    // Esc leaves, and the window is as it was.
    QTest::keyClick(&window, Qt::Key_Escape);
    QVERIFY(!window.presentation()->isActive());
    QVERIFY(!(window.windowState() & Qt::WindowFullScreen));
    QVERIFY(!window.menuBar()->isHidden());
    QVERIFY(!window.statusBar()->isHidden());
    QCOMPARE(window.zoom()->percent(), 110);
    QVERIFY(!action->isChecked());
    // F5 enters and leaves; a zoom above the presentation's is kept.
    window.zoom()->setPercent(200);
    QTest::keyClick(&window, Qt::Key_F5);
    QCOMPARE(window.zoom()->percent(), 200);
    QTest::keyClick(&window, Qt::Key_F5);
    QVERIFY(!window.presentation()->isActive());
    QCOMPARE(window.zoom()->percent(), 200);
    // Esc outside presentation mode does nothing to the window.
    QTest::keyClick(&window, Qt::Key_Escape);
    QVERIFY(!window.presentation()->isActive());
    QVERIFY(!window.menuBar()->isHidden());
    // Esc leaves from the table's focus too, which keeps Esc from a window shortcut.
    QTest::keyClick(&window, Qt::Key_F5);
    QVERIFY(window.presentation()->isActive());
    window.table()->setFocus();
    QCOMPARE(QApplication::focusWidget(), window.table());
    QTest::keyClick(window.table(), Qt::Key_Escape);
    QVERIFY(!window.presentation()->isActive());
    QVERIFY(!window.menuBar()->isHidden());
}

void TestPresentation::formatsDialogFollowsTheZoom() {
    // Explorer → Formats… opens its dialog on the explorer page, as the page does. Its type is
    // the application's times the zoom, opened while zoomed and as the zoom changes while it is
    // open; its smaller note keeps its ratio.
    MainWindow window;
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const double application = QApplication::font().pointSizeF();
    window.zoom()->setPercent(150);
    FormatManagerDialog dialog(window.controller()->formats(), window.explorerPage());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QCOMPARE(dialog.font().pointSizeF(), application * 1.5);
    QCOMPARE(dialog.list()->font().pointSizeF(), application * 1.5);
    QCOMPARE(dialog.specEdit()->font().pointSizeF(), application * 1.5);
    const double noteRatio = dialog.specRule()->font().pointSizeF() / dialog.font().pointSizeF();
    QVERIFY(noteRatio < 1.0);
    window.zoom()->setPercent(200);
    QCOMPARE(dialog.font().pointSizeF(), application * 2.0);
    QCOMPARE(dialog.list()->font().pointSizeF(), application * 2.0);
    QVERIFY(qAbs(dialog.specRule()->font().pointSizeF() / dialog.font().pointSizeF() - noteRatio) <
            0.01);
    window.zoom()->reset();
    QCOMPARE(dialog.font().pointSizeF(), application);
}

void TestPresentation::sameBitsDialogFollowsTheZoom() {
    // Same bits in every format: its type and its bit cells grow with the zoom, opened while
    // zoomed and as the zoom changes while it is open, and the row it opened at stays selected.
    MainWindow window;
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const double application = QApplication::font().pointSizeF();
    const std::vector<FormatSpec> formats = findFormats("fp8_e4m3,fp16").specs;
    SameBitsDialog plain(formats);
    const int cellAt100 = plain.bitsDelegate()->layout().cellWidth;
    window.zoom()->setPercent(150);
    SameBitsDialog dialog(formats, window.explorerPage());
    dialog.openAt(formats[0], 0x80);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QCOMPARE(dialog.font().pointSizeF(), application * 1.5);
    QCOMPARE(dialog.table()->font().pointSizeF(), application * 1.5);
    const int cellAt150 = dialog.bitsDelegate()->layout().cellWidth;
    QVERIFY2(cellAt150 > cellAt100, qPrintable(QString("%1 → %2").arg(cellAt100).arg(cellAt150)));
    // Within the 1024 × 768 screen, and the bits column as wide as its cells.
    const QRect available = dialog.screen()->availableGeometry();
    QVERIFY(dialog.width() <= available.width() && dialog.height() <= available.height());
    QVERIFY(dialog.table()->columnWidth(SameBitsDialog::Bits) >=
            dialog.bitsDelegate()->layout().totalWidth());
    const int selected = dialog.table()->currentRow();
    QCOMPARE(dialog.table()->item(selected, SameBitsDialog::Format)->text(), QString("fp8_e4m3"));
    window.zoom()->setPercent(200);
    QCOMPARE(dialog.font().pointSizeF(), application * 2.0);
    QVERIFY(dialog.bitsDelegate()->layout().cellWidth > cellAt150);
    QCOMPARE(dialog.table()->currentRow(), selected);
    window.zoom()->reset();
    QCOMPARE(dialog.bitsDelegate()->layout().cellWidth, cellAt100);
}

void TestPresentation::firstSizeFitsTheScreen() {
    // A projector's screen is used whole but for the frame; a large one at 90 %, at most
    // 1600 × 900.
    QCOMPARE(firstWindowSize(QRect(0, 0, 1024, 768)), QSize(1016, 728));
    QCOMPARE(firstWindowSize(QRect(0, 0, 3840, 2160)), QSize(1600, 900));
    QCOMPARE(firstWindowSize(QRect(0, 0, 1280, 1024)), QSize(1272, 900));
    QCOMPARE(firstWindowSize(QRect(0, 0, 1920, 1080)), QSize(1600, 900));
    // A frame remembered on a large monitor, on a small one: moved and shrunk inside.
    const QRect small(0, 0, 1024, 768);
    QCOMPARE(clampToScreen(QRect(1800, 100, 1600, 900), small), QRect(0, 0, 1024, 768));
    QCOMPARE(clampToScreen(QRect(600, 500, 800, 600), small), QRect(224, 168, 800, 600));
    QCOMPARE(clampToScreen(QRect(10, 20, 300, 200), small), QRect(10, 20, 300, 200));
    // A second screen to the left (negative coordinates) is a screen too.
    QCOMPARE(clampToScreen(QRect(-2000, 0, 800, 600), QRect(-1280, 0, 1280, 1024)),
             QRect(-1280, 0, 800, 600));

    // The window itself, with nothing remembered and with a huge remembered frame.
    const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
    MainWindow fresh;
    QVERIFY(fresh.width() <= available.width() && fresh.height() <= available.height());
    QCOMPARE(fresh.size(), firstWindowSize(available));
    const QString path = dir_.filePath("geometry.ini");
    {
        QSettings settings(path, QSettings::IniFormat);
        QWidget huge;
        huge.setGeometry(available.left() + 50, available.top() + 50, 5000, 4000);
        ExplorerSettings s;
        s.windowGeometry = huge.saveGeometry();
        s.save(settings);
    }
    QSettings settings(path, QSettings::IniFormat);
    MainWindow restored(&settings);
    QVERIFY2(available.contains(restored.frameGeometry()) ||
                 restored.frameGeometry().size().boundedTo(available.size()) ==
                     restored.frameGeometry().size(),
             qPrintable(QStringLiteral("%1x%2 on %3x%4")
                            .arg(restored.frameGeometry().width())
                            .arg(restored.frameGeometry().height())
                            .arg(available.width())
                            .arg(available.height())));
}

void TestPresentation::windowFitsA1024Screen() {
    // A window whose pages ask for more than 1024 pixels is wider than a projector's screen,
    // whatever size it is given.
    // Each page scrolls inside its tab rather than widen the window, so each page itself must
    // fit, not only the window.
    MainWindow window;
    using P = MainWindow::Page;
    for (P which :
         {P::Explorer, P::Benchmarks, P::Arithmetic, P::Quantization, P::Training, P::Machines}) {
        const QWidget* page = window.hostedPage(which);
        QString sizes;
        for (QWidget* child : page->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
            sizes += QStringLiteral("%1 %2: %3\n")
                         .arg(child->metaObject()->className(), child->objectName())
                         .arg(child->minimumSizeHint().width());
        QVERIFY2(page->minimumSizeHint().width() <= 1024,
                 qPrintable(page->objectName() + "\n" + sizes));
        QVERIFY2(page->minimumSizeHint().height() <= 768,
                 qPrintable(page->objectName() + "\n" + sizes));
    }
    QVERIFY(window.minimumSizeHint().width() <= 1024);
    QVERIFY(window.minimumSizeHint().height() <= 768);
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), QSize(1024, 768));
}

void TestPresentation::columnsStayWholeAt1024x768_data() {
    QTest::addColumn<QString>("formats");
    QTest::addColumn<QString>("value");
    QTest::addColumn<int>("zoom");
    // Whether the format, bits, value and error columns must fit side by side. At 100 % they
    // always do; zoomed, FP64's 64 bit cells may not, and then the table scrolls.
    QTest::addColumn<bool>("fits");
    const QString all = QString();
    QTest::newRow("default formats") << all << "0.3952" << 100 << true;
    QTest::newRow("tiny error") << all << "1e-30" << 100 << true;
    QTest::newRow("huge value") << all << "-3.4e38" << 100 << true;
    QTest::newRow("nan") << all << "nan" << 100 << true;
    QTest::newRow("1/3") << all << "1/3" << 100 << true;
    QTest::newRow("zoom 150") << all << "0.3952" << 150 << false;
    QTest::newRow("small formats, zoom 150") << "fp8_e4m3,fp8_e5m2,fp6_e3m2,fp4_e2m1,int4,nf4"
                                             << "0.3952" << 150 << true;
    QTest::newRow("small formats, zoom 200") << "fp8_e4m3,fp8_e5m2,fp6_e3m2,fp4_e2m1,int4,nf4"
                                             << "1e-30" << 200 << true;
    QTest::newRow("fp32, fp16, bf16, zoom 125") << "fp32,fp16,bf16"
                                                << "2^-149" << 125 << true;
}

void TestPresentation::columnsStayWholeAt1024x768() {
    QFETCH(QString, formats);
    QFETCH(QString, value);
    QFETCH(int, zoom);
    QFETCH(bool, fits);
    MainWindow window;
    if (!formats.isEmpty())
        window.controller()->setFormats(findFormats(formats.toStdString()).specs);
    window.zoom()->setPercent(zoom);
    window.controller()->setInputText(value);
    window.controller()->waitForIdle();
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QApplication::processEvents();
    checkColumnsWhole(window, QTest::currentDataTag(), fits);
    if (fits)
        QVERIFY(!window.table()->horizontalScrollBar()->isVisible());
    // Only columns the Details tab repeats may step out.
    for (int c : window.tableFitter()->hiddenColumns())
        QVERIFY(c == FormatTableModel::Hex || c == FormatTableModel::UlpError ||
                c == FormatTableModel::RelativeError || c == FormatTableModel::Class ||
                c == FormatTableModel::Flags || c == FormatTableModel::Error ||
                c == FormatTableModel::Value);
    // On a wide screen every column is back.
    window.resize(2400, 1000);
    QApplication::processEvents();
    if (zoom == 100)
        QVERIFY(window.tableFitter()->hiddenColumns().empty());
    checkColumnsWhole(window, "wide", zoom == 100);
}

void TestPresentation::columnsFollowTheValues() {
    // Columns were fitted only when the format list changed: a later, longer error showed as
    // "+1…". Every new value refits them.
    MainWindow window;
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (const char* value : {"1", "0.3952", "1e-300", "65504.5", "-0", "1/3", "2^-149", "inf"}) {
        window.controller()->setInputText(QString::fromLatin1(value));
        window.controller()->waitForIdle();
        QApplication::processEvents();
        checkColumnsWhole(window, value);
    }
}

void TestPresentation::screenshotsShowEveryColumn() {
    // The documentation's command: the picture is the window, at the size asked for.
    const QString out = dir_.filePath("explorer-1024x768.png");
    QProcess process;
    process.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--no-settings", "--size", "1024x768", "--screenshot", out});
    QVERIFY(process.waitForFinished(120'000));
    QCOMPARE(process.exitCode(), 0);
    const QImage image(out);
    const qreal ratio = qApp->devicePixelRatio();
    QCOMPARE(image.size(), (QSizeF(1024, 768) * ratio).toSize());
}

void TestPresentation::lessonDockKeeps1024x768() {
    // The dock must not push the window wider: the window keeps its size, the dock opens at a
    // readable line (at most 40 % of the window) and the explorer's columns reflow beside it.
    // Every column stays whole; where the format, bits, value and error cannot stand side by
    // side (FP64's 64 bit cells), the table scrolls rather than cut.
    MainWindow window;
    LessonPanel* lessons = installLessons(window);
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto check = [&](const QByteArray& where) {
        // The step's work done, then the layout and the table's fit that it posted (a fit
        // after the dock's resize is a zero-delay timer: one more turn of the loop).
        QVERIFY(window.hostedPage(window.currentPage())->waitUntilIdle(std::chrono::seconds(30)));
        QApplication::processEvents();
        QApplication::processEvents();
        QCOMPARE(window.size(), QSize(1024, 768));
        QVERIFY2(window.minimumSizeHint().width() <= 1024,
                 qPrintable(QString::number(window.minimumSizeHint().width())));
        if (window.currentPage() != MainWindow::Page::Explorer)
            return;
        const std::vector<FormatSpec> shown = window.controller()->formats();
        const bool fp64 = std::any_of(shown.begin(), shown.end(),
                                      [](const FormatSpec& s) { return s.id == "fp64"; });
        const QByteArray what = where + ", dock " + QByteArray::number(lessons->width()) +
                                " pixels wide" + (fp64 ? " (fp64 shown)" : "");
        const bool scrolls = window.table()->horizontalScrollBar()->isVisible();
        checkColumnsWhole(window, what.constData(), !fp64 && !scrolls);
    };
    QCOMPARE(lessons->openNameOrFile("what-is-a-float"), QString());
    QVERIFY(lessons->isVisible());
    QVERIFY(lessons->width() >= 150);
    check("step 1");
    for (std::size_t step = 1; step < lessons->stepCount(); ++step) {
        QVERIFY(lessons->showStep(step));
        check("step " + QByteArray::number(qulonglong(step + 1)));
    }
    // Without FP64 too: beside a dock of a readable width every column stays whole.
    window.controller()->setFormats(findFormats("fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2").specs);
    check("without fp64");
    // The command line's picture of a step is 1024 wide too.
    const QString out = dir_.filePath("lesson-1024x768.png");
    QProcess process;
    process.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--no-settings", "--size", "1024x768", "--lesson", "what-is-a-float", "--step",
                   "2", "--screenshot", out});
    QVERIFY(process.waitForFinished(120'000));
    QCOMPARE(process.exitCode(), 0);
    const QImage image(out);
    QCOMPARE(image.size(), (QSizeF(1024, 768) * qApp->devicePixelRatio()).toSize());
}

QTEST_MAIN(TestPresentation)
#include "tst_presentation.moc"
