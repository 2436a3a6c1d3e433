// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in matrix engines and the generic fused:F[:G] model (docs/behaviour.md,
// "Machines"). Each entry is the published model of one instruction; where a fact is
// uncertain the behaviour document says so and how it was established.
#include "fpx/machines/machine.h"

#include "fpx/exact/text_util.h"

#include <charconv>

namespace fpx {
namespace {

constexpr const char* kFasi = "Fasi, Higham, Mikaitis, Pranesh, \"Numerical behavior of NVIDIA "
                              "tensor cores\", PeerJ CS 7:e330 (2021)";
constexpr const char* kMmaSim =
    "Xie et al., \"MMA-Sim\", arXiv 2511.10909 (2025), reference model microsoft/MMA-Sim";
constexpr const char* kKhattak = "Khattak, Mikaitis, arXiv 2512.07004 (2025)";

const std::vector<std::string> kHalf = {"fp16", "bf16"};
const std::vector<std::string> kFp8 = {"fp8_e4m3", "fp8_e5m2"};

MachineInstruction instruction(std::vector<std::string> elements, int products, int fractionBits,
                               FusedOutput output = FusedOutput::Fp32TowardZero) {
    return {std::move(elements), products, {fractionBits, TermCut::TowardZero, output}, false};
}

// TF32 instructions read FP32 registers and use their top 10 fraction bits: the operands are
// truncated, not rounded, into TF32.
MachineInstruction tf32(int products, int fractionBits) {
    MachineInstruction made = instruction({"tf32"}, products, fractionBits);
    made.truncatesFp32Operands = true;
    return made;
}

std::vector<MachineModel> makeBuiltIns() {
    return {
        {"nvidia-volta",
         "V100 mma.m8n8k4: 4 fp16 products into FP32, 23 fraction bits kept",
         kFasi,
         {instruction({"fp16"}, 4, 23)}},
        {"nvidia-turing",
         "T4 mma.m16n8k8: 8 fp16 products into FP32, 24 fraction bits kept",
         kFasi,
         {instruction({"fp16"}, 8, 24)}},
        {"nvidia-ampere",
         "A100 mma: k=16 fp16/bf16 in two halves of 8, tf32 4, FP32 accumulator, 24 fraction "
         "bits",
         std::string(kFasi) + "; " + kMmaSim,
         {instruction(kHalf, 8, 24), tf32(4, 24)}},
        {"nvidia-ada",
         "L40/RTX 40 mma: as Ampere; fp8 k=32 in two halves of 16 at 13 fraction bits, e8m13 "
         "output",
         kMmaSim,
         {instruction(kHalf, 8, 24), tf32(4, 24),
          instruction(kFp8, 16, 13, FusedOutput::E8M13TowardZero)}},
        {"nvidia-hopper",
         "H100 wgmma: fp16/bf16 16, tf32 8 at 25 fraction bits; fp8 32 at 13 fraction bits, "
         "e8m13 output",
         std::string(kMmaSim) + "; " + kKhattak,
         {instruction(kHalf, 16, 25), tf32(8, 25),
          instruction(kFp8, 32, 13, FusedOutput::E8M13TowardZero)}},
        {"nvidia-blackwell",
         "B200 tcgen05.mma: fp16/bf16 16, tf32 8, fp8 32, all at 25 fraction bits, FP32 output",
         std::string(kMmaSim) + "; " + kKhattak,
         {instruction(kHalf, 16, 25), tf32(8, 25), instruction(kFp8, 32, 25)}},
    };
}

std::optional<int> positiveNumber(std::string_view text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 1)
        return std::nullopt;
    return value;
}

} // namespace

const MachineInstruction* MachineModel::instructionFor(std::string_view elementId) const {
    for (const MachineInstruction& instruction : instructions) {
        if (instruction.elements.empty())
            return &instruction; // the generic model takes any element
        for (const std::string& id : instruction.elements)
            if (id == elementId)
                return &instruction;
    }
    return nullptr;
}

const std::vector<MachineModel>& builtInMachines() {
    static const std::vector<MachineModel> machines = makeBuiltIns();
    return machines;
}

std::optional<MachineModel> findMachine(std::string_view name, std::string& error) {
    for (const MachineModel& machine : builtInMachines())
        if (machine.name == name)
            return machine;
    if (name.rfind("fused:", 0) == 0) {
        const std::vector<std::string_view> parts = splitAt(name, ':');
        // F up to 200: more than any format's exponent range needs to keep every term whole.
        const std::optional<int> fraction =
            parts.size() >= 2 ? positiveNumber(parts[1]) : std::nullopt;
        const std::optional<int> products =
            parts.size() == 3 ? positiveNumber(parts[2]) : std::optional<int>(4);
        if (parts.size() > 3 || !fraction || *fraction > 200 || !products || *products > 4096) {
            error = "'" + std::string(name) +
                    "': expected fused:F[:G], F fraction bits 1 to 200, G products 1 to 4096";
            return std::nullopt;
        }
        MachineModel machine;
        machine.name = std::string(name);
        machine.description = "the generic model: " + std::to_string(*products) +
                              " products an instruction, " + std::to_string(*fraction) +
                              " fraction bits kept, FP32 output truncated";
        machine.source = kFasi;
        machine.instructions = {
            {{}, *products, {*fraction, TermCut::TowardZero, FusedOutput::Fp32TowardZero}}};
        return machine;
    }
    std::string names;
    for (const MachineModel& machine : builtInMachines())
        names += (names.empty() ? "" : ", ") + machine.name;
    error = "unknown machine '" + std::string(name) + "' (use " + names + " or fused:F[:G])";
    return std::nullopt;
}

} // namespace fpx
