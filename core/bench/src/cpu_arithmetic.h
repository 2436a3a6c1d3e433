// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fpx::bench {

// An arithmetic throughput loop the CPU can run: independent chains of FMA or dot-product
// instructions, long enough to hide their latency, on registers only.
struct ArithmeticKernel {
    std::string format;       // "fp64", "fp32", "fp16", "bf16", "int8"
    std::string path;         // "AVX-512 vfmadd231pd", "AVX512-BF16 vdpbf16ps" …
    double operationsPerCall; // FLOP (or integer OP) per call of run
    // Runs the loop once; the result is returned so that it cannot be optimised away.
    double (*run)();
};

// The kernels this CPU has, widest first per format.
std::vector<ArithmeticKernel> cpuArithmeticKernels();

} // namespace fpx::bench
