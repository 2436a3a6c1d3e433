// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVariantList>
#include <QWidget>

#include <functional>
#include <string>
#include <vector>

class QCustomPlot;
class QShowEvent;
class QFormLayout;
class QLabel;
class QPushButton;
class QToolButton;
class QVBoxLayout;

namespace fpx::gui {

class FoldingForm;
class StatusLine;

// What every view of the Training page has: Run, Export and a one-line status, its form under
// them, folding away where the window is too short for it and the plot (common/folding_form.h),
// an error line, and the plot (and whatever a view adds) under them, at the page's width.
class ViewFrame : public QWidget {
    Q_OBJECT

  public:
    // `name` prefixes the widgets' object names ("range" → "rangeRun", "rangePlot") and the
    // exported file's default name.
    ViewFrame(const QString& name, QWidget* parent = nullptr);

    QFormLayout* form() const { return form_; }
    FoldingForm* fold() const { return fold_; }
    QVBoxLayout* results() const { return results_; }
    QCustomPlot* plot() const { return plot_; }
    QPushButton* runButton() const { return run_; }
    QString statusText() const;
    QString errorText() const { return errorMessage_; }
    void setStatus(const QString& text);
    void showError(const QString& message); // empty: hides the error line

    // Writes the plot as PNG, PDF or SVG, or the view's data (csvText) as CSV, by the suffix;
    // a CSV is written to a temporary file and renamed, so a failed write leaves nothing.
    bool exportTo(const QString& path, QString* error = nullptr);

    // Every input of the form in its order, each as a value of its own kind (a text, a number,
    // a tick): what the page's state keeps of a form that no option names one by one, so that
    // a lesson's reset puts back what the user typed there.
    QVariantList formValues() const;
    // Puts back what formValues() read; false, and nothing changed, for a list of another form.
    bool setFormValues(const QVariantList& values);

    // Runs again where the form changed since the view last ran (a lesson step or the command
    // line set it): what the view shows is then always its form's result. A view that never
    // ran waits for its first showing.
    void runIfChanged();

  public slots:
    // Reads the form and starts the view's work in the background (start()). The first
    // showing runs too, so that every view opens with a result.
    void run();

  signals:
    void finished(); // a result was shown or refused

  protected:
    void showEvent(QShowEvent* event) override;
    bool hasRun() const { return ranOnce_; }
    // For work a view starts without run() (the range view's refit): the form as it ran.
    void formRan() { ranForm_ = formText(); }
    virtual void start() = 0;
    virtual std::string csvText() const = 0;
    // Writes the image (PNG, PDF, SVG) of what the view shows: the plot, unless a view shows
    // more than one.
    virtual bool exportImage(const QString& path, QString* error);
    // A form the view refused, or a run that failed: the message in the error line and
    // `finished`. A failed run also says `statusText` and, when the plot holds no earlier
    // result to keep, draws the message on it under `title`.
    void refuse(const QString& message);
    void fail(const std::string& message, const QString& statusText, bool plotHasResult,
              const QString& title);

  private:
    // Every field of the form, as text: what runIfChanged compares.
    QString formText() const;
    // The form's inputs, row by row (a tick box may stand where a row's name is).
    std::vector<QWidget*> formInputs() const;

    FoldingForm* fold_;
    QFormLayout* form_;
    QVBoxLayout* results_;
    QCustomPlot* plot_;
    QPushButton* run_;
    QToolButton* export_;
    StatusLine* status_;
    QLabel* error_;
    QString errorMessage_;
    bool ranOnce_ = false;
    QString ranForm_;
};

} // namespace fpx::gui
