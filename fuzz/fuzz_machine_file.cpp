// SPDX-License-Identifier: GPL-3.0-or-later
// The machine file reader, as `fpx machines|dot|gemm --machines FILE` use it: parse, then each
// machine read back through its own text, and every instruction run once on a short crafted
// dot product (block-scaled ones on quantized operands); or the error's
// "SOURCE:LINE:COLUMN: message", whose line must lie in the input.
#include "fuzz_support.h"

#include "fpx/machines/machine_dot.h"
#include "fpx/machines/machine_element.h"
#include "fpx/machines/machine_file.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace {

// The line an error names: the number between the source's ':' and the next ':'.
std::size_t errorLine(const std::string& error) {
    const std::size_t start = error.find(':') + 1;
    return std::stoul(error.substr(start, error.find(':', start) - start));
}

void runOnce(const fpx::MachineModel& machine, const fpx::MachineInstruction& instruction) {
    std::string error;
    for (const std::string& id : instruction.elements) {
        const std::optional<fpx::MachineElement> element = fpx::findMachineElement(id, error);
        if (!element)
            std::abort(); // the parser accepted an element that is none
        // Two instructions' worth: the chain, the last short one and a promotion.
        const std::size_t k = 2 * std::size_t(instruction.products) + 1;
        fpx::MachineDotOptions options;
        options.promoteEvery = std::size_t(instruction.products);
        options.c = fpx::ExactValue::dyadic(true, 3, -2);
        if (element->block) {
            std::vector<float> x(k), y(k);
            for (std::size_t i = 0; i < k; ++i) {
                x[i] = float(i % 7) - 3.0f;
                y[i] = 1.0f / float(i + 1);
            }
            const auto a = fpx::quantizeOperand(*element->block, x, error);
            const auto b = fpx::quantizeOperand(*element->block, y, error);
            if (a && b)
                (void)fpx::machineBlockDot(machine, *element->block, *a, *b, options);
            continue;
        }
        std::vector<fpx::ExactValue> a(k, fpx::ExactValue::dyadic(false, 1, 0));
        std::vector<fpx::ExactValue> b(k, fpx::ExactValue::dyadic(false, 1, -3));
        (void)fpx::machineDot(machine, element->format, a, b, options);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fpx::fuzz::asText(data, size);
    const fpx::MachineFileParse parse = fpx::parseMachineFile(text, "input");
    if (!parse) {
        const std::size_t lines =
            1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
        if (!parse.machines.empty() || parse.error.rfind("input:", 0) != 0 ||
            errorLine(parse.error) > lines)
            std::abort(); // a half-read file, or an error placed outside it
        return 0;
    }
    for (const fpx::MachineModel& machine : parse.machines) {
        const fpx::MachineFileParse again =
            fpx::parseMachineFile(fpx::machineFileText(machine), machine.source);
        if (!again || again.machines.size() != 1 || again.machines[0].name != machine.name)
            std::abort(); // a machine its own text does not give back
        // Large products or instructions cost exact work in proportion; the parser's bounds
        // (4096 products) keep one run short.
        for (const fpx::MachineInstruction& instruction : machine.instructions)
            runOnce(machine, instruction);
    }
    return 0;
}
