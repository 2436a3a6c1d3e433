// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/quantization/quantization_model.h"

#include <QStringList>
#include <QWidget>

#include <optional>

class QComboBox;
class QListWidget;

namespace fpx::gui {

class TensorSourceForm;

// The Quantization page's form: what to quantize (a tensor file or values drawn from a
// distribution) and how (the quantizers to compare, the block layout, the MX scale rule). It
// checks what a user sets and builds the request a run carries out; running is the page's.
class QuantizationSourceForm : public QWidget {
    Q_OBJECT

  public:
    explicit QuantizationSourceForm(QWidget* parent = nullptr);

    // Each returns an error message, or an empty string.
    // "PATH" or "PATH:TENSOR"; `dtype` for raw files ("f32", …; empty: from the header).
    QString setInputFile(const QString& argument, const QString& dtype = {});
    QString setDistribution(const QString& spec, qulonglong count, qulonglong seed = 1,
                            const QString& outliers = {});
    QString setFormats(const QStringList& ids); // quantizer ids, comma lists allowed
    QString setBlock(const QString& layout);    // "default", "N", "row", "tensor"
    QString setScaleRule(const QString& rule);  // "default", "floor", "ceil", "even"
    QString blockText() const;
    QString scaleRuleText() const;
    // The request the form describes; nullopt with `error` when the form is not valid.
    std::optional<QuantizationRequest> request(QString& error) const;

  public slots:
    void openFile(); // a file dialog; fileChosen() when one was picked

  signals:
    void fileChosen(); // a file was picked in the dialog and set as the input

  private:
    void showFieldsFromTheStart();

    TensorSourceForm* source_;
    QListWidget* formats_;
    QStringList order_; // the formats in the list's own order, those added last
    QComboBox* block_;
    QComboBox* scaleRule_;
};

} // namespace fpx::gui
