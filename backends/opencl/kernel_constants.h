// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The constants kernels.cl is compiled with — rounding modes, overflow policies, encode kinds,
// the breakpoint limit, the FMA chains — as OpenCL C build options ("-DFPX_RNE=0 …") made
// from the C++ enums and constants they stand for, so that the two cannot drift apart.
// kernels.cl refuses to compile without them.

#include <string>

namespace fpx::opencl {

// FMA loop: independent chains of vectors per work-item (kernels.cl unrolls exactly this many).
inline constexpr int kFmaChains = 8;

// "-DFPX_RNE=0 -DFPX_RNA=1 … -DFPX_FMA_CHAINS=8": the build options of every program.
std::string kernelConstantOptions();

} // namespace fpx::opencl
