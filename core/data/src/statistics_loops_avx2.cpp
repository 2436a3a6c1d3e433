// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics loops compiled for AVX2.
#include "statistics_loops_body.h"

namespace fpx::tensor_file {

const StatisticsLoops* avx2StatisticsLoops() {
    static const StatisticsLoops loops = makeStatisticsLoops("AVX2");
    return &loops;
}

} // namespace fpx::tensor_file
