// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk loops compiled for AVX2 (variable shifts vpsrlvd make the subnormal path vector).
#include "make_loop_set.h"

namespace fpx::kernels {

const LoopSet* avx2Loops() {
    static const LoopSet set = makeLoopSet("AVX2");
    return &set;
}

} // namespace fpx::kernels
