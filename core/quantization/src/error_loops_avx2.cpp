// SPDX-License-Identifier: GPL-3.0-or-later
// The dequantization and error loops compiled for AVX2.
#include "error_loops_body.h"

namespace fpx::kernels {

const ErrorLoops* avx2ErrorLoops() {
    static const ErrorLoops loops = makeErrorLoops("AVX2");
    return &loops;
}

} // namespace fpx::kernels
