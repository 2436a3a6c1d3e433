// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace fpx {

// Pairwise sums of non-negative terms, taken in pieces so that no tensor is held twice: the
// relative error of the total is at most about log2(n) units in the last place of a double,
// however many terms there are (docs/behaviour.md, "Block formats and quantization").
class PairwiseSum {
  public:
    void add(double term) {
        piece_.push_back(term);
        if (piece_.size() == kPiece)
            flush();
    }
    double total() {
        flush();
        return sum(pieces_.data(), pieces_.size());
    }

  private:
    static constexpr std::size_t kPiece = 4096;
    static double sum(const double* terms, std::size_t count) {
        if (count <= 64) {
            double s = 0;
            for (std::size_t i = 0; i < count; ++i)
                s += terms[i];
            return s;
        }
        const std::size_t half = count / 2;
        return sum(terms, half) + sum(terms + half, count - half);
    }
    void flush() {
        if (piece_.empty())
            return;
        pieces_.push_back(sum(piece_.data(), piece_.size()));
        piece_.clear();
    }
    std::vector<double> piece_, pieces_;
};

// Σx² and Σ(x − q)² of a signal x and its reconstruction q, the sums behind SQNR and MSE, for
// the quantization report and the FP8 recipes alike. Every term is scaled by the same power of
// two 2^−k, k the binade of the finite amax, so that no square overflows for inputs near the
// double max; the ratio is unchanged and the MSE is scaled back.
class SignalNoiseSums {
  public:
    explicit SignalNoiseSums(double finiteAmax)
        : binade_(finiteAmax > 0 ? std::ilogb(finiteAmax) : 0) {}

    // x and q finite.
    void add(double x, double q) {
        const double xs = std::ldexp(x, -binade_);
        const double es = xs - std::ldexp(q, -binade_);
        signal_.add(xs * xs);
        noise_.add(es * es);
        ++count_;
    }
    std::size_t count() const { return count_; }

    struct Totals {
        double sqnrDb = 0; // 10·log10(Σx² / Σ(x − q)²); +∞ when q = x everywhere
        double mse = 0;
        double signal = 0; // Σx² · 2^−2k: zero exactly when every x is 0
    };
    // Once, after the last add; NaN SQNR and MSE when nothing was added.
    Totals totals() {
        Totals t;
        if (count_ == 0) {
            t.sqnrDb = t.mse = std::numeric_limits<double>::quiet_NaN();
            return t;
        }
        t.signal = signal_.total();
        const double noise = noise_.total();
        t.sqnrDb = noise == 0 ? std::numeric_limits<double>::infinity()
                              : 10 * std::log10(t.signal / noise);
        t.mse = std::ldexp(noise / double(count_), 2 * binade_);
        return t;
    }

  private:
    int binade_;
    PairwiseSum signal_, noise_;
    std::size_t count_ = 0;
};

} // namespace fpx
