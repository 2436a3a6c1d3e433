// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/format_spec.h"

#include <QDialog>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace fpx::gui {

// Show, hide and reorder formats; add custom formats (from fields or a spec string such as
// e4m3b11fnuz, validated as you type); set the scale of integer rows and the absmax of NF4.
class FormatManagerDialog : public QDialog {
    Q_OBJECT

  public:
    FormatManagerDialog(const std::vector<FormatSpec>& enabled, QWidget* parent = nullptr);

    // The checked formats, in list order.
    std::vector<FormatSpec> formats() const;

    // For tests and keyboard users: the spec field and the add button.
    QLineEdit* specEdit() const { return specEdit_; }
    QPushButton* addButton() const { return add_; }
    QListWidget* list() const { return list_; }
    QLineEdit* scaleEdit() const { return scaleEdit_; }

  private:
    void addItem(const FormatSpec& spec, bool checked);
    void validateSpec();
    void specFromFields();
    void moveCurrent(int delta);
    void showScaleOfCurrent();
    void applyScale();

    std::vector<FormatSpec> specs_; // indexed by each item's Qt::UserRole
    QListWidget* list_;
    QLineEdit* specEdit_;
    QLabel* specStatus_;
    QSpinBox* exponentBits_;
    QSpinBox* mantissaBits_;
    QSpinBox* bias_;
    QCheckBox* defaultBias_;
    QComboBox* specials_;
    QPushButton* add_;
    QLineEdit* scaleEdit_;
    QLabel* scaleStatus_;
};

} // namespace fpx::gui
