// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/backend.h"

#include <filesystem>
#include <string>

namespace fpx::bench {

// One backend plugin opened with dlopen. fpx itself (loadBackends) and fpx-backend-probe
// (runBackendProbe) both open plugins through these two steps, so that the probe runs exactly
// the code fpx would run next, and says which step a driver broke in.
struct PluginLibrary {
    void* handle = nullptr;         // null when the library did not open (see problem)
    Backend* (*create)() = nullptr; // fpx_create_backend
    Backend* backend = nullptr;     // once created; delete it before dlclose(handle)
    std::string problem;            // why not: "… is not a plugin of this fpx version"
};

// Opens `file` (RTLD_NOW | RTLD_LOCAL) and checks its interface version. Loading pulls in the
// driver's libraries (libOpenCL, libcudart) but does not call them yet.
PluginLibrary openPlugin(const std::filesystem::path& file);

// Creates the plugin's backend: where a plugin first talks to its driver (the OpenCL plugin
// lists platforms and devices here). On failure the library is closed and `problem` says why.
void createBackend(PluginLibrary& plugin);

} // namespace fpx::bench
