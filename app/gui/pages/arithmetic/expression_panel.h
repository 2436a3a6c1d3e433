// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSplitter;
class QTableView;

namespace fpx::gui {

class CodeCellsDelegate;
class FormatSelection;
class ExpressionModel;

// The Expression lab: an expression computed in every shown format, one row each, and the
// selected row's steps written out in a monospace panel.
class ExpressionPanel : public QWidget {
    Q_OBJECT

  public:
    explicit ExpressionPanel(FormatSelection* selection, QWidget* parent = nullptr);

    void setExpressionText(const QString& text);
    QString expressionText() const;
    // "Column 5: expected …", or empty while the expression parses.
    QString inputError() const { return inputError_; }
    QLineEdit* expressionEdit() const { return edit_; }
    ExpressionModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QPlainTextEdit* stepsView() const { return steps_; }
    int selectedRow() const;
    void selectRow(int row);

  public slots:
    void recompute();

  private:
    void refreshSteps();
    void refreshLayout();
    void fitTableHeight();

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    FormatSelection* selection_;
    QLineEdit* edit_;
    QLabel* error_;
    QLabel* exact_;
    ExpressionModel* model_;
    CodeCellsDelegate* bits_;
    QSplitter* splitter_;
    QTableView* table_;
    QPlainTextEdit* steps_;
    QString inputError_;
};

} // namespace fpx::gui
