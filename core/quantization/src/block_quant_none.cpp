// SPDX-License-Identifier: GPL-3.0-or-later
// Targets other than x86-64: the baseline block quantizers only.
#include "block_quant_loops.h"

namespace fpx::kernels {

const BlockQuantLoops* avx2BlockQuantLoops() {
    return nullptr;
}
const BlockQuantLoops* avx512BlockQuantLoops() {
    return nullptr;
}

} // namespace fpx::kernels
