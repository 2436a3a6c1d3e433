// SPDX-License-Identifier: GPL-3.0-or-later
// The block quantizers compiled for AVX2.
#include "block_quant_body.h"

namespace fpx::kernels {

const BlockQuantLoops* avx2BlockQuantLoops() {
    static const BlockQuantLoops loops = makeBlockQuantLoops("AVX2");
    return &loops;
}

} // namespace fpx::kernels
