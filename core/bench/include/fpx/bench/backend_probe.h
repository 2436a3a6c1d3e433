// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

// Probing a backend plugin in a child process before fpx loads it.
//
// A GPU or OpenCL driver runs inside the process that calls it, and a broken one does not
// return an error: it aborts (pocl on a machine without /sys), dereferences garbage or waits
// forever. So before fpx dlopens a plugin, fpx-backend-probe, a small executable installed
// next to fpx, opens that plugin, lets it list its platforms and devices and asks which
// formats each device supports: everything fpx will do when it lists backends. fpx waits for
// it with a time limit; only when it ends cleanly is the plugin loaded into fpx itself.
// A probe that dies by a signal, exits otherwise or runs out of time leaves that one backend
// unavailable, with why, and fpx goes on with the others.
//
// The probe reports on its standard output, one line each, everything prefixed by
// kProbeLinePrefix ("fpx-probe "):
//   fpx-probe step <what it is about to do>      before each step, to say where it stopped
//   fpx-probe problem <text>                     the plugin did not load (fpx will say so too)
//   fpx-probe unavailable <reason>               the backend says it cannot run here
//   fpx-probe device <index> <name>              one line per device
// and, last, "fpx-probe step shutting down" before it returns (the driver's exit handlers
// still run after that). Any other line is the driver's own output (its standard error is
// the same pipe); fpx quotes the last such line in the reason, as drivers often say why they
// stop.

namespace fpx::bench {

inline constexpr std::string_view kBackendProbeExecutable = "fpx-backend-probe";
inline constexpr std::string_view kProbeLinePrefix = "fpx-probe ";
inline constexpr std::string_view kProbeLastStep = "shutting down";

// How long a probe may take, unless FPX_BACKEND_PROBE_TIMEOUT (seconds) says otherwise:
// enough for a driver's first initialisation on a cold machine (CUDA builds its device list,
// pocl reads its kernel cache), short enough that a hung driver is reported while one waits.
inline constexpr std::chrono::duration<double> kDefaultProbeTimeout{10.0};
std::chrono::duration<double> probeTimeout();

// fpx-backend-probe next to the running executable (/proc/self/exe); empty where that cannot
// be read.
std::filesystem::path probeExecutable();

struct PluginToProbe {
    std::string displayName;    // "OpenCL": names the driver in the verdict
    std::filesystem::path file; // the plugin library
};

struct ProbeVerdict {
    bool passed = false; // the probe went through every step and exited with status 0
    std::string reason;  // when not passed: "the OpenCL driver crashed while listing … (signal 6,
                         // SIGABRT)"
};

// Runs `probe` once for each plugin, all at the same time, and waits at most `timeout` for
// all of them together; a probe still running then is killed. One verdict per plugin, in order.
std::vector<ProbeVerdict> probePlugins(const std::vector<PluginToProbe>& plugins,
                                       const std::filesystem::path& probe,
                                       std::chrono::duration<double> timeout);

// The whole of fpx-backend-probe: `fpx-backend-probe PLUGIN [SECONDS]`. SECONDS, the parent's
// time limit, arms an alarm that ends a hung probe even where its parent is gone. Returns the
// exit status: 0 after every step (whether or not the plugin loaded or has devices), 2 for
// bad arguments.
int runBackendProbe(int argc, char** argv);

} // namespace fpx::bench
