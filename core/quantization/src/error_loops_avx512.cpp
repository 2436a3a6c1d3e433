// SPDX-License-Identifier: GPL-3.0-or-later
// The dequantization and error loops compiled for AVX-512.
#include "error_loops_body.h"

namespace fpx::kernels {

const ErrorLoops* avx512ErrorLoops() {
    static const ErrorLoops loops = makeErrorLoops("AVX-512");
    return &loops;
}

} // namespace fpx::kernels
