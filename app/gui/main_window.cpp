// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.h"

#include "arithmetic/arithmetic_page.h"
#include "bench/benchmarks_panel.h"
#include "explorer_settings.h"
#include "history/explorer_history.h"
#include "models/format_table_model.h"
#include "presentation/focus_frame_delegate.h"
#include "presentation/presentation_mode.h"
#include "presentation/table_fit.h"
#include "presentation/window_size.h"
#include "presentation/zoom.h"
#include "quantization/quantization_page.h"
#include "training/training_page.h"
#include "widgets/bit_cells_delegate.h"
#include "widgets/bit_diagram.h"
#include "widgets/detail_panel.h"
#include "widgets/format_manager_dialog.h"
#include "widgets/plots_panel.h"
#include "widgets/rounding_choices.h"
#include "widgets/same_bits_dialog.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
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
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace fpx::gui {

namespace {

// How long the rows may lag behind the input before the window says so.
constexpr int kComputingNoticeDelayMs = 100;

QString elidedInput(const QString& text) {
    return text.size() <= 40 ? text : text.left(39) + QChar(0x2026);
}

} // namespace

MainWindow::MainWindow(QSettings* settings, QWidget* parent)
    : QMainWindow(parent), settings_(settings), controller_(new ExplorerController(this)) {
    setWindowTitle(tr("fpx explorer"));
    model_ = new FormatTableModel(controller_, this);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);

    // Input bar: value, rounding mode, overflow policy; the error message below the field.
    auto* inputBar = new QHBoxLayout;
    auto* valueLabel = new QLabel(tr("&Value"), central);
    valueEdit_ = new QLineEdit(central);
    valueEdit_->setObjectName("valueEdit");
    valueEdit_->setClearButtonEnabled(true);
    valueEdit_->setPlaceholderText(tr("0.3952, 1/3, 2^-24, 0x1.8p-3, inf, -0 …"));
    valueEdit_->setToolTip(
        tr("Any value, taken exactly: decimals of any length, fractions (1/3), powers "
           "(2^-24), hex floats (0x1.8p-3), arithmetic with parentheses, inf, nan, -0. "
           "It is rounded once into every format — never through double."));
    QFont big = valueEdit_->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    valueEdit_->setFont(big);
    valueLabel->setBuddy(valueEdit_);
    roundCombo_ = new QComboBox(central);
    roundCombo_->setObjectName("roundingMode");
    addRoundingModeItems(*roundCombo_);
    overflowCombo_ = new QComboBox(central);
    overflowCombo_->setObjectName("overflowPolicy");
    addOverflowPolicyItems(*overflowCombo_);
    inputBar->addWidget(valueLabel);
    inputBar->addWidget(valueEdit_, 1);
    inputBar->addWidget(roundCombo_);
    inputBar->addWidget(overflowCombo_);
    layout->addLayout(inputBar);
    errorLabel_ = new QLabel(central);
    errorLabel_->setObjectName("inputError");
    errorLabel_->setStyleSheet("color: #d0402f;");
    errorLabel_->setVisible(false);
    layout->addWidget(errorLabel_);

    // Table and detail panel.
    splitter_ = new QSplitter(Qt::Vertical, central);
    table_ = new QTableView(splitter_);
    table_->setObjectName("formatTable");
    table_->setModel(model_);
    bitsDelegate_ = new BitCellsDelegate(table_);
    table_->setItemDelegateForColumn(FormatTableModel::Bits, bitsDelegate_);
    textDelegate_ = new FocusFrameDelegate(table_);
    table_->setItemDelegate(textDelegate_);
    fitter_ = new TableFitter(table_, bitsDelegate_, [this] { return controller_->formats(); });
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->setAlternatingRowColors(true);
    table_->setMouseTracking(true);
    table_->setWordWrap(false);
    lowerTabs_ = new QTabWidget(splitter_);
    detail_ = new DetailPanel(lowerTabs_);
    detail_->setObjectName("detailPanel");
    plots_ = new PlotsPanel(controller_, lowerTabs_);
    plots_->setObjectName("plotsPanel");
    lowerTabs_->addTab(detail_, tr("&Details"));
    lowerTabs_->addTab(plots_, tr("&Plots"));
    lowerTabs_->setTabToolTip(0, tr("How the selected format's code decodes, step by step."));
    lowerTabs_->setTabToolTip(1, tr("Rounding error, ULP spacing, range, representable values and "
                                    "memory of the shown formats."));
    splitter_->addWidget(table_);
    splitter_->addWidget(lowerTabs_);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    layout->addWidget(splitter_, 1);

    // The pages: the explorer, the benchmarks (their backends load when first shown) and
    // arithmetic in the explorer's formats, quantization, training. Ctrl+1 … 5 follow the tabs'
    // order.
    pages_ = new QTabWidget(this);
    pages_->setObjectName("pages");
    pages_->setDocumentMode(true);
    benchmarks_ = new BenchmarksPanel(pages_);
    benchmarks_->setObjectName("benchmarksPanel");
    arithmetic_ = new ArithmeticPage(controller_, pages_);
    arithmetic_->setObjectName("arithmeticPage");
    quantization_ = new QuantizationPage(pages_);
    quantization_->setObjectName("quantizationPage");
    training_ = new TrainingPage(pages_);
    training_->setObjectName("trainingPage");
    pages_->addTab(central, tr("E&xplorer"));
    pages_->addTab(benchmarks_, tr("Bench&marks"));
    pages_->addTab(arithmetic_, tr("&Arithmetic"));
    pages_->addTab(quantization_, tr("&Quantization"));
    pages_->addTab(training_, tr("&Training"));
    pages_->setTabToolTip(0, tr("One value in every format, bit by bit (Ctrl+1)."));
    pages_->setTabToolTip(1, tr("Conversion and arithmetic throughput of the formats on this "
                                "machine's CPU and GPUs (Ctrl+2)."));
    pages_->setTabToolTip(2, tr("Computing in every format: expressions step by step, sums, "
                                "stochastic rounding and master weights (Ctrl+3)."));
    pages_->setTabToolTip(3, tr("A tensor (a file or a distribution) in block formats: SQNR, "
                                "errors, block sizes and each block's codes (Ctrl+4)."));
    pages_->setTabToolTip(4, tr("Mixed-precision training: ranges and loss scaling, the dynamic "
                                "loss scaler, FP8 scaling recipes, master weights (Ctrl+5)."));
    setCentralWidget(pages_);

    timing_ = new QLabel(this);
    computingLabel_ = new QLabel(this);
    computingLabel_->setObjectName("computingLabel");
    computingLabel_->setVisible(false);
    statusBar()->addWidget(computingLabel_, 1);
    statusBar()->addPermanentWidget(timing_);
    // Most changes are shown within the controller's short wait; a notice that flashed for
    // those would only distract.
    computingNotice_ = new QTimer(this);
    computingNotice_->setSingleShot(true);
    computingNotice_->setInterval(kComputingNoticeDelayMs);
    zoomLabel_ = new QLabel(this);
    zoomLabel_->setObjectName("zoomLabel");
    zoomLabel_->setToolTip(tr("Ctrl+= and Ctrl+- zoom, Ctrl+0 resets, Ctrl+wheel zooms too."));
    statusBar()->addPermanentWidget(zoomLabel_);

    // After every page is built: the zoom takes the window's font now as its 100 %.
    zoom_ = new ZoomController(this);
    presentation_ = new PresentationMode(this, zoom_);
    connect(zoom_, &ZoomController::zoomChanged, this, [this](int percent) {
        zoomLabel_->setText(tr("Zoom %1 %").arg(percent));
        refreshLayout();
    });
    zoomLabel_->setText(tr("Zoom %1 %").arg(zoom_->percent()));
    connect(pages_, &QTabWidget::currentChanged, zoom_, &ZoomController::adoptNewPlots);

    buildActions();

    connect(valueEdit_, &QLineEdit::textEdited, controller_, &ExplorerController::setInputText);
    connect(controller_, &ExplorerController::inputTextChanged, this, [this](const QString& text) {
        if (valueEdit_->text() != text)
            valueEdit_->setText(text);
    });
    connect(controller_, &ExplorerController::inputErrorChanged, this, &MainWindow::showInputError);
    connect(roundCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
        controller_->setRoundingMode(static_cast<RoundingMode>(roundCombo_->itemData(i).toInt()));
    });
    connect(overflowCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
        controller_->setOverflowPolicy(
            static_cast<OverflowPolicy>(overflowCombo_->itemData(i).toInt()));
    });
    connect(controller_, &ExplorerController::rowsChanged, this, [this] {
        // New values, new widths: an error of "+1.5e-8" must not show as "+1…".
        fitter_->fit();
        refreshDetail();
        timing_->setText(
            tr("%n formats updated in %1 µs", nullptr, static_cast<int>(controller_->rows().size()))
                .arg(controller_->lastUpdateMicroseconds()));
    });
    connect(controller_, &ExplorerController::formatsChanged, this, &MainWindow::refreshLayout);
    connect(controller_, &ExplorerController::computingChanged, this, [this](bool computing) {
        // At once, not after the notice's delay: a shortcut pressed meanwhile would copy or
        // export the previous value's rows under the new value's name, or step from them.
        for (QAction* action : std::as_const(rowsActions_))
            action->setEnabled(!computing);
        if (computing)
            computingNotice_->start();
        else
            showComputing(false);
    });
    connect(computingNotice_, &QTimer::timeout, this,
            [this] { showComputing(controller_->computing()); });
    // Typing on while a slow value is computed: the notice names the newest input.
    connect(controller_, &ExplorerController::inputTextChanged, this,
            &MainWindow::refreshComputingNotice);
    connect(controller_, &ExplorerController::optionsChanged, this, [this] {
        showRoundingMode(*roundCombo_, controller_->roundingMode());
        showOverflowPolicy(*overflowCombo_, controller_->overflowPolicy());
    });
    connect(arithmetic_, &ArithmeticPage::formatsRequested, this, &MainWindow::openFormatManager);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MainWindow::refreshDetail);
    connect(detail_, &DetailPanel::stepRequested, this,
            [this](int direction) { controller_->stepRow(selectedRow(), direction); });

    // Restore what the last run left.
    ExplorerSettings restored;
    if (settings_)
        restored = ExplorerSettings::load(*settings_);
    if (!restored.formats.empty())
        controller_->setFormats(restored.formats);
    roundCombo_->setCurrentIndex(roundCombo_->findData(static_cast<int>(restored.roundingMode)));
    overflowCombo_->setCurrentIndex(
        overflowCombo_->findData(static_cast<int>(restored.overflowPolicy)));
    controller_->setInputText(restored.value);
    // Undo starts from this value, so it must be there first, even a slow one.
    controller_->waitForIdle();
    valueEdit_->setText(restored.value);
    refreshLayout();
    selectRow(0);
    zoom_->setPercent(restored.zoomPercent);
    placeOnScreen(restored.windowGeometry);
    if (!restored.windowState.isEmpty())
        restoreState(restored.windowState);
    if (!restored.splitterState.isEmpty())
        splitter_->restoreState(restored.splitterState);
    history_->clear(); // what the last run left is where undo starts
    valueEdit_->setFocus();
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
    QAction* exportPng = file->addAction(tr("Export bit diagram as &PNG…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export bit diagram"),
                                                          "fpx-bits.png", tr("PNG images (*.png)"));
        if (!path.isEmpty() && !exportBitDiagram(path))
            QMessageBox::warning(this, tr("Export"), tr("Could not write %1.").arg(path));
    });
    exportPng->setToolTip(
        tr("The bits of the selected formats (all, if none is selected), aligned, for slides."));
    QAction* exportSvg = file->addAction(tr("Export bit diagram as &SVG…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export bit diagram"),
                                                          "fpx-bits.svg", tr("SVG images (*.svg)"));
        if (!path.isEmpty() && !exportBitDiagram(path))
            QMessageBox::warning(this, tr("Export"), tr("Could not write %1.").arg(path));
    });
    exportSvg->setToolTip(tr("A scalable vector version of the bit diagram."));
    rowsActions_ = {exportPng, exportSvg};
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    history_ = new ExplorerHistory(controller_, this);
    history_->watchTyping(valueEdit_);
    edit->addActions({history_->undoAction(), history_->redoAction()});
    edit->addSeparator();
    bitsDelegate_->attach(table_);
    auto cell = [this](FormatTableModel::Column column) {
        const int row = selectedRow();
        return row < 0 ? QString() : model_->fullText(row, column);
    };
    QAction* copyValue = edit->addAction(tr("Copy &value"), this,
                                         [this, cell] { copyText(cell(FormatTableModel::Value)); });
    copyValue->setShortcut(QKeySequence::Copy);
    copyValue->setToolTip(tr("The exact stored value of the selected format, every digit."));
    rowsActions_ << copyValue;
    rowsActions_ << edit->addAction(tr("Copy &bits"), this,
                                    [this, cell] { copyText(cell(FormatTableModel::Bits)); });
    rowsActions_.back()->setShortcut(QKeySequence(tr("Ctrl+Shift+B")));
    rowsActions_ << edit->addAction(tr("Copy &hex"), this,
                                    [this, cell] { copyText(cell(FormatTableModel::Hex)); });
    rowsActions_.back()->setShortcut(QKeySequence(tr("Ctrl+Shift+H")));
    rowsActions_ << edit->addAction(tr("Copy &row"), this, [this] {
        const int row = selectedRow();
        if (row < 0)
            return;
        QStringList cells;
        for (int c = 0; c < FormatTableModel::ColumnCount; ++c)
            cells << model_->fullText(row, static_cast<FormatTableModel::Column>(c));
        copyText(cells.join('\t'));
    });
    rowsActions_.back()->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
    edit->addSeparator();
    rowsActions_ << edit->addAction(tr("Copy table as &text"), this,
                                    [this] { copyText(model_->tableAsText()); });
    rowsActions_ << edit->addAction(tr("Copy table as &CSV"), this,
                                    [this] { copyText(model_->tableAsCsv()); });
    rowsActions_ << edit->addAction(tr("Copy table as &JSON"), this,
                                    [this] { copyText(model_->tableAsJson()); });
    rowsActions_.back()->setObjectName("copyTableJson");

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* formats = view->addAction(tr("&Formats…"), this, &MainWindow::openFormatManager);
    formats->setShortcut(QKeySequence(tr("Ctrl+F")));
    formats->setToolTip(tr("Show, hide and reorder formats; add custom eXmY formats; set scales."));
    QAction* sameBits =
        view->addAction(tr("&Same bits in every format…"), this, &MainWindow::openSameBits);
    sameBits->setShortcut(QKeySequence(tr("Ctrl+B")));
    sameBits->setToolTip(tr("The selected row's code read in every format of its width, custom "
                            "ones too: 0x80 is −0 in one, NaN in another."));
    view->addSeparator();
    QAction* next = view->addAction(tr("&Next value"), this,
                                    [this] { controller_->stepRow(selectedRow(), +1); });
    next->setShortcut(QKeySequence(tr("Ctrl+Up")));
    next->setToolTip(tr("Step the selected format to its next larger representable value."));
    QAction* previous = view->addAction(tr("&Previous value"), this,
                                        [this] { controller_->stepRow(selectedRow(), -1); });
    previous->setShortcut(QKeySequence(tr("Ctrl+Down")));
    previous->setToolTip(tr("Step the selected format to its next smaller representable value."));
    rowsActions_ << sameBits << next << previous;
    view->addActions({history_->backAction(), history_->forwardAction()});
    QAction* focusValue = view->addAction(tr("Edit &value"), this, [this] {
        showPage(Page::Explorer);
        valueEdit_->setFocus();
        valueEdit_->selectAll();
    });
    focusValue->setShortcut(QKeySequence(tr("Ctrl+L")));

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

