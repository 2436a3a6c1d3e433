// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"

#include <QTimer>
#include <QWidget>

#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QMouseEvent;
class QScrollArea;

namespace fpx::gui {

class BenchResultsModel;

// The live chart of a benchmark run: one horizontal bar per result (coloured by format, copies
// grey), error bars from the fastest and slowest samples, each bar's ceiling as a red tick
// (the copy bandwidth at its size and thread count, the datasheet peak, or the reference a sum
// or quantizer is timed alongside), the datasheet bandwidth of each device as a dashed line,
// and a saved run as lighter bars beside the matching results. It redraws as results stream
// in; it scrolls when they do not fit.
class BenchmarksChart : public QWidget {
    Q_OBJECT

  public:
    enum class Metric {
        Bandwidth,         // copies and conversions, GB/s
        Arithmetic,        // TFLOP/s
        SumsAndQuantizers, // the CPU's sums and quantizers, GB/s, against their references
    };

    explicit BenchmarksChart(BenchResultsModel* model, QWidget* parent = nullptr);
    ~BenchmarksChart() override;

    void setMetric(Metric metric);
    void setLogarithmic(bool on);
    // Devices whose datasheet bandwidth is drawn (those of the results).
    void setDevices(std::vector<bench::DeviceInfo> devices);

    QCustomPlot* plot() const { return plot_; }
    // Bars of this run and of the saved run in the chart now, for tests.
    int barCount() const { return barCount_; }
    int savedBarCount() const { return savedBarCount_; }
    int ceilingCount() const { return ceilingCount_; }
    // Rebuilds the chart (it otherwise does so shortly after the model changes); the plot
    // repaints at the next turn of the event loop.
    void rebuild();
    // Rebuilds and repaints at once (screenshots).
    void refresh();
    bool saveImage(const QString& path);

  signals:
    // A click on the bar of a result (a row of the model).
    void resultClicked(int row);

  private:
    struct ChartData; // what rebuild() draws, gathered from the model first
    void scheduleRebuild();
    // The steps of rebuild().
    std::vector<std::string> collectRows();
    ChartData gather(bool withDevice, double scale) const;
    void drawBars(ChartData& data);
    void drawCeilings(const ChartData& data);
    void drawDatasheetBandwidths(const std::vector<std::string>& devices, double scale,
                                 ChartData& data);
    void drawEmptyMessage();
    void setAxes(const ChartData& data);
    void placeLegend(bool show);
    void onMouseMove(QMouseEvent* event);
    void onMousePress(QMouseEvent* event);
    int rowAt(const QPointF& position) const;

    BenchResultsModel* model_;
    Metric metric_ = Metric::Bandwidth;
    bool logarithmic_ = false;
    std::vector<bench::DeviceInfo> devices_;
    std::vector<int> rows_; // model row of each bar position
    QTimer rebuildTimer_;
    QComboBox* metricBox_;
    QCheckBox* logBox_;
    QScrollArea* scroll_;
    QCustomPlot* plot_;
    int barCount_ = 0;
    int savedBarCount_ = 0;
    int ceilingCount_ = 0;
};

} // namespace fpx::gui
