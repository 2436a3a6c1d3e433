// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/explorer_page.h"

#include "common/error_style.h"
#include "common/rounding_choices.h"
#include "common/shown_tab_size.h"
#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/bit_diagram.h"
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/explorer_history.h"
#include "pages/explorer/focus_frame_delegate.h"
#include "pages/explorer/format_manager_dialog.h"
#include "pages/explorer/format_table_model.h"
#include "pages/explorer/plots_panel.h"
#include "pages/explorer/same_bits_dialog.h"
#include "pages/explorer/table_fit.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace fpx::gui {

namespace {

// How long the rows may lag behind the input before the page says so.
constexpr int kComputingNoticeDelayMs = 100;

QString elidedInput(const QString& text) {
    return text.size() <= 40 ? text : text.left(39) + QChar(0x2026);
}

QAction* separator(QObject* parent) {
    auto* action = new QAction(parent);
    action->setSeparator(true);
    return action;
}

// The value field keeps room for a value of a dozen characters at any zoom: the rounding boxes
// beside it cut their text first.
class ValueEdit : public QLineEdit {
  public:
    using QLineEdit::QLineEdit;
    QSize minimumSizeHint() const override {
        QSize hint = QLineEdit::minimumSizeHint();
        hint.setWidth(
            std::max(hint.width(), fontMetrics().horizontalAdvance(QLatin1Char('0')) * 12));
        return hint;
    }
};

} // namespace

