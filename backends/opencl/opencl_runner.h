// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One OpenCL benchmark run over the selected devices: per device a context, the kernels built
// with the host's constants, then per size the copy ceiling and every conversion path
// (verified against the exact core first, bench/verification.h), then FMA throughput.

#include "cl_support.h"

#include "fpx/bench/backend.h"

#include <atomic>
#include <vector>

namespace fpx::opencl {

struct Device {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    bench::DeviceInfo info;
    bool fp16 = false;
    bool fp64 = false;
    cl_ulong maxAllocation = 0;
    cl_ulong globalMemory = 0;
};

// Throws ClError when the device cannot be queried.
Device describeDevice(cl_platform_id platform, cl_device_id id, int index);

// Thrown out of runOnDevices when `cancel` became true: stopped between measurements.
struct Cancelled {};

// Runs the request on the devices it selects (all when it names none), handing each result to
// `sink`. Failures of a device or a size become results with a note.
void runOnDevices(const std::vector<Device>& devices, const bench::BenchRequest& request,
                  const bench::ResultSink& sink, const bench::ProgressSink& progress,
                  const std::atomic<bool>* cancel);

} // namespace fpx::opencl
