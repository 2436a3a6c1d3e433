// SPDX-License-Identifier: GPL-3.0-or-later
// Both sides of the backend probe (see fpx/bench/backend_probe.h): the parent starts
// fpx-backend-probe with posix_spawn and reads its report; the child opens the plugin through
// the same openPlugin() as the loader. POSIX only, so that the core stays free of Qt.
#include "fpx/bench/backend_probe.h"

#include "fpx/exact/format_catalogue.h"
#include "plugin_library.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <system_error>
#include <utility>

extern char** environ; // handed on unchanged: OCL_ICD_VENDORS, CUDA_VISIBLE_DEVICES …

namespace fpx::bench {

namespace {

using Clock = std::chrono::steady_clock;

// The signals a broken driver or a kill ends a process with, by name for the reason text.
std::string signalName(int signal) {
    struct Named {
        int number;
        const char* name;
    };
    constexpr Named kNames[] = {{SIGABRT, "SIGABRT"}, {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},
                                {SIGILL, "SIGILL"},   {SIGFPE, "SIGFPE"},   {SIGTRAP, "SIGTRAP"},
                                {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGALRM, "SIGALRM"},
                                {SIGPIPE, "SIGPIPE"}, {SIGINT, "SIGINT"}};
    for (const Named& named : kNames)
        if (named.number == signal)
            return named.name;
    return {};
}

std::string seconds(std::chrono::duration<double> time) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", time.count());
    return text;
}

// ---- the parent ------------------------------------------------------------------------------

// What fpx keeps of a probe's output, taken in line by line as it arrives, so that a driver
// that prints without end costs no memory.
struct Report {
    std::string lastStep;   // empty: the probe never got to its first step
    std::string driverSaid; // the last line that is not part of the protocol
    std::string partial;    // the line still being read

    void take(std::string line) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        if (line.empty())
            return;
        if (line.rfind(kProbeLinePrefix, 0) == 0) {
            const std::string_view rest = std::string_view(line).substr(kProbeLinePrefix.size());
            if (rest.rfind("step ", 0) == 0)
                lastStep = rest.substr(5);
            return;
        }
        constexpr std::size_t kLongest = 200;
        driverSaid = line.size() > kLongest ? line.substr(0, kLongest) + "…" : line;
    }

    void append(const char* data, std::size_t size) {
        constexpr std::size_t kLongestLine = 4096; // a longer one is taken in pieces
        for (std::size_t i = 0; i < size; ++i) {
            if (data[i] == '\n' || partial.size() >= kLongestLine)
                take(std::exchange(partial, {}));
            if (data[i] != '\n')
                partial += data[i];
        }
    }

    void finish() { take(std::exchange(partial, {})); }
};

struct RunningProbe {
    pid_t pid = -1;
    int fd = -1; // read end of the child's stdout and stderr; -1 once closed
    Report report;
    bool exited = false;
    int status = 0;
    bool statusUnknown = false; // reaped by someone else (SIGCHLD ignored): the report decides
    bool timedOut = false;
    std::string startError; // set when the child never ran
};

void closeOutput(RunningProbe& probe) {
    if (probe.fd >= 0)
        close(probe.fd);
    probe.fd = -1;
}

// Reads what is there without blocking; closes the pipe at its end.
void readAvailable(RunningProbe& probe) {
    char buffer[4096];
    while (probe.fd >= 0) {
        const ssize_t n = read(probe.fd, buffer, sizeof buffer);
        if (n > 0) {
            probe.report.append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            closeOutput(probe);
        } else if (errno != EINTR) {
            return; // nothing more for now
        }
    }
}

void reap(RunningProbe& probe, int options) {
    int status = 0;
    pid_t got;
    do {
        got = waitpid(probe.pid, &status, options);
    } while (got < 0 && errno == EINTR);
    if (got == probe.pid) {
        probe.exited = true;
        probe.status = status;
    } else if (got < 0) {
        // ECHILD: the child was reaped without us (SIGCHLD ignored), so it has ended but its
        // status is gone.
        probe.exited = true;
        probe.statusUnknown = true;
    }
}

