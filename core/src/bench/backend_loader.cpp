// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/backend.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fpx::bench {

namespace {

// A backend that lives in a plugin: forwards every call, and unloads the plugin only after
// the backend object (whose code is in it) is gone.
class PluginBackend final : public Backend {
  public:
    PluginBackend(void* handle, Backend* inner) : handle_(handle), inner_(inner) {}
    ~PluginBackend() override {
        inner_.reset();
        dlclose(handle_);
    }
    PluginBackend(const PluginBackend&) = delete;
    PluginBackend& operator=(const PluginBackend&) = delete;

    std::string id() const override { return inner_->id(); }
    std::string displayName() const override { return inner_->displayName(); }
    std::string unavailableReason() const override { return inner_->unavailableReason(); }
    std::vector<DeviceInfo> devices() const override { return inner_->devices(); }
    Support support(int device, const FormatSpec& format, Direction direction) const override {
        return inner_->support(device, format, direction);
    }
    void run(const BenchRequest& request, const ResultSink& sink, const ProgressSink& progress,
             const std::atomic<bool>* cancel) override {
        inner_->run(request, sink, progress, cancel);
    }

  private:
    void* handle_;
    std::unique_ptr<Backend> inner_;
};

// $FPX_BACKEND_DIR, else a directory relative to the executable, so that fpx finds its plugins
// wherever it was built or installed (any prefix, or a .deb unpacked anywhere):
//   build tree   build/bin/fpx       build/lib/libfpx_backend_<id>.so
//   installed    PREFIX/bin/fpx      PREFIX/lib/fpx/libfpx_backend_<id>.so (the libdir CMake's
//                                    GNUInstallDirs chose: FPX_PLUGIN_DIR_FROM_BINDIR)
// The first that holds a plugin wins. Where none does, the installed one if it exists, so that
// "not built (no …)" names the place where a plugin would be looked for.
std::filesystem::path pluginDirectory() {
    if (const char* dir = std::getenv("FPX_BACKEND_DIR"); dir && *dir)
        return dir;
    std::error_code error;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error)
        return {};
    const std::filesystem::path bin = exe.parent_path();
    const std::filesystem::path buildTree = bin.parent_path() / "lib";
    const std::filesystem::path installed = (bin / FPX_PLUGIN_DIR_FROM_BINDIR).lexically_normal();
    const auto holdsPlugin = [](const std::filesystem::path& dir) {
        std::error_code ignored;
        for (auto it = std::filesystem::directory_iterator(dir, ignored);
             it != std::filesystem::directory_iterator(); it.increment(ignored)) {
            const std::string name = it->path().filename().string();
            if (name.starts_with("libfpx_backend_") && name.ends_with(".so"))
                return true;
        }
        return false;
    };
    for (const std::filesystem::path& dir : {buildTree, installed})
        if (holdsPlugin(dir))
            return dir;
    return std::filesystem::is_directory(installed, error) ? installed : buildTree;
}

} // namespace

LoadedBackends loadBackends() {
    LoadedBackends loaded;
    loaded.backends.push_back(createCpuBackend());
    const std::filesystem::path dir = pluginDirectory();
    for (const char* id : {"cuda", "opencl"}) {
        const std::filesystem::path file = dir / (std::string("libfpx_backend_") + id + ".so");
        std::error_code error;
        if (dir.empty() || !std::filesystem::exists(file, error)) {
            loaded.problems.push_back(std::string(id) + ": not built (no " + file.string() + ")");
            continue;
        }
        // RTLD_LOCAL: the plugin's own copy of the core stays private to it.
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            loaded.problems.push_back(std::string(id) + ": " + (why ? why : "cannot load"));
            continue;
        }
        using Version = int (*)();
        using Create = Backend* (*)();
        auto version = reinterpret_cast<Version>(dlsym(handle, "fpx_backend_abi_version"));
        auto create = reinterpret_cast<Create>(dlsym(handle, "fpx_create_backend"));
        if (!version || !create || version() != kBackendAbiVersion) {
            loaded.problems.push_back(std::string(id) + ": " + file.string() +
                                      " is not a plugin of this fpx version");
            dlclose(handle);
            continue;
        }
        Backend* backend = nullptr;
        try {
            backend = create();
        } catch (const std::exception& e) {
            loaded.problems.push_back(std::string(id) + ": " + e.what());
        }
        if (!backend) {
            dlclose(handle);
            continue;
        }
        loaded.backends.push_back(std::make_unique<PluginBackend>(handle, backend));
    }
    return loaded;
}

} // namespace fpx::bench
