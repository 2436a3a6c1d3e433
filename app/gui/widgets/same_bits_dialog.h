// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace fpx::gui {

// One code read in every format of its width: 0x80 is −0 in FP8 E4M3, NaN in E4M3FNUZ,
// −128 in INT8 and 2^1 in E8M0.
class SameBitsDialog : public QDialog {
    Q_OBJECT

  public:
    explicit SameBitsDialog(QWidget* parent = nullptr);

    QLineEdit* codeEdit() const { return code_; }
    QComboBox* widthBox() const { return width_; }
    QTableWidget* table() const { return table_; }

  private:
    void refresh();

    QComboBox* width_;
    QLineEdit* code_;
    QLabel* status_;
    QTableWidget* table_;
};

} // namespace fpx::gui
