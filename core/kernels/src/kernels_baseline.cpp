// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk loops for the target's baseline instruction set (x86-64: SSE2).
#include "make_loop_set.h"

namespace fpx::kernels {

const LoopSet& baselineLoops() {
    static const LoopSet set = makeLoopSet("baseline");
    return set;
}

} // namespace fpx::kernels
