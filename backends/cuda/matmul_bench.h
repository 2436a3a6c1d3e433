// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <functional>
#include <string>

namespace fpx::cuda {

struct MatmulTarget {
    bench::DeviceInfo info;    // name, index and datasheet peaks
    int computeCapability = 0; // 90 for sm_90
    int multiProcessors = 1;
    cudaStream_t stream = nullptr;
};

// Square matrix multiplies with cuBLASLt, one per format (FP64, FP32, TF32, FP16, BF16, FP8
// E4M3, FP8 E5M2, INT8), each timed by the plan and reported as operations/s beside the
// datasheet dense peak. Formats the GPU or the library cannot do are reported with a note.
// `step` is called before each format with what is about to be measured. Never throws.
void runMatmulBench(const MatmulTarget& target, const bench::TimingPlan& plan,
                    const bench::ResultSink& sink, const std::atomic<bool>* cancel,
                    const std::function<void(const std::string&)>& step);

// The number of formats runMatmulBench measures (for progress).
int matmulCaseCount();

} // namespace fpx::cuda
