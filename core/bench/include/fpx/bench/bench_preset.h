// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::bench {

// What a run measures as a whole: everything (the default of `fpx bench` and the Benchmarks
// page), or a run a class watches in well under a minute: the four conversions deep learning
// uses most, FP32 → BF16, FP16, FP8 E4M3 and FP4 E2M1 (the elements of MXFP4 and NVFP4), in
// cache on one thread, shown by their fastest bit-exact path.
enum class BenchPreset { Full, Class };

std::optional<BenchPreset> parseBenchPreset(std::string_view text); // "full", "class"
std::string_view benchPresetId(BenchPreset preset);

// The class preset's request: those four formats, encode only, 32 Ki elements, one thread,
// 0.1 s a measurement, no arithmetic. The sums and quantizers are not part of it.
BenchRequest classBenchRequest();
// The format ids of the class preset, in the order it shows them.
std::vector<std::string> classBenchFormats();

// Of every conversion measured (one backend, device, format, direction, size and thread
// count), the fastest path that agreed bit for bit with the exact core; the copies as they
// are; the rest dropped. In the order of `results`.
std::vector<BenchResult> fastestExactPaths(const std::vector<BenchResult>& results);

// A conversion as a class reads it: "FP32 → FP8 E4M3, AVX-512" (the instruction set in the
// path's brackets, else its first word: "F16C"); a copy: "FP32 copy (memcpy)".
std::string readableLabel(const BenchResult& result);

} // namespace fpx::bench
