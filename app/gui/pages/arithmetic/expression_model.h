// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/arithmetic/expression_report.h"

#include <QAbstractTableModel>

namespace fpx::gui {

// The Expression lab's table: one row per format with the stored operands, the result's bits
// and value, the exact result of the last operation, the error against the real value, and
// whether the result is the real value rounded once.
class ExpressionModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Column {
        Format,
        Bits,
        Hex,
        RoundedOnce,
        Result,
        Error,
        Flags,
        ExactResult,
        Operands,
        ColumnCount
    };

    explicit ExpressionModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setReport(ExpressionReport report);
    const ExpressionReport& report() const { return report_; }
    const ExpressionRow& row(int r) const { return report_.rows[static_cast<std::size_t>(r)]; }
    // Every digit of a cell, for tooltips and copying.
    QString fullText(int r, Column column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    ExpressionReport report_;
};

} // namespace fpx::gui
