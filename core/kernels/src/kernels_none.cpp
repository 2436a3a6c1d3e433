// SPDX-License-Identifier: GPL-3.0-or-later
// Targets other than x86-64: no AVX2/AVX-512 loop sets (the baseline loops still vectorise
// for the target's own vector unit, e.g. NEON on AArch64).
#include "loop_set.h"

namespace fpx::kernels {

const LoopSet* avx2Loops() {
    return nullptr;
}
const LoopSet* avx512Loops() {
    return nullptr;
}

} // namespace fpx::kernels
