// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/bit_cells.h"

#include "fpx/exact/code.h"
#include "fpx/exact/format_spec.h"

#include <QWidget>

namespace fpx::gui {

// One stage's code of the pipeline view as the explorer's coloured bit cells; every stage
// shares one layout, so the binary points of FP16 and FP32 line up down the pipeline.
class PipelineViewBits : public QWidget {
    Q_OBJECT

  public:
    explicit PipelineViewBits(QWidget* parent = nullptr);

    void setCode(const FormatSpec& spec, Code code);
    void setCellLayout(const BitCellLayout& layout);
    const FormatSpec& spec() const { return spec_; }
    Code code() const { return code_; }
    const BitCellLayout& cellLayout() const { return layout_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    FormatSpec spec_;
    Code code_ = 0;
    bool hasCode_ = false;
    BitCellLayout layout_;
};

} // namespace fpx::gui
