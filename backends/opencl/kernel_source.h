// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace fpx::opencl {

// The OpenCL C source of kernels.cl, embedded at build time (kernel_source.cpp is generated).
extern const char* const kKernelSource;

} // namespace fpx::opencl
