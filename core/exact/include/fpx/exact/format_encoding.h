// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Which well-known encoding a format is, by its fields rather than its id: a custom "e5m10" is
// FP16 to every conversion path, and a renamed catalogue entry must not lose its hardware path.

#include "fpx/exact/format_spec.h"

namespace fpx {

// A signed binary float with exactly these fields, a hidden integer bit and subnormals at
// exponent field 0.
bool isBinaryFloat(const FormatSpec& format, int exponentBits, int fractionBits, int bias,
                   SpecialEncoding specials);

// IEEE binary16 (FP16): E5M10, bias 15, infinities and NaNs.
bool isFp16Encoding(const FormatSpec& format);

// bfloat16: E8M7, bias 127, infinities and NaNs (FP32's upper half).
bool isBf16Encoding(const FormatSpec& format);

} // namespace fpx
