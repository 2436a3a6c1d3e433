// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/background_runner.h"
#include "pages/training/training_runs.h"
#include "pages/training/view_frame.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QTableWidget;

namespace fpx::gui {

class TensorSourceForm;

// The range view: |values| of a tensor (drawn or read) on a log2 axis over each format's
// zones, with a loss-scale slider (2^k) that shifts the histogram at once and refits the zone
// fractions in the background (the newest position wins).
class RangeView : public ViewFrame {
    Q_OBJECT

  public:
    explicit RangeView(QWidget* parent = nullptr);

    // Each returns an error message, or an empty string.
    QString setDistribution(const QString& spec, qulonglong count, qulonglong seed = 1);
    QString setInputFile(const QString& argument);
    QString setFormats(const QString& commaSeparated);
    QString formatsText() const;
    QString setScaleExponent(int k); // −kScaleReach … kScaleReach
    int scaleExponent() const;
    // The tensor source the form names; nullopt when it names no file.
    std::optional<TensorSource> source() const;

    bool isBusy() const { return runs_.busy(); }
    const RangeResult& result() const { return result_; }
    std::size_t droppedRuns() const { return runs_.dropped(); }
    std::size_t appliedRuns() const { return runs_.applied(); }
    QTableWidget* table() const { return table_; }
    QSlider* slider() const { return slider_; }

  protected:
    void start() override;
    std::string csvText() const override;

  private:
    std::optional<RangeRequest> request(QString& error) const;
    void refit(); // the slider moved: same input, new scale
    void apply(RangeResult result);
    void fillTable();
    void redraw();

    TensorSourceForm* source_;
    QLineEdit* formats_;
    QComboBox* overflow_;
    QSlider* slider_;
    QLabel* scaleLabel_;
    QTableWidget* table_;
    RangeResult result_;
    std::shared_ptr<const TensorInput> input_; // of the source as last run
    BackgroundRunner<RangeResult> runs_;
};

} // namespace fpx::gui
