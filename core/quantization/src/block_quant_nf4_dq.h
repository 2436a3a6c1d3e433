// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/quantization/block_quantization.h"

namespace fpx::kernels {

// nf4_dq's double quantization of the block absmaxes, after the NF4 blocks: `quantized` holds
// the FP32 absmax bits of every block (all finite) in scaleCodes; they are replaced by the 8-bit
// codes, and the offset (tensorScale) and the group scales are set, as quantizeExactly does
// (docs/behaviour.md, "Block formats and quantization"): offset = FP32(mean of the absmaxes), group
// scale = FP32(max |a − offset| / 127) per 256 blocks, code = RNE((a − offset) / group scale)
// within ±127. `levelFormat` is the format of the codes (format.scale).
void doubleQuantizeAbsmaxes(QuantizedTensor& quantized, const FormatSpec& levelFormat);

} // namespace fpx::kernels
