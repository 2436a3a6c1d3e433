// SPDX-License-Identifier: GPL-3.0-or-later
// Loading a saved benchmark run (what the explorer's Benchmarks page opens for comparison,
// written by Export JSON… or `fpx bench --json`): the file read, the JSON parsed by Qt, every
// result's fields checked; then each result's comparison key. Saved runs are JSON only (the
// CSV export is not read back), so JSON is all there is to fuzz. Qt Core only.
#include "fuzz_support.h"

#include "pages/benchmarks/saved_run.h"

#include <QString>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static fpx::fuzz::ScratchFile file(".json");
    const QString path = QString::fromStdString(file.write(data, size));
    QString error;
    if (const auto run = fpx::gui::loadSavedRun(path, &error))
        for (const fpx::bench::BenchResult& result : run->results) {
            (void)fpx::gui::resultKey(result, true);
            (void)fpx::gui::resultKey(result, false);
        }
    return 0;
}
