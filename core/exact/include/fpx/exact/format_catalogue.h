// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// The built-in formats, in display order (widest float first, then the 8-bit and smaller
// floats, then the quantization formats). Immutable data.
const std::vector<FormatSpec>& builtinFormats();

// Result of looking a format up by name: the spec, or a message saying what was wrong.
struct FormatLookup {
    std::optional<FormatSpec> spec;
    std::string error;
    explicit operator bool() const { return spec.has_value(); }
};

// A built-in id or alias (case-insensitive; "torch.", "np.", "jnp.", "ml_dtypes." prefixes
// are ignored), or a custom spec:
//   e<E>m<M>[b<bias>][fn|fnuz|fnu|f]   binary float; E ≤ 15, M ≤ 112, at most 128 bits
//       (none) IEEE: ±∞ and NaNs at the all-ones exponent, default bias 2^(E−1) − 1
//       fn     no ∞; the all-ones code is NaN (OCP E4M3)
//       fnuz   no ∞, no −0; 100…0 is NaN; default bias 2^(E−1)
//       fnu    unsigned, the all-ones code is NaN; with M = 0 every code is a power of two (E8M0)
//       f      finite only: no ∞, no NaN (OCP FP6/FP4 style)
//   int<N>, uint<N>                    integer quantization, N ≤ 64 (uint ≤ 63), scale 1/qmax
//   binary<K>p<P><s|u><e|f>            IEEE P3109, K = 3 … 16
//   posit<n>, posit<n>es<es>, posit<n,es>   posits, n = 3 … 32, es ≤ 5 (posit<n>: es = 2)
FormatLookup findFormat(std::string_view name);

// The two built-ins the core carries values in: FP32 (tensors, kernels, scales) and FP64
// (doubles: plots, parameters, statistics).
const FormatSpec& fp32Spec();
const FormatSpec& fp64Spec();

// Parses a comma-separated list of names; on error names the entry that failed.
struct FormatListLookup {
    std::vector<FormatSpec> specs;
    std::string error;
};
FormatListLookup findFormats(std::string_view commaSeparated);

// The default scale of an integer format: 1 / qmax, so that ±1.0 spans the range.
ExactValue defaultIntegerScale(int bits, bool isSigned);

} // namespace fpx
