// SPDX-License-Identifier: GPL-3.0-or-later
// The block quantizers compiled for baseline.
#include "block_quant_body.h"

namespace fpx::kernels {

const BlockQuantLoops& baselineBlockQuantLoops() {
    static const BlockQuantLoops loops = makeBlockQuantLoops("baseline");
    return loops;
}

} // namespace fpx::kernels
