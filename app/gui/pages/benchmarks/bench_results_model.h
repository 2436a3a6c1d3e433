// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QSet>
#include <QString>

#include <optional>
#include <vector>

namespace fpx::gui {

struct SavedRun;

// The results of a benchmark run, one row each, in the order they were measured, with the
// ratio to a saved run loaded for comparison. The CPU's sums and quantizers are rows too, with
// their workload and their ratio against the reference as fpx bench prints them
// (fpx/bench/ratio_results.h). Qt::UserRole holds sortable values (numbers for numeric
// columns).
class BenchResultsModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Column {
        Backend,
        Device,
        Operation,
        Format,
        Direction,
        Path,
        Workload,
        Elements,
        Threads,
        ElementsPerSecond,
        Throughput,
        PercentOfCeiling,
        Ratio,
        VsSaved,
        Spread,
        Verified,
        Note,
        ColumnCount
    };

    explicit BenchResultsModel(QObject* parent = nullptr);
    ~BenchResultsModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void append(const bench::BenchResult& result);
    void clear();
    const bench::BenchResult& result(int row) const { return results_[std::size_t(row)]; }
    const std::vector<bench::BenchResult>& results() const { return results_; }

    // The reference of a row (same unit as its throughput) and its name: the result's own
    // ceiling, or else the copy bandwidth measured at the same size and thread count.
    double ceiling(int row) const;
    QString ceilingName(int row) const;

    // Compares with a saved run (null: no comparison). Results match when backend, device,
    // operation, format, direction, path, elements, threads and workload agree (resultKey);
    // when no result of the saved run matches, the device is left out (comparing two
    // machines).
    void setComparison(const SavedRun* run);
    bool hasComparison() const { return comparing_; }
    // True when some row matched a saved result of another device.
    bool comparisonIgnoresDevice() const;
    QString comparisonPath() const { return comparisonPath_; }
    QString comparisonDescription() const { return comparisonDescription_; }
    int savedCount() const { return static_cast<int>(saved_.size()); }
    // The saved result matching a row, if any, and the ratio current / saved throughput.
    const bench::BenchResult* savedFor(int row) const;
    std::optional<double> ratioToSaved(int row) const;
    int matchedCount() const;

    // Short label of a row for charts: "fp8_e4m3 encode · bit trick · 32 Ki · 1 thread"; with
    // readable labels (a class run), as a class reads it: "FP32 → FP8 E4M3, AVX-512".
    QString label(int row, bool withDevice = false) const;
    void setReadableLabels(bool on) { readableLabels_ = on; }
    bool readableLabels() const { return readableLabels_; }
    // Several lines describing a row (tooltips).
    QString description(int row) const;

    // bench::sizeLabel as a QString: "16 Ki", "64 Mi", "1000".
    static QString elementsText(std::size_t elements);
    // Throughput in GB/s, or TFLOP/s for arithmetic, with its unit.
    static QString throughputText(const bench::BenchResult& result, double value);
    // A sum's or quantizer's ratio as fpx bench prints it, "0.52×"; empty for other rows.
    static QString ratioText(const bench::BenchResult& result);
    // Its goal, "≥ 0.5×" or "≤ 3×"; empty without one.
    static QString goalText(const bench::BenchResult& result);
    // Whether the ratio meets the goal; nullopt without a ratio and a goal.
    static std::optional<bool> goalMet(const bench::BenchResult& result);

  private:
    QString text(int row, int column) const;
    QVariant sortValue(int row, int column) const;
    QString toolTip(int row, int column) const;
    // Index into saved_ of the result matching `r`, or -1; `loose`: matched without device.
    int savedIndexOf(const bench::BenchResult& r, bool* loose = nullptr) const;

    std::vector<bench::BenchResult> results_;
    std::vector<bench::BenchResult> saved_;
    QHash<QString, int> savedExact_; // resultKey → index in saved_
    QHash<QString, int> savedLoose_; // resultKey without the device → index in saved_
    QSet<QString> savedDevices_;
    bool comparing_ = false;
    bool readableLabels_ = false;
    QString comparisonPath_;
    QString comparisonDescription_;
};

} // namespace fpx::gui
