// SPDX-License-Identifier: GPL-3.0-or-later
#include "cl_support.h"

#include <algorithm>
#include <sstream>

namespace fpx::opencl {

namespace {

const char* errorName(cl_int code) {
    switch (code) {
    case CL_SUCCESS:
        return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND:
        return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE:
        return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE:
        return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
        return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
        return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE:
        return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_MEM_COPY_OVERLAP:
        return "CL_MEM_COPY_OVERLAP";
    case CL_BUILD_PROGRAM_FAILURE:
        return "CL_BUILD_PROGRAM_FAILURE";
    case CL_MAP_FAILURE:
        return "CL_MAP_FAILURE";
    case CL_INVALID_VALUE:
        return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE_TYPE:
        return "CL_INVALID_DEVICE_TYPE";
    case CL_INVALID_PLATFORM:
        return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE:
        return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT:
        return "CL_INVALID_CONTEXT";
    case CL_INVALID_QUEUE_PROPERTIES:
        return "CL_INVALID_QUEUE_PROPERTIES";
    case CL_INVALID_COMMAND_QUEUE:
        return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT:
        return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BUILD_OPTIONS:
        return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM:
        return "CL_INVALID_PROGRAM";
    case CL_INVALID_PROGRAM_EXECUTABLE:
        return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME:
        return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL:
        return "CL_INVALID_KERNEL";
    case CL_INVALID_ARG_INDEX:
        return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE:
        return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE:
        return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS:
        return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_DIMENSION:
        return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
        return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_OFFSET:
        return "CL_INVALID_GLOBAL_OFFSET";
    case CL_INVALID_EVENT_WAIT_LIST:
        return "CL_INVALID_EVENT_WAIT_LIST";
    case CL_INVALID_OPERATION:
        return "CL_INVALID_OPERATION";
    case CL_INVALID_BUFFER_SIZE:
        return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "unknown OpenCL error";
    }
}

} // namespace

std::string errorText(cl_int code) {
    return std::string(errorName(code)) + " (" + std::to_string(code) + ")";
}

std::vector<cl_platform_id> platforms() {
    cl_uint count = 0;
    check(clGetPlatformIDs(0, nullptr, &count), "clGetPlatformIDs");
    std::vector<cl_platform_id> ids(count);
    if (count > 0)
        check(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
    return ids;
}

std::vector<cl_device_id> devicesOf(cl_platform_id platform) {
    cl_uint count = 0;
    const cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
    if (status == CL_DEVICE_NOT_FOUND || count == 0)
        return {};
    check(status, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(count);
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr),
          "clGetDeviceIDs");
    return ids;
}

namespace {

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\0' || text.back() == ' ' || text.back() == '\n'))
        text.pop_back();
    const std::size_t first = text.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : text.substr(first);
}

} // namespace

std::string platformString(cl_platform_id platform, cl_platform_info what) {
    std::size_t size = 0;
    check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
    std::string text(size, '\0');
    check(clGetPlatformInfo(platform, what, size, text.data(), nullptr), "clGetPlatformInfo");
    return trimmed(std::move(text));
}

std::string deviceString(cl_device_id device, cl_device_info what) {
    std::size_t size = 0;
    check(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo");
    std::string text(size, '\0');
    check(clGetDeviceInfo(device, what, size, text.data(), nullptr), "clGetDeviceInfo");
    return trimmed(std::move(text));
}

bool hasExtension(cl_device_id device, const std::string& extension) {
    std::istringstream words(deviceString(device, CL_DEVICE_EXTENSIONS));
    std::string word;
    while (words >> word)
        if (word == extension)
            return true;
    return false;
}

Program buildProgram(cl_context context, cl_device_id device, const char* source,
                     const std::string& options) {
    cl_int status = CL_SUCCESS;
    Program program(clCreateProgramWithSource(context, 1, &source, nullptr, &status));
    check(status, "clCreateProgramWithSource");
    status = clBuildProgram(program.get(), 1, &device, options.c_str(), nullptr, nullptr);
    if (status != CL_SUCCESS) {
        std::string log;
        std::size_t size = 0;
        if (clGetProgramBuildInfo(program.get(), device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) ==
                CL_SUCCESS &&
            size > 1) {
            log.resize(size);
            if (clGetProgramBuildInfo(program.get(), device, CL_PROGRAM_BUILD_LOG, size, log.data(),
                                      nullptr) != CL_SUCCESS)
                log.clear();
        }
        log = trimmed(std::move(log));
        constexpr std::size_t kLogLimit = 600;
        if (log.size() > kLogLimit)
            log = log.substr(0, kLogLimit) + " …";
        throw ClError("clBuildProgram" + (log.empty() ? std::string() : " (" + log + ")"), status);
    }
    return program;
}

Kernel createKernel(cl_program program, const char* name) {
    cl_int status = CL_SUCCESS;
    Kernel kernel(clCreateKernel(program, name, &status));
    check(status, (std::string("clCreateKernel ") + name).c_str());
    return kernel;
}

Buffer createBuffer(cl_context context, cl_mem_flags flags, std::size_t bytes) {
    cl_int status = CL_SUCCESS;
    Buffer buffer(
        clCreateBuffer(context, flags, std::max<std::size_t>(bytes, 4), nullptr, &status));
    check(status, "clCreateBuffer");
    return buffer;
}

void enqueue1d(cl_command_queue queue, cl_kernel kernel, std::size_t count) {
    constexpr std::size_t kGranule = 256;
    const std::size_t global =
        std::max<std::size_t>(kGranule, (count + kGranule - 1) / kGranule * kGranule);
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
}

} // namespace fpx::opencl
