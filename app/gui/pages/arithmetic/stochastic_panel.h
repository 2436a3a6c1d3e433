// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/arithmetic/stochastic_lab.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace fpx::gui {

class FormatSelection;

// The stochastic rounding lab: one value's two neighbours in a format with their exact
// probabilities, a histogram of seeded draws beside the expected counts, and the sum of many
// small terms with round-to-nearest and with stochastic rounding side by side. Each part is
// laid out one under another, so that the lab fits a narrow page.
class StochasticPanel : public QWidget {
    Q_OBJECT

  public:
    explicit StochasticPanel(FormatSelection* selection, QWidget* parent = nullptr);

    void setValue(const QString& text);
    QString valueText() const;
    void setFormat(const QString& id); // a shown format's id
    QString formatId() const;
    void setDraws(int draws);
    int draws() const;
    void setSeed(int seed);
    int seed() const;
    // How many random bits decide, and by which of P3109's rules (count 0: all 64).
    void setRandomBits(const RandomBitRule& rule);
    RandomBitRule randomBits() const;
    const std::optional<StochasticDrawSummary>& summary() const { return summary_; }
    QLabel* neighboursLabel() const { return neighbours_; }
    QLabel* drawsLabel() const { return draws_; }
    QCustomPlot* histogram() const { return histogram_; }
    void setSmallTerms(const QString& term, int count);
    QString smallTerm() const;
    int smallTermCount() const;
    const std::optional<SmallTermSums>& smallTermSums() const { return sums_; }
    QLabel* sumsLabel() const { return sumsText_; }
    QString inputError() const;

  public slots:
    void recompute();

  private:
    void refillFormats();
    void showSummary();
    void recomputeSums();
    void showSums();
    const FormatSpec* currentFormat(std::vector<FormatSpec>& storage) const;

    FormatSelection* selection_;
    QLineEdit* valueEdit_;
    QComboBox* formatBox_;
    QSpinBox* drawsBox_;
    QSpinBox* seedBox_;
    QSpinBox* bitsBox_;
    QComboBox* variantBox_;
    QLabel* error_;
    QLabel* neighbours_;
    QCustomPlot* histogram_;
    QLabel* draws_; // the draws counted and the seed audited, under the histogram
    std::optional<StochasticDrawSummary> summary_;
    QLineEdit* termEdit_ = nullptr;
    QSpinBox* countBox_ = nullptr;
    QLabel* sumsText_ = nullptr;
    QCustomPlot* sumsPlot_ = nullptr;
    std::optional<SmallTermSums> sums_;
};

} // namespace fpx::gui
