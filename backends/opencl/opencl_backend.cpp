// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenCL benchmark backend (libfpx_backend_opencl.so): bulk conversions between FP32 and
// the formats OpenCL can handle — FP16 with the device's own vstore_half / vload_half, every
// other format with the core's branch-free element kernels translated to OpenCL C
// (kernels.cl) — and FMA throughput in FP32, FP64 (cl_khr_fp64) and FP16 (cl_khr_fp16).
//
// Every kernel is checked bit for bit against the exact core before it is timed, over the
// inputs every backend uses (bench/verification.h). The portable path for AMD, Intel and Apple
// GPUs; with pocl it runs on the CPU, in CI and in the tests. docs/architecture.md, "Backends and
// plugins".
//   opencl_paths    what runs for a format and direction, and the kernels' parameters
//   opencl_runner   the devices and one run over them
//   kernel_constants the enums' values kernels.cl is built with
#include "cl_support.h"
#include "opencl_paths.h"
#include "opencl_runner.h"

#include "fpx/bench/backend.h"

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

namespace fpx::opencl {

namespace {

using bench::BenchRequest;
using bench::BenchResult;
using bench::DeviceInfo;
using bench::Direction;
using bench::ProgressSink;
using bench::ResultSink;
using bench::Support;

// ---- the backend ---------------------------------------------------------------------------

class OpenClBackend final : public bench::Backend {
  public:
    OpenClBackend() {
        try {
            const std::vector<cl_platform_id> ids = platforms();
            if (ids.empty()) {
                reason_ = "no OpenCL platform is installed (clGetPlatformIDs found none)";
                return;
            }
            std::string platformNames;
            for (cl_platform_id platform : ids) {
                platformNames += (platformNames.empty() ? "" : ", ") +
                                 platformString(platform, CL_PLATFORM_NAME);
                for (cl_device_id id : devicesOf(platform)) {
                    try {
                        devices_.push_back(
                            describeDevice(platform, id, static_cast<int>(devices_.size())));
                    } catch (const ClError& e) {
                        skipped_ += std::string(skipped_.empty() ? "" : "; ") + e.what();
                    }
                }
            }
            if (devices_.empty())
                reason_ = "the OpenCL platforms (" + platformNames + ") have no usable devices" +
                          (skipped_.empty() ? std::string() : " (" + skipped_ + ")");
        } catch (const ClError& e) {
            devices_.clear();
            reason_ = e.code() == -1001
                          ? "no OpenCL platform is installed (" + std::string(e.what()) +
                                "); pocl-opencl-icd provides one that runs on the CPU"
                          : std::string("OpenCL does not work here: ") + e.what();
        } catch (const std::exception& e) {
            devices_.clear();
            reason_ = std::string("OpenCL does not work here: ") + e.what();
        }
    }

    std::string id() const override { return "opencl"; }
    std::string displayName() const override { return "OpenCL"; }
    std::string unavailableReason() const override { return reason_; }

    std::vector<DeviceInfo> devices() const override {
        std::vector<DeviceInfo> out;
        for (const Device& d : devices_)
            out.push_back(d.info);
        return out;
    }

    Support support(int device, const FormatSpec& format, Direction direction) const override {
        if (device < 0 || static_cast<std::size_t>(device) >= devices_.size())
            return Support::Unsupported;
        const ConversionPlan plan = planConversion(format, direction, {}, false);
        if (plan.paths.empty())
            return Support::Unsupported;
        return std::any_of(plan.paths.begin(), plan.paths.end(),
                           [](const ConversionPath& p) { return p.hardware; })
                   ? Support::Native
                   : Support::Emulated;
    }

    void run(const BenchRequest& request, const ResultSink& sink, const ProgressSink& progress,
             const std::atomic<bool>* cancel) override {
        if (!reason_.empty())
            return;
        try {
            runOnDevices(devices_, request, sink, progress, cancel);
        } catch (const Cancelled&) {
            // Stopped between measurements, as asked.
        } catch (const std::exception& e) {
            BenchResult r;
            r.backend = "opencl";
            r.note = std::string("the OpenCL run stopped: ") + e.what();
            try {
                if (sink)
                    sink(r);
            } catch (...) {
            }
        } catch (...) {
        }
    }

  private:
    std::vector<Device> devices_;
    std::string reason_;
    std::string skipped_; // devices that could not be described
};

} // namespace

} // namespace fpx::opencl

#define FPX_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

FPX_PLUGIN_EXPORT int fpx_backend_abi_version() {
    return fpx::bench::kBackendAbiVersion;
}

FPX_PLUGIN_EXPORT fpx::bench::Backend* fpx_create_backend() {
    try {
        return new fpx::opencl::OpenClBackend();
    } catch (...) {
        return nullptr;
    }
}
