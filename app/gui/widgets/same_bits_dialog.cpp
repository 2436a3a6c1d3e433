// SPDX-License-Identifier: GPL-3.0-or-later
#include "same_bits_dialog.h"

#include "fpx/bit_layout.h"
#include "fpx/conversion.h"
#include "fpx/decimal_text.h"
#include "fpx/format_catalogue.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fpx::gui {

SameBitsDialog::SameBitsDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Same bits, every format"));
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    width_ = new QComboBox(this);
    for (int bits : {4, 6, 8, 16})
        width_->addItem(tr("%1 bits").arg(bits), bits);
    width_->setCurrentIndex(2);
    width_->setToolTip(tr("Formats of this width read the same code."));
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
    table_->setColumnCount(4);
    table_->setHorizontalHeaderLabels({tr("Format"), tr("Fields"), tr("Class"), tr("Value")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->setVisible(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(table_, 1);
    connect(code_, &QLineEdit::textChanged, this, &SameBitsDialog::refresh);
    connect(width_, &QComboBox::currentIndexChanged, this, &SameBitsDialog::refresh);
    resize(720, 420);
    refresh();
}

void SameBitsDialog::refresh() {
    const int bits = width_->currentData().toInt();
    const auto code = parseCode(code_->text().toStdString(), bits);
    table_->setRowCount(0);
    if (!code) {
        status_->setText(
            tr("⚠ not a %1-bit code: type hex (0x80) or binary (0b1000_0000)").arg(bits));
        status_->setStyleSheet("color: #d0402f;");
        return;
    }
    status_->setText(tr("%1 = %2").arg(QString::fromStdString(codeToHex(*code, bits)),
                                       QString::fromStdString(codeToBinary(*code, bits))));
    status_->setStyleSheet({});
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (FormatSpec spec : builtinFormats()) {
        if (spec.totalBits() != bits)
            continue;
        // Integers read as their level (0x80 is −128 in INT8), not scaled to ±1.
        if (spec.kind == FormatKind::Integer)
            spec.scale = ExactValue::integer(1);
        const DecodedCode d = decodeCode(spec, *code);
        const int row = table_->rowCount();
        table_->insertRow(row);
        table_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(spec.id)));
        auto* fields = new QTableWidgetItem(QString::fromStdString(binaryByField(spec, *code)));
        fields->setFont(mono);
        table_->setItem(row, 1, fields);
        table_->setItem(row, 2,
                        new QTableWidgetItem(
                            QString::fromStdString(std::string(valueClassName(d.valueClass)))));
        auto* value = new QTableWidgetItem(QString::fromStdString(toDecimal(d.value).text));
        value->setFont(mono);
        table_->setItem(row, 3, value);
    }
    table_->resizeColumnsToContents();
}

} // namespace fpx::gui
