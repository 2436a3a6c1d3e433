// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/arithmetic/master_weights.h"

#include <QWidget>

#include <vector>

class QCustomPlot;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace fpx::gui {

class FormatSelection;

// "Master weights in one picture": w + Δ in every shown format, whether w moved, and the
// smallest Δ that moves it, as a table and as bars against Δ on a log axis.
class MasterWeightsPanel : public QWidget {
    Q_OBJECT

  public:
    enum Column { Format, Weight, Delta, Sum, Outcome, Threshold, Ulp, ColumnCount };

    explicit MasterWeightsPanel(FormatSelection* selection, QWidget* parent = nullptr);

    void setInputs(const QString& weight, const QString& delta);
    QString weightText() const;
    QString deltaText() const;
    QTableWidget* table() const { return table_; }
    QCustomPlot* plot() const { return plot_; }
    const std::vector<MasterWeightRow>& rows() const { return rows_; }
    QString inputError() const;

  public slots:
    void recompute();

  private:
    void fillTable();
    void fillPlot(const ExactValue& delta);

    FormatSelection* selection_;
    QLineEdit* weightEdit_;
    QLineEdit* deltaEdit_;
    QLabel* error_;
    QLabel* summary_;
    QTableWidget* table_;
    QCustomPlot* plot_;
    std::vector<MasterWeightRow> rows_;
};

} // namespace fpx::gui