ExplorerPage::ExplorerPage(QWidget* parent)
    : Page(parent), controller_(new ExplorerController(this)) {
    model_ = new FormatTableModel(controller_, this);
    auto* layout = new QVBoxLayout(this);

    // Input bar: value, rounding mode, overflow policy; the error message below the field.
    auto* inputBar = new QHBoxLayout;
    auto* valueLabel = new QLabel(tr("&Value"), this);
    valueEdit_ = new ValueEdit(this);
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
    roundCombo_ = new QComboBox(this);
    roundCombo_->setObjectName("roundingMode");
    addRoundingModeItems(*roundCombo_);
    overflowCombo_ = new QComboBox(this);
    overflowCombo_->setObjectName("overflowPolicy");
    addOverflowPolicyItems(*overflowCombo_);
    for (QComboBox* box : {roundCombo_, overflowCombo_})
        letNarrow(*box);
    inputBar->addWidget(valueLabel);
    inputBar->addWidget(valueEdit_, 1);
    inputBar->addWidget(roundCombo_);
    inputBar->addWidget(overflowCombo_);
    layout->addLayout(inputBar);
    errorLabel_ = new QLabel(this);
    errorLabel_->setObjectName("inputError");
    styleErrorLabel(*errorLabel_);
    errorLabel_->setVisible(false);
    layout->addWidget(errorLabel_);

    // Table and detail panel.
    splitter_ = new QSplitter(Qt::Vertical, this);
    table_ = new QTableView(splitter_);
    table_->setObjectName("formatTable");
    table_->setModel(model_);
    bitsDelegate_ = new BitCellsDelegate(table_);
    table_->setItemDelegateForColumn(FormatTableModel::Bits, bitsDelegate_);
    textDelegate_ = new FocusFrameDelegate(table_);
    table_->setItemDelegate(textDelegate_);
    fitter_ = new TableFitter(table_, bitsDelegate_, [this] { return controller_->formats(); });
    connect(fitter_, &TableFitter::hiddenColumnsChanged, this,
            [this] { detail_->setStoredLineShown(fitter_->storedLineNeeded()); });
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
    sizeTabsByShownPage(*lowerTabs_);
    connect(lowerTabs_, &QTabWidget::currentChanged, this, &ExplorerPage::fitSplitToTab);
    lowerTabs_->setTabToolTip(0, tr("How the selected format's code decodes, step by step."));
    lowerTabs_->setTabToolTip(1, tr("Rounding error, ULP spacing, range, representable values and "
                                    "memory of the shown formats."));
    splitter_->addWidget(table_);
    splitter_->addWidget(lowerTabs_);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    layout->addWidget(splitter_, 1);

    timing_ = new QLabel(this);
    computingLabel_ = new QLabel(this);
    computingLabel_->setObjectName("computingLabel");
    computingLabel_->setVisible(false);
    // Most changes are shown within the controller's short wait; a notice that flashed for
    // those would only distract.
    computingNotice_ = new QTimer(this);
    computingNotice_->setSingleShot(true);
    computingNotice_->setInterval(kComputingNoticeDelayMs);

    buildActions();

    connect(valueEdit_, &QLineEdit::textEdited, controller_, &ExplorerController::setInputText);
    connect(controller_, &ExplorerController::inputTextChanged, this, [this](const QString& text) {
        if (valueEdit_->text() != text)
            valueEdit_->setText(text);
    });
    connect(controller_, &ExplorerController::inputErrorChanged, this,
            &ExplorerPage::showInputError);
    connect(roundCombo_, &QComboBox::currentIndexChanged, this,
            [this](int i) { controller_->setRoundingChoice(roundingChoiceAt(*roundCombo_, i)); });
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
    connect(controller_, &ExplorerController::formatsChanged, this, &ExplorerPage::refreshLayout);
    connect(controller_, &ExplorerController::computingChanged, this, [this](bool computing) {
        // At once, not after the notice's delay: a shortcut pressed meanwhile would copy or
        // export the previous value's rows under the new value's name, or step from them.
        for (QAction* action : std::as_const(rowsActions_))
            action->setEnabled(!computing);
        if (computing)
            computingNotice_->start();
        else
            showComputing(false);
        if (!computing)
            workEnded();
    });
    connect(plots_, &PlotsPanel::plotReady, this, &ExplorerPage::workEnded);
    connect(computingNotice_, &QTimer::timeout, this,
            [this] { showComputing(controller_->computing()); });
    // Typing on while a slow value is computed: the notice names the newest input.
    connect(controller_, &ExplorerController::inputTextChanged, this,
            &ExplorerPage::refreshComputingNotice);
    connect(controller_, &ExplorerController::optionsChanged, this, [this] {
        showRoundingChoice(*roundCombo_, controller_->roundingChoice());
        showOverflowPolicy(*overflowCombo_, controller_->overflowPolicy());
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ExplorerPage::refreshDetail);
    connect(detail_, &DetailPanel::stepRequested, this,
            [this](int direction) { controller_->stepRow(selectedRow(), direction); });
}

ExplorerPage::~ExplorerPage() = default;

bool ExplorerPage::busy() const {
    return controller_->computing() || plots_->isComputing();
}

void ExplorerPage::buildActions() {
    QAction* exportPng = new QAction(tr("Export bit diagram as &PNG…"), this);
    connect(exportPng, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export bit diagram"),
                                                          "fpx-bits.png", tr("PNG images (*.png)"));
        if (!path.isEmpty() && !exportBitDiagram(path))
            QMessageBox::warning(this, tr("Export"), tr("Could not write %1.").arg(path));
    });
    exportPng->setToolTip(
        tr("The bits of the selected formats (all, if none is selected), aligned, for slides."));
    QAction* exportSvg = new QAction(tr("Export bit diagram as &SVG…"), this);
    connect(exportSvg, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export bit diagram"),
                                                          "fpx-bits.svg", tr("SVG images (*.svg)"));
        if (!path.isEmpty() && !exportBitDiagram(path))
            QMessageBox::warning(this, tr("Export"), tr("Could not write %1.").arg(path));
    });
    exportSvg->setToolTip(tr("A scalable vector version of the bit diagram."));
    fileActions_ = {exportPng, exportSvg};
    rowsActions_ = {exportPng, exportSvg};

    // An action of the Edit or View menu, with its shortcut, that works on the rows.
    auto action = [this](const QString& text, auto slot, const QKeySequence& shortcut = {}) {
        auto* made = new QAction(text, this);
        connect(made, &QAction::triggered, this, slot);
        if (!shortcut.isEmpty())
            made->setShortcut(shortcut);
        return made;
    };

    history_ = new ExplorerHistory(controller_, this);
    history_->watchTyping(valueEdit_);
    bitsDelegate_->attach(table_);
    auto cell = [this](FormatTableModel::Column column) {
        const int row = selectedRow();
        return row < 0 ? QString() : model_->fullText(row, column);
    };
    QAction* copyValue = action(
        tr("Copy &value"), [this, cell] { copyText(cell(FormatTableModel::Value)); },
        QKeySequence::Copy);
    copyValue->setToolTip(tr("The exact stored value of the selected format, every digit."));
    QAction* copyBits = action(
        tr("Copy &bits"), [this, cell] { copyText(cell(FormatTableModel::Bits)); },
        QKeySequence(tr("Ctrl+Shift+B")));
    QAction* copyHex = action(
        tr("Copy &hex"), [this, cell] { copyText(cell(FormatTableModel::Hex)); },
        QKeySequence(tr("Ctrl+Shift+H")));
    QAction* copyRow = action(
        tr("Copy &row"),
        [this] {
            const int row = selectedRow();
            if (row < 0)
                return;
            QStringList cells;
            for (int c = 0; c < FormatTableModel::ColumnCount; ++c)
                cells << model_->fullText(row, static_cast<FormatTableModel::Column>(c));
            copyText(cells.join('\t'));
        },
        QKeySequence(tr("Ctrl+Shift+C")));
    QAction* copyTable =
        action(tr("Copy table as &text"), [this] { copyText(model_->tableAsText()); });
    QAction* copyCsv = action(tr("Copy table as &CSV"), [this] { copyText(model_->tableAsCsv()); });
    QAction* copyJson =
        action(tr("Copy table as &JSON"), [this] { copyText(model_->tableAsJson()); });
    copyJson->setObjectName("copyTableJson");
    editActions_ = {history_->undoAction(),
                    history_->redoAction(),
                    separator(this),
                    copyValue,
                    copyBits,
                    copyHex,
                    copyRow,
                    separator(this),
                    copyTable,
                    copyCsv,
                    copyJson};
    rowsActions_ << copyValue << copyBits << copyHex << copyRow << copyTable << copyCsv << copyJson;
    // The same copies on the table's context menu: a cell shows as many digits as fit, the
    // copy has them all.
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);
    table_->addActions({copyValue, copyBits, copyHex, copyRow});

    QAction* formats =
        action(tr("&Formats…"), &ExplorerPage::openFormatManager, QKeySequence(tr("Ctrl+F")));
    formats->setToolTip(tr("Show, hide and reorder formats; add custom eXmY formats; set scales."));
    QAction* sameBits = action(tr("&Same bits in every format…"), &ExplorerPage::openSameBits,
                               QKeySequence(tr("Ctrl+B")));
    sameBits->setToolTip(tr("The selected row's code read in every format of its width, custom "
                            "ones too: 0x80 is −0 in one, NaN in another."));
    QAction* next = action(
        tr("&Next value"), [this] { controller_->stepRow(selectedRow(), +1); },
        QKeySequence(tr("Ctrl+Up")));
    next->setToolTip(tr("Step the selected format to its next larger representable value."));
    QAction* previous = action(
        tr("&Previous value"), [this] { controller_->stepRow(selectedRow(), -1); },
        QKeySequence(tr("Ctrl+Down")));
    previous->setToolTip(tr("Step the selected format to its next smaller representable value."));
    rowsActions_ << sameBits << next << previous;
    QAction* focusValue = action(
        tr("Edit &value"),
        [this] {
            emit showRequested();
            valueEdit_->setFocus();
            valueEdit_->selectAll();
        },
        QKeySequence(tr("Ctrl+L")));
    viewActions_ = {formats,
                    sameBits,
                    separator(this),
                    next,
                    previous,
                    history_->backAction(),
                    history_->forwardAction(),
                    focusValue};
}

