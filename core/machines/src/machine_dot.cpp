// SPDX-License-Identifier: GPL-3.0-or-later
// A dot product longer than one instruction: instructions chained through their accumulator,
// with promotion into an FP32 total where asked (docs/behaviour.md, "Machines").
#include "fpx/machines/machine_dot.h"

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

MachineDotResult machineDot(const MachineModel& machine, const FormatSpec& element,
                            std::span<const ExactValue> a, std::span<const ExactValue> b,
                            const MachineDotOptions& options) {
    const MachineInstruction* instruction = machine.instructionFor(element.id);
    if (!instruction)
        throw std::invalid_argument(machine.name + " has no instruction for " + element.id);
    if (a.size() != b.size())
        throw std::invalid_argument("machineDot: the vectors differ in length");
    const std::size_t products = static_cast<std::size_t>(instruction->products);
    if (options.promoteEvery % products != 0)
        throw std::invalid_argument("promotion every " + std::to_string(options.promoteEvery) +
                                    " elements: not a multiple of the " + std::to_string(products) +
                                    " products of an instruction");
    MachineDotResult result;
    result.format = &outputFormat(instruction->model.output);
    const bool promoted = options.promoteEvery > 0;
    ExactValue total = options.c;                                 // promoted: the FP32 total
    ExactValue accumulator = promoted ? ExactValue() : options.c; // the instruction's c
    // At least one instruction: with no products it still returns c through its output.
    const std::size_t steps = std::max<std::size_t>(1, (a.size() + products - 1) / products);
    const std::size_t promoteSteps = promoted ? options.promoteEvery / products : 0;
    for (std::size_t k = 0; k < steps; ++k) {
        const std::size_t begin = k * products;
        const std::size_t count = std::min(products, a.size() - std::min(begin, a.size()));
        FusedStep step = fusedDotAdd(a.subspan(begin, count), b.subspan(begin, count), element,
                                     accumulator, instruction->model);
        accumulator = step.output;
        if (options.explain)
            result.explained.push_back(std::move(step));
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

} // namespace fpx
