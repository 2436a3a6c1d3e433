// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/tensor_input.h"

#include <QStringList>
#include <QWidget>

#include <optional>

class QComboBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace fpx::gui {

// What a page's tensor source form offers and says: the Quantization page and the Training
// page's range view read the same kinds of sources with different defaults and words.
struct TensorSourceSetup {
    QString objectPrefix;      // object names: "<prefix>Path", "<prefix>Count", …
    bool fileFirst = true;     // the source kinds' order in the Source box
    QString kindTip;           // the Source box's tooltip
    QString pathPlaceholder;   // the path field's
    QStringList distributions; // the Kind box's presets, the first one shown
    QString distributionTip;   // the Kind box's tooltip
    int count = 65536;         // values drawn unless set
    bool outliers = false;     // an Outliers field (FRACTION:SCALE)
    QString chooseFileMessage; // the request's message when no file is named
};

// The form of a tensor source (common/tensor_input.h): a tensor file, with the tensor of a
// multi-tensor file and the dtype of a headerless one, or values drawn from a distribution
// with their count and seed (and outliers where the page offers them). It checks what a
// user sets and builds the TensorSource a page's run reads; running is the page's.
class TensorSourceForm : public QWidget {
    Q_OBJECT

  public:
    explicit TensorSourceForm(const TensorSourceSetup& setup, QWidget* parent = nullptr);

    // Each returns an error message, or an empty string.
    // "PATH" or "PATH:TENSOR"; `dtype` for raw files ("f32", …; empty: from the header).
    QString setFile(const QString& argument, const QString& dtype = {});
    QString setDistribution(const QString& spec, qulonglong count, qulonglong seed = 1,
                            const QString& outliers = {});
    // The source the form describes; nullopt with `error` when no file is named.
    std::optional<TensorSource> source(QString& error) const;

    // The layouts whose labels a page aligns with its own form's (alignFormLabels).
    QList<QFormLayout*> forms() const { return forms_; }

  public slots:
    void openFile(); // a file dialog; fileChosen() when one was picked

  signals:
    void fileChosen(); // a file was picked in the dialog and set as the source

  private:
    bool fileShown() const;
    void refreshTensors();

    TensorSourceSetup setup_;
    QList<QFormLayout*> forms_;
    QComboBox* kind_;
    QStackedWidget* stack_;
    QWidget* filePage_;
    QWidget* distributionPage_;
    QLineEdit* path_;
    QComboBox* tensor_;
    QComboBox* dtype_;
    QComboBox* distribution_;
    QLineEdit* outliers_ = nullptr;
    QSpinBox* count_;
    QSpinBox* seed_;
};

// Gives every label of `forms` the widest one's width: forms shown one under another (a
// page's form and the rows of the source it shows) then keep their fields in one column and
// no label clipped.
void alignFormLabels(const QList<QFormLayout*>& forms);

} // namespace fpx::gui
