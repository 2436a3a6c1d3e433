// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fpx::cuda {

// Vendor datasheet figures for one GPU model. Peaks are DENSE (no 2:4 structured sparsity),
// in operations/s, keyed by format id as in DeviceInfo::datasheetPeaks.
struct Datasheet {
    std::string product;  // "H100 SXM5 80 GB"
    double bandwidth = 0; // bytes/s of device memory
    std::vector<std::pair<std::string, double>> peaks;
};

// The datasheet of the model named by cudaDeviceProp::name ("NVIDIA H100 80GB HBM3",
// "NVIDIA A100-SXM4-40GB" …), matched case-insensitively; nullopt when unknown.
std::optional<Datasheet> findDatasheet(std::string_view deviceName);

} // namespace fpx::cuda