RunningProbe start(const std::filesystem::path& probe, const std::filesystem::path& plugin,
                   std::chrono::duration<double> timeout) {
    RunningProbe running;
    int fds[2];
    // O_CLOEXEC: a probe started at the same time (or any other child of fpx) must not inherit
    // this pipe, or the end of this probe's output would wait for that one.
    if (pipe2(fds, O_CLOEXEC) != 0) {
        running.startError = std::string("cannot make a pipe: ") + std::strerror(errno);
        return running;
    }
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);

    // The probe starts with no signal blocked and SIGALRM at its default action, whatever fpx
    // has set: its alarm is the backstop that ends it if fpx is gone. It leads a process group
    // of its own, so that a timeout kills whatever helper processes the driver started too.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGALRM);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                              POSIX_SPAWN_SETPGROUP);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);

    const std::string probePath = probe.string();
    const std::string pluginPath = plugin.string();
    const std::string limit = std::to_string(static_cast<long>(std::ceil(timeout.count())));
    char* argv[] = {const_cast<char*>(probePath.c_str()), const_cast<char*>(pluginPath.c_str()),
                    const_cast<char*>(limit.c_str()), nullptr};
    const int error =
        posix_spawn(&running.pid, probePath.c_str(), &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(fds[1]);
    if (error != 0) {
        close(fds[0]);
        running.pid = -1;
        running.startError = "cannot start " + probePath + ": " + std::strerror(error);
        return running;
    }
    running.fd = fds[0];
    return running;
}

// Kills the probes still running at the time limit, each with its process group. SIGKILL
// takes effect when a process leaves the kernel, and one stuck in a driver's system call may
// not for a long while: such a probe is waited for a moment, then left behind (a zombie until
// fpx ends) rather than letting a broken driver hang fpx after all.
void killLate(std::vector<RunningProbe>& probes) {
    constexpr auto kGrace = std::chrono::seconds(1);
    for (RunningProbe& p : probes)
        if (p.pid > 0 && !p.exited) {
            kill(-p.pid, SIGKILL);
            p.timedOut = true;
        }
    const Clock::time_point giveUp = Clock::now() + kGrace;
    auto late = [&] {
        return std::any_of(probes.begin(), probes.end(),
                           [](const RunningProbe& p) { return p.pid > 0 && !p.exited; });
    };
    while (late() && Clock::now() < giveUp) {
        for (RunningProbe& p : probes)
            if (p.pid > 0 && !p.exited)
                reap(p, WNOHANG);
        if (late())
            poll(nullptr, 0, 10);
    }
    for (RunningProbe& p : probes) {
        if (p.timedOut) {
            readAvailable(p);
            closeOutput(p);
            p.exited = true; // reaped, or abandoned: either way no longer waited for
        }
    }
}

void waitForAll(std::vector<RunningProbe>& probes, std::chrono::duration<double> timeout) {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout);
    auto running = [&] {
        return std::any_of(probes.begin(), probes.end(),
                           [](const RunningProbe& p) { return p.pid > 0 && !p.exited; });
    };
    while (running()) {
        std::vector<pollfd> fds;
        std::vector<RunningProbe*> owners;
        for (RunningProbe& p : probes)
            if (p.fd >= 0) {
                fds.push_back({p.fd, POLLIN, 0});
                owners.push_back(&p);
            }
        // A short wait: a child may end without closing the pipe (a helper process the driver
        // started keeps it open), so its end is also looked for with waitpid.
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        const int wait = static_cast<int>(std::clamp<long long>(left.count(), 0, 50));
        poll(fds.data(), fds.size(), wait);
        for (std::size_t i = 0; i < fds.size(); ++i)
            if (fds[i].revents != 0)
                readAvailable(*owners[i]);
        for (RunningProbe& p : probes) {
            if (p.pid <= 0 || p.exited)
                continue;
            reap(p, WNOHANG);
            if (p.exited) {
                readAvailable(p); // what it wrote before it ended is in the pipe already
                closeOutput(p);
            }
        }
        if (Clock::now() < deadline)
            continue;
        killLate(probes);
    }
    for (RunningProbe& p : probes)
        closeOutput(p);
}

ProbeVerdict verdict(const RunningProbe& probe, const std::string& displayName,
                     std::chrono::duration<double> timeout) {
    ProbeVerdict v;
    if (probe.pid <= 0) {
        v.reason = "the " + displayName + " plugin is not loaded, as its driver could not be " +
                   "checked first: " + probe.startError;
        return v;
    }
    Report report = probe.report;
    report.finish();
    const bool exitedWithZero =
        probe.statusUnknown || (WIFEXITED(probe.status) && WEXITSTATUS(probe.status) == 0);
    if (probe.exited && !probe.timedOut && exitedWithZero && report.lastStep == kProbeLastStep) {
        v.passed = true;
        return v;
    }
    // Before its first step the probe itself failed (it could not start: a missing library),
    // not the driver.
    const std::string subject =
        report.lastStep.empty()
            ? std::string(kBackendProbeExecutable) + " (checking the " + displayName + " driver)"
            : "the " + displayName + " driver";
    const std::string where = report.lastStep.empty() ? std::string("before loading the plugin")
                                                      : "while " + report.lastStep;
    if (probe.timedOut) {
        v.reason = subject + " did not answer within " + seconds(timeout) + " " + where;
    } else if (WIFSIGNALED(probe.status)) {
        const int signal = WTERMSIG(probe.status);
        const std::string name = signalName(signal);
        v.reason = subject + " crashed " + where + " (signal " + std::to_string(signal) +
                   (name.empty() ? "" : ", " + name) + ")";
    } else if (WIFEXITED(probe.status) && WEXITSTATUS(probe.status) != 0) {
        v.reason = subject + " ended its process with exit status " +
                   std::to_string(WEXITSTATUS(probe.status)) + " " + where;
    } else {
        // Exit status 0 before the last step: the driver called exit() itself, which would
        // have ended fpx just the same.
        v.reason = subject + " ended its process " + where;
    }
    if (!report.driverSaid.empty())
        v.reason += "; it printed: " + report.driverSaid;
    return v;
}