void ExplorerPage::setRoundingChoices(RoundingMode mode, OverflowPolicy policy) {
    roundCombo_->setCurrentIndex(
        roundCombo_->findData(QString::fromStdString(roundingChoiceId(mode, {}))));
    overflowCombo_->setCurrentIndex(overflowCombo_->findData(static_cast<int>(policy)));
}

int ExplorerPage::selectedRow() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void ExplorerPage::selectRow(int row) {
    if (row < 0 || row >= model_->rowCount())
        return;
    table_->selectionModel()->setCurrentIndex(
        model_->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

std::vector<const ExplorerRow*> ExplorerPage::diagramRows() const {
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

bool ExplorerPage::exportBitDiagram(const QString& path) const {
    const BitDiagram diagram(diagramRows(), controller_->inputText(), palette());
    if (path.endsWith(".svg", Qt::CaseInsensitive))
        return diagram.saveSvg(path);
    return diagram.savePng(path);
}

void ExplorerPage::showLowerTab(int index) {
    lowerTabs_->setCurrentIndex(index);
}

void ExplorerPage::fitSplitToTab() {
    const QList<int> sizes = splitter_->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (total <= 0)
        return;
    int table = total * 3 / 5;
    if (lowerTabs_->currentWidget() == plots_) {
        // The table keeps its header and two rows (it scrolls); the plot takes the rest.
        table = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth();
        for (int row = 0; row < std::min(2, model_->rowCount()); ++row)
            table += table_->rowHeight(row);
        if (table_->horizontalScrollBar()->isVisible())
            table += table_->horizontalScrollBar()->height();
    }
    splitter_->setSizes({table, total - table});
}

void ExplorerPage::refreshDetail() {
    const int row = selectedRow();
    detail_->showRow(row >= 0 && row < model_->rowCount() ? &model_->row(row) : nullptr,
                     controller_->roundingOptions(), controller_->inputIsExact());
}

void ExplorerPage::refreshLayout() {
    fitter_->fit();
    if (selectedRow() < 0)
        selectRow(0);
    refreshDetail();
}

void ExplorerPage::showInputError(const QString& message, int position) {
    errorLabel_->setVisible(!message.isEmpty());
    errorLabel_->setText(message.isEmpty() ? QString() : QStringLiteral("⚠ ") + message);
    markInvalid(*valueEdit_, !message.isEmpty());
    valueEdit_->setToolTip(message.isEmpty() ? valueEdit_->toolTip() : message);
    Q_UNUSED(position);
}

void ExplorerPage::showComputing(bool computing) {
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
void ExplorerPage::refreshComputingNotice() {
    computingLabel_->setText(!computingLabel_->isHidden()
                                 ? tr("Computing %1 … the rows below still show the "
                                      "previous value.")
                                       .arg(elidedInput(controller_->inputText()))
                                 : QString());
}

void ExplorerPage::copyText(const QString& text) {
    if (text.isEmpty())
        return;
    QApplication::clipboard()->setText(text);
    emit statusMessage(tr("Copied %n characters", nullptr, static_cast<int>(text.size())), 3000);
}

void ExplorerPage::openFormatManager() {
    FormatManagerDialog dialog(controller_->formats(), this);
    if (dialog.exec() == QDialog::Accepted)
        controller_->setFormats(dialog.formats());
}

void ExplorerPage::openSameBits() {
    SameBitsDialog dialog(controller_->formats(), this);
    const int row = selectedRow();
    if (row >= 0 && row < static_cast<int>(controller_->rows().size())) {
        const ExplorerRow& selected = controller_->rows()[static_cast<std::size_t>(row)];
        dialog.openAt(selected.spec, selected.report.conversion.code);
    }
    dialog.exec();
}

} // namespace fpx::gui
