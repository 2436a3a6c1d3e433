// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/main_window.h"

#include "common/shown_tab_size.h"
#include "common/zoom.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "pages/explorer/explorer_history.h"
#include "pages/explorer/explorer_page.h"
#include "pages/machines/machines_page.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/training_page.h"
#include "shell/explorer_settings.h"
#include "shell/presentation_mode.h"
#include "shell/window_size.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>

namespace fpx::gui {

MainWindow::MainWindow(QSettings* settings, QWidget* parent)
    : QMainWindow(parent), settings_(settings) {
    setWindowTitle(tr("fpx explorer"));

    // The pages: the explorer, the benchmarks (their backends load when first shown) and
    // arithmetic in the explorer's formats, quantization, training, machines. Ctrl+1 … 6 follow
    // the tabs' order.
    pages_ = new QTabWidget(this);
    pages_->setObjectName("pages");
    pages_->setDocumentMode(true);
    explorer_ = new ExplorerPage(pages_);
    explorer_->setObjectName("explorerPage");
    benchmarks_ = new BenchmarksPanel(pages_);
    benchmarks_->setObjectName("benchmarksPanel");
    arithmetic_ = new ArithmeticPage(explorer_->controller(), pages_);
    arithmetic_->setObjectName("arithmeticPage");
    quantization_ = new QuantizationPage(pages_);
    quantization_->setObjectName("quantizationPage");
    training_ = new TrainingPage(pages_);
    training_->setObjectName("trainingPage");
    machines_ = new MachinesPage(pages_);
    machines_->setObjectName("machinesPage");
    pages_->addTab(explorer_, tr("E&xplorer"));
    pages_->addTab(benchmarks_, tr("Bench&marks"));
    pages_->addTab(arithmetic_, tr("&Arithmetic"));
    pages_->addTab(quantization_, tr("&Quantization"));
    pages_->addTab(training_, tr("&Training"));
    pages_->addTab(machines_, tr("Mach&ines"));
    pages_->setTabToolTip(0, tr("One value in every format, bit by bit (Ctrl+1)."));
    pages_->setTabToolTip(1, tr("Conversion and arithmetic throughput of the formats on this "
                                "machine's CPU and GPUs (Ctrl+2)."));
    pages_->setTabToolTip(2, tr("Computing in every format: expressions step by step, sums, "
                                "stochastic rounding and master weights (Ctrl+3)."));
    pages_->setTabToolTip(3, tr("A tensor (a file or a distribution) in block formats: SQNR, "
                                "errors, block sizes and each block's codes (Ctrl+4)."));
    pages_->setTabToolTip(4, tr("Mixed-precision training: ranges and loss scaling, the dynamic "
                                "loss scaler, FP8 scaling recipes, master weights (Ctrl+5)."));
    pages_->setTabToolTip(5, tr("What a tensor core computes: one instruction bit by bit, error "
                                "against K with promotion, every machine on one dot product "
                                "(Ctrl+6)."));
    setCentralWidget(pages_);
    sizeTabsByShownPage(*pages_);

    statusBar()->addWidget(explorer_->computingLabel(), 1);
    statusBar()->addPermanentWidget(explorer_->timingLabel());
    zoomLabel_ = new QLabel(this);
    zoomLabel_->setObjectName("zoomLabel");
    zoomLabel_->setToolTip(tr("Ctrl+= and Ctrl+- zoom, Ctrl+0 resets, Ctrl+wheel zooms too."));
    statusBar()->addPermanentWidget(zoomLabel_);

    // After every page is built: the zoom takes the window's font now as its 100 %.
    zoom_ = new ZoomController(this);
    presentation_ = new PresentationMode(this, zoom_);
    connect(zoom_, &ZoomController::zoomChanged, this, [this](int percent) {
        zoomLabel_->setText(tr("Zoom %1 %").arg(percent));
        explorer_->refreshLayout();
    });
    zoomLabel_->setText(tr("Zoom %1 %").arg(zoom_->percent()));
    connect(pages_, &QTabWidget::currentChanged, zoom_, &ZoomController::adoptNewPlots);

    buildActions();

    connect(explorer_, &ExplorerPage::showRequested, this, [this] { showPage(Page::Explorer); });
    connect(explorer_, &ExplorerPage::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(arithmetic_, &ArithmeticPage::formatsRequested, explorer_,
            &ExplorerPage::openFormatManager);

    // Restore what the last run left.
    ExplorerSettings restored;
    if (settings_)
        restored = ExplorerSettings::load(*settings_);
    ExplorerController* controller = explorer_->controller();
    if (!restored.formats.empty())
        controller->setFormats(restored.formats);
    explorer_->setRoundingChoices(restored.roundingMode, restored.overflowPolicy);
    controller->setInputText(restored.value);
    // Undo starts from this value, so it must be there first, even a slow one.
    controller->waitForIdle();
    explorer_->valueEdit()->setText(restored.value);
    explorer_->refreshLayout();
    explorer_->selectRow(0);
    zoom_->setPercent(restored.zoomPercent);
    placeOnScreen(restored.windowGeometry);
    if (!restored.windowState.isEmpty())
        restoreState(restored.windowState);
    if (!restored.splitterState.isEmpty())
        explorer_->splitter()->restoreState(restored.splitterState);
    explorer_->history()->clear(); // what the last run left is where undo starts
    explorer_->valueEdit()->setFocus();
}

MainWindow::~MainWindow() = default;

void MainWindow::placeOnScreen(const QByteArray& geometry) {
    const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    const QRect available = screen ? screen->availableGeometry() : QRect();
    resize(firstWindowSize(available));
    if (geometry.isEmpty() || !restoreGeometry(geometry))
        return;
    // A window remembered on a larger monitor opens whole on this one.
    const QRect frame = frameGeometry();
    const QRect inside = clampToScreen(frame, available);
    if (inside != frame) {
        resize(size() - (frame.size() - inside.size()));
        move(inside.topLeft());
    }
}

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addActions(explorer_->fileActions());
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addActions(explorer_->editActions());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addActions(explorer_->viewActions());

    view->addSeparator();
    QAction* explorerPage =
        view->addAction(tr("E&xplorer"), this, [this] { showPage(Page::Explorer); });
    explorerPage->setShortcut(QKeySequence(tr("Ctrl+1")));
    explorerPage->setToolTip(tr("The explorer: one value in every format."));
    QAction* benchPage =
        view->addAction(tr("Bench&marks"), this, [this] { showPage(Page::Benchmarks); });
    benchPage->setShortcut(QKeySequence(tr("Ctrl+2")));
    benchPage->setToolTip(tr("Throughput of the formats on this machine's CPU and GPUs."));
    QAction* arithmeticPage =
        view->addAction(tr("&Arithmetic"), this, [this] { showPage(Page::Arithmetic); });
    arithmeticPage->setShortcut(QKeySequence(tr("Ctrl+3")));
    arithmeticPage->setToolTip(tr("Computing in every format: expressions, sums, stochastic "
                                  "rounding, master weights."));
    QAction* quantizationPage =
        view->addAction(tr("&Quantization"), this, [this] { showPage(Page::Quantization); });
    quantizationPage->setShortcut(QKeySequence(tr("Ctrl+4")));
    quantizationPage->setToolTip(tr("A tensor in block formats (MX, NVFP4, NF4, INT): SQNR, "
                                    "errors and each block's codes."));
    QAction* trainingPage =
        view->addAction(tr("&Training"), this, [this] { showPage(Page::Training); });
    trainingPage->setShortcut(QKeySequence(tr("Ctrl+5")));
    trainingPage->setToolTip(tr("Mixed-precision training: ranges under a loss scale, the dynamic "
                                "loss scaler, FP8 recipes, master weights."));
    QAction* machinesPage =
        view->addAction(tr("Mach&ines"), this, [this] { showPage(Page::Machines); });
    machinesPage->setShortcut(QKeySequence(tr("Ctrl+6")));
    machinesPage->setToolTip(tr("What a tensor core computes: one instruction bit by bit, error "
                                "against K, every machine on one dot product."));

    buildViewActions(view);

    QMenu* bench = menuBar()->addMenu(tr("&Benchmarks"));
    QAction* runBench = bench->addAction(tr("&Run"), this, [this] {
        showPage(Page::Benchmarks);
        benchmarks_->run();
    });
    runBench->setShortcut(QKeySequence(tr("Ctrl+R")));
    runBench->setToolTip(tr("Measure what the Benchmarks page has checked; the window stays "
                            "usable while it runs."));
    QAction* cancelBench = bench->addAction(tr("&Cancel"), benchmarks_, &BenchmarksPanel::cancel);
    cancelBench->setShortcut(QKeySequence(tr("Ctrl+.")));
    cancelBench->setToolTip(tr("Stop the benchmark after the current measurement."));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About fpx"), this, [this] {
        QMessageBox::about(
            this, tr("About fpx"),
            tr("<b>fpx explorer</b><p>Every number format, exactly: one rounding from the exact "
               "input, never through double.</p><p>GPL-3.0-or-later.</p>"));
    });
    for (QMenu* menu : {file, edit, view, bench, help})
        menu->setToolTipsVisible(true);
}

