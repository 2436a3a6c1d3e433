// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/measurement.h"
#include "fpx/format_spec.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace fpx::bench {

// Distribution of the random FP32 inputs, regenerated for every size so that branch
// predictors and memory compression cannot flatter a result.
enum class InputDistribution { Normal, Subnormal, Overflowing, WithNaN };

struct CpuResult {
    std::string name; // "fp32->fp8_e4m3" or "memcpy"
    std::size_t elements = 0;
    int threads = 1;
    Statistics time; // per pass over all elements
    double elementsPerSecond = 0;
    double bytesPerSecond = 0; // bytes read + written
    std::string path;          // "integer kernel", "exact core", "memcpy"
    bool verified = false;     // the path agreed with the exact core on a sample before timing
};

struct CpuBenchRequest {
    std::vector<FormatSpec> targets;
    std::vector<std::size_t> sizes = {1 << 14, 1 << 24}; // in cache, far beyond it
    int threads = 1;
    TimingPlan plan;
    InputDistribution distribution = InputDistribution::Normal;
};

// FP32 → each target (and memcpy of the same bytes, the ceiling) on the CPU.
std::vector<CpuResult> runCpuConversionBench(const CpuBenchRequest& request,
                                             const std::atomic<bool>* cancel = nullptr,
                                             const std::function<void(double)>& progress = {});

std::vector<float> randomInputs(std::size_t count, InputDistribution distribution,
                                std::uint64_t seed);

} // namespace fpx::bench
