// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk loops compiled for AVX-512 (F, BW, VL, DQ): 16 elements per instruction, mask
// registers for the selects, vpmullq for the stochastic-rounding generator.
#include "make_loop_set.h"

namespace fpx::kernels {

const LoopSet* avx512Loops() {
    static const LoopSet set = makeLoopSet("AVX-512");
    return &set;
}

} // namespace fpx::kernels
