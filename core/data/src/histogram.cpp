// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/data/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fpx {

// The bin edges are computed from half the width, (high/2 − low/2), and added to `low` in two
// halves, so that nothing overflows for a range that spans both ends of the doubles
// (−1e308 … 1e308), where high − low itself would be infinite. Each step rounds monotonically,
// so the edges increase with i. Every placement decision compares against binLow(), so edges
// and placement always agree.
double Histogram::binLow(std::size_t i) const {
    if (i >= counts.size())
        return high;
    if (i == 0)
        return low;
    const double halfWidth = high / 2 - low / 2;
    const double half = halfWidth * static_cast<double>(i) / static_cast<double>(counts.size());
    return std::min(low + half + half, high);
}

std::optional<double> Histogram::axisPosition(double x) const {
    if (!std::isfinite(x))
        return std::nullopt;
    if (axis == HistogramAxis::Linear)
        return x;
    if (x == 0)
        return std::nullopt;
    return std::log2(std::fabs(x));
}

std::optional<std::size_t> Histogram::binOf(double x) const {
    const std::optional<double> position = axisPosition(x);
    if (!position || counts.empty() || *position < low || *position > high)
        return std::nullopt;
    const double p = *position;
    const std::size_t n = counts.size();
    if (p == high)
        return n - 1;
    const double halfWidth = high / 2 - low / 2;
    const double guess = std::floor((p / 2 - low / 2) / halfWidth * static_cast<double>(n));
    // (NaN when the half width underflows to zero: the edges then all sit at `low`.)
    std::size_t i = !(guess > 0)                          ? 0
                    : guess >= static_cast<double>(n - 1) ? n - 1
                                                          : static_cast<std::size_t>(guess);
    // The guess can be off where p lies within a rounding error of an edge.
    while (i > 0 && p < binLow(i))
        --i;
    while (i + 1 < n && p >= binLow(i + 1))
        ++i;
    return i;
}

std::size_t Histogram::binned() const {
    std::size_t sum = 0;
    for (std::size_t c : counts)
        sum += c;
    return sum;
}

void Histogram::add(double x) {
    if (std::isnan(x)) {
        ++nans;
        return;
    }
    if (std::isinf(x)) {
        ++infs;
        return;
    }
    if (axis == HistogramAxis::Log2Magnitude && x == 0) {
        ++zeros;
        return;
    }
    const double p = *axisPosition(x);
    if (p < low)
        ++below;
    else if (p > high)
        ++above;
    else
        ++counts[*binOf(x)];
}

bool Histogram::merge(const Histogram& other) {
    if (other.axis != axis || other.low != low || other.high != high ||
        other.counts.size() != counts.size())
        return false;
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts[i] += other.counts[i];
    below += other.below;
    above += other.above;
    zeros += other.zeros;
    nans += other.nans;
    infs += other.infs;
    return true;
}

namespace {

template <typename T> Histogram build(std::span<const T> values, const HistogramOptions& options) {
    Histogram h;
    h.axis = options.axis;
    h.counts.assign(std::max<std::size_t>(options.bins, 1), 0);

    // The range: given, or the extent of the finite positions.
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    if (!options.low || !options.high) {
        for (const T v : values) {
            const std::optional<double> p = h.axisPosition(static_cast<double>(v));
            if (p) {
                lo = std::min(lo, *p);
                hi = std::max(hi, *p);
            }
        }
    }
    if (lo > hi) // no finite position at all
        lo = hi = 0;
    h.low = options.low.value_or(lo);
    h.high = options.high.value_or(hi);
    if (!(h.high > h.low)) {
        const double centre = options.low ? h.low : h.high;
        h.low = centre - 0.5;
        h.high = centre + 0.5;
        if (!(h.high > h.low)) { // centre so large that ±0.5 vanishes
            h.low = std::nextafter(centre, -std::numeric_limits<double>::infinity());
            h.high = std::nextafter(centre, std::numeric_limits<double>::infinity());
        }
    }

    for (const T v : values)
        h.add(static_cast<double>(v));
    return h;
}

} // namespace

Histogram makeHistogram(std::span<const double> values, const HistogramOptions& options) {
    return build(values, options);
}

Histogram makeHistogram(std::span<const float> values, const HistogramOptions& options) {
    return build(values, options);
}

Histogram makeHistogram(const TensorView& view, const HistogramOptions& options) {
    return view.isDouble() ? build(view.doubles, options) : build(view.floats, options);
}

} // namespace fpx
