// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/tensor_quantizer.h"

namespace fpx {

QuantizerPath quantizerPath(const BlockFormat&, const TensorView&) {
    return QuantizerPath{"exact core", false};
}

std::optional<QuantizedTensor> quantizeTensor(const BlockFormat& format, const TensorView& input,
                                              std::string& error, const QuantizeRun& run) {
    return quantizeExactly(format, input, error, run.progress);
}

} // namespace fpx
