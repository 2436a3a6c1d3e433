// SPDX-License-Identifier: GPL-3.0-or-later
// The dequantization and error loops compiled for baseline, and the choice among the copies.
#include "error_loops_body.h"

#include "fpx/kernels/x86_hardware.h"

namespace fpx::kernels {

const ErrorLoops& baselineErrorLoops() {
    static const ErrorLoops loops = makeErrorLoops("baseline");
    return loops;
}

const ErrorLoops& fastestErrorLoops() {
    if (hasAvx512())
        if (const ErrorLoops* loops = avx512ErrorLoops())
            return *loops;
    if (hasAvx2())
        if (const ErrorLoops* loops = avx2ErrorLoops())
            return *loops;
    return baselineErrorLoops();
}

} // namespace fpx::kernels
