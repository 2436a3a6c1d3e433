// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/quantization/block_quantization.h"

#include <optional>
#include <string>
#include <vector>

namespace fpx {

// How a tensor was quantized, for labels and reports.
struct QuantizerPath {
    std::string name; // "MX blocks (AVX-512)", "NF4 thresholds (AVX2)", "exact core" …
    bool fast = false;
};

struct QuantizeRun {
    int threads = 0; // 0: every hardware thread
    QuantizeProgress progress;
};

// The path quantizeTensor takes for this format and input on this CPU.
QuantizerPath quantizerPath(const BlockFormat& format, const TensorView& input);

// Quantizes with the fastest path that gives quantizeExactly's answer bit for bit (the fast
// kernels are proved in docs/proofs.md, "Block quantizers" and tested against the exact core); the
// exact core where no fast path applies. Same result and errors as quantizeExactly.
std::optional<QuantizedTensor> quantizeTensor(const BlockFormat& format, const TensorView& input,
                                              std::string& error, const QuantizeRun& run = {});

// quantizeTensor into `out`, reusing its buffers where they have the size already (a
// benchmark or a sweep that quantizes again and again need not allocate and clear them each
// time). false with `error` when quantizeTensor would give nullopt (`out` is then unspecified).
bool quantizeTensorInto(const BlockFormat& format, const TensorView& input, QuantizedTensor& out,
                        std::string& error, const QuantizeRun& run = {});

// How many times the fast path reads the tensor: 2 where a tensor-wide amax comes first
// (NVFP4's tensor scale, integers with one scale for the whole tensor), else 1.
int quantizerPasses(const BlockFormat& format, const TensorView& input);

// A quantizer's traffic with nothing worked out, on its threads, chunks and instruction set:
// passes − 1 reads of the tensor (its amax), then a read with one byte stored per element
// into `codes` (sized here), in the order the quantizer's last pass takes. The most a
// quantizer reading the tensor that many times can reach on this machine: fpx bench times it
// beside each quantizer.
void bareQuantizerTraffic(const TensorView& input, int passes, std::vector<std::uint8_t>& codes,
                          const QuantizeRun& run = {});

} // namespace fpx
