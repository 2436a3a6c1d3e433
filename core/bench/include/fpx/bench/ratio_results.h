// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/accumulation_bench.h"
#include "fpx/bench/backend.h"
#include "fpx/bench/quantization_bench.h"

#include <cstddef>
#include <vector>

namespace fpx::bench {

// The CPU's ratios as BenchResults, so that they reach the result files (result_io.h), saved
// runs and the Benchmarks page's comparison by the path conversions take. Each row keeps what
// fpx bench prints of it: its ratio, goal, reference and, for a quantizer, passes and the bare
// loop's ratio; throughput() over the ceiling is the speed against the reference, in bytes/s
// like a conversion's:
//   Accumulate    format: the accumulator ("fp16"; "exact" for the superaccumulator),
//                 workload: the terms' distribution ("uniform:0:1"), one thread;
//                 bytes/s: the FP32 terms read; ceiling: the reference's time over the same
//                 terms (the plain float loop or memcpy), so throughput / ceiling = ratio.
//   Quantize      format: the block format ("mxfp4"), workload "normal"; bytes/s and the
//                 ceiling are the quantizer's and memcpy's (quantization_bench.h).
//   QuantizeFile  format: the file check's, bytes/s: the file's bytes over load + quantize;
//                 ceiling: over the read; ratio: load + quantize time / read time.
// `cpu` names the device. A row cancelled or failed before it was timed has no figures and is
// left out, as a backend leaves out a conversion it did not time.
std::vector<BenchResult> accumulationResults(const std::vector<AccumulationBenchRow>& rows,
                                             std::size_t terms, const DeviceInfo& cpu);
std::vector<BenchResult> quantizationResults(const QuantizationBenchReport& report,
                                             const DeviceInfo& cpu);

} // namespace fpx::bench
