// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QWidget>

#include <functional>
#include <string>

class QCustomPlot;
class QFormLayout;
class QLabel;
class QPushButton;
class QToolButton;
class QVBoxLayout;

namespace fpx::gui {

// What every view of the Training page has: its form on the left with Run and Export under
// it, a status line and an error line; the plot (and whatever a view adds) on the right.
class ViewFrame : public QWidget {
    Q_OBJECT

  public:
    // `name` prefixes the widgets' object names ("range" → "rangeRun", "rangePlot") and the
    // exported file's default name.
    ViewFrame(const QString& name, QWidget* parent = nullptr);

    QFormLayout* form() const { return form_; }
    QVBoxLayout* results() const { return results_; }
    QCustomPlot* plot() const { return plot_; }
    QPushButton* runButton() const { return run_; }
    QString statusText() const;
    QString errorText() const { return errorMessage_; }
    void setStatus(const QString& text);
    void showError(const QString& message); // empty: hides the error line

    // Writes the plot as PNG, PDF or SVG, or the view's data (`csv`) as CSV, by the suffix.
    bool exportTo(const QString& path, const std::string& csv, QString* error = nullptr);

  signals:
    void runRequested();
    void exportRequested(const QString& path); // a file was chosen in the Export menu

  private:
    QFormLayout* form_;
    QVBoxLayout* results_;
    QCustomPlot* plot_;
    QPushButton* run_;
    QToolButton* export_;
    QLabel* status_;
    QLabel* error_;
    QString errorMessage_;
};

} // namespace fpx::gui
