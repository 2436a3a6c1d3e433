// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/tensor_view.h"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace fpx {

// What a histogram's bins are laid over.
//   Linear         the values themselves
//   Log2Magnitude  log2|x| of the non-zero values (zeros are counted apart), so that a tensor
//                  whose values span many binades shows each binade, as a format's grid does
enum class HistogramAxis { Linear, Log2Magnitude };

struct HistogramOptions {
    std::size_t bins = 64; // at least 1
    HistogramAxis axis = HistogramAxis::Linear;
    // The range of the bin axis (log2|x| for Log2Magnitude). Either end not given is taken from
    // the finite data; a range of zero width is widened by ±0.5 so it has bins at all.
    std::optional<double> low, high;
};

// Equal-width bins over [low, high]; bin i holds [binLow(i), binLow(i + 1)), the last bin also
// holds `high` itself. Values are placed consistently with binLow, never by a rounding slip
// into the neighbouring bin: binOf(x) is the i with binLow(i) <= x < binLow(i + 1).
struct Histogram {
    HistogramAxis axis = HistogramAxis::Linear;
    double low = 0, high = 1;
    std::vector<std::size_t> counts;
    std::size_t below = 0, above = 0; // finite values outside [low, high]
    std::size_t zeros = 0;            // Log2Magnitude only: exact zeros (log2|0| = −∞)
    std::size_t nans = 0, infs = 0;

    std::size_t binCount() const { return counts.size(); }
    double binLow(std::size_t i) const; // binLow(binCount()) == high
    double binCentre(std::size_t i) const { return (binLow(i) + binLow(i + 1)) / 2; }
    // The position of x on the bin axis (x, or log2|x|); nullopt for NaN, ±∞ and, on the log
    // axis, zero.
    std::optional<double> axisPosition(double x) const;
    // The bin of x; nullopt when x is not placed in a bin (outside the range, NaN, ±∞, zero on
    // the log axis).
    std::optional<std::size_t> binOf(double x) const;
    std::size_t binned() const; // the sum of counts

    // Counts one more value (into a bin, below, above, zeros, nans or infs), for values that
    // arrive a chunk at a time: make the histogram of the first chunk with the range fixed in
    // the options, then add the rest, or merge histograms made with the same options.
    void add(double x);
    // Adds another histogram's counts; false (and nothing added) unless its axis, range and
    // bins are the same.
    bool merge(const Histogram& other);
};

Histogram makeHistogram(std::span<const double> values, const HistogramOptions& options = {});
Histogram makeHistogram(std::span<const float> values, const HistogramOptions& options = {});
Histogram makeHistogram(const TensorView& view, const HistogramOptions& options = {});

} // namespace fpx
