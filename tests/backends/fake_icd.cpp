// SPDX-License-Identifier: GPL-3.0-or-later
// An OpenCL driver (an ICD, as the ocl-icd loader sees one) that breaks the way real drivers
// have been seen to break: the moment the loader asks it for its platforms it aborts (as pocl
// does on a machine without /sys), or, built with FPX_FAKE_ICD_HANGS, it never returns.
// Registered by a test through OCL_ICD_VENDORS=<a directory holding a .icd file that names
// this library>, it stands in for a broken driver without needing one.
//
// The loader dlopens the library, requires clGetPlatformInfo to resolve, and finds
// clIcdGetPlatformIDsKHR through clGetExtensionFunctionAddress; the OpenCL types are written
// out (cl_int = int32, cl_uint = uint32) so that no OpenCL headers are needed.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

[[noreturn]] void breakDown() {
#ifdef FPX_FAKE_ICD_HANGS
    for (;;)
        pause(); // until the probe's parent kills it (or the probe's own alarm fires)
#else
    std::abort();
#endif
}

} // namespace

#define FPX_FAKE_ICD_EXPORT extern "C" __attribute__((visibility("default")))

FPX_FAKE_ICD_EXPORT std::int32_t clIcdGetPlatformIDsKHR(std::uint32_t, void**, std::uint32_t*) {
    breakDown();
}

FPX_FAKE_ICD_EXPORT std::int32_t clGetPlatformInfo(void*, std::uint32_t, std::size_t, void*,
                                                   std::size_t*) {
    breakDown();
}

FPX_FAKE_ICD_EXPORT void* clGetExtensionFunctionAddress(const char* name) {
    return std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0
               ? reinterpret_cast<void*>(&clIcdGetPlatformIDsKHR)
               : nullptr;
}
