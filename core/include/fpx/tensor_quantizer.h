// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/block_quantization.h"

#include <optional>
#include <string>

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
// kernels are proved in docs/design.md and tested against the exact core); the exact core
// where no fast path applies. Same result and errors as quantizeExactly.
std::optional<QuantizedTensor> quantizeTensor(const BlockFormat& format, const TensorView& input,
                                              std::string& error, const QuantizeRun& run = {});

// quantizeTensor into `out`, reusing its buffers where they have the size already (a
// benchmark or a sweep that quantizes again and again need not allocate and clear them each
// time). false with `error` when quantizeTensor would give nullopt (`out` is then unspecified).
bool quantizeTensorInto(const BlockFormat& format, const TensorView& input, QuantizedTensor& out,
                        std::string& error, const QuantizeRun& run = {});

} // namespace fpx
