// SPDX-License-Identifier: GPL-3.0-or-later
// The block quantizers compiled for AVX-512.
#include "block_quant_body.h"

namespace fpx::kernels {

const BlockQuantLoops* avx512BlockQuantLoops() {
    static const BlockQuantLoops loops = makeBlockQuantLoops("AVX-512");
    return &loops;
}

} // namespace fpx::kernels
