// SPDX-License-Identifier: GPL-3.0-or-later
// tensorStatistics and tensorFileStatistics with a chosen copy of the loops, for tests that
// compare the copies.
#pragma once

#include "statistics_loops.h"

#include "fpx/data/tensor_file.h"

#include <optional>
#include <string>
#include <vector>

namespace fpx::tensor_file {

// The statistics of each view, as tensorStatistics gives them, through `loops`.
std::vector<TensorStatistics> tensorStatisticsWith(const std::vector<TensorView>& views,
                                                   unsigned threads, const StatisticsLoops& loops);

// tensorFileStatistics through `loops`.
std::optional<std::vector<std::optional<TensorStatistics>>>
tensorFileStatisticsWith(const TensorFile& file, std::string& error, unsigned threads,
                         const StatisticsLoops& loops);

} // namespace fpx::tensor_file
