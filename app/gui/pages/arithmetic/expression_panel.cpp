// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/arithmetic/expression_panel.h"

#include "common/code_cells_delegate.h"
#include "common/error_style.h"
#include "common/format_selection.h"
#include "common/number_text.h"
#include "common/zoom.h"
#include "pages/arithmetic/expression_model.h"

#include "fpx/exact/decimal_text.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace fpx::gui {

namespace {

// Under stochastic rounding the k-th rounding of the expression draws stochasticBits(seed, k):
// a fixed seed keeps the table still while the user types.
constexpr std::uint64_t kSeed = 1;

} // namespace

ExpressionPanel::ExpressionPanel(FormatSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection) {
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Every literal is rounded into the format, then every operation is computed exactly "
           "and rounded once: what a machine whose arithmetic type is that format returns."),
        this);
    intro->setObjectName("expressionIntro");
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* bar = new QHBoxLayout;
    edit_ = new QLineEdit(QStringLiteral("0.1+0.2"), this);
    edit_->setObjectName("expressionEdit");
    edit_->setClearButtonEnabled(true);
    edit_->setPlaceholderText(tr("0.1+0.2, (1+2^-11)-1, fma(0.1,10,-1), sqrt(2), min(a,b) …"));
    edit_->setToolTip(
        tr("An expression: + − × ÷, unary minus, parentheses, fma(a,b,c) (one rounding), "
           "sqrt(x), min, max, abs. Literals as in the explorer's value field (0.1, 2^-24, "
           "0x1.8p-3, inf). In each format every literal is rounded first, then every operation "
           "is computed exactly and rounded once."));
    QFont big = edit_->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    edit_->setFont(big);
    auto* label = new QLabel(tr("E&xpression"), this);
    label->setBuddy(edit_);
    bar->addWidget(label);
    bar->addWidget(edit_, 1);
    layout->addLayout(bar);
    error_ = new QLabel(this);
    error_->setObjectName("expressionError");
    styleErrorLabel(*error_);
    error_->setVisible(false);
    layout->addWidget(error_);
    exact_ = new QLabel(this);
    exact_->setObjectName("expressionExact");
    exact_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    exact_->setToolTip(tr("The real-number value of the expression: exact rational arithmetic "
                          "on the literals as typed, nothing rounded."));
    layout->addWidget(exact_);

    splitter_ = new QSplitter(Qt::Vertical, this);
    auto* splitter = splitter_;
    model_ = new ExpressionModel(this);
    table_ = new QTableView(splitter);
    table_->setObjectName("expressionTable");
    table_->setModel(model_);
    bits_ = new CodeCellsDelegate(
        [this](const QModelIndex& index) -> std::optional<CodeCellsDelegate::CellCode> {
            const FormatEvaluation& e = model_->row(index.row()).evaluation;
            if (e.unsupported)
                return std::nullopt;
            return CodeCellsDelegate::CellCode{e.spec, e.code};
        },
        table_);
    table_->setItemDelegateForColumn(ExpressionModel::Bits, bits_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    steps_ = new QPlainTextEdit(splitter);
    steps_->setObjectName("expressionSteps");
    steps_->setReadOnly(true);
    steps_->setLineWrapMode(QPlainTextEdit::NoWrap);
    steps_->setFont(fixedPitchFont());
    steps_->setToolTip(tr("The selected format's computation written out: every literal's "
                          "rounding, then every operation with its exact result and rounding."));
    splitter->addWidget(table_);
    splitter->addWidget(steps_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    connect(edit_, &QLineEdit::textChanged, this, &ExpressionPanel::recompute);
    connect(selection_, &FormatSelection::formatsChanged, this, [this] {
        recompute();
        refreshLayout();
    });
    connect(selection_, &FormatSelection::optionsChanged, this, &ExpressionPanel::recompute);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ExpressionPanel::refreshSteps);
    recompute();
    refreshLayout();
    selectRow(0);
}

void ExpressionPanel::setExpressionText(const QString& text) {
    edit_->setText(text);
}

QString ExpressionPanel::expressionText() const {
    return edit_->text();
}

int ExpressionPanel::selectedRow() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void ExpressionPanel::selectRow(int row) {
    if (row < 0 || row >= model_->rowCount())
        return;
    table_->selectionModel()->setCurrentIndex(
        model_->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void ExpressionPanel::recompute() {
    const std::string text = edit_->text().toStdString();
    const ExpressionParse parsed = parseExpression(text);
    if (!parsed) {
        // The rows keep the last good expression; the message names the column.
        inputError_ = parseErrorText(text, parsed.error);
        error_->setText(QStringLiteral("⚠ ") + inputError_);
        error_->setVisible(true);
        markInvalid(*edit_, true);
        return;
    }
    inputError_.clear();
    error_->setVisible(false);
    edit_->setStyleSheet(QString());
    const int selected = selectedRow();
    model_->setReport(evaluateExpressionReport(*parsed.expression, selection_->formats(),
                                               selection_->roundingOptions(), kSeed));
    const ExactEvaluation& exact = model_->report().exact;
    exact_->setText(tr("Real value: <b>%1</b>%2")
                        .arg(fullDecimal(exact.value).toHtmlEscaped(),
                             exact.approximate ? tr(" (approximate: a square root)") : QString()));
    selectRow(selected >= 0 ? selected : 0);
    refreshSteps();
    // The columns as wide as this expression's values, whatever an earlier one needed.
    refreshLayout();
}

void ExpressionPanel::refreshSteps() {
    const int row = selectedRow();
    if (row < 0 || row >= model_->rowCount()) {
        steps_->clear();
        return;
    }
    QStringList lines;
    for (const std::string& line :
         expressionSteps(model_->report(), model_->row(row), selection_->roundingOptions()))
        lines << QString::fromStdString(line);
    // Emptied first: a plain text document keeps the width of the longest line it ever held
    // until that line goes, so its scroll bar would remember an earlier expression.
    steps_->clear();
    steps_->setPlainText(lines.join('\n'));
}

void ExpressionPanel::refreshLayout() {
    // As the explorer: big cells while the formats are narrow, small ones for FP64.
    const std::vector<FormatSpec> formats = selection_->formats();
    const BitCellLayout widest = BitCellLayout::forFormats(formats, 1);
    const int cells = widest.leftCells + widest.rightCells;
    const int digit = fontMetrics().horizontalAdvance('0');
    const int cellWidth = cells <= 20   ? digit + 12
                          : cells <= 36 ? digit + 7
                                        : std::max(10, digit + 2);
    bits_->setLayout(BitCellLayout::forFormats(formats, cellWidth));
    table_->resizeColumnsToContents();
    table_->setColumnWidth(ExpressionModel::Bits, bits_->layout().totalWidth());
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->resizeRowsToContents();
    fitTableHeight();
}

void ExpressionPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitTableHeight();
}

void ExpressionPanel::fitTableHeight() {
    // The table as tall as its rows (at most two thirds), the steps below get the rest.
    const int total = splitter_->height();
    if (total <= 0)
        return;
    int rows = table_->horizontalHeader()->height() + 2 * table_->frameWidth() +
               table_->horizontalScrollBar()->sizeHint().height() + 4;
    for (int r = 0; r < model_->rowCount(); ++r)
        rows += table_->rowHeight(r);
    const int tableHeight = std::min(rows, total * 2 / 3);
    splitter_->setSizes({tableHeight, total - tableHeight});
}

} // namespace fpx::gui
