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

// Blackwell's block-scaled kinds: MXF8F6F4 takes 32 products a scale pair; MXF4 and NVF4 64, in
// runs of 16 added exactly, at 35 fraction bits.
MachineInstruction blockScaled(std::vector<std::string> elements, int products, int fractionBits,
                               int subBlock) {
    MachineInstruction made = instruction(std::move(elements), products, fractionBits);
    made.blockScaled = true;
    made.subBlock = subBlock;
    return made;
}

// AMD CDNA3: products fused, then rounded down with c, FP32 to nearest even.
MachineInstruction cdnaFused(std::vector<std::string> elements, int products, bool twoStage) {
    MachineInstruction made{std::move(elements),
                            products,
                            {24, TermCut::TowardZero, FusedOutput::Fp32NearestEven},
                            false};
    made.algorithm = InstructionAlgorithm::FusedThenAccumulator;
    made.twoStage = twoStage;
    return made;
}

// AMD CDNA1 and CDNA2: FP32 multiplies and additions in a pairwise tree.
MachineInstruction pairwise(std::vector<std::string> elements, int products, bool flush) {
    MachineInstruction made{std::move(elements),
                            products,
                            {23, TermCut::TowardZero, FusedOutput::Fp32NearestEven},
                            false};
    made.algorithm = InstructionAlgorithm::PairwiseFp32;
    made.flushesSubnormals = flush;
    return made;
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
         "B200 tcgen05.mma: fp16/bf16 16, tf32 8, fp8 32, all at 25 fraction bits, FP32 output; "
         "block-scaled MXF8F6F4 32 at 25, MXF4/NVF4 64 in runs of 16 at 35",
         std::string(kMmaSim) + "; " + kKhattak,
         {instruction(kHalf, 16, 25), tf32(8, 25), instruction(kFp8, 32, 25),
          blockScaled({"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3"}, 32, 25, 0),
          blockScaled({"mxfp4", "nvfp4"}, 64, 35, 16)}},
        {"amd-cdna1",
         "MI100 v_mfma: fp16 groups of 4, bf16 groups of 2, FP32 multiplies and pairwise FP32 "
         "additions, round to nearest even",
         kMmaSim,
         {pairwise({"fp16"}, 4, false), pairwise({"bf16"}, 2, false)}},
        {"amd-cdna2",
         "MI200 v_mfma: fp16 and bf16 (the _1k instructions) groups of 4 as CDNA1, subnormals "
         "flushed to zero",
         kMmaSim,
         {pairwise(kHalf, 4, true)}},
        {"amd-cdna3",
         "MI300 v_mfma: fp16/bf16 groups of 8 and xf32 of 4 fused at 24 fraction bits, fp8 "
         "(FNUZ) 16 in two stages; the sum and c rounded down, FP32 to nearest even",
         kMmaSim,
         {cdnaFused(kHalf, 8, false), cdnaFused({"fp8_e4m3fnuz", "fp8_e5m2fnuz"}, 16, true),
          [] {
              MachineInstruction xf32 = cdnaFused({"tf32"}, 4, false);
              xf32.truncatesFp32Operands = true;
              return xf32;
          }()}},
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

std::string_view algorithmId(InstructionAlgorithm algorithm) {
    switch (algorithm) {
    case InstructionAlgorithm::Fused:
        break;
    case InstructionAlgorithm::FusedThenAccumulator:
        return "fused-then-accumulator";
    case InstructionAlgorithm::PairwiseFp32:
        return "pairwise-fp32";
    }
    return "fused";
}

std::string instructionSummary(const MachineInstruction& instruction) {
    const std::string products = std::to_string(instruction.products) + " products";
    const std::string fraction = "F = " + std::to_string(instruction.model.fractionBits);
    std::string text;
    switch (instruction.algorithm) {
    case InstructionAlgorithm::Fused:
        text = products + " fused at " + fraction + ", cut " +
               std::string(termCutId(instruction.model.cut));
        if (instruction.blockScaled)
            text += instruction.subBlock > 0
                        ? ", block-scaled, runs of " + std::to_string(instruction.subBlock) +
                              " added exactly and aligned by their scales"
                        : ", block-scaled, each product aligned with its scales";
        text += "; output " + outputFormat(instruction.model.output).id + " " +
                std::string(outputRoundingId(instruction.model.output));
        break;
    case InstructionAlgorithm::FusedThenAccumulator:
        text = products + " fused at " + fraction + ", cut toward-zero" +
               (instruction.twoStage ? ", even and odd apart (two stages)" : "") +
               "; their sum and c rounded down, added, output fp32 nearest-even";
        break;
    case InstructionAlgorithm::PairwiseFp32:
        text = products + ": FP32 products added in a pairwise tree, then to c, fp32 "
                          "nearest-even";
        if (instruction.flushesSubnormals)
            text += ", subnormals flushed to zero";
        break;
    }
    if (instruction.truncatesFp32Operands)
        text += "; FP32 operands truncated into the element";
    return text;
}

const std::vector<MachineModel>& builtInMachines() {
    static const std::vector<MachineModel> machines = makeBuiltIns();
    return machines;
}

std::optional<MachineModel> findMachine(std::string_view name, std::string& error,
                                        std::span<const MachineModel> own) {
    for (const MachineModel& machine : own)
        if (machine.name == name)
            return machine;
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
    for (const MachineModel& machine : own)
        names += (names.empty() ? "" : ", ") + machine.name;
    for (const MachineModel& machine : builtInMachines())
        names += (names.empty() ? "" : ", ") + machine.name;
    error = "unknown machine '" + std::string(name) + "' (use " + names + " or fused:F[:G])";
    return std::nullopt;
}

} // namespace fpx
