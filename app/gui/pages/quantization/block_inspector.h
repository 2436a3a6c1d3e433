// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/bit_cells.h"
#include "pages/quantization/quantization_model.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace fpx::gui {

class CodeCellsDelegate;

// One code drawn as the explorer's coloured bit cells (a block's scale).
class CodeCellsView : public QWidget {
  public:
    explicit CodeCellsView(QWidget* parent = nullptr);
    void setCode(const std::optional<FormatSpec>& spec, Code code);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    std::optional<FormatSpec> spec_;
    Code code_ = 0;
    BitCellLayout layout_;
};

// The block inspector: one block of one format, its scale's bits and value, and each element's
// input, code (coloured by field), dequantized value and error.
class BlockInspector : public QWidget {
    Q_OBJECT

  public:
    enum Column { Element, Input, Bits, Hex, Value, Error, ColumnCount };

    explicit BlockInspector(QWidget* parent = nullptr);

    // Shows `quantized` (null: nothing) of `input`, keeping the block number where it fits;
    // `largestBlock` is the block the Largest button goes to (blockWithLargestScale, found
    // off the GUI thread).
    void setQuantized(std::shared_ptr<const TensorInput> input,
                      std::shared_ptr<const QuantizedTensor> quantized,
                      std::size_t largestBlock = 0);
    void setBlock(std::size_t block);
    std::size_t block() const;
    std::size_t blockCount() const;

    QSpinBox* blockSpin() const { return spin_; }
    QTableWidget* table() const { return table_; }
    QString scaleText() const;
    // The scale's code and format as drawn (nullopt: no stored scale shown as bits).
    std::optional<FormatSpec> scaleFormat() const { return scaleSpec_; }
    Code scaleCode() const { return scaleCode_; }

  signals:
    void blockChanged(std::size_t block);

  private:
    void refresh();

    std::shared_ptr<const TensorInput> input_;
    std::shared_ptr<const QuantizedTensor> quantized_;
    std::size_t largestBlock_ = 0;
    QLabel* title_;
    QSpinBox* spin_;
    QPushButton* largest_;
    CodeCellsView* scaleCells_;
    QLabel* scale_;
    QTableWidget* table_;
    CodeCellsDelegate* delegate_;
    std::vector<Code> codes_;
    std::optional<FormatSpec> scaleSpec_;
    Code scaleCode_ = 0;
};

} // namespace fpx::gui
