// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/backend.h"

#include "fpx/bench/backend_probe.h"
#include "plugin_library.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

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

// A plugin left out because its probe did not come back cleanly: listed, with why, and never
// run. Its library is not loaded in this process at all.
class UnavailableBackend final : public Backend {
  public:
    UnavailableBackend(std::string id, std::string displayName, std::string reason)
        : id_(std::move(id)), displayName_(std::move(displayName)), reason_(std::move(reason)) {}
    std::string id() const override { return id_; }
    std::string displayName() const override { return displayName_; }
    std::string unavailableReason() const override { return reason_; }
    std::vector<DeviceInfo> devices() const override { return {}; }
    Support support(int, const FormatSpec&, Direction) const override {
        return Support::Unsupported;
    }
    void run(const BenchRequest&, const ResultSink&, const ProgressSink&,
             const std::atomic<bool>*) override {}

  private:
    std::string id_, displayName_, reason_;
};

struct PluginName {
    std::string_view id;
    std::string_view displayName; // names the driver before the plugin can say it itself
};
constexpr std::array<PluginName, 2> kPlugins{{{"cuda", "CUDA"}, {"opencl", "OpenCL"}}};

// Loads `plugins` (in kPlugins order), each probed in a child process first (see
// fpx/bench/backend_probe.h): a plugin whose driver crashes or hangs there is reported
// unavailable and never loaded here. The probes run side by side, so a hung driver costs one
// time limit, not one per plugin.
void loadPlugins(const std::vector<PluginName>& plugins, LoadedBackends& loaded) {
    const std::filesystem::path dir = pluginDirectory();
    std::vector<PluginName> present;
    std::vector<PluginToProbe> toProbe;
    for (const PluginName& plugin : plugins) {
        const std::filesystem::path file =
            dir / (std::string("libfpx_backend_") + std::string(plugin.id) + ".so");
        std::error_code error;
        if (dir.empty() || !std::filesystem::exists(file, error)) {
            loaded.problems.push_back(std::string(plugin.id) + ": not built (no " + file.string() +
                                      ")");
            continue;
        }
        present.push_back(plugin);
        toProbe.push_back({std::string(plugin.displayName), file});
    }
    if (present.empty())
        return;
    const std::vector<ProbeVerdict> verdicts =
        probePlugins(toProbe, probeExecutable(), probeTimeout());
    for (std::size_t i = 0; i < present.size(); ++i) {
        const std::string id(present[i].id);
        if (!verdicts[i].passed) {
            loaded.backends.push_back(std::make_unique<UnavailableBackend>(
                id, std::string(present[i].displayName), verdicts[i].reason));
            continue;
        }
        // A clean probe: now the plugin is loaded here. One that did not load in the probe
        // either (not a plugin, a missing library) passed too, as it broke nothing; it fails
        // again here, and that failure, in the same words, becomes its problem.
        PluginLibrary plugin = openPlugin(toProbe[i].file);
        createBackend(plugin);
        if (!plugin.backend) {
            loaded.problems.push_back(id + ": " + plugin.problem);
            continue;
        }
        loaded.backends.push_back(std::make_unique<PluginBackend>(plugin.handle, plugin.backend));
    }
}

} // namespace

PluginLibrary openPlugin(const std::filesystem::path& file) {
    PluginLibrary plugin;
    // RTLD_LOCAL: the plugin's own copy of the core stays private to it.
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        plugin.problem = why ? why : "cannot load";
        return plugin;
    }
    using Version = int (*)();
    using Create = Backend* (*)();
    auto version = reinterpret_cast<Version>(dlsym(handle, "fpx_backend_abi_version"));
    auto create = reinterpret_cast<Create>(dlsym(handle, "fpx_create_backend"));
    if (!version || !create || version() != kBackendAbiVersion) {
        plugin.problem = file.string() + " is not a plugin of this fpx version";
        dlclose(handle);
        return plugin;
    }
    plugin.handle = handle;
    plugin.create = create;
    return plugin;
}

void createBackend(PluginLibrary& plugin) {
    if (!plugin.handle)
        return;
    try {
        plugin.backend = plugin.create();
    } catch (const std::exception& e) {
        plugin.problem = e.what();
    }
    if (!plugin.backend) {
        if (plugin.problem.empty())
            plugin.problem = "the plugin could not create its backend";
        dlclose(plugin.handle);
        plugin.handle = nullptr;
    }
}

LoadedBackends loadBackends() {
    LoadedBackends loaded;
    loaded.backends.push_back(createCpuBackend());
    loadPlugins({kPlugins.begin(), kPlugins.end()}, loaded);
    return loaded;
}

LoadedBackends loadBackend(std::string_view id) {
    LoadedBackends loaded;
    if (id == "cpu") {
        loaded.backends.push_back(createCpuBackend());
        return loaded;
    }
    for (const PluginName& plugin : kPlugins)
        if (plugin.id == id)
            loadPlugins({plugin}, loaded);
    return loaded;
}

} // namespace fpx::bench
