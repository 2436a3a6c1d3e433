// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"

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
    QLabel* specStatus() const { return specStatus_; }
    // The line under the spec field saying which short specs name built-ins (e3m2 is OCP FP6).
    QLabel* specRule() const { return specRule_; }
    QSpinBox* exponentBitsBox() const { return exponentBits_; }
    QSpinBox* mantissaBitsBox() const { return mantissaBits_; }
    QSpinBox* biasBox() const { return bias_; }
    QCheckBox* defaultBiasBox() const { return defaultBias_; }
    QComboBox* specialsBox() const { return specials_; }
    // Adds the format the spec field names; false (and a message) when it is invalid or
    // already in the list under any name.
    bool addSpec();

  private:
    void addItem(const FormatSpec& spec, bool checked);
    void validateSpec();
    void specFromFields();
    void fieldsFromSpec(const FormatSpec& spec);
    // The list entry with the same encoding as `spec`, or −1.
    int rowWithSameFormat(const FormatSpec& spec) const;
    void moveCurrent(int delta);
    void showScaleOfCurrent();
    void applyScale();

    std::vector<FormatSpec> specs_; // indexed by each item's Qt::UserRole
    QListWidget* list_;
    QLineEdit* specEdit_;
    QLabel* specStatus_;
    QLabel* specRule_;
    bool updatingFields_ = false; // fields being set from the spec: do not write the spec back
    bool writingSpec_ = false;    // spec being written from the fields: they agree already
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
