// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk loops one element at a time (compiled with -fno-tree-vectorize): the same
// arithmetic as the vector loops, to show what vectorisation adds.
#include "make_loop_set.h"

namespace fpx::kernels {

const LoopSet& scalarLoops() {
    static const LoopSet set = makeLoopSet("scalar");
    return set;
}

} // namespace fpx::kernels
