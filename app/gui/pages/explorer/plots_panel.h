// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/background_runner.h"
#include "plot_request.h"

#include <QWidget>

#include <array>
#include <map>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace fpx::gui {
class StatusLine;
}

namespace fpx::gui {

class ExplorerController;

// The plots of the explorer's formats: rounding error, ULP spacing, range, representable
// values and memory. Data is computed off the GUI thread by the exact core; the plot supports
// drag and wheel zoom per axis, rubber-band zoom, legend clicks that hide a series, a hover
// read-out and a marker at the current value; Export writes PNG, PDF, SVG or CSV.
class PlotsPanel : public QWidget {
    Q_OBJECT

  public:
    explicit PlotsPanel(ExplorerController* controller, QWidget* parent = nullptr);
    ~PlotsPanel() override;

    void setKind(plots::PlotKind kind);
    plots::PlotKind kind() const { return request_.kind; }
    QCustomPlot* plot() const { return plot_; }
    const plots::PlotData& data() const { return data_; }
    // A plot in flight, until it is drawn.
    bool isComputing() const { return runner_.busy(); }
    bool exportTo(const QString& path, QString* error = nullptr);
    // Hover read-out text at plot coordinate x (exact stored values of each format; the
    // memory plot: the exact bytes of the bar there).
    QString readoutAt(double x) const;

    // The memory plot's parameter count ("70B", "350M", "7e9"): false, with `error`, when it
    // does not read as one.
    bool setParameters(const QString& text, QString* error = nullptr);
    std::uint64_t parameters() const { return request_.parameters; }
    // Inference (no recipes), one training recipe, or all of them side by side.
    void setMemoryRecipes(const std::vector<TrainingRecipe>& recipes);
    std::vector<TrainingRecipe> memoryRecipes() const;
    // QLoRA's adapter parameters ("0.5%", "40M"): false, with `error`, when it does not read.
    bool setAdapterParams(const QString& text, QString* error = nullptr);
    QString adapterParams() const;
    void setMemoryGib(bool gib);
    bool memoryGib() const;
    // The x range of the current plot kind ("" "" for the kind's own first view).
    void setXRange(const QString& from, const QString& to);
    std::pair<QString, QString> xRange() const;
    // What a new window shows: the first plot kind, every kind's own first view, linear x,
    // the default parameter count, inference in GB, QLoRA's default adapters. A lesson step starts
    // from here, so that Previous takes back what a later step switched on.
    void resetToDefaults();

  signals:
    void plotReady();

  public slots:
    void recompute();

  protected:
    // Plots are computed only while visible: hidden, a change just marks them stale.
    void showEvent(QShowEvent* event) override;
    // Keeps the status line along the plot's top edge.
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void applyResult(plots::PlotData data);
    void updateMarker();
    void onMouseMove(QMouseEvent* event);
    void onSelectionChanged();
    void updateSwitches();
    // What only the memory plot has, in the order of the controls' row.
    std::array<QWidget*, 4> memoryControls() const;
    // Over the plot's top edge, hidden when empty.
    void showStatus(const QString& text);
    void placeStatus();
    void onParametersEdited();
    void onAdaptersEdited();

    ExplorerController* controller_;
    plots::PlotRequest request_;
    plots::PlotData data_;
    bool stale_ = true;
    QCustomPlot* plot_;
    QComboBox* kindBox_;
    QLineEdit* fromEdit_;
    QLineEdit* toEdit_;
    QCheckBox* logBox_;
    QComboBox* parametersBox_;
    QComboBox* recipeBox_;
    QComboBox* adaptersBox_;
    QCheckBox* gibBox_;
    QWidget* parametersControls_; // "parameters" and its box
    QWidget* adaptersControls_;   // "adapters" and its box, for the QLoRA recipes
    QWidget* rangeControls_;      // the x range and log switch, hidden on the memory plot
    // Each kind's x range as typed, so that switching kinds keeps what was set for each.
    std::map<plots::PlotKind, std::pair<QString, QString>> ranges_;
    QToolButton* rubberBand_;
    QPushButton* reset_;
    QToolButton* export_;
    StatusLine* status_;
    // Declared last, destroyed first: it waits for its job before the widgets go.
    BackgroundRunner<plots::PlotData> runner_;
};

} // namespace fpx::gui
