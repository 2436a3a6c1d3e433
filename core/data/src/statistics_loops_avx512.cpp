// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics loops compiled for AVX-512 (F, BW, VL, DQ).
#include "statistics_loops_body.h"

namespace fpx::tensor_file {

const StatisticsLoops* avx512StatisticsLoops() {
    static const StatisticsLoops loops = makeStatisticsLoops("AVX-512");
    return &loops;
}

} // namespace fpx::tensor_file
