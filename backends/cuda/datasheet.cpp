// SPDX-License-Identifier: GPL-3.0-or-later
#include "datasheet.h"

#include <algorithm>
#include <cctype>

namespace fpx::cuda {
namespace {

constexpr double T = 1e12; // tera (operations/s or bytes/s)

struct Entry {
    std::vector<std::string> mustContain; // upper case, all of them
    Datasheet sheet;
};

// Figures from NVIDIA's product datasheets. Every peak is the DENSE figure: where a datasheet
// prints only the figure "with sparsity" (2:4 structured sparsity), it is halved here. Never
// mix the two. FP64 is the FP64 Tensor Core figure where the GPU has one; FP32 is the
// non-tensor (CUDA core) figure; FP16/BF16/FP8/INT8 are tensor figures with FP32
// accumulation (GeForce cards run FP32 accumulation at half the FP16-accumulate rate).
// Entries are tried in order; the first whose words all occur in the device name wins.
const std::vector<Entry>& entries() {
    static const std::vector<Entry> table = {
        // H200 NVL: HBM3e; per-GPU datasheet figures with sparsity halved.
        {{"H200", "NVL"},
         {"H200 NVL",
          4.8 * T,
          {{"fp64", 60 * T},
           {"fp32", 60 * T},
           {"tf32", 417.5 * T},
           {"fp16", 835.5 * T},
           {"bf16", 835.5 * T},
           {"fp8_e4m3", 1670.5 * T},
           {"fp8_e5m2", 1670.5 * T},
           {"int8", 1670.5 * T}}}},
        // H200 SXM: HBM3e, the same compute as H100 SXM.
        {{"H200"},
         {"H200 SXM 141 GB",
          4.8 * T,
          {{"fp64", 67 * T},
           {"fp32", 67 * T},
           {"tf32", 495 * T},
           {"fp16", 989 * T},
           {"bf16", 989 * T},
           {"fp8_e4m3", 1979 * T},
           {"fp8_e5m2", 1979 * T},
           {"int8", 1979 * T}}}},
        // H100 NVL: HBM3; per-GPU datasheet figures with sparsity halved.
        {{"H100", "NVL"},
         {"H100 NVL 94 GB",
          3.9 * T,
          {{"fp64", 60 * T},
           {"fp32", 60 * T},
           {"tf32", 417.5 * T},
           {"fp16", 835.5 * T},
           {"bf16", 835.5 * T},
           {"fp8_e4m3", 1670.5 * T},
           {"fp8_e5m2", 1670.5 * T},
           {"int8", 1670.5 * T}}}},
        // H100 PCIe 80 GB: HBM2e.
        {{"H100", "PCIE"},
         {"H100 PCIe 80 GB",
          2.0 * T,
          {{"fp64", 51 * T},
           {"fp32", 51 * T},
           {"tf32", 378 * T},
           {"fp16", 756 * T},
           {"bf16", 756 * T},
           {"fp8_e4m3", 1513 * T},
           {"fp8_e5m2", 1513 * T},
           {"int8", 1513 * T}}}},
        // H100 SXM5 80 GB ("NVIDIA H100 80GB HBM3"): HBM3.
        {{"H100"},
         {"H100 SXM5 80 GB",
          3.35 * T,
          {{"fp64", 67 * T},
           {"fp32", 67 * T},
           {"tf32", 495 * T},
           {"fp16", 989 * T},
           {"bf16", 989 * T},
           {"fp8_e4m3", 1979 * T},
           {"fp8_e5m2", 1979 * T},
           {"int8", 1979 * T}}}},
        // A100: the same compute for every model; the memory differs. No FP8.
        {{"A100", "40GB"},
         {"A100 40 GB",
          1.555 * T,
          {{"fp64", 19.5 * T},
           {"fp32", 19.5 * T},
           {"tf32", 156 * T},
           {"fp16", 312 * T},
           {"bf16", 312 * T},
           {"int8", 624 * T}}}},
        {{"A100", "PCIE"},
         {"A100 80 GB PCIe",
          1.935 * T,
          {{"fp64", 19.5 * T},
           {"fp32", 19.5 * T},
           {"tf32", 156 * T},
           {"fp16", 312 * T},
           {"bf16", 312 * T},
           {"int8", 624 * T}}}},
        {{"A100"},
         {"A100 SXM4 80 GB",
          2.039 * T,
          {{"fp64", 19.5 * T},
           {"fp32", 19.5 * T},
           {"tf32", 156 * T},
           {"fp16", 312 * T},
           {"bf16", 312 * T},
           {"int8", 624 * T}}}},
        // L40S: GDDR6; no FP64 figure in the datasheet.
        {{"L40S"},
         {"L40S",
          0.864 * T,
          {{"fp32", 91.6 * T},
           {"tf32", 183 * T},
           {"fp16", 362.05 * T},
           {"bf16", 362.05 * T},
           {"fp8_e4m3", 733 * T},
           {"fp8_e5m2", 733 * T},
           {"int8", 733 * T}}}},
        // GeForce RTX 4090: GDDR6X (Ada whitepaper, FP32 accumulation).
        {{"RTX 4090"},
         {"GeForce RTX 4090",
          1.008 * T,
          {{"fp32", 82.6 * T},
           {"tf32", 82.6 * T},
           {"fp16", 165.2 * T},
           {"bf16", 165.2 * T},
           {"fp8_e4m3", 330.3 * T},
           {"fp8_e5m2", 330.3 * T},
           {"int8", 660.6 * T}}}},
        // B200 (HGX B200, per GPU): HBM3e; figures with sparsity halved. FP32 and FP64
        // are left out: NVIDIA's published figures changed between datasheet revisions.
        {{"B200"},
         {"B200",
          8 * T,
          {{"tf32", 1100 * T},
           {"fp16", 2250 * T},
           {"bf16", 2250 * T},
           {"fp8_e4m3", 4500 * T},
           {"fp8_e5m2", 4500 * T},
           {"int8", 4500 * T}}}},
    };
    return table;
}

std::string upper(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return result;
}

} // namespace

std::optional<Datasheet> findDatasheet(std::string_view deviceName) {
    const std::string name = upper(deviceName);
    // Grace superchips share names with their GPUs but not their memory: unknown here.
    if (name.find("GH200") != std::string::npos || name.find("GB200") != std::string::npos)
        return std::nullopt;
    for (const Entry& entry : entries()) {
        const bool all = std::all_of(
            entry.mustContain.begin(), entry.mustContain.end(),
            [&](const std::string& word) { return name.find(word) != std::string::npos; });
        if (all)
            return entry.sheet;
    }
    return std::nullopt;
}

} // namespace fpx::cuda
