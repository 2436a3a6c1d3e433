// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/same_bits_dialog.h"

#include "common/code_cells_delegate.h"
#include "common/error_style.h"
#include "common/zoom.h"
#include "pages/explorer/table_fit.h"

#include "fpx/exact/bit_layout.h"
#include "fpx/exact/code_parser.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/same_bits.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScreen>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace fpx::gui {

SameBitsDialog::SameBitsDialog(std::vector<FormatSpec> shown, QWidget* parent)
    : QDialog(parent), shown_(std::move(shown)) {
    // The explorer's font, which the zoom sets, as it opens and as the zoom changes while it is
    // open (a dialog is a window, which otherwise takes the application's font).
    setAttribute(Qt::WA_WindowPropagation);
    setWindowTitle(tr("Same bits, every format"));
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    width_ = new QComboBox(this);
    width_->setObjectName("sameBitsWidth");
    for (int bits : formatWidths(shown_))
        width_->addItem(tr("%1 bits").arg(bits), bits);
    width_->setCurrentIndex(std::max(0, width_->findData(8)));
    width_->setToolTip(
        tr("Formats of this width read the same code: the built-ins and the explorer's own."));
    code_ = new QLineEdit(QStringLiteral("0x80"), this);
    code_->setObjectName("sameBitsCode");
    code_->setToolTip(tr("A code in hex (0x80) or binary (0b10000000)."));
    status_ = new QLabel(this);
    auto* codeLabel = new QLabel(tr("&Code"), this);
    codeLabel->setBuddy(code_);
    bar->addWidget(codeLabel);
    bar->addWidget(code_, 1);
    bar->addWidget(width_);
    layout->addLayout(bar);
    layout->addWidget(status_);
    table_ = new QTableWidget(this);
    table_->setObjectName("sameBitsTable");
    table_->setColumnCount(ColumnCount);
    table_->setHorizontalHeaderLabels({tr("Format"), tr("Bits"), tr("Class"), tr("Value")});
    table_->horizontalHeaderItem(Bits)->setToolTip(
        tr("Sign (blue), exponent (green), mantissa (red), as in the explorer's rows."));
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->setVisible(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    cells_ = new CodeCellsDelegate(
        [this](const QModelIndex& index) -> std::optional<CodeCellsDelegate::CellCode> {
            const auto r = static_cast<std::size_t>(index.row());
            if (index.row() < 0 || r >= rowFormats_.size())
                return std::nullopt;
            return CodeCellsDelegate::CellCode{rowFormats_[r],
                                               rowCode_ & rowFormats_[r].codeMask()};
        },
        this);
    table_->setItemDelegateForColumn(Bits, cells_);
    layout->addWidget(table_, 1);
    connect(code_, &QLineEdit::textChanged, this, &SameBitsDialog::refresh);
    connect(width_, &QComboBox::currentIndexChanged, this, &SameBitsDialog::refresh);
    refresh();
    resize(fittedSize());
}

QSize SameBitsDialog::fittedSize() const {
    // Wide enough for the table at the zoom's type size, within the screen it opens on.
    const int line = fontMetrics().height();
    QSize size(std::max(54 * fontMetrics().horizontalAdvance('0'),
                        table_->horizontalHeader()->length() + 4 * line),
               28 * line);
    if (const QScreen* screen = parentWidget() ? parentWidget()->screen() : this->screen())
        size = size.boundedTo(screen->availableGeometry().size() * 9 / 10);
    return size;
}

void SameBitsDialog::changeEvent(QEvent* event) {
    QDialog::changeEvent(event);
    if (event->type() == QEvent::FontChange && table_) // the bit cells follow the type
        fitCells();
}

void SameBitsDialog::fitCells() {
    // Cells as wide as the explorer table's at this type size: the zoom enlarges them.
    const BitCellLayout shape = BitCellLayout::forFormats(rowFormats_, 1);
    cells_->setLayout(BitCellLayout::forFormats(
        rowFormats_, TableFitter::naturalCellWidth(font(), shape.leftCells + shape.rightCells)));
    table_->resizeColumnsToContents();
    table_->resizeRowsToContents();
}

void SameBitsDialog::openAt(const FormatSpec& spec, Code code) {
    const int bits = spec.totalBits();
    const int index = width_->findData(bits);
    if (index >= 0)
        width_->setCurrentIndex(index);
    code_->setText(QString::fromStdString(codeToHex(code & spec.codeMask(), bits)));
    const std::vector<FormatSpec> formats = formatsOfWidth(bits, shown_);
    FormatSpec levels = spec;
    if (levels.kind == FormatKind::Integer)
        levels.scale = ExactValue::integer(1);
    for (std::size_t r = 0; r < formats.size(); ++r)
        if (sameEncoding(formats[r], levels)) {
            table_->selectRow(static_cast<int>(r));
            break;
        }
}

void SameBitsDialog::refresh() {
    const int bits = width_->currentData().toInt();
    const std::string text = code_->text().toStdString();
    const ParsedCode parsed = readCode(text, bits);
    table_->setRowCount(0);
    rowFormats_.clear();
    if (!parsed) {
        // The column counts characters, as the user sees them, not UTF-8 bytes.
        const qsizetype column =
            QString::fromUtf8(text.data(), static_cast<qsizetype>(parsed.errorPosition)).size() + 1;
        status_->setText(tr("⚠ column %1: %2 — type a %3-bit code in hex (0x80) or binary "
                            "(0b1000_0000)")
                             .arg(column)
                             .arg(QString::fromStdString(parsed.error))
                             .arg(bits));
        styleErrorLabel(*status_);
        return;
    }
    status_->setText(tr("%1 = %2").arg(QString::fromStdString(codeToHex(*parsed.code, bits)),
                                       QString::fromStdString(codeToBinary(*parsed.code, bits))));
    status_->setStyleSheet({});
    const QFont mono = fixedPitchFont();
    const std::vector<SameBitsRow> rows = readInEveryFormat(*parsed.code, bits, shown_);
    for (const SameBitsRow& r : rows)
        rowFormats_.push_back(r.spec);
    rowCode_ = *parsed.code;
    for (const SameBitsRow& r : rows) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        auto* name = new QTableWidgetItem(QString::fromStdString(r.spec.id));
        name->setToolTip(QString::fromStdString(r.spec.displayName + "\n" + r.spec.description));
        table_->setItem(row, Format, name);
        // The text is what copying gives; the delegate draws it as coloured cells.
        auto* fields =
            new QTableWidgetItem(QString::fromStdString(binaryByField(r.spec, r.decoded.code)));
        fields->setFont(mono);
        table_->setItem(row, Bits, fields);
        table_->setItem(row, Class, new QTableWidgetItem(QString::fromStdString(r.className)));
        auto* value = new QTableWidgetItem(QString::fromStdString(toDecimal(r.decoded.value).text));
        value->setFont(mono);
        table_->setItem(row, Value, value);
    }
    fitCells();
}

} // namespace fpx::gui
