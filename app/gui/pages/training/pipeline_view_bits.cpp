// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/pipeline_view_bits.h"

#include "fpx/exact/bit_layout.h"
#include "fpx/exact/conversion.h"

#include <QPainter>

namespace fpx::gui {

PipelineViewBits::PipelineViewBits(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

void PipelineViewBits::setCode(const FormatSpec& spec, Code code) {
    spec_ = spec;
    code_ = code;
    hasCode_ = true;
    setToolTip(tr("%1 %2\nsign | exponent | mantissa: %3")
                   .arg(QString::fromStdString(spec.id),
                        QString::fromStdString(codeToHex(code, spec.totalBits())),
                        QString::fromStdString(binaryByField(spec, code))));
    update();
}

void PipelineViewBits::setCellLayout(const BitCellLayout& layout) {
    layout_ = layout;
    updateGeometry();
    update();
}

QSize PipelineViewBits::sizeHint() const {
    return {layout_.totalWidth(), layout_.cellWidth + 8};
}

void PipelineViewBits::paintEvent(QPaintEvent*) {
    if (!hasCode_)
        return;
    QPainter painter(this);
    // A stage that shows an earlier result while the form holds a refused value greys.
    if (!isEnabled())
        painter.setOpacity(kDisabledBitCellsOpacity);
    paintBitCells(painter, rect(), layout_, spec_, decodeCode(spec_, code_), palette());
}

} // namespace fpx::gui
