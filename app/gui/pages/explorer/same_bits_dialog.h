// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/format_spec.h"

#include <QDialog>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace fpx::gui {

class CodeCellsDelegate;

// One code read in every format of its width: 0x80 is −0 in FP8 E4M3, NaN in E4M3FNUZ,
// −128 in INT8 and 2^1 in E8M0. The rows are the built-ins of that width and the explorer's
// own formats of that width (custom ones included), as `fpx show --bits CODE --width N`
// lists them (core same_bits.h); the bits are drawn as the explorer's coloured cells.
class SameBitsDialog : public QDialog {
    Q_OBJECT

  public:
    // `shown`: the explorer's formats, whose custom ones join the built-ins.
    explicit SameBitsDialog(std::vector<FormatSpec> shown = {}, QWidget* parent = nullptr);

    // Shows `code` read in every format of `spec`'s width, with `spec`'s row selected.
    void openAt(const FormatSpec& spec, Code code);

    QLineEdit* codeEdit() const { return code_; }
    QComboBox* widthBox() const { return width_; }
    QTableWidget* table() const { return table_; }
    QLabel* statusLabel() const { return status_; }
    CodeCellsDelegate* bitsDelegate() const { return cells_; }

    enum Column { Format, Bits, Class, Value, ColumnCount };

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void refresh();
    void fitCells();
    QSize fittedSize() const;

    std::vector<FormatSpec> shown_;
    std::vector<FormatSpec> rowFormats_; // the format of each table row, for the bit cells
    Code rowCode_ = 0;
    QComboBox* width_ = nullptr;
    QLineEdit* code_ = nullptr;
    QLabel* status_ = nullptr;
    QTableWidget* table_ = nullptr;
    CodeCellsDelegate* cells_ = nullptr;
};

} // namespace fpx::gui
