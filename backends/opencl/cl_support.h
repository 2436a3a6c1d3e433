// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Thin C++ over the OpenCL 1.2 C API for the OpenCL backend: error text, owning handles and
// typed info queries. Every failure becomes a ClError carrying the call and the error name, so
// the backend can turn it into a result note instead of letting it escape the plugin.

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fpx::opencl {

// "CL_OUT_OF_RESOURCES (-5)"
std::string errorText(cl_int code);

class ClError : public std::runtime_error {
  public:
    ClError(const std::string& what, cl_int code)
        : std::runtime_error(what + ": " + errorText(code)), code_(code) {}
    cl_int code() const { return code_; }

  private:
    cl_int code_;
};

inline void check(cl_int code, const char* what) {
    if (code != CL_SUCCESS)
        throw ClError(what, code);
}

// An owning OpenCL handle, released with its clRelease* function.
template <typename T, cl_int (*Release)(T)> class Handle {
  public:
    Handle() = default;
    explicit Handle(T handle) : handle_(handle) {}
    ~Handle() { reset(); }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    void reset() {
        if (handle_ != nullptr)
            Release(handle_);
        handle_ = nullptr;
    }
    T get() const { return handle_; }
    explicit operator bool() const { return handle_ != nullptr; }

  private:
    T handle_ = nullptr;
};

using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;
using Buffer = Handle<cl_mem, clReleaseMemObject>;

std::vector<cl_platform_id> platforms(); // throws ClError (CL_PLATFORM_NOT_FOUND_KHR …)
std::vector<cl_device_id> devicesOf(cl_platform_id platform); // empty when it has none

std::string platformString(cl_platform_id platform, cl_platform_info what);
std::string deviceString(cl_device_id device, cl_device_info what);

template <typename T> T deviceValue(cl_device_id device, cl_device_info what) {
    T value{};
    check(clGetDeviceInfo(device, what, sizeof(T), &value, nullptr), "clGetDeviceInfo");
    return value;
}

bool hasExtension(cl_device_id device, const std::string& extension);

// Builds `source` for one device; on failure throws ClError whose text ends with the build
// log (shortened).
Program buildProgram(cl_context context, cl_device_id device, const char* source,
                     const std::string& options);

Kernel createKernel(cl_program program, const char* name);

// Sets the kernel's arguments in order: each is passed by value (sizeof) except cl_mem
// handles, which are passed as handles.
template <typename... Args> void setArgs(cl_kernel kernel, const Args&... args) {
    cl_uint index = 0;
    (check(clSetKernelArg(kernel, index++, sizeof(Args), &args), "clSetKernelArg"), ...);
}

Buffer createBuffer(cl_context context, cl_mem_flags flags, std::size_t bytes);

// One-dimensional launch of `count` work-items, rounded up to a multiple of 256: the kernels
// have no bounds check, so every buffer must hold the rounded-up count.
void enqueue1d(cl_command_queue queue, cl_kernel kernel, std::size_t count);

} // namespace fpx::opencl