// ---- the child -------------------------------------------------------------------------------

// One whole line per write, so that the driver's own output (the same pipe) never splits it.
void say(std::string_view kind, std::string_view text = {}) {
    std::string line(kProbeLinePrefix);
    line += kind;
    if (!text.empty()) {
        line += ' ';
        // One line each: a newline inside a driver's text would start a line of its own.
        for (char c : text)
            line += (c == '\n' || c == '\r') ? ' ' : c;
    }
    line += '\n';
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = write(STDOUT_FILENO, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += static_cast<std::size_t>(n);
    }
}

} // namespace

std::chrono::duration<double> probeTimeout() {
    if (const char* text = std::getenv("FPX_BACKEND_PROBE_TIMEOUT"); text && *text) {
        char* end = nullptr;
        const double value = std::strtod(text, &end);
        if (end != text && *end == '\0' && std::isfinite(value) && value > 0 && value <= 3600)
            return std::chrono::duration<double>(value);
    }
    return kDefaultProbeTimeout;
}

std::filesystem::path probeExecutable() {
    std::error_code error;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error)
        return {};
    return exe.parent_path() / kBackendProbeExecutable;
}

std::vector<ProbeVerdict> probePlugins(const std::vector<PluginToProbe>& plugins,
                                       const std::filesystem::path& probe,
                                       std::chrono::duration<double> timeout) {
    std::error_code error;
    const bool found = !probe.empty() && std::filesystem::is_regular_file(probe, error) &&
                       access(probe.c_str(), X_OK) == 0;
    std::vector<RunningProbe> running(plugins.size());
    for (std::size_t i = 0; i < plugins.size(); ++i) {
        if (!found) {
            // Loading the plugin unchecked is what this guards against; without the probe,
            // the backend stays out, and the reason says how to get it back.
            running[i].startError =
                (probe.empty() ? std::string(kBackendProbeExecutable) + " cannot be found"
                               : probe.string() + " is missing") +
                " (it is installed next to fpx)";
            continue;
        }
        running[i] = start(probe, plugins[i].file, timeout);
    }
    waitForAll(running, timeout);
    std::vector<ProbeVerdict> verdicts;
    for (std::size_t i = 0; i < plugins.size(); ++i)
        verdicts.push_back(verdict(running[i], plugins[i].displayName, timeout));
    return verdicts;
}

int runBackendProbe(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr,
                     "usage: %s PLUGIN [SECONDS]\n"
                     "Loads one fpx backend plugin, lists its devices and reports.\n",
                     argc > 0 ? argv[0] : "fpx-backend-probe");
        return 2;
    }
    if (argc == 3) {
        // A backstop for a hung driver whose parent is gone (and so cannot kill it): a second
        // past the parent's own limit, so that the parent's verdict says "did not answer".
        const long limit = std::strtol(argv[2], nullptr, 10);
        if (limit > 0)
            alarm(static_cast<unsigned>(limit) + 1);
    }

    say("step", "loading");
    PluginLibrary plugin = openPlugin(argv[1]);
    if (plugin.handle) {
        say("step", "listing its platforms and devices");
        createBackend(plugin);
    }
    if (!plugin.backend) {
        say("problem", plugin.problem);
    } else {
        std::unique_ptr<Backend> backend(plugin.backend);
        const std::string reason = backend->unavailableReason();
        const std::vector<DeviceInfo> devices = backend->devices();
        say("step", "reporting which formats each device supports");
        for (const DeviceInfo& device : devices)
            for (const FormatSpec& format : builtinFormats())
                for (Direction direction : {Direction::Encode, Direction::Decode})
                    backend->support(device.index, format, direction);
        if (!reason.empty())
            say("unavailable", reason);
        for (const DeviceInfo& device : devices)
            say("device", std::to_string(device.index) + " " + device.name);
        say("step", "being released");
        backend.reset();
        dlclose(plugin.handle);
    }
    say("step", kProbeLastStep);
    return 0;
}

} // namespace fpx::bench
