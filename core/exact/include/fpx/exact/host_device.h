// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Marks the few functions that CUDA device code shares with the host (the element
// conversions and the stochastic-rounding generator): __host__ __device__ under nvcc,
// nothing elsewhere.
#if defined(__CUDACC__)
#define FPX_HOST_DEVICE __host__ __device__
#else
#define FPX_HOST_DEVICE
#endif
