// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>

namespace fpx {

// The sums behind a quantization report (SQNR, MSE, the largest error), taken in an order
// fixed by the element index alone: every path that measures a quantization (the reference
// from the exact core, the fast pass on any number of threads and any instruction set) adds
// the same terms in the same order, so they give the same bits. docs/design.md, "Quantization
// statistics", states the order and bounds its error.
//
// Terms: for each element i whose input x and reconstruction q are both finite, x² and
// (x − q)²; +0 for every other element (adding +0 leaves a sum of non-negative terms as it
// is, so the order of the others does not move).
struct ErrorSums {
    double signal = 0;                // Σx²
    double noise = 0;                 // Σ(x − q)²
    std::size_t valid = 0;            // elements whose x and q are both finite
    std::size_t nonFiniteOutputs = 0; // finite x whose q is NaN or ±∞
    double maxAbsError = 0;           // the largest |x − q| over the valid elements
    std::size_t maxErrorIndex = 0;    // its first index (0 when every error is 0)

    // Appends `later`, whose elements all come after this one's (the sums in that order).
    void append(const ErrorSums& later) {
        signal += later.signal;
        noise += later.noise;
        valid += later.valid;
        nonFiniteOutputs += later.nonFiniteOutputs;
        if (later.maxAbsError > maxAbsError) {
            maxAbsError = later.maxAbsError;
            maxErrorIndex = later.maxErrorIndex;
        }
    }
};

// The order, in three levels:
//   lanes   a piece's element j goes to lane j mod 32; each lane adds its terms first to last,
//           and the lanes meet as m_j = (l_j + l_j+16) + (l_j+8 + l_j+24) for j < 8, then
//           ((m0 + m4) + (m2 + m6)) + ((m1 + m5) + (m3 + m7)). That is four 512-bit registers
//           of doubles, eight of 256 bits, or 32 scalars: four chains of additions that a core
//           runs side by side, where one would wait on each addition in turn;
//   pieces  a piece holds whole quantization blocks, about 4096 elements (statisticsPiece);
//           a chunk is kPiecesPerChunk consecutive pieces, added first to last;
//   chunks  the chunks' sums meet pairwise (halves, down to runs of at most 64 added in
//           order): chunkSumsInOrder.
constexpr std::size_t kErrorLanes = 32;
constexpr std::size_t kPiecesPerChunk = 16;

// Elements per piece for quantizers that work in units of `unit` elements (the block size; 1
// for element-wise casts and one scale per tensor): whole units, about 4096 elements.
std::size_t statisticsPiece(std::size_t unit);
inline std::size_t statisticsChunk(std::size_t unit) {
    return statisticsPiece(unit) * kPiecesPerChunk;
}

// The chunks' sums [first, first + count) combined in the pairwise order above.
ErrorSums chunkSumsInOrder(const ErrorSums* chunks, std::size_t count);

// One element's terms added to a lane's running sums (x and q both scaled by the same power
// of two where the caller scales: docs/design.md, "Quantization statistics"). Written without
// branches, so that the loops' vector copies of it do exactly this arithmetic.
inline void addErrorTerms(double x, double q, std::size_t index, double& signal, double& noise,
                          std::size_t& valid, std::size_t& nonFiniteOutputs, double& maxAbsError,
                          std::size_t& maxErrorIndex) {
    const bool finiteX = x - x == 0; // false for NaN and ±∞
    const bool finiteQ = q - q == 0;
    const bool ok = finiteX && finiteQ;
    const double d = ok ? x - q : 0.0;
    const double xx = ok ? x * x : 0.0;
    const double dd = d * d;
    signal += xx;
    noise += dd;
    valid += ok ? 1 : 0;
    nonFiniteOutputs += finiteX && !finiteQ ? 1 : 0;
    const double magnitude = d < 0 ? -d : d;
    const bool larger = magnitude > maxAbsError;
    maxAbsError = larger ? magnitude : maxAbsError;
    maxErrorIndex = larger ? index : maxErrorIndex;
}

// A lane's running sums, one element at a time (the reference's form of the loops).
struct ErrorLane {
    double signal = 0;
    double noise = 0;
    std::size_t valid = 0;
    std::size_t nonFiniteOutputs = 0;
    double maxAbsError = 0;
    std::size_t maxErrorIndex = 0;

    void add(double x, double q, std::size_t index) {
        addErrorTerms(x, q, index, signal, noise, valid, nonFiniteOutputs, maxAbsError,
                      maxErrorIndex);
    }
};

// The 32 lanes of one piece met in the order above.
ErrorSums meetLanes(const ErrorLane (&lanes)[kErrorLanes]);

} // namespace fpx
