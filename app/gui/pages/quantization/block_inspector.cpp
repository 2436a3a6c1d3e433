// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/block_inspector.h"

#include "common/code_cells_delegate.h"
#include "common/number_text.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/wide_rounding.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace fpx::gui {

namespace {

constexpr int kCellWidth = 15;
// A 32-bit scale's cells shrink down to this width rather than widen the inspector.
constexpr int kLeastCellWidth = 6;
constexpr std::size_t kMaxRows = 1024; // a row-wide block can hold thousands

QString exactText(double x, int digits = 10) {
    return shortDecimal(exactFromDouble(x), digits);
}

QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setToolTip(tip.isEmpty() ? text : tip);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

CodeCellsView::CodeCellsView(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
}

void CodeCellsView::setCode(const std::optional<FormatSpec>& spec, Code code) {
    spec_ = spec;
    code_ = code;
    layout_ = spec ? BitCellLayout::forFormats({*spec}, kCellWidth) : BitCellLayout{};
    setVisible(spec.has_value());
    updateGeometry();
    update();
}

QSize CodeCellsView::sizeHint() const {
    return QSize(spec_ ? layout_.totalWidth() : 0, kCellWidth + 12);
}

QSize CodeCellsView::minimumSizeHint() const {
    return QSize(spec_ ? BitCellLayout::forFormats({*spec_}, kLeastCellWidth).totalWidth() : 0,
                 kCellWidth + 12);
}

void CodeCellsView::paintEvent(QPaintEvent*) {
    if (!spec_)
        return;
    // The widest cells that fit.
    BitCellLayout layout = layout_;
    for (int cell = kCellWidth - 1; cell >= kLeastCellWidth && layout.totalWidth() > width();
         --cell)
        layout = BitCellLayout::forFormats({*spec_}, cell);
    QPainter painter(this);
    paintBitCells(painter, rect(), layout, *spec_, decodeCode(*spec_, code_), palette());
}

BlockInspector::BlockInspector(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    title_ = new QLabel(tr("<b>Block</b>"), this);
    spin_ = new QSpinBox(this);
    spin_->setObjectName("quantBlock");
    spin_->setRange(0, 0);
    spin_->setGroupSeparatorShown(true);
    spin_->setToolTip(tr("The block to inspect, counted from 0 (or click a value in the values "
                         "plot)."));
    // A short button and a title that wraps: the bar must fit beside or under the values plot
    // in a narrow window at a large zoom.
    title_->setWordWrap(true);
    largest_ = new QPushButton(tr("Largest"), this);
    largest_->setToolTip(tr("Inspect the block with the largest scale: the one whose grid is "
                            "coarsest."));
    scaleCells_ = new CodeCellsView(this);
    scaleCells_->setObjectName("quantScaleBits");
    bar->addWidget(title_);
    bar->addWidget(spin_);
    bar->addWidget(largest_);
    bar->addStretch(1);
    layout->addLayout(bar);
    // The scale's bits, then what they mean, under the block's controls: beside each other, or
    // beside the controls, they would keep the inspector too wide for a narrow window at a
    // large zoom.
    scale_ = new QLabel(this);
    scale_->setObjectName("quantScale");
    scale_->setWordWrap(true);
    scale_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(scaleCells_, 0, Qt::AlignLeft);
    layout->addWidget(scale_);

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName("quantInspector");
    table_->setHorizontalHeaderLabels(
        {tr("#"), tr("Input x"), tr("Code"), tr("Hex"), tr("Value q"), tr("Error x − q")});
    table_->horizontalHeaderItem(Bits)->setToolTip(
        tr("The element's code, coloured by field as in the explorer."));
    table_->horizontalHeaderItem(Value)->setToolTip(
        tr("The element's value times the block's scale: exactly what a dequantizer returns."));
    table_->verticalHeader()->setVisible(false);
    table_->setAlternatingRowColors(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setWordWrap(false);
    delegate_ = new CodeCellsDelegate(
        [this](const QModelIndex& index) -> std::optional<CodeCellsDelegate::CellCode> {
            if (!quantized_ || index.row() < 0 || index.row() >= int(codes_.size()))
                return std::nullopt;
            return CodeCellsDelegate::CellCode{quantized_->format.element,
                                               codes_[std::size_t(index.row())]};
        },
        table_);
    table_->setItemDelegateForColumn(Bits, delegate_);
    layout->addWidget(table_, 1);

    connect(spin_, &QSpinBox::valueChanged, this, [this](int value) {
        refresh();
        emit blockChanged(std::size_t(value));
    });
    connect(largest_, &QPushButton::clicked, this, [this] {
        if (quantized_)
            setBlock(largestBlock_);
    });
    refresh();
}

void BlockInspector::setQuantized(std::shared_ptr<const TensorInput> input,
                                  std::shared_ptr<const QuantizedTensor> quantized,
                                  std::size_t largestBlock) {
    input_ = std::move(input);
    quantized_ = std::move(quantized);
    largestBlock_ = largestBlock;
    const QSignalBlocker blocker(spin_);
    const int blocks =
        quantized_
            ? int(std::min<std::size_t>(inspectorBlockCount(*quantized_), std::size_t(INT32_MAX)))
            : 1;
    spin_->setRange(0, blocks - 1);
    if (quantized_)
        delegate_->setLayout(BitCellLayout::forFormats({quantized_->format.element}, kCellWidth));
    refresh();
}

void BlockInspector::setBlock(std::size_t block) {
    spin_->setValue(int(std::min<std::size_t>(block, std::size_t(spin_->maximum()))));
}

std::size_t BlockInspector::block() const {
    return std::size_t(spin_->value());
}

std::size_t BlockInspector::blockCount() const {
    return quantized_ ? inspectorBlockCount(*quantized_) : 0;
}

QString BlockInspector::scaleText() const {
    return scale_->text();
}

void BlockInspector::refresh() {
    codes_.clear();
    scaleSpec_.reset();
    table_->setRowCount(0);
    largest_->setEnabled(quantized_ && quantized_->format.scheme != BlockScheme::Direct);
    if (!quantized_ || !input_) {
        scaleCells_->setCode(std::nullopt, 0);
        scale_->setText(tr("Run a quantization to inspect its blocks."));
        return;
    }
    const QuantizedTensor& q = *quantized_;
    const BlockFormat& format = q.format;
    const std::size_t b = block();
    const std::size_t size = inspectorBlockSize(q);
    const std::size_t first = b * size;
    const std::size_t last = std::min(first + size, q.elementCount);
    title_->setText(tr("<b>%1 block</b>").arg(QString::fromStdString(format.id)));

    QString text;
    if (format.scheme == BlockScheme::Direct) {
        text = tr("Direct cast to %1: no shared scale. Elements %L2…%L3 of %L4.")
                   .arg(QString::fromStdString(format.element.id))
                   .arg(qulonglong(first))
                   .arg(qulonglong(last - 1))
                   .arg(qulonglong(q.elementCount));
    } else {
        const double scale = q.blockScale(b);
        const Code code = b < q.scaleCodes.size() ? q.scaleCodes[b] : 0;
        QString stored;
        if (format.scale && b < q.scaleCodes.size()) {
            scaleSpec_ = *format.scale;
            scaleCode_ = code;
            stored = tr("%1 %2").arg(QString::fromStdString(format.scale->id),
                                     codeHex(*format.scale, code));
            if (format.doubleQuantized) // the code k stands for k/127 of its group's scale
                stored += tr(" (double quantized: group %L1's scale %2)")
                              .arg(qulonglong(b / 256))
                              .arg(b / 256 < q.groupScales.size()
                                       ? exactText(double(q.groupScales[b / 256]))
                                       : QStringLiteral("?"));
        }
        const QString power = powerOfTwoText(exactFromDouble(scale));
        text = tr("Elements %L1…%L2 of %L3. Stored scale: %4. Multiplier = %5%6")
                   .arg(qulonglong(first))
                   .arg(qulonglong(last - 1))
                   .arg(qulonglong(q.elementCount))
                   .arg(stored)
                   .arg(power.isEmpty() ? QString() : power + " = ")
                   .arg(exactText(scale, 12));
        if (q.tensorScale)
            text += tr(" (tensor scale %1 included)").arg(exactText(double(*q.tensorScale), 12));
        text += ".";
    }
    scale_->setText(text);
    scaleCells_->setCode(scaleSpec_, scaleCode_);

    const std::vector<InspectedElement> rows = inspectBlock(*input_, q, b, kMaxRows);
    if (last - first > rows.size())
        scale_->setText(text +
                        tr(" The first %L1 elements are listed.").arg(qulonglong(rows.size())));
    table_->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        const InspectedElement& e = rows[std::size_t(r)];
        codes_.push_back(e.code);
        table_->setItem(r, Element, cell(QString::number(qulonglong(e.index))));
        table_->setItem(r, Input, cell(exactText(e.input), fullDecimal(exactFromDouble(e.input))));
        table_->setItem(r, Bits, cell(QString()));
        table_->setItem(r, Hex, cell(codeHex(format.element, e.code)));
        table_->setItem(r, Value, cell(exactText(e.value), fullDecimal(exactFromDouble(e.value))));
        table_->setItem(r, Error, cell(QString::number(e.error, 'g', 4)));
        table_->item(r, Value)->setData(Qt::UserRole, e.value);
        table_->item(r, Input)->setData(Qt::UserRole, e.input);
    }
    table_->resizeColumnsToContents();
    table_->setColumnWidth(Bits, delegate_->layout().totalWidth());
    // Each block from its first element and column, wherever the last one was scrolled to.
    table_->scrollToTop();
    table_->horizontalScrollBar()->setValue(0);
}

} // namespace fpx::gui
