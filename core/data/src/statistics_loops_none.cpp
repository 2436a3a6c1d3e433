// SPDX-License-Identifier: GPL-3.0-or-later
// Targets other than x86-64: the baseline statistics loops only.
#include "statistics_loops.h"

namespace fpx::tensor_file {

const StatisticsLoops* avx2StatisticsLoops() {
    return nullptr;
}
const StatisticsLoops* avx512StatisticsLoops() {
    return nullptr;
}

} // namespace fpx::tensor_file
