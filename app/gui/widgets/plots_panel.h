// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plot_request.h"

#include <QFutureWatcher>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;

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
    bool isComputing() const { return watcher_.isRunning(); }
    bool exportTo(const QString& path, QString* error = nullptr);
    // Hover read-out text at plot coordinate x (exact stored values of each format).
    QString readoutAt(double x) const;

  signals:
    void plotReady();

  public slots:
    void recompute();

  protected:
    // Plots are computed only while visible: hidden, a change just marks them stale.
    void showEvent(QShowEvent* event) override;

  private:
    void applyResult();
    void updateMarker();
    void onMouseMove(QMouseEvent* event);
    void onSelectionChanged();

    ExplorerController* controller_;
    plots::PlotRequest request_;
    plots::PlotData data_;
    QFutureWatcher<plots::PlotData> watcher_;
    bool pending_ = false;
    bool stale_ = true;
    QCustomPlot* plot_;
    QComboBox* kindBox_;
    QLineEdit* fromEdit_;
    QLineEdit* toEdit_;
    QCheckBox* logBox_;
    QCheckBox* symlogBox_;
    QToolButton* rubberBand_;
    QPushButton* reset_;
    QToolButton* export_;
    QLabel* status_;
};

} // namespace fpx::gui
