// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace fpx::kernels {

// How a loop writes its output: ordinary stores, or non-temporal (streaming) stores of whole
// cache lines, for outputs far larger than the cache. A streaming store neither reads the line
// first (read-for-ownership) nor keeps it in the cache; call streamingFence() (x86_hardware.h)
// once after the last one, before the output is handed on.
enum class OutputStores { Cached, Streaming };

} // namespace fpx::kernels
