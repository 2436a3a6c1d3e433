// SPDX-License-Identifier: GPL-3.0-or-later
// A dot product longer than one instruction: instructions chained through their accumulator,
// with promotion into an FP32 total where asked (docs/behaviour.md, "Machines").
#include "fpx/machines/machine_dot.h"

#include "fpx/machines/block_scaled_dot.h"
#include "fpx/machines/cdna_dot.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include <algorithm>
#include <stdexcept>

namespace fpx {

ExactValue machineOperand(const MachineInstruction& instruction, const FormatSpec& element,
                          const ExactValue& value) {
    if (!instruction.truncatesFp32Operands)
        return value;
    RoundingOptions truncate;
    truncate.mode = RoundingMode::TowardZero;
    return roundedInto(value, element, truncate);
}

namespace {

FusedStep unscaledStep(const MachineInstruction& instruction, const FormatSpec& element,
                       std::span<const ExactValue> a, std::span<const ExactValue> b,
                       const ExactValue& c) {
    switch (instruction.algorithm) {
    case InstructionAlgorithm::FusedThenAccumulator:
        return cdnaFusedDotAdd(a, b, element, c, instruction.model.fractionBits,
                               instruction.twoStage);
    case InstructionAlgorithm::PairwiseFp32:
        return pairwiseDotAdd(a, b, element, c, instruction.flushesSubnormals);
    case InstructionAlgorithm::Fused:
        break;
    }
    return fusedDotAdd(a, b, element, c, instruction.model);
}

// One instruction per `products` elements of K, each one's output the next one's c, promoted
// into an FP32 total where asked. step(begin, count, c) runs one instruction.
template <typename Step>
MachineDotResult chain(const MachineModel& machine, const MachineInstruction& instruction,
                       std::size_t count, const MachineDotOptions& options, const Step& step) {
    const std::size_t products = static_cast<std::size_t>(instruction.products);
    if (options.promoteEvery % products != 0)
        throw std::invalid_argument("promotion every " + std::to_string(options.promoteEvery) +
                                    " elements: not a multiple of the " + std::to_string(products) +
                                    " products of " + machine.name + "'s instruction");
    MachineDotResult result;
    result.format = &outputFormat(instruction.model.output);
    const bool promoted = options.promoteEvery > 0;
    ExactValue total = options.c;                                 // promoted: the FP32 total
    ExactValue accumulator = promoted ? ExactValue() : options.c; // the instruction's c
    // At least one instruction: with no products it still returns c through its output.
    const std::size_t steps = std::max<std::size_t>(1, (count + products - 1) / products);
    const std::size_t promoteSteps = promoted ? options.promoteEvery / products : 0;
    for (std::size_t k = 0; k < steps; ++k) {
        const std::size_t begin = std::min(k * products, count);
        FusedStep done = step(begin, std::min(products, count - begin), accumulator);
        accumulator = done.output;
        if (options.explain)
            result.explained.push_back(std::move(done));
        if (promoted && ((k + 1) % promoteSteps == 0 || k + 1 == steps)) {
            total = roundedInto(total + accumulator, fp32Spec()); // an FP32 add, nearest even
            accumulator = ExactValue();
            ++result.promotions;
        }
    }
    result.steps = steps;
    result.value = promoted ? total : accumulator;
    if (promoted)
        result.format = &fp32Spec();
    return result;
}

const MachineInstruction& instructionOf(const MachineModel& machine, const std::string& id) {
    const MachineInstruction* instruction = machine.instructionFor(id);
    if (!instruction)
        throw std::invalid_argument(machine.name + " has no instruction for " + id);
    return *instruction;
}

} // namespace

MachineDotResult machineDot(const MachineModel& machine, const FormatSpec& element,
                            std::span<const ExactValue> a, std::span<const ExactValue> b,
                            const MachineDotOptions& options) {
    const MachineInstruction& instruction = instructionOf(machine, element.id);
    if (instruction.blockScaled)
        throw std::invalid_argument(machine.name + "'s " + element.id +
                                    " instruction takes block-scaled operands");
    if (a.size() != b.size())
        throw std::invalid_argument("machineDot: the vectors differ in length");
    return chain(machine, instruction, a.size(), options,
                 [&](std::size_t begin, std::size_t count, const ExactValue& c) {
                     return unscaledStep(instruction, element, a.subspan(begin, count),
                                         b.subspan(begin, count), c);
                 });
}

MachineDotResult machineBlockDot(const MachineModel& machine, const BlockFormat& format,
                                 const BlockScaledOperand& a, const BlockScaledOperand& b,
                                 const MachineDotOptions& options) {
    const MachineInstruction& instruction = instructionOf(machine, format.id);
    if (!instruction.blockScaled || !format.scale)
        throw std::invalid_argument(machine.name + "'s " + format.id +
                                    " instruction takes no block scales");
    const std::size_t count = a.values.size();
    if (b.values.size() != count || a.scales.size() != count || b.scales.size() != count)
        throw std::invalid_argument("machineBlockDot: the operands differ in length");
    // NVFP4's tensor scales stay out of the instructions: the GEMM's epilogue computes
    // alpha·acc + c with alpha = FP32(t_a·t_b), one FP32 rounding (a fused multiply-add, as
    // CUTLASS's linear combination does with beta = 1), so c then starts outside the chain.
    const ExactValue alpha = roundedInto(a.tensorScale * b.tensorScale, fp32Spec());
    const bool epilogue = !(alpha == ExactValue::dyadic(false, 1, 0));
    MachineDotOptions chained = options;
    if (epilogue)
        chained.c = ExactValue();
    MachineDotResult result =
        chain(machine, instruction, count, chained,
              [&](std::size_t begin, std::size_t n, const ExactValue& c) {
                  const auto part = [&](const std::vector<ExactValue>& v) {
                      return std::span(v).subspan(begin, n);
                  };
                  return blockScaledDotAdd(part(a.values), part(b.values), part(a.scales),
                                           part(b.scales), format.element, *format.scale, c,
                                           instruction.model, instruction.subBlock);
              });
    if (epilogue) {
        result.value = roundedInto(result.value * alpha + options.c, fp32Spec());
        result.format = &fp32Spec();
    }
    return result;
}

ExactValue blockScaledExact(const BlockScaledOperand& a, const BlockScaledOperand& b,
                            const ExactValue& c) {
    ExactValue sum;
    for (std::size_t i = 0; i < a.values.size(); ++i)
        sum = sum + a.values[i] * a.scales[i] * b.values[i] * b.scales[i];
    return c + sum * a.tensorScale * b.tensorScale;
}

} // namespace fpx
