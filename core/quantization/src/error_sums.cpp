// SPDX-License-Identifier: GPL-3.0-or-later
// The fixed order of a quantization report's sums (docs/design.md, "Quantization statistics").
#include "fpx/quantization/error_sums.h"

#include <algorithm>

namespace fpx {

namespace {

constexpr std::size_t kPieceTarget = 4096;
constexpr std::size_t kInOrderRun = 64;

// Two partial results whose elements interleave (lanes of one piece): the larger error wins,
// and of equal errors the one met first in index order.
ErrorSums meet(const ErrorSums& a, const ErrorSums& b) {
    ErrorSums r;
    r.signal = a.signal + b.signal;
    r.noise = a.noise + b.noise;
    r.valid = a.valid + b.valid;
    r.nonFiniteOutputs = a.nonFiniteOutputs + b.nonFiniteOutputs;
    const bool second =
        b.maxAbsError > a.maxAbsError ||
        (b.maxAbsError == a.maxAbsError && b.maxAbsError > 0 && b.maxErrorIndex < a.maxErrorIndex);
    r.maxAbsError = second ? b.maxAbsError : a.maxAbsError;
    r.maxErrorIndex = second ? b.maxErrorIndex : a.maxErrorIndex;
    return r;
}

ErrorSums ofLane(const ErrorLane& lane) {
    return ErrorSums{lane.signal,           lane.noise,       lane.valid,
                     lane.nonFiniteOutputs, lane.maxAbsError, lane.maxErrorIndex};
}

} // namespace

std::size_t statisticsPiece(std::size_t unit) {
    unit = std::max<std::size_t>(unit, 1);
    return unit >= kPieceTarget ? unit : kPieceTarget / unit * unit;
}

ErrorSums meetLanes(const ErrorLane (&lanes)[kErrorLanes]) {
    static_assert(kErrorLanes == 32);
    ErrorSums eight[8];
    for (std::size_t j = 0; j < 8; ++j)
        eight[j] = meet(meet(ofLane(lanes[j]), ofLane(lanes[j + 16])),
                        meet(ofLane(lanes[j + 8]), ofLane(lanes[j + 24])));
    const ErrorSums l04 = meet(eight[0], eight[4]);
    const ErrorSums l26 = meet(eight[2], eight[6]);
    const ErrorSums l15 = meet(eight[1], eight[5]);
    const ErrorSums l37 = meet(eight[3], eight[7]);
    return meet(meet(l04, l26), meet(l15, l37));
}

ErrorSums chunkSumsInOrder(const ErrorSums* chunks, std::size_t count) {
    if (count <= kInOrderRun) {
        ErrorSums sum;
        for (std::size_t i = 0; i < count; ++i)
            sum.append(chunks[i]);
        return sum;
    }
    const std::size_t half = count / 2;
    ErrorSums sum = chunkSumsInOrder(chunks, half);
    sum.append(chunkSumsInOrder(chunks + half, count - half));
    return sum;
}

} // namespace fpx