ExplorerController* MainWindow::controller() const {
    return explorer_->controller();
}
FormatTableModel* MainWindow::model() const {
    return explorer_->model();
}
QTableView* MainWindow::table() const {
    return explorer_->table();
}
QLineEdit* MainWindow::valueEdit() const {
    return explorer_->valueEdit();
}
DetailPanel* MainWindow::detailPanel() const {
    return explorer_->detailPanel();
}
BitCellsDelegate* MainWindow::bitsDelegate() const {
    return explorer_->bitsDelegate();
}
PlotsPanel* MainWindow::plotsPanel() const {
    return explorer_->plotsPanel();
}
TableFitter* MainWindow::tableFitter() const {
    return explorer_->tableFitter();
}
ExplorerHistory* MainWindow::history() const {
    return explorer_->history();
}
void MainWindow::showLowerTab(int index) {
    explorer_->showLowerTab(index);
}
int MainWindow::selectedRow() const {
    return explorer_->selectedRow();
}
void MainWindow::selectRow(int row) {
    explorer_->selectRow(row);
}
std::vector<const ExplorerRow*> MainWindow::diagramRows() const {
    return explorer_->diagramRows();
}
bool MainWindow::exportBitDiagram(const QString& path) const {
    return explorer_->exportBitDiagram(path);
}

