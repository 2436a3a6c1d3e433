// SPDX-License-Identifier: GPL-3.0-or-later
// Targets other than x86-64: the baseline error loops only.
#include "error_loops.h"

namespace fpx::kernels {

const ErrorLoops* avx2ErrorLoops() {
    return nullptr;
}
const ErrorLoops* avx512ErrorLoops() {
    return nullptr;
}

} // namespace fpx::kernels
