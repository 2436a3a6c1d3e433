// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/value_distribution.h"
#include "fpx/machines/machine_dot.h"
#include "fpx/machines/machine_element.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpx {

// The operands of an m×K by K×n matrix product drawn from a distribution (docs/behaviour.md,
// "Machines"): every value drawn in double, rounded once to FP32 as every tensor fpx draws, then
// taken by the instruction as machineOperand says (rounded into the element, or truncated into
// TF32). The rows of A and the columns of B are drawn for the longest K; a shorter K uses
// their first K elements, so that error against K is measured on one set of data and grows
// smoothly rather than jumping from one draw to the next.
struct GemmOperands {
    std::size_t m = 0, n = 0, k = 0;
    // m rows of A and n columns of B, K values each, as the machine takes them.
    std::vector<std::vector<ExactValue>> rows;
    std::vector<std::vector<ExactValue>> columns;
    // For a block-scaled instruction instead: each row and column quantized along K.
    std::vector<BlockScaledOperand> scaledRows;
    std::vector<BlockScaledOperand> scaledColumns;
};

GemmOperands drawGemmOperands(const MachineInstruction& instruction, const FormatSpec& element,
                              const ValueDistribution& distribution, std::size_t m, std::size_t n,
                              std::size_t k, std::uint64_t seed);

// The same for a block-scaled instruction: each row and column drawn as above, then quantized
// along K by `format` (quantizeOperand); a shorter K takes the first K values and their scales.
// nullopt with `error` when the quantizer refuses them.
std::optional<GemmOperands> drawBlockGemmOperands(const BlockFormat& format,
                                                  const ValueDistribution& distribution,
                                                  std::size_t m, std::size_t n, std::size_t k,
                                                  std::uint64_t seed, std::string& error);

// How far one machine's m·n dot products of length K are from the exact ones.
struct MachineErrorPoint {
    std::size_t k = 0;
    std::size_t promoteEvery = 0; // 0: no promotion
    std::size_t results = 0;      // m·n
    std::size_t compared = 0;     // results whose exact value is finite and not zero
    double maxRelativeError = 0;  // |machine − exact| / |exact| over the compared results
    double meanRelativeError = 0;
    // Results at least one FP32 ulp (the spacing of FP32 at the exact value) from the exact
    // value: wrong in FP32's own last bit, not only not correctly rounded.
    std::size_t offByUlp = 0;
    std::size_t nonFinite = 0; // results the machine gave as ∞ or NaN while the exact is finite
};

// The error of `machine` on the first `k` elements of each row and column of `operands`
// (k ≤ operands.k), with promotion every `promoteEvery` elements (0: none; a multiple of the
// instruction's products). The results are computed on up to `threads` threads (0: all the
// hardware has), and do not depend on how many.
MachineErrorPoint measureMachineError(const MachineModel& machine, const FormatSpec& element,
                                      const GemmOperands& operands, std::size_t k,
                                      std::size_t promoteEvery, unsigned threads = 0);
// The same on a block-scaled instruction (operands from drawBlockGemmOperands), against the
// exact dot products of the dequantized values.
MachineErrorPoint measureMachineError(const MachineModel& machine, const BlockFormat& format,
                                      const GemmOperands& operands, std::size_t k,
                                      std::size_t promoteEvery, unsigned threads = 0);

// Error against K for several machines, with and without promotion, on one set of drawn data
// (docs/behaviour.md, "Machines"): what fpx gemm prints and the Machines page plots.
struct GemmErrorRequest {
    std::vector<MachineModel> machines;
    MachineElement element;
    std::vector<std::size_t> ks;         // the lengths of K measured, ascending
    std::vector<std::size_t> promotions; // 0: none; others every so many elements of K
    ValueDistribution distribution;
    std::size_t m = 16, n = 16;
    std::uint64_t seed = 1;
    unsigned threads = 0;
};

struct MachineErrorCurve {
    std::string machine;
    std::size_t promoteEvery = 0;
    std::vector<MachineErrorPoint> points; // one per K, in the request's order
};

// One curve per machine and promotion, in that order (machines outer). Throws
// std::invalid_argument when a machine has no instruction for the element, a promotion is not
// a multiple of its products, or the quantizer refuses the drawn values. `cancelled`, when
// given and set, stops it between points (the curves so far come back).
std::vector<MachineErrorCurve> measureGemmErrors(const GemmErrorRequest& request,
                                                 const std::atomic<bool>* cancelled = nullptr);

} // namespace fpx
