// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Error handling and ownership for the runtime API: every call is checked, and a failure
// becomes a CudaError exception inside the plugin, which run() turns into a result note or an
// unavailable reason. Nothing CUDA throws leaves the plugin.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace fpx::cuda {

// "cudaErrorMemoryAllocation: out of memory"
inline std::string errorText(cudaError_t status) {
    return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

class CudaError : public std::runtime_error {
  public:
    CudaError(std::string_view what, cudaError_t status)
        : std::runtime_error(std::string(what) + ": " + errorText(status)), status_(status) {}
    cudaError_t status() const { return status_; }

  private:
    cudaError_t status_;
};

inline void check(cudaError_t status, std::string_view what) {
    if (status != cudaSuccess)
        throw CudaError(what, status);
}

// A copy ordered on `stream`, waited for. (A plain cudaMemcpy runs on the legacy default
// stream, which does not order with non-blocking streams: a kernel there could read an
// upload that is still in flight.)
inline void copyOnStream(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                         cudaStream_t stream, std::string_view what) {
    check(cudaMemcpyAsync(dst, src, bytes, kind, stream), what);
    check(cudaStreamSynchronize(stream), what);
}

// Device memory, freed on destruction.
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes) { allocate(bytes); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
        }
        return *this;
    }

    void allocate(std::size_t bytes) {
        release();
        // At least 16 bytes so that every buffer is a valid, aligned kernel argument.
        check(cudaMalloc(&data_, bytes < 16 ? 16 : bytes), "cudaMalloc");
        bytes_ = bytes;
    }
    void release() {
        if (data_ != nullptr)
            cudaFree(data_); // errors here are the context's earlier errors: nothing to add
        data_ = nullptr;
        bytes_ = 0;
    }
    void* get() const { return data_; }
    template <typename T> T* as() const { return static_cast<T*>(data_); }
    std::size_t bytes() const { return bytes_; }

  private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

// A non-blocking stream on the current device.
class Stream {
  public:
    Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream"); }
    ~Stream() {
        if (stream_ != nullptr)
            cudaStreamDestroy(stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return stream_; }
    void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

  private:
    cudaStream_t stream_ = nullptr;
};

} // namespace fpx::cuda
