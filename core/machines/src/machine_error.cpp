// SPDX-License-Identifier: GPL-3.0-or-later
// Error statistics of a matrix engine over a drawn matrix product (docs/behaviour.md,
// "Machines").
#include "fpx/machines/machine_error.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/parallel_chunks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fpx {
namespace {

// `count` values of `distribution` from `first` on, as the instruction takes them.
std::vector<ExactValue> drawOperand(const MachineInstruction& instruction,
                                    const FormatSpec& element,
                                    const ValueDistribution& distribution, std::size_t count,
                                    std::uint64_t seed) {
    const std::vector<float> drawn = drawFloats(distribution, count, seed);
    const FormatSpec& read = instruction.truncatesFp32Operands ? fp32Spec() : element;
    std::vector<ExactValue> values;
    values.reserve(count);
    for (const float x : drawn)
        values.push_back(
            machineOperand(instruction, element, roundedInto(exactFromDouble(x), read)));
    return values;
}

// The spacing of FP32 at x: 2^(e−23) in x's binade e, FP32's subnormal spacing below 2^−126.
ExactValue fp32UlpAt(const ExactValue& x) {
    const std::int64_t e = std::max<std::int64_t>(x.floorLog2(), fp32Spec().minExponent());
    return ExactValue::dyadic(false, 1, e - fp32Spec().fractionBits);
}

// One result against its exact value.
struct ResultError {
    enum class Kind { Skipped, NonFinite, Compared };
    Kind kind = Kind::Skipped;
    bool offByUlp = false;
    double relative = 0;
};

} // namespace

GemmOperands drawGemmOperands(const MachineInstruction& instruction, const FormatSpec& element,
                              const ValueDistribution& distribution, std::size_t m, std::size_t n,
                              std::size_t k, std::uint64_t seed) {
    GemmOperands operands;
    operands.m = m;
    operands.n = n;
    operands.k = k;
    // Each row and column its own stream, so that a larger m or n keeps the smaller's data.
    for (std::size_t i = 0; i < m; ++i)
        operands.rows.push_back(
            drawOperand(instruction, element, distribution, k, streamSeed(seed, 2 * i)));
    for (std::size_t j = 0; j < n; ++j)
        operands.columns.push_back(
            drawOperand(instruction, element, distribution, k, streamSeed(seed, 2 * j + 1)));
    return operands;
}

namespace {

// Each result's error, result(r) giving {machine's value, exact value} of result r.
template <typename Result>
MachineErrorPoint measure(const GemmOperands& operands, std::size_t k, std::size_t promoteEvery,
                          unsigned threads, const Result& result) {
    if (k > operands.k)
        throw std::invalid_argument("measureMachineError: K " + std::to_string(k) +
                                    " is longer than the operands' " + std::to_string(operands.k));
    const std::size_t results = operands.m * operands.n;
    // Each result on its own, gathered in order afterwards: the mean is then the same sum in
    // the same order whatever the threads.
    std::vector<ResultError> errors(results);
    parallelChunks(results, 1, threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
            const auto [value, exact] = result(r);
            if (!exact.isFinite() || exact.isZero())
                continue;
            if (!value.isFinite()) {
                errors[r].kind = ResultError::Kind::NonFinite;
                continue;
            }
            const ExactValue error = (value - exact).abs();
            errors[r] = {ResultError::Kind::Compared, compare(error, fp32UlpAt(exact)) >= 0,
                         nearestDouble(error / exact.abs())};
        }
    });
    MachineErrorPoint point;
    point.k = k;
    point.promoteEvery = promoteEvery;
    point.results = results;
    double sum = 0;
    for (const ResultError& e : errors) {
        if (e.kind == ResultError::Kind::NonFinite)
            ++point.nonFinite;
        if (e.kind != ResultError::Kind::Compared)
            continue;
        ++point.compared;
        point.offByUlp += e.offByUlp ? 1 : 0;
        point.maxRelativeError = std::max(point.maxRelativeError, e.relative);
        sum += e.relative;
    }
    point.meanRelativeError = point.compared > 0 ? sum / double(point.compared) : 0;
    return point;
}

BlockScaledOperand prefix(const BlockScaledOperand& operand, std::size_t k) {
    BlockScaledOperand first;
    first.values.assign(operand.values.begin(), operand.values.begin() + std::ptrdiff_t(k));
    first.scales.assign(operand.scales.begin(), operand.scales.begin() + std::ptrdiff_t(k));
    first.tensorScale = operand.tensorScale;
    return first;
}

} // namespace