void MainWindow::showPage(Page page) {
    switch (page) {
    case Page::Explorer:
        pages_->setCurrentWidget(explorer_);
        break;
    case Page::Benchmarks:
        pages_->setCurrentWidget(benchmarks_);
        break;
    case Page::Arithmetic:
        pages_->setCurrentWidget(arithmetic_);
        break;
    case Page::Quantization:
        pages_->setCurrentWidget(quantization_);
        break;
    case Page::Training:
        pages_->setCurrentWidget(training_);
        break;
    case Page::Machines:
        pages_->setCurrentWidget(machines_);
        break;
    }
}

MainWindow::Page MainWindow::currentPage() const {
    if (pages_->currentWidget() == benchmarks_)
        return Page::Benchmarks;
    if (pages_->currentWidget() == arithmetic_)
        return Page::Arithmetic;
    if (pages_->currentWidget() == quantization_)
        return Page::Quantization;
    if (pages_->currentWidget() == training_)
        return Page::Training;
    if (pages_->currentWidget() == machines_)
        return Page::Machines;
    return Page::Explorer;
}

gui::Page* MainWindow::hostedPage(Page which) const {
    switch (which) {
    case Page::Explorer:
        return explorer_;
    case Page::Benchmarks:
        return benchmarks_;
    case Page::Arithmetic:
        return arithmetic_;
    case Page::Quantization:
        return quantization_;
    case Page::Training:
        return training_;
    case Page::Machines:
        return machines_;
    }
    return explorer_;
}

void MainWindow::saveSettings() {
    if (!settings_)
        return;
    const ExplorerController* controller = explorer_->controller();
    ExplorerSettings s;
    s.value = controller->inputText();
    s.roundingMode = controller->roundingMode();
    s.overflowPolicy = controller->overflowPolicy();
    s.formats = controller->formats();
    s.zoomPercent = presentation_->normalZoomPercent();
    s.windowGeometry = saveGeometry();
    s.windowState = saveState();
    s.splitterState = explorer_->splitter()->saveState();
    s.save(*settings_);
    settings_->sync();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    // A benchmark in progress stops after its current measurement.
    benchmarks_->controller()->cancelAndWait();
    // The next run opens as a window with its bars, not full screen without them.
    presentation_->setActive(false);
    saveSettings();
    event->accept();
}

} // namespace fpx::gui

namespace fpx::gui {

void MainWindow::buildViewActions(QMenu* view) {
    view->addSeparator();
    QAction* zoomIn = view->addAction(tr("Zoom &in"), zoom_, &ZoomController::zoomIn);
    // Ctrl+= is the same key as Ctrl++ without Shift on most layouts.
    zoomIn->setShortcuts({QKeySequence(tr("Ctrl+=")), QKeySequence(tr("Ctrl++"))});
    zoomIn->setToolTip(tr("Larger bit cells, text and plots (also Ctrl+wheel)."));
    QAction* zoomOut = view->addAction(tr("Zoom &out"), zoom_, &ZoomController::zoomOut);
    zoomOut->setShortcut(QKeySequence(tr("Ctrl+-")));
    QAction* zoomReset = view->addAction(tr("&Actual size"), zoom_, &ZoomController::reset);
    zoomReset->setShortcut(QKeySequence(tr("Ctrl+0")));
    QAction* present = view->addAction(tr("Presen&tation mode"));
    present->setObjectName("presentationAction");
    present->setCheckable(true);
    present->setShortcut(QKeySequence(Qt::Key_F5));
    present->setToolTip(tr("Full screen, large type, no menu or status bar; F5 or Esc leaves."));
    connect(present, &QAction::toggled, presentation_, &PresentationMode::setActive);
    connect(presentation_, &PresentationMode::activeChanged, present, &QAction::setChecked);
    // Esc leaves too, from any focus (PresentationMode watches the keys while it is active);
    // outside it, Esc stays with the widgets (a line edit's completion, a dialog's cancel).
}

} // namespace fpx::gui