int MainWindow::selectedRow() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void MainWindow::selectRow(int row) {
    if (row < 0 || row >= model_->rowCount())
        return;
    table_->selectionModel()->setCurrentIndex(
        model_->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

std::vector<const ExplorerRow*> MainWindow::diagramRows() const {
    std::vector<const ExplorerRow*> rows;
    const QModelIndexList selected = table_->selectionModel()->selectedRows();
    if (selected.size() > 1) {
        std::vector<int> indices;
        for (const QModelIndex& index : selected)
            indices.push_back(index.row());
        std::sort(indices.begin(), indices.end());
        for (int r : indices)
            rows.push_back(&model_->row(r));
    } else {
        for (int r = 0; r < model_->rowCount(); ++r)
            rows.push_back(&model_->row(r));
    }
    return rows;
}

bool MainWindow::exportBitDiagram(const QString& path) const {
    const BitDiagram diagram(diagramRows(), controller_->inputText(), palette());
    if (path.endsWith(".svg", Qt::CaseInsensitive))
        return diagram.saveSvg(path);
    return diagram.savePng(path);
}

void MainWindow::showLowerTab(int index) {
    lowerTabs_->setCurrentIndex(index);
}

void MainWindow::showPage(Page page) {
    switch (page) {
    case Page::Explorer:
        pages_->setCurrentIndex(0);
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
    return Page::Explorer;
}

void MainWindow::refreshDetail() {
    const int row = selectedRow();
    detail_->showRow(row >= 0 && row < model_->rowCount() ? &model_->row(row) : nullptr,
                     controller_->roundingOptions(), controller_->inputIsExact());
}

void MainWindow::refreshLayout() {
    // The bit cells' size follows the font (and so the zoom) and the width the table has.
    fitter_->fit();
    if (selectedRow() < 0)
        selectRow(0);
    refreshDetail();
}

void MainWindow::showInputError(const QString& message, int position) {
    errorLabel_->setVisible(!message.isEmpty());
    errorLabel_->setText(message.isEmpty() ? QString() : QStringLiteral("⚠ ") + message);
    valueEdit_->setStyleSheet(
        message.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 2px solid #d0402f; }"));
    valueEdit_->setToolTip(message.isEmpty() ? valueEdit_->toolTip() : message);
    Q_UNUSED(position);
}

void MainWindow::showComputing(bool computing) {
    computingNotice_->stop();
    // Greyed and out of reach: a bit clicked in the previous value's rows would set a value
    // the learner did not mean. The keyboard comes back to the table it left, unless the
    // learner put it elsewhere meanwhile (clicked into the value field, say).
    if (computing)
        tableHadFocus_ = table_->hasFocus();
    table_->setEnabled(!computing);
    if (computing)
        focusWhileGreyed_ = QApplication::focusWidget();
    if (!computing && std::exchange(tableHadFocus_, false) &&
        (QApplication::focusWidget() == focusWhileGreyed_.data() ||
         QApplication::focusWidget() == nullptr))
        table_->setFocus();
    detail_->setEnabled(!computing);
    computingLabel_->setVisible(computing);
    refreshComputingNotice();
}

// Not isVisible(): presentation mode hides the status bar, and the notice must still be right
// when it comes back.
void MainWindow::refreshComputingNotice() {
    computingLabel_->setText(!computingLabel_->isHidden()
                                 ? tr("Computing %1 … the rows below still show the "
                                      "previous value.")
                                       .arg(elidedInput(controller_->inputText()))
                                 : QString());
}

void MainWindow::copyText(const QString& text) {
    if (text.isEmpty())
        return;
    QApplication::clipboard()->setText(text);
    statusBar()->showMessage(tr("Copied %n characters", nullptr, static_cast<int>(text.size())),
                             3000);
}

void MainWindow::openFormatManager() {
    FormatManagerDialog dialog(controller_->formats(), this);
    if (dialog.exec() == QDialog::Accepted)
        controller_->setFormats(dialog.formats());
}

void MainWindow::openSameBits() {
    SameBitsDialog dialog(controller_->formats(), this);
    const int row = selectedRow();
    if (row >= 0 && row < static_cast<int>(controller_->rows().size())) {
        const ExplorerRow& selected = controller_->rows()[static_cast<std::size_t>(row)];
        dialog.openAt(selected.spec, selected.report.conversion.code);
    }
    dialog.exec();
}

void MainWindow::saveSettings() {
    if (!settings_)
        return;
    ExplorerSettings s;
    s.value = controller_->inputText();
    s.roundingMode = controller_->roundingMode();
    s.overflowPolicy = controller_->overflowPolicy();
    s.formats = controller_->formats();
    s.zoomPercent = presentation_->normalZoomPercent();
    s.windowGeometry = saveGeometry();
    s.windowState = saveState();
    s.splitterState = splitter_->saveState();
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
    // Esc leaves presentation mode; outside it, Esc stays with the widgets (a line edit's undo
    // of a completion, a dialog's cancel).
    auto* leave = new QAction(tr("Leave presentation mode"), this);
    leave->setShortcut(QKeySequence(Qt::Key_Escape));
    leave->setEnabled(false);
    connect(leave, &QAction::triggered, this, [this] { presentation_->setActive(false); });
    connect(presentation_, &PresentationMode::activeChanged, leave, &QAction::setEnabled);
    addAction(leave);
}

} // namespace fpx::gui