std::optional<GemmOperands> drawBlockGemmOperands(const BlockFormat& format,
                                                  const ValueDistribution& distribution,
                                                  std::size_t m, std::size_t n, std::size_t k,
                                                  std::uint64_t seed, std::string& error) {
    GemmOperands operands;
    operands.m = m;
    operands.n = n;
    operands.k = k;
    auto draw = [&](std::uint64_t stream, std::vector<BlockScaledOperand>& into) {
        const std::vector<float> drawn = drawFloats(distribution, k, stream);
        std::optional<BlockScaledOperand> quantized = quantizeOperand(format, drawn, error);
        if (quantized)
            into.push_back(std::move(*quantized));
        return quantized.has_value();
    };
    for (std::size_t i = 0; i < m; ++i)
        if (!draw(streamSeed(seed, 2 * i), operands.scaledRows))
            return std::nullopt;
    for (std::size_t j = 0; j < n; ++j)
        if (!draw(streamSeed(seed, 2 * j + 1), operands.scaledColumns))
            return std::nullopt;
    return operands;
}

MachineErrorPoint measureMachineError(const MachineModel& machine, const FormatSpec& element,
                                      const GemmOperands& operands, std::size_t k,
                                      std::size_t promoteEvery, unsigned threads) {
    MachineDotOptions options;
    options.promoteEvery = promoteEvery;
    return measure(operands, k, promoteEvery, threads, [&](std::size_t r) {
        const std::span<const ExactValue> a(operands.rows[r / operands.n].data(), k);
        const std::span<const ExactValue> b(operands.columns[r % operands.n].data(), k);
        ExactValue exact;
        for (std::size_t i = 0; i < k; ++i)
            exact = exact + a[i] * b[i];
        return std::pair(machineDot(machine, element, a, b, options).value, exact);
    });
}

MachineErrorPoint measureMachineError(const MachineModel& machine, const BlockFormat& format,
                                      const GemmOperands& operands, std::size_t k,
                                      std::size_t promoteEvery, unsigned threads) {
    MachineDotOptions options;
    options.promoteEvery = promoteEvery;
    return measure(operands, k, promoteEvery, threads, [&](std::size_t r) {
        const BlockScaledOperand a = prefix(operands.scaledRows[r / operands.n], k);
        const BlockScaledOperand b = prefix(operands.scaledColumns[r % operands.n], k);
        return std::pair(machineBlockDot(machine, format, a, b, options).value,
                         blockScaledExact(a, b, ExactValue()));
    });
}

std::vector<MachineErrorCurve> measureGemmErrors(const GemmErrorRequest& request,
                                                 const std::atomic<bool>* cancelled) {
    const std::size_t longest =
        request.ks.empty() ? 0 : *std::max_element(request.ks.begin(), request.ks.end());
    const MachineElement& element = request.element;
    std::vector<MachineErrorCurve> curves;
    for (const MachineModel& machine : request.machines) {
        const MachineInstruction* instruction = machine.instructionFor(element.id);
        if (!instruction)
            throw std::invalid_argument(machine.name + " has no instruction for " + element.id);
        GemmOperands operands;
        if (element.block) {
            std::string error;
            std::optional<GemmOperands> drawn =
                drawBlockGemmOperands(*element.block, request.distribution, request.m, request.n,
                                      longest, request.seed, error);
            if (!drawn)
                throw std::invalid_argument(element.id + ": " + error);
            operands = std::move(*drawn);
        } else {
            operands = drawGemmOperands(*instruction, element.format, request.distribution,
                                        request.m, request.n, longest, request.seed);
        }
        for (const std::size_t promote : request.promotions) {
            MachineErrorCurve curve{machine.name, promote, {}};
            for (const std::size_t k : request.ks) {
                if (cancelled && cancelled->load())
                    return curves;
                curve.points.push_back(element.block
                                           ? measureMachineError(machine, *element.block, operands,
                                                                 k, promote, request.threads)
                                           : measureMachineError(machine, element.format, operands,
                                                                 k, promote, request.threads));
            }
            curves.push_back(std::move(curve));
        }
    }
    return curves;
}

} // namespace fpx
