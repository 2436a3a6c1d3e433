// SPDX-License-Identifier: GPL-3.0-or-later
// fpx-backend-probe PLUGIN [SECONDS]: opens one backend plugin in a process of its own and
// reports how far it got, so that a driver that crashes or hangs takes down only this process,
// never fpx. fpx and fpx-explorer run it before loading a plugin (fpx::bench::loadBackends)
// and look for it next to themselves; see fpx/bench/backend_probe.h.
#include "fpx/bench/backend_probe.h"

int main(int argc, char** argv) {
    return fpx::bench::runBackendProbe(argc, argv);
}
